/* Annotation: where a function's samples fall, instruction by instruction and source line by
 * source line. Samples are collected per (event, DSO, symbol) from each sample's own ip (as perf
 * annotate counts them); a function chosen for display is then disassembled in-process
 * (capstone: x86-64 and AArch64) from the bytes of its file (the executable or shared library,
 * whose addresses are the DSO's own, so load biases never enter), the vDSO image, or the code a
 * jitdump recorded, and each instruction gets its source line and inline function (libdw,
 * symbols/srcline.h).
 *
 * A DSO whose file has another build-id than the recording's is never disassembled: the bytes
 * would not be the code that ran. */
#ifndef LPERF_ANALYSIS_ANNOT_H
#define LPERF_ANALYSIS_ANNOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve/resolve.h"
#include "util/hashmap.h"

struct annot_insn {
	uint64_t addr;           /* the DSO's address (objdump's) */
	uint32_t size;
	char text[160];          /* "mnemonic operands" (AT&T syntax on x86-64) */
	uint64_t samples, period;
	const char *file;        /* source file (full path, interned); NULL: no line information */
	unsigned line;
	const char *inlined;     /* the innermost inlined function here; NULL: the function itself */
	bool has_target;         /* a direct jump or call */
	uint64_t target;
	bool target_inside;      /* the target is in this function */
	bool is_target;          /* a jump inside the function lands here */
};

/* Samples per source line (the line of each sampled instruction; inlined code counts at its own
 * line, as perf's srcline does). */
struct annot_line {
	const char *file;        /* NULL: instructions without line information */
	unsigned line;
	uint64_t samples, period;
	size_t first_insn;       /* index of its first instruction (for --disassemble) */
};

struct jitdump_code;

struct annot_func {
	int evidx;               /* the event's index in the recording */
	struct dso *dso;
	const struct symbol *sym;
	uint64_t samples, period;
	/* raw sample addresses until annot_func_disassemble */
	struct annot_hit { uint64_t addr, samples, period; } *hits;
	size_t nhits, hcap, merged; /* merged: nhits after the last annot_func_merge */
	const struct jitdump_code *jit_code; /* JIT code from a jitdump: its bytes and lines */
	/* after annot_func_disassemble */
	bool done;
	const char *note;        /* why it could not be disassembled; NULL when it was */
	struct annot_insn *insns;
	size_t ninsns;
	struct annot_line *lines; /* sorted by samples, most first */
	size_t nlines;
	uint64_t unplaced;       /* samples at no instruction boundary of the disassembly */
};

struct annot {
	struct annot_func **v;   /* sorted by annot_sort */
	size_t n, cap;
	struct hashmap index;    /* (evidx, dso, sym) -> its struct annot_func */
	uint64_t *ev_samples, *ev_period; /* per event */
	size_t nev;
	struct machine *machine; /* for JIT code bytes (may be NULL) */
};

void annot_init(struct annot *a);
/* Counts one sample at its own ip (frames[0]); samples without a symbol are not annotated. */
void annot_add(struct annot *a, const struct resolved_sample *rs);
/* Merges f's raw hits into one per address, sorted by address (annot_add does it now and then
 * to bound memory; annot_func_disassemble does it first). */
void annot_func_merge(struct annot_func *f);
/* Hottest functions first (samples, then name). */
void annot_sort(struct annot *a);
/* Disassembles f once; on failure f->note says why (build-id mismatch, unreadable code,
 * unknown architecture) and -1 is returned with err_set(). */
int annot_func_disassemble(struct annot *a, struct annot_func *f);
/* Forgets f's disassembly and counts: the next annot_func_disassemble places its hits anew (a
 * live view, lperf top, whose hits keep growing). */
void annot_func_reset(struct annot_func *f);
void annot_free(struct annot *a);

/* Line n (1-based) of a source file, read once and kept; NULL when unreadable or past its end.
 * *len gets the line's length (no newline). */
const char *annot_source_line(const char *path, unsigned n, size_t *len);
void annot_sources_free(void);

#endif
