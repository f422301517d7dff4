#include "python/pypause.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/xalloc.h"

static bool have(const struct pypause *p, pid_t tid)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->t[i].tid == tid)
			return true;
	return false;
}

static int seize_error(pid_t pid, int e)
{
	if (e != EPERM)
		return err_set("pid %d: cannot pause its threads (PTRACE_SEIZE): %s", (int)pid, strerror(e));
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) == 0 && st.st_uid != geteuid())
		return err_set("pid %d belongs to user %u, not to you (user %u): permission denied; run "
			       "lperf as that user or as root (CAP_SYS_PTRACE)", (int)pid, (unsigned)st.st_uid,
			       (unsigned)geteuid());
	return err_set("pid %d: permission denied pausing its threads (is it traced already, by a "
		       "debugger or strace?); --nonblocking reads it without pausing", (int)pid);
}

/* Seizes and stops tid. 0 stopped, 1 gone (it exited meanwhile), -1 with errno. */
static int stop_one(pid_t tid, int *sig)
{
	*sig = 0;
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
		return errno == ESRCH ? 1 : -1;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
		int e = errno;
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		errno = e;
		return e == ESRCH ? 1 : -1;
	}
	for (;;) {
		int st;
		pid_t w = waitpid(tid, &st, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			return 1;
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 16) == PTRACE_EVENT_STOP)
			return 0;
		/* a signal-delivery stop came first: keep the signal for the detach, and wait for
		 * the interrupt's stop */
		*sig = WSTOPSIG(st);
		if (ptrace(PTRACE_CONT, tid, NULL, NULL) < 0)
			return 1;
		ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
	}
}

/* One pass over /proc/PID/task: stops the threads not stopped yet; how many were new, or -1. */
static int stop_round(struct pypause *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	DIR *d = opendir(path);
	if (!d)
		return err_set("%s: %s", path, strerror(errno));
	int added = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0 || have(p, (pid_t)tid))
			continue;
		int sig, rc = stop_one((pid_t)tid, &sig);
		if (rc < 0) {
			int e = errno;
			closedir(d);
			return seize_error(p->pid, e);
		}
		if (rc)
			continue;
		ALLOC_GROW(p->t, p->n + 1, p->cap);
		p->t[p->n].tid = (pid_t)tid;
		p->t[p->n++].sig = sig;
		added++;
	}
	closedir(d);
	return added;
}

int pypause_stop(pid_t pid, struct pypause *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	/* A thread can only be started by one still running: once a pass finds none new, every
	 * thread is stopped. */
	for (int round = 0; round < 64; round++) {
		int added = stop_round(p);
		if (added < 0) {
			pypause_resume(p);
			return -1;
		}
		if (!added)
			return 0;
	}
	pypause_resume(p);
	return err_set("pid %d: threads keep starting; --nonblocking reads it without pausing", (int)pid);
}

void pypause_resume(struct pypause *p)
{
	for (size_t i = 0; i < p->n; i++)
		ptrace(PTRACE_DETACH, p->t[i].tid, NULL, (void *)(uintptr_t)p->t[i].sig);
	free(p->t);
	memset(p, 0, sizeof(*p));
}
