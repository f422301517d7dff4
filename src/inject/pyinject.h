/* lperf inject --python: a copy of a recording in which the Python frames lperf read from the
 * interpreter (record --python's stored stacks, JIT_SRC_PYSTACKS) are ordinary symbols for Linux
 * perf.
 *
 * Each sample is resolved as lperf report resolves it (call chain or DWARF unwind, Python stacks
 * joined in place of the interpreter's eval frames, python/pymerge.h), and its stack written back
 * as a PERF_SAMPLE_CALLCHAIN: native frames at their recorded addresses, each Python function
 * (every py:: frame, also those of CPython's own perf map or jitdump) at an address of its own in
 * one synthetic ELF (symbols/jitelf.h: jitelf_write_syms_file), one FUNC symbol per function,
 * named as CPython's perf support names them ("py::foo:/path/app.py"). That ELF is mapped into
 * each process with Python frames by a PERF_RECORD_MMAP2 written just ahead of the process's
 * first such sample (and again after an exec), at PYINJECT_BASE, a range no x86-64 or AArch64
 * process uses by default (a mapping seen there is warned about).
 *
 * Events that copied user stacks (--call-graph dwarf, record --python's default) cannot be
 * unwound again once their frames are rewritten: their samples become call-chain samples
 * (sample_type loses REGS_USER and STACK_USER and gains CALLCHAIN, sample_regs_user and
 * sample_stack_user become 0); so do events without call chains. Everything else in the
 * samples, and every other record, is kept. The sampled ip becomes the Python function's when
 * the innermost frame is one (the eval loop itself was running), so perf's self time matches the
 * stack. The output is written in time order (the session's), with FINISHED_ROUND where the
 * input had them.
 *
 * The stored Python stacks are left out of the copy (its stacks carry them now); perf maps and
 * jitdumps stored by lperf record are kept. */
#ifndef LPERF_INJECT_PYINJECT_H
#define LPERF_INJECT_PYINJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"
#include "util/notes.h"

#define PYINJECT_BASE 0x100000000000ull /* 16 TiB: below PIE executables, above non-PIE ones */
#define PYINJECT_SLOT 16u                /* bytes per Python function in the ELF */
#define PYINJECT_MAX_FUNCS (1u << 20)    /* distinct Python functions named (the rest: unnamed) */

struct pyinject_opts {
	const char *elf_path;    /* absolute path of the synthetic ELF (pyinject_elf_path) */
	bool pipe_output;        /* w writes pipe mode: no build-id for the ELF (perf reads it unchecked) */
	bool force;              /* read JIT files in /tmp whoever owns them */
	/* --python-view: the stacks as lperf report --python shows them (interpreter frames
	 * between and around Python frames folded away, resolve_python_view), so that perf's Self
	 * column is lperf's too and stacks stay short. */
	bool view;
};

struct pyinject_stats {
	size_t records;          /* records written (the added maps not counted) */
	size_t samples;          /* samples written */
	size_t python_samples;   /* of them, with a Python frame */
	size_t bad_samples;      /* samples that did not parse: dropped */
	size_t converted_events; /* events whose stack copies became call chains */
	size_t functions;        /* symbols in the ELF */
	size_t maps;             /* MMAP2 records added */
};

struct pyinject_result {
	struct pyinject_stats stats;
	struct notes warnings;   /* one line each, for the command to print */
};

/* The synthetic ELF's path for an output file: "<absolute directory>/<name>.python.so". dir (may
 * be NULL) overrides the directory; for pipe output (output "-") dir is needed. NULL after
 * err_set when the directory cannot be resolved. Free with free(). */
char *pyinject_elf_path(const char *output, const char *dir);

/* Copies r to w (no events yet) with the Python frames as described above, then writes the ELF
 * to o->elf_path (temporary file, renamed) when there was any Python frame. Returns 0, or -1 with
 * err_set() when reading, resolving or writing fails. The caller closes r and w. */
int pyinject_run(struct perfdata_reader *r, struct perfdata_writer *w, const struct pyinject_opts *o,
		 struct pyinject_result *res);
void pyinject_result_free(struct pyinject_result *res);

#endif
