/* lperf dump --native: a paused thread's native (C) stack, unwound on the live process with
 * libdwfl (elfutils: CFI from .eh_frame/.debug_frame, its frame-pointer fallback) while the
 * threads are stopped by this process's ptrace (python/pypause.h), and its calls of CPython's
 * eval loop replaced by the Python frames each was running, as py-spy dump --native does. */
#ifndef LPERF_PYTHON_PYNATIVE_H
#define LPERF_PYTHON_PYNATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PYNATIVE_MAX 512   /* native frames read of one thread */

struct pynative_frame {
	uint64_t pc;
	char *func;          /* the symbol, or NULL when none covers pc */
	char *module;        /* the file mapped there, or NULL */
	bool eval;           /* a call of the eval loop (_PyEval_EvalFrameDefault; 2.7:
			      * PyEval_EvalFrameEx) */
};

struct pynative;

/* Prepares to unwind pid's threads (stopped by this process's ptrace). NULL with err_set(). */
struct pynative *pynative_open(pid_t pid);
/* Thread tid's native frames, innermost first, at most max; how many (0 when it cannot be
 * unwound). The strings are the caller's to free (pynative_frames_free). */
size_t pynative_stack(struct pynative *n, pid_t tid, struct pynative_frame *out, size_t max);
void pynative_frames_free(struct pynative_frame *f, size_t n);
void pynative_close(struct pynative *n);

#endif
