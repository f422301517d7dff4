/* perf bench sched messaging: see messaging.h. As perf's: every worker writes one byte to the
 * "ready" pair and polls the "wakeup" pair; the parent reads the 400 bytes once every worker is
 * started, then writes one byte to wakeup (the start: POLLIN for all) and times from there to the
 * last worker's end. Both pairs are socket pairs (pipes with --pipe), as the data channels: a
 * Unix socket's send buffer holds some 270 one-byte messages, so once the parent is still forking
 * workers, the later workers block in their ready write until it reads (record --off-cpu counts
 * those blocks: perf's record_offcpu.sh expects them). */
#include "workload/messaging.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A thread worker's stack: the smallest, as perf's */
#define MSG_THREAD_STACK PTHREAD_STACK_MIN

struct msg_worker {
	int ready_fd, wakeup_fd;
	int fds[MESSAGING_PER_GROUP]; /* a sender's write ends; a receiver's read end in fds[0] */
	int loops;
	bool sender;
};

/* Tells the parent this worker is up, waits for the start. Inlined into both workers, as perf's
 * ready() is in its build (the blocked poll and ready write of perf's workers have the same caller
 * frame as their data reads and writes): a sender's blocked ready write then has the user stack of
 * its blocked data writes, one off-CPU key for both, as in perf; a receiver's has its own. */
static inline __attribute__((always_inline)) int msg_ready(int ready_fd, int wakeup_fd)
{
	char c = 0;
	struct pollfd p = { .fd = wakeup_fd, .events = POLLIN };
	if (write(ready_fd, &c, 1) != 1)
		return -1;
	int n;
	while ((n = poll(&p, 1, -1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

/* Writes (out) or reads one whole message. Inlined too, as perf's loops are in its workers: the
 * blocked reads and writes are the workers' own frames. */
static inline __attribute__((always_inline)) int msg_move(int fd, char *data, bool out)
{
	size_t done = 0;
	while (done < MESSAGING_DATA_SIZE) {
		ssize_t n = out ? write(fd, data + done, MESSAGING_DATA_SIZE - done)
				: read(fd, data + done, MESSAGING_DATA_SIZE - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* A sender: loops times one message to every receiver of its group. */
static void *msg_sender(void *arg)
{
	struct msg_worker *w = arg;
	char data[MESSAGING_DATA_SIZE];
	memset(data, 0, sizeof(data));
	if (msg_ready(w->ready_fd, w->wakeup_fd) < 0)
		return (void *)1;
	for (int i = 0; i < w->loops; i++)
		for (int j = 0; j < MESSAGING_PER_GROUP; j++)
			if (msg_move(w->fds[j], data, true) < 0)
				return (void *)1;
	return NULL;
}

/* A receiver: every sender's messages to it, read message by message. */
static void *msg_receiver(void *arg)
{
	struct msg_worker *w = arg;
	char data[MESSAGING_DATA_SIZE];
	if (msg_ready(w->ready_fd, w->wakeup_fd) < 0)
		return (void *)1;
	for (int i = 0; i < w->loops * MESSAGING_PER_GROUP; i++)
		if (msg_move(w->fds[0], data, false) < 0)
			return (void *)1;
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
	int failed;   /* workers that failed or died */
};

/* Starts worker w: a thread (with the smallest stack, as perf's), or a child that works and exits
 * with only its own ends of the group's pairs open (rd/wr: the group's n pairs), as perf's workers
 * have them. */
static int msg_start(struct msg_run *r, struct msg_worker *w, const int *rd, const int *wr, int n)
{
	void *(*fn)(void *) = w->sender ? msg_sender : msg_receiver;
	if (r->o->thread) {
		pthread_attr_t attr;
		if ((errno = pthread_attr_init(&attr)) != 0)
			return -1;
		int e = pthread_attr_setstacksize(&attr, MSG_THREAD_STACK);
		if (!e)
			e = pthread_create(&r->tids[r->n], &attr, fn, w);
		pthread_attr_destroy(&attr);
		if ((errno = e) != 0)
			return -1;
		r->n++;
		return 0;
	}
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(r->wakeup[1]); /* so that the parent's close wakes the workers if it fails */
		for (int i = 0; i < n; i++) {
			if (w->sender || rd[i] != w->fds[0])
				close(rd[i]);
			if (!w->sender)
				close(wr[i]);
		}
		_exit(fn(w) ? 1 : 0);
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

/* Ends the run: every worker waited for (after a failure, the start's end closed first, so that
 * waiting workers go on), failed ones counted. */
static void msg_reap(struct msg_run *r)
{
	if (r->wakeup[1] >= 0)
		close(r->wakeup[1]);
	r->wakeup[1] = -1;
	for (int i = 0; i < r->n; i++) {
		if (r->o->thread) {
			void *res = NULL;
			pthread_join(r->tids[i], &res);
			r->failed += res != NULL;
			continue;
		}
		int status = 0;
		while (waitpid(r->pids[i], &status, 0) < 0 && errno == EINTR)
			;
		r->failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	r->n = 0;
}

/* The parent's part once the workers are started: their ready bytes, the start, their ends. */
static int msg_go(struct msg_run *r, int total, double *secs, const char **what)
{
	char c = 0;
	for (int i = 0; i < total; i++) {
		ssize_t n = read(r->ready[0], &c, 1);
		if (n < 0 && errno == EINTR) {
			i--;
			continue;
		}
		if (n != 1) {
			*what = "read";
			return -1;
		}
	}
	double start = msg_now();
	if (write(r->wakeup[1], &c, 1) != 1) {
		*what = "write";
		return -1;
	}
	msg_reap(r);
	*secs = msg_now() - start;
	if (r->failed) {
		*what = "a worker failed";
		errno = EIO;
		return -1;
	}
	return 0;
}

int messaging_run(const struct messaging_opts *o, double *secs, const char **what)
{
	int total = o->groups * 2 * MESSAGING_PER_GROUP, rc = -1, e = 0;
	struct msg_run r = { .o = o, .ready = { -1, -1 }, .wakeup = { -1, -1 } };
	*what = o->pipe ? "pipe" : "socketpair";
	r.pids = calloc((size_t)total, sizeof(*r.pids));
	r.tids = calloc((size_t)total, sizeof(*r.tids));
	r.workers = calloc((size_t)total, sizeof(*r.workers));
	r.fds = calloc((size_t)total, sizeof(*r.fds));
	if (!r.pids || !r.tids || !r.workers || !r.fds) {
		*what = "malloc";
		goto out;
	}
	if (msg_pair(o->pipe, r.ready) < 0 || msg_pair(o->pipe, r.wakeup) < 0)
		goto out;
	for (int g = 0; g < o->groups; g++)
		if (msg_group(&r, &r.workers[g * 2 * MESSAGING_PER_GROUP], what) < 0)
			goto out;
	rc = msg_go(&r, total, secs, what);
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
