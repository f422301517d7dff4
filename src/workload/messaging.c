/* perf bench sched messaging: see messaging.h. Every worker reports ready on one pipe and waits
 * for the start on another (the parent closes its end: poll sees POLLHUP), so the timing covers
 * the message passing and not the forks. */
#include "workload/messaging.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct msg_worker {
	int ready_fd, wakeup_fd;
	int fds[MESSAGING_PER_GROUP]; /* a sender's write ends; a receiver's read end in fds[0] */
	int loops;
	bool sender;
};

/* Not inlined, as perf's ready() is not: a blocked ready write is then a stack of its own, apart
 * from the sender's writes (record --off-cpu counts stacks). */
__attribute__((noinline)) static void msg_ready(int ready_fd, int wakeup_fd)
{
	char c = 0;
	struct pollfd p = { .fd = wakeup_fd, .events = POLLIN };
	if (write(ready_fd, &c, 1) != 1)
		return;
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

static int msg_write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

__attribute__((noinline)) static void *msg_work(void *arg)
{
	struct msg_worker *w = arg;
	char data[MESSAGING_DATA_SIZE];
	memset(data, 0, sizeof(data));
	msg_ready(w->ready_fd, w->wakeup_fd);
	if (w->sender) {
		for (int i = 0; i < w->loops; i++)
			for (int j = 0; j < MESSAGING_PER_GROUP; j++)
				if (msg_write_all(w->fds[j], data, sizeof(data)) < 0)
					return NULL;
		return NULL;
	}
	size_t left = (size_t)w->loops * MESSAGING_PER_GROUP * sizeof(data);
	while (left) {
		ssize_t r = read(w->fds[0], data, left < sizeof(data) ? left : sizeof(data));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		left -= (size_t)r;
	}
	return NULL;
}

struct msg_run {
	const struct messaging_opts *o;
	int ready[2], wakeup[2];
	pid_t *pids;
	pthread_t *tids;
	struct msg_worker *workers;
	int n;        /* workers started */
	int *fds, nfds; /* the thread mode's socket pairs, closed at the end */
};

/* Starts worker w: a thread, or a child that works and exits with only its own ends of the
 * group's pairs open (rd/wr: the group's n pairs), as perf's workers have them. */
static int msg_start(struct msg_run *r, struct msg_worker *w, const int *rd, const int *wr, int n)
{
	if (r->o->thread) {
		if ((errno = pthread_create(&r->tids[r->n], NULL, msg_work, w)) != 0)
			return -1;
		r->n++;
		return 0;
	}
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(r->wakeup[1]); /* else the start never hangs up */
		for (int i = 0; i < n; i++) {
			if (w->sender || rd[i] != w->fds[0])
				close(rd[i]);
			if (!w->sender)
				close(wr[i]);
		}
		msg_work(w);
		_exit(0);
	}
	r->pids[r->n++] = pid;
	return 0;
}

static int msg_pair(bool use_pipe, int fds[2])
{
	return use_pipe ? pipe(fds) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
}

/* One group: the receivers, then the senders; the parent's copies of the process mode's fds are
 * closed once the children have them. */
static int msg_group(struct msg_run *r, struct msg_worker *ws, const char **what)
{
	int rd[MESSAGING_PER_GROUP], wr[MESSAGING_PER_GROUP], made = 0, rc = -1;
	for (; made < MESSAGING_PER_GROUP; made++) {
		int p[2];
		if (msg_pair(r->o->pipe, p) < 0) {
			*what = r->o->pipe ? "pipe" : "socketpair";
			goto out;
		}
		rd[made] = p[0];
		wr[made] = p[1];
	}
	for (int i = 0; i < 2 * MESSAGING_PER_GROUP; i++) {
		struct msg_worker *w = &ws[i];
		w->ready_fd = r->ready[1];
		w->wakeup_fd = r->wakeup[0];
		w->loops = r->o->loops;
		w->sender = i >= MESSAGING_PER_GROUP;
		if (w->sender)
			memcpy(w->fds, wr, sizeof(wr));
		else
			w->fds[0] = rd[i];
		if (msg_start(r, w, rd, wr, made) < 0) {
			*what = r->o->thread ? "pthread_create" : "fork";
			goto out;
		}
	}
	rc = 0;
out:
	for (int i = 0; i < made; i++) {
		if (!r->o->thread || rc < 0) {
			close(rd[i]);
			close(wr[i]);
		} else {
			r->fds[r->nfds++] = rd[i];
			r->fds[r->nfds++] = wr[i];
		}
	}
	return rc;
}

static double msg_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Ends the run: the start signal given (so waiting workers go on), every worker waited for. */
static void msg_reap(struct msg_run *r)
{
	if (r->wakeup[1] >= 0)
		close(r->wakeup[1]);
	r->wakeup[1] = -1;
	for (int i = 0; i < r->n; i++) {
		if (r->o->thread)
			pthread_join(r->tids[i], NULL);
		else
			while (waitpid(r->pids[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
	r->n = 0;
}

int messaging_run(const struct messaging_opts *o, double *secs, const char **what)
{
	int total = o->groups * 2 * MESSAGING_PER_GROUP, rc = -1, e = 0;
	struct msg_run r = { .o = o, .ready = { -1, -1 }, .wakeup = { -1, -1 } };
	*what = "pipe";
	r.pids = calloc((size_t)total, sizeof(*r.pids));
	r.tids = calloc((size_t)total, sizeof(*r.tids));
	r.workers = calloc((size_t)total, sizeof(*r.workers));
	r.fds = calloc((size_t)total, sizeof(*r.fds));
	if (!r.pids || !r.tids || !r.workers || !r.fds) {
		*what = "malloc";
		goto out;
	}
	if (pipe(r.ready) < 0 || pipe(r.wakeup) < 0)
		goto out;
	for (int g = 0; g < o->groups; g++)
		if (msg_group(&r, &r.workers[g * 2 * MESSAGING_PER_GROUP], what) < 0)
			goto out;
	for (int i = 0; i < total; i++) {
		char c;
		ssize_t n = read(r.ready[0], &c, 1);
		if (n < 0 && errno == EINTR) {
			i--;
			continue;
		}
		if (n != 1) {
			*what = "read";
			goto out;
		}
	}
	double start = msg_now();
	msg_reap(&r);
	*secs = msg_now() - start;
	rc = 0;
out:
	e = errno;
	msg_reap(&r);
	for (int i = 0; i < 2; i++) {
		if (r.ready[i] >= 0)
			close(r.ready[i]);
		if (r.wakeup[i] >= 0)
			close(r.wakeup[i]);
	}
	for (int i = 0; i < r.nfds; i++)
		close(r.fds[i]);
	free(r.fds);
	free(r.pids);
	free(r.tids);
	free(r.workers);
	errno = e;
	return rc;
}
