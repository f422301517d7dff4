#include "target/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/cpuset.h"
#include "util/error.h"
#include "util/xalloc.h"

int target_start_command(struct target *t, char **argv, const struct cpuset *pin)
{
	return target_start_command_out(t, argv, pin, false);
}

int target_start_command_out(struct target *t, char **argv, const struct cpuset *pin, bool stdout_to_stderr)
{
	int go[2], ex[2];
	memset(t, 0, sizeof(*t));
	t->go_fd = t->exec_err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0)
		return err_set("cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return err_set("cannot start '%s': fork failed: %s", argv[0], strerror(errno));
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (pin && pin->n) {
			cpu_set_t set;
			CPU_ZERO(&set);
			for (size_t i = 0; i < pin->n; i++)
				if (pin->cpu[i] < CPU_SETSIZE)
					CPU_SET(pin->cpu[i], &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		/* Wait until the parent has armed the counters; EOF without a byte means give up. */
		char c;
		ssize_t r;
		do
			r = read(go[0], &c, 1);
		while (r < 0 && errno == EINTR);
		if (r != 1)
			_exit(127);
		if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		int e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0) {
			/* nothing more to do: the parent sees EOF and a 127 status */
		}
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	t->pid = pid;
	t->started = true;
	t->go_fd = go[1];
	t->exec_err_fd = ex[0];
	t->name = xstrdup(argv[0]);
	return 0;
}

int target_go(struct target *t)
{
	char c = 1;
	if (write(t->go_fd, &c, 1) != 1)
		return err_set("cannot start '%s': %s", t->name, strerror(errno));
	close(t->go_fd);
	t->go_fd = -1;
	int e = 0;
	ssize_t r;
	do
		r = read(t->exec_err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(t->exec_err_fd);
	t->exec_err_fd = -1;
	if (r == (ssize_t)sizeof(e)) {
		waitpid(t->pid, NULL, 0);
		t->started = false;
		return err_set("cannot run '%s': %s", t->name,
			       e == ENOENT ? "command not found" : strerror(e));
	}
	return 0;
}

void target_abandon(struct target *t)
{
	if (!t->started)
		return;
	if (t->go_fd >= 0)
		close(t->go_fd);
	t->go_fd = -1;
	waitpid(t->pid, NULL, 0);
	t->started = false;
}

int target_wait(struct target *t, int timeout_ms, int *status, struct rusage *ru)
{
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int st;
		/* A peek first (WNOWAIT): while lperf's own thread traces the command
		 * (python/pysampler.h), this wait would be handed the command's ptrace stops, which
		 * are the tracer's; only its end is taken. */
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		pid_t r = 0;
		if (waitid(P_PID, (id_t)t->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
			r = -1;
		else if (si.si_pid == t->pid && si.si_code != CLD_TRAPPED && si.si_code != CLD_STOPPED &&
			 si.si_code != CLD_CONTINUED)
			r = wait4(t->pid, &st, WNOHANG, ru);
		if (r < 0) {
			if (errno == EINTR)
				return 1;
			return err_set("cannot wait for '%s': %s", t->name, strerror(errno));
		}
		if (r == t->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
			*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			t->started = false;
			return 0;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (timeout_ms >= 0 && elapsed >= timeout_ms)
			return 1;
		/* Short sleeps keep the wake-up latency small without a SIGCHLD handler. */
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			return 1;
	}
}

static int add_tid(struct target *t, pid_t tid, size_t *cap)
{
	for (size_t i = 0; i < t->ntids; i++)
		if (t->tids[i] == tid)
			return 0;
	ALLOC_GROW(t->tids, t->ntids + 1, *cap);
	t->tids[t->ntids++] = tid;
	return 0;
}

/* Splits a comma list of positive integers. */
static int each_id(const char *list, const char *what, int (*fn)(struct target *, pid_t, size_t *),
		   struct target *t, size_t *cap)
{
	const char *p = list;
	if (!*p)
		return err_set("empty %s list", what);
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > 0x3fffffff || (*end && *end != ','))
			return err_set("invalid %s list '%s': expected numbers such as 1234,1240", what, list);
		if (fn(t, (pid_t)v, cap) < 0)
			return -1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* t->pid = pid, held by a pidfd when the kernel gives one (a thread that is not a process
 * leader gets none before Linux 6.9: /proc's view is used for it then). */
static void follow(struct target *t, pid_t pid)
{
	t->pid = pid;
	if (t->has_pidfd)
		close(t->pidfd);
	long fd = syscall(SYS_pidfd_open, pid, 0);
	t->has_pidfd = fd >= 0;
	t->pidfd = (int)fd;
}

static int add_process(struct target *t, pid_t pid, size_t *cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return err_set("cannot attach to process %d: %s", (int)pid,
			       errno == ENOENT ? "no such process" : strerror(errno));
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			add_tid(t, (pid_t)atoi(de->d_name), cap);
	closedir(d);
	if (!t->pid)
		follow(t, pid);
	return 0;
}

static int add_thread(struct target *t, pid_t tid, size_t *cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	if (access(path, F_OK) < 0)
		return err_set("cannot attach to thread %d: no such thread", (int)tid);
	if (!t->pid)
		follow(t, tid);
	return add_tid(t, tid, cap);
}

int target_attach_pids(struct target *t, const char *list)
{
	size_t cap = t->ntids;
	if (each_id(list, "process", add_process, t, &cap) < 0)
		return -1;
	free(t->name);
	t->name = xasprintf("process %s", list);
	return 0;
}

int target_attach_all(struct target *t)
{
	DIR *d = opendir("/proc");
	if (!d)
		return err_set("cannot list /proc: %s", strerror(errno));
	size_t cap = t->ntids;
	pid_t keep = t->pid;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long v = strtol(de->d_name, &end, 10);
		/* A process that exits meanwhile is not an error: it is simply not counted. */
		if (*end == 0 && v > 0 && v <= 0x3fffffff)
			(void)add_process(t, (pid_t)v, &cap);
	}
	closedir(d);
	t->pid = keep;
	return 0;
}

char *target_comm(pid_t tid)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *line = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!line)
		return NULL;
	buf[strcspn(buf, "\n")] = 0;
	return xstrdup(buf);
}

int target_attach_tids(struct target *t, const char *list)
{
	size_t cap = t->ntids;
	if (each_id(list, "thread", add_thread, t, &cap) < 0)
		return -1;
	free(t->name);
	t->name = xasprintf("thread %s", list);
	return 0;
}

bool target_alive(const struct target *t)
{
	if (t->pid <= 0)
		return false;
	if (t->has_pidfd) {
		/* Readable once the process has exited (a zombie included); its pid may be reused. */
		struct pollfd p = { .fd = t->pidfd, .events = POLLIN };
		return poll(&p, 1, 0) == 0;
	}
	if (kill(t->pid, 0) == 0 || errno == EPERM) {
		/* A zombie still answers kill(); count it as gone. */
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->pid);
		FILE *f = fopen(path, "r");
		if (!f)
			return false;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		char *rp = strrchr(buf, ')');
		return !(rp && rp[1] == ' ' && rp[2] == 'Z');
	}
	return false;
}

void target_free(struct target *t)
{
	target_abandon(t);
	if (t->exec_err_fd >= 0)
		close(t->exec_err_fd);
	if (t->has_pidfd)
		close(t->pidfd);
	free(t->tids);
	free(t->name);
	memset(t, 0, sizeof(*t));
	t->go_fd = t->exec_err_fd = -1;
}
