/* lperf dump: every thread's Python stack of a running CPython 2.7 or 3.6-3.13, now (py-spy's
 * dump), read with python/pyread.h's process_vm_readv reader while the process's threads are
 * paused (python/pypause.h), or without pausing when asked. */
#ifndef LPERF_PYTHON_PYDUMP_H
#define LPERF_PYTHON_PYDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "python/pylocals.h"

struct pydump_frame {
	char *func;               /* co_qualname (3.11+), else co_name */
	char *file;               /* co_filename */
	int line;                 /* -1 when the line table says none */
	struct pylocal *locals;   /* PYDUMP_LOCALS: its bound local variables, arguments first */
	size_t nlocals;
	bool native;              /* PYDUMP_NATIVE: a native frame (func: its symbol or 0x address,
				   * file: the file mapped there, line -1) */
	bool entry;               /* a Python frame that is the outermost of one call of the eval
				   * loop */
};

struct pydump_thread {
	int32_t tid;              /* the kernel's thread id, 0 when it could not be found */
	uint64_t thread_id;       /* the thread state's thread_id (pthread_t) */
	char name[32];            /* the kernel's name of the thread (comm), "" when unknown */
	char pyname[64];          /* its threading.Thread's name, "" when unknown */
	bool active;              /* not blocked in a system call (running, runnable, or stopped by
				   * the pause outside one) */
	bool truncated;           /* deeper than the depth asked: the outermost frames are cut */
	bool gil;                 /* it held the GIL (python/pygil.h) */
	struct pydump_frame *frames;  /* innermost first */
	size_t nframes;
};

struct pydump {
	pid_t pid;
	char *cmdline;            /* /proc/PID/cmdline, arguments joined by spaces */
	int major, minor;         /* the CPython version */
	char lib[256];            /* the file defining _PyRuntime (libpython or the executable) */
	bool paused;              /* the threads were stopped for the read */
	bool locals;              /* PYDUMP_LOCALS: the frames' locals were read */
	bool gil_known;           /* the GIL's holder was read (gil of each thread is meaningful) */
	bool gil_only;            /* pydump_keep_gil: only the thread holding the GIL is left */
	bool native;              /* PYDUMP_NATIVE: native frames are among them */
	struct pydump_thread *threads;  /* in the interpreter's order (the newest thread first) */
	size_t nthreads;
};

#define PYDUMP_LOCALS 1u       /* read each frame's local variables too */
#define PYDUMP_NATIVE 2u       /* native frames too, in place of the eval loop's calls (needs
				* pause) */

/* Reads every Python thread's stack of pid, at most depth frames each (the innermost). pause:
 * stop the threads for the read (a consistent read), else read them while they run. flags:
 * PYDUMP_*. -1 with
 * err_set() when there is no such process, it is not a CPython this reader knows, it cannot be
 * read (another user's process: the message says what to do) or its version is not supported. */
int pydump_take(pid_t pid, bool pause, unsigned depth, unsigned flags, struct pydump *d);
/* --gil: leaves only the thread holding the GIL (none when nobody held it). */
void pydump_keep_gil(struct pydump *d);
void pydump_free(struct pydump *d);

#endif
