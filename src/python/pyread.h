/* Reading a running CPython from outside with process_vm_readv: its thread states, a thread's
 * frame chain (the fallback where BPF is not available), and the code objects that frames point
 * to (always: the BPF program only sends their addresses). A code object is read once and cached
 * by address: qualified name (3.11+; the plain name before), file, first line and line table, so
 * that any instruction offset in it gives its line without touching the process again. */
#ifndef LPERF_PYTHON_PYREAD_H
#define LPERF_PYTHON_PYREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "python/pylayout.h"
#include "util/hashmap.h"

/* Copies len bytes at addr of pid; 0, or -1 with err_set() (partial reads are failures). */
int pyread_mem(pid_t pid, uint64_t addr, void *buf, size_t len);

/* A frame as found in memory: the code object's address, the raw instruction position (f_lasti
 * for 2.7 and 3.6-3.10, the instruction pointer for 3.11+) and the raw entry byte (3.11: is_entry,
 * 3.12+: owner). The BPF program sends the same triple. */
struct py_rawframe {
	uint64_t code, lasti;
	uint64_t sig;            /* pyread_sig of the code object when the frame was read */
	uint8_t aux;
	uint64_t frame;          /* the frame's address (pyread_stack; 0 from BPF), for its locals */
};

/* A code object's signature: its co_name and co_filename pointers and first line, read with the
 * frame, so that a code object freed and another allocated at its address are not confused in
 * the cache (names like "<module>" are interned: the file tells modules apart). The BPF program
 * computes the same. */
static inline uint64_t pyread_sig(uint64_t name_ptr, uint64_t file_ptr, uint32_t firstline)
{
	return name_ptr ^ ((file_ptr << 13) | (file_ptr >> 51)) ^ ((uint64_t)firstline << 48);
}

/* A frame ready to be stored: the code object (index into the reader's code table), its line,
 * and whether it is the outermost frame of one C-level call of the eval loop (each such group
 * stands for one _PyEval_EvalFrameDefault native frame). */
struct py_frame {
	uint32_t code;
	int32_t line;
	bool entry;
};

struct py_code {
	uint64_t addr;           /* in the process */
	uint64_t sig;            /* pyread_sig when it was read: with addr, the cache key */
	uint32_t id;             /* index in the reader's table */
	char *name;              /* co_qualname (3.11+), else co_name */
	char *filename;
	int32_t firstline;
	uint8_t *linetable;      /* lnotab / linetable / location table bytes */
	size_t ltlen;
	bool bad;                /* not a readable code object: its frames are dropped */
	bool shim;               /* 3.13's _Py_InitCleanup ("__init__" in file "__init__"), which
	                          * closes a class call whose __init__ is Python: no user code, dropped */
};

struct pyread {
	struct py_proc proc;
	struct py_code **codes;  /* by id */
	size_t ncodes, ccap;
	struct hashmap index;    /* (addr, sig) -> its struct py_code */
	uint64_t code_type;      /* the address of PyCode_Type once one code object was checked */
	/* A forked child's: the parent's reader (set by the caller around pyread_cook), which
	 * names the inherited code objects the child can no longer be asked about. */
	struct pyread *parent;
	struct py_thread *th;    /* pyread_threads_all's */
	size_t thcap;
};

void pyread_init(struct pyread *r, const struct py_proc *p);
void pyread_free(struct pyread *r);
/* The code object at addr with signature sig, read on first use; never NULL (bad is set when it
 * could not be read, is not a code object, or no longer has that signature). */
const struct py_code *pyread_code(struct pyread *r, uint64_t addr, uint64_t sig);
/* Turns raw frames (innermost first) into stored frames; shims and unreadable code objects are
 * dropped. Returns how many were written to out (at most max). */
size_t pyread_cook(struct pyread *r, const struct py_rawframe *raw, size_t n, struct py_frame *out, size_t max);

/* The line of byte offset off in a code object's line table (-1 when the table says none). */
int pyline_lookup(enum py_linetable kind, const uint8_t *tab, size_t len, int firstline, uint64_t off);

/* A str object (2.7: a byte string) as UTF-8, its first max characters at most (*cut when it is
 * longer; may be NULL). NULL when it is not a readable compact string. */
char *pyread_str_prefix(struct pyread *r, uint64_t addr, size_t max, bool *cut);
/* A bytes object's (2.7: a str's) first max bytes at most, *len of them (*cut when it is longer;
 * the buffer has a byte to spare for a NUL). NULL when it cannot be read. */
uint8_t *pyread_bytes_prefix(struct pyread *r, uint64_t addr, size_t max, size_t *len, bool *cut);

/* Thread states of the process's (most recent) interpreter. */
struct py_thread {
	uint64_t tstate;
	uint64_t pthread;        /* thread_id */
	int32_t tid;             /* native_thread_id (3.11+), else 0 */
};
/* Up to max threads; -1 with err_set() when the interpreter cannot be read. */
int pyread_threads(struct pyread *r, struct py_thread *out, size_t max);
/* Every thread (up to 65,536) into r->th, grown as needed (64 at first: a 64-thread program's
 * 65th thread had no stacks); valid until the next call. */
int pyread_threads_all(struct pyread *r);
/* The kernel tid of a thread state: native_thread_id (3.11+), else the tid field of glibc's
 * struct pthread that pthread_t points to (its offset found once in lperf's own thread: the
 * process normally uses the same glibc). 0 when unknown. */
int32_t pyread_tid(struct pyread *r, const struct py_thread *t);
/* The frames of one thread state, innermost first; *truncated when max was reached. */
size_t pyread_stack(struct pyread *r, uint64_t tstate, struct py_rawframe *out, size_t max, bool *truncated);

#endif
