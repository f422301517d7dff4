/* Python stacks in a recording: what `lperf record --python` found in a process (from BPF at
 * each sample, or read with process_vm_readv between the samples), stored as one blob per
 * process in lperf's JIT-source feature section (kind JIT_SRC_PYSTACKS), so that report and
 * script need no live process. At report time the blob's stacks are joined with the samples by
 * (tid, time) and replace the interpreter's _PyEval_EvalFrameDefault frames.
 *
 * Blob (little-endian): "LPPYSTK1", u32 flags (PYSTORE_APPROX, PYSTORE_GIL_*, PYSTORE_OWN, PYSTORE_NAMES, PYSTORE_PAUSED), u32 ncodes, then per code
 * {i32 firstline, u16 len, name, u16 len, filename}; u32 nstacks, then per stack {u64 time,
 * u32 tid, u16 nframes, u16 flags (PYSTORE_TRUNCATED, PYSTORE_GIL), nframes x {u32 code, i32 line, u8 entry}}; frames innermost
 * first, each code an index into the codes. With PYSTORE_NAMES the threads' Python names follow
 * (threading.Thread.name): u32 nnames, then per thread {u32 tid, u16 len, name}; a reader that
 * does not know them stops before them. */
#ifndef LPERF_PYTHON_PYSTORE_H
#define LPERF_PYTHON_PYSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "python/pyread.h"

#define PYSTORE_APPROX 1     /* stacks read at drain time, not at the sample's instant */
#define PYSTORE_GIL_KNOWN 2  /* each stack says whether its thread held the GIL */
#define PYSTORE_GIL_ONLY 4   /* record --gil: views keep only samples of the GIL's holder */
#define PYSTORE_GIL_MARK 8   /* record --wall: views mark the GIL holder's stacks ([GIL]) */
#define PYSTORE_OWN 16       /* the process names its Python frames itself (-X perf, -X perf_jit):
			      * its stacks only extend those (python/pymerge.h) */
#define PYSTORE_NAMES 32     /* the threads' Python names follow the stacks */
#define PYSTORE_PAUSED 64    /* without BPF, read with the threads paused at each sample (exact:
			      * lperf wrote the samples at those instants, python/pysampler.h) */
#define PYSTORE_TRUNCATED 1  /* per stack: deeper frames were cut */
#define PYSTORE_GIL 2        /* per stack: its thread held the GIL */

/* Writing: stacks are appended as they come; the code table is taken from the reader at the
 * end. */
#define PYSTORE_NAME_MAX 64  /* a thread's name, its NUL included (pythname's) */
struct pystore_writer {
	uint8_t *stacks;
	size_t len, cap;
	uint32_t nstacks;
	uint32_t flags;
	/* every thread with a stack, and its Python name ("" while unknown) */
	struct pystore_tname {
		uint32_t tid;
		char name[PYSTORE_NAME_MAX];
	} *names;
	size_t nnames, ncap;
	size_t unnamed;          /* threads whose name is still "" */
	uint32_t last_tid;       /* the last thread added (known to names) */
};
void pystore_add(struct pystore_writer *w, uint64_t time, uint32_t tid, uint16_t flags,
		 const struct py_frame *f, size_t n);
/* tid's Python name (cut at PYSTORE_NAME_MAX - 1 bytes); a thread without stacks is added too. */
void pystore_set_name(struct pystore_writer *w, uint32_t tid, const char *name);
/* The blob (malloc'd) for the stacks so far and the reader's code objects. */
uint8_t *pystore_finish(const struct pystore_writer *w, const struct pyread *r, size_t *len);
void pystore_writer_free(struct pystore_writer *w);

/* Reading, and joining with samples. */
struct pystore;
struct pystore *pystore_new(void);
/* Adds pid's blob; -1 with err_set() naming the offset when it is damaged (nothing is kept). */
int pystore_load(struct pystore *s, int32_t pid, const uint8_t *blob, size_t len);
/* The Python name of (pid, tid) stored with its stacks; NULL when none is known. */
const char *pystore_thread_name(const struct pystore *s, int32_t pid, uint32_t tid);
/* pid's blob flags (PYSTORE_*); 0 when it has none. */
uint32_t pystore_proc_flags(const struct pystore *s, int32_t pid);
/* Whether any process's stacks were read approximately (the report header says so). */
bool pystore_approx(const struct pystore *s);
/* Whether any process's stacks were read with its threads paused (and none approximately). */
bool pystore_paused(const struct pystore *s);
/* Whether every process whose stacks were read approximately (at least one) named its Python
 * frames itself (PYSTORE_OWN: -X perf, -X perf_jit), so that the reads only extend those. */
bool pystore_own(const struct pystore *s);
size_t pystore_nstacks(const struct pystore *s);

/* One Python frame for a view: its name as CPython's perf support writes it
 * ("py::foo:/path/file.py", so views treat both sources alike) and its line. */
struct pystore_frame {
	const struct symbol *sym;
	int32_t line;
	bool entry;
};
/* What the GIL says of the sample of (pid, tid) at time: -1 unknown (no stack taken for it, or
 * a recording without GIL information), 0 its thread did not hold it, 1 it did. */
int pystore_gil(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time);
/* The recording's GIL requests (record --gil, record --wall): PYSTORE_GIL_ONLY, PYSTORE_GIL_MARK
 * of any process's stacks. */
uint32_t pystore_gil_flags(const struct pystore *s);

/* The stack taken for (pid, tid) nearest to time (within 1 ms; for approximate stacks within
 * 250 ms); NULL when none. *n frames, innermost first; *truncated when its outer frames were
 * cut (the reader's bound). */
const struct pystore_frame *pystore_find(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time,
					 size_t *n, bool *truncated);
/* The stacks taken for (pid, tid) just before (or at) time and just after it, within the same
 * window (each f NULL when there is none); false when neither is. */
struct pystore_hit {
	const struct pystore_frame *f;
	size_t n;
	bool truncated;
	uint64_t time;
};
bool pystore_around(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time, struct pystore_hit *before,
		    struct pystore_hit *after);
void pystore_free(struct pystore *s);

#endif
