/* What to profile: a command lperf starts (held before exec until counters are armed), an
 * existing process (-p) or threads (-t). CPU-wide targets need no process and live in the
 * counting code's CPU list. */
#ifndef LPERF_TARGET_TARGET_H
#define LPERF_TARGET_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "util/cpuset.h"

struct target {
	pid_t pid;        /* the started command or the -p process; 0 when none */
	pid_t *tids;      /* threads to count (per-thread counters); empty for a started command */
	size_t ntids;
	bool started;     /* lperf started the command (and so waits for it) */
	int go_fd;        /* started: writing to it lets the child exec */
	int exec_err_fd;  /* started: the child writes its exec errno here; EOF means exec worked */
	char *name;       /* argv[0] of the command, or "PID n" */
	int pidfd;        /* -p/-t: a pidfd of t->pid (has_pidfd), so a reused pid is not taken for it */
	bool has_pidfd;
};

#define TARGET_INIT { .go_fd = -1, .exec_err_fd = -1 }

/* Forks the command, stopped before exec. pin (may be NULL or empty) sets its CPU affinity. */
int target_start_command(struct target *t, char **argv, const struct cpuset *pin);
/* The same; stdout_to_stderr makes the command's standard output lperf's standard error (perf
 * record -o - does that: the recording owns standard output). */
int target_start_command_out(struct target *t, char **argv, const struct cpuset *pin, bool stdout_to_stderr);
/* Lets the command exec; -1 (with err_set) if exec failed, e.g. command not found. */
int target_go(struct target *t);
/* Abandons a command that was never let go: the child exits without running anything. */
void target_abandon(struct target *t);
/* Waits for the started command. Returns 0 when it ended (status holds the exit status as a
 * shell would report it: code, or 128+signal), 1 when timeout_ms passed first, -1 on error.
 * timeout_ms < 0 waits for ever. Interrupted waits (EINTR) return 1 so callers can check flags. */
int target_wait(struct target *t, int timeout_ms, int *status, struct rusage *ru);

/* -p PID[,PID...]: every thread of each process, from /proc/PID/task. */
int target_attach_pids(struct target *t, const char *list);
/* -t TID[,TID...] */
int target_attach_tids(struct target *t, const char *list);
/* Every thread of every process in /proc (perf's --per-thread -a); t->pid is left alone. */
int target_attach_all(struct target *t);
/* /proc/TID/comm without its newline; NULL when the thread is gone. */
char *target_comm(pid_t tid);
/* True while the attached process (t->pid) exists: followed by its pidfd where the kernel gives
 * one (pidfd_open, Linux 5.3), so a new process that got the same pid does not count. */
bool target_alive(const struct target *t);

void target_free(struct target *t);

#endif
