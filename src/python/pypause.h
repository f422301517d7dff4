/* Pausing every thread of a process for a consistent read of its memory, as py-spy does: each
 * thread is seized (PTRACE_SEIZE, which neither signals nor changes it) and stopped with
 * PTRACE_INTERRUPT; resuming detaches them, and each runs on where it was (a system call it
 * was blocked in is restarted by the kernel). Threads started while the others are being
 * stopped are stopped too. A tracer that exits detaches its tracees, so a killed lperf leaves
 * no process stopped. */
#ifndef LPERF_PYTHON_PYPAUSE_H
#define LPERF_PYTHON_PYPAUSE_H

#include <stddef.h>
#include <sys/types.h>

struct pypause {
	pid_t pid;
	struct pypause_thread {
		pid_t tid;
		int sig;          /* a signal its stop caught, given back when it resumes */
	} *t;
	size_t n, cap;
};

/* Stops every thread of pid. -1 with err_set() when one cannot be seized (another user's
 * process, one already traced: the message says which and what to do); nothing stays stopped
 * then. */
int pypause_stop(pid_t pid, struct pypause *p);
/* Lets every stopped thread run on and frees p. */
void pypause_resume(struct pypause *p);

#endif
