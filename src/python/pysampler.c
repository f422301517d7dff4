#include "python/pysampler.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "python/pysample.h"
#include "util/error.h"
#include "util/xalloc.h"

/* How long a thread asked to stop may take to stop before this tick leaves it (a thread in an
 * uninterruptible wait: it stops later, and the next tick lets it go). */
#define STOP_WAIT_NS 50000000ull

struct sthread {
	pid_t tid;
	int schedstat_fd, stat_fd;
	uint64_t cpu_ns;          /* its CPU time at its last sample (or when it was seized) */
	uint64_t due_ns;          /* the CPU time it runs between that and its next sample */
	uint64_t tick_cpu;        /* its CPU time at the last tick */
	bool seen;
	bool stopped;             /* stopped now (by this tick, or found stopped by a signal) */
	int sig;                  /* a signal its stop caught, given back when it goes on */
	bool group_stop;          /* stopped by SIGSTOP & co: kept stopped (PTRACE_LISTEN) */
	bool sample;              /* stopped by this tick after it ran: sampled */
};

struct sproc {
	pid_t pid;
	bool own_child;           /* lperf's child: its leader is reaped by lperf's wait */
	bool ticked;
	bool traced;              /* some of its threads were seized: a failure later is its end */
	struct sthread *t;
	size_t n, cap;
};

struct drop {
	uint32_t pid;
	uint64_t from, to;
};

struct pysampler {
	struct perf_event_attr attr;
	uint64_t id;
	clockid_t clock;
	uint64_t interval_ns;
	unsigned hz, seed;
	bool timer_tried, have_timer;
	int wake_sig;
	timer_t timer;
	struct sproc *p;          /* the tracer thread's own */
	size_t n, cap;
	uint8_t *stack;
	int32_t *tids;
	size_t ntids, tidcap;
	/* lock guards what other threads read: the samples written, the drop list, the counts */
	pthread_mutex_t lock;
	uint8_t *q;
	size_t qlen, qcap;
	struct drop *drop;
	size_t ndrop, dcap;
	struct pysampler_stats st;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pysampler *pysampler_new(const struct perf_event_attr *attr, uint64_t id, unsigned hz)
{
	const uint64_t need = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	uint64_t regs[64], zero[PYSAMPLE_NREGS] = { 0 };
	if ((attr->sample_type & need) != need || !attr->sample_stack_user)
		return err_set("the call graph is not DWARF's (a thread paused gives its registers and stack)"), NULL;
	if (!pysample_regs(zero, attr->sample_regs_user, regs))
		return err_set("pausing threads for their stacks is done on x86-64 only"), NULL;
	struct pysample_in probe = { .regs = { 0 } };
	uint8_t tmp[64];
	if (!pysample_build(tmp, 0, attr, &probe))
		return err_set("the event's samples carry fields a paused thread cannot give"), NULL;
	struct pysampler *s = xcalloc(1, sizeof(*s));
	s->attr = *attr;
	s->id = id;
	s->clock = attr->use_clockid ? attr->clockid : CLOCK_MONOTONIC;
	s->hz = hz && hz < PYSAMPLER_HZ ? hz : PYSAMPLER_HZ;
	s->interval_ns = 1000000000ull / s->hz;
	s->st.hz = s->hz;
	s->seed = (unsigned)getpid() ^ (unsigned)clock_ns(CLOCK_MONOTONIC);
	s->stack = xmalloc(attr->sample_stack_user);
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

/* The CPU time a thread runs until its next sample: a quarter of the interval, then an
 * exponential time of mean three quarters (cut at four intervals), nearly a Poisson process's
 * instants in the thread's own CPU time (as the kernel's cpu-clock counts a thread's CPU time),
 * so that where the workload is at one sample says little about where it is at the next. (Ticks
 * at wall-clock instants sampled a thread that a loaded machine let run little in between at
 * nearly the same place again and again: the shares' spread was several times the binomial
 * one.) */
static uint64_t next_due(struct pysampler *s)
{
	double u = ((double)rand_r(&s->seed) + 1.0) / ((double)RAND_MAX + 2.0);
	double w = (double)s->interval_ns * (0.25 - 0.75 * log(u));
	double most = 4.0 * (double)s->interval_ns;
	return (uint64_t)(w < most ? w : most);
}

uint64_t pysampler_next_wait(struct pysampler *s)
{
	/* ticks at twice the rate, a quarter to three quarters of the interval apart: a thread is
	 * sampled at the first tick after its due CPU time */
	return s->interval_ns / 4 + (uint64_t)rand_r(&s->seed) % (s->interval_ns / 2 + 1);
}

unsigned pysampler_hz(const struct pysampler *s)
{
	return s->hz;
}

static void thread_close(struct sthread *t)
{
	if (t->schedstat_fd >= 0)
		close(t->schedstat_fd);
	if (t->stat_fd >= 0)
		close(t->stat_fd);
}

/* The thread's CPU time (ns), or UINT64_MAX when it cannot be read (gone). */
static uint64_t cpu_time(const struct sthread *t)
{
	char buf[96];
	ssize_t n = t->schedstat_fd >= 0 ? pread(t->schedstat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = 0;
	return strtoull(buf, NULL, 10);
}

/* Its state (/proc's stat, field 3: 'R' running or runnable, '?' unreadable) and the CPU it ran
 * on last (field 39). */
static char thread_state(const struct sthread *t, uint32_t *cpu)
{
	char buf[1024];
	*cpu = 0;
	ssize_t n = t->stat_fd >= 0 ? pread(t->stat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return '?';
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return '?';
	char state = p[2];
	/* fields from 3 (state) on follow the command's closing parenthesis */
	for (int field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	*cpu = p ? (uint32_t)strtoul(p + 1, NULL, 10) : 0;
	return state;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	int ppid = 0;
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : 0;
}

static struct sproc *proc_of(struct pysampler *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].pid == pid)
			return &s->p[i];
	ALLOC_GROW(s->p, s->n + 1, s->cap);
	struct sproc *p = &s->p[s->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->own_child = parent_of(pid) == getpid();
	return p;
}

/* The time from which pid's kernel samples are replaced (to: until when, UINT64_MAX open). */
static void drop_mark(struct pysampler *s, pid_t pid, bool start)
{
	uint64_t now = clock_ns(s->clock);
	pthread_mutex_lock(&s->lock);
	struct drop *d = NULL;
	for (size_t i = 0; i < s->ndrop; i++)
		if (s->drop[i].pid == (uint32_t)pid && s->drop[i].to == UINT64_MAX)
			d = &s->drop[i];
	if (start && !d) {
		ALLOC_GROW(s->drop, s->ndrop + 1, s->dcap);
		s->drop[s->ndrop++] = (struct drop){ (uint32_t)pid, now, UINT64_MAX };
	} else if (!start && d) {
		d->to = now;
	}
	pthread_mutex_unlock(&s->lock);
}

bool pysampler_replaces(struct pysampler *s, uint32_t pid, uint64_t time)
{
	bool yes = false;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->ndrop && !yes; i++)
		yes = s->drop[i].pid == pid && time >= s->drop[i].from && time < s->drop[i].to;
	pthread_mutex_unlock(&s->lock);
	return yes;
}

/* Reaps an exited traced thread (not the leader of lperf's own child: lperf's wait does). */
static void reap(const struct sproc *p, pid_t tid)
{
	if (p->own_child && tid == p->pid)
		return;
	int st;
	while (waitpid(tid, &st, WNOHANG | __WALL) < 0 && errno == EINTR)
		;
}

enum stop_kind { S_NONE, S_STOPPED, S_GONE };

static void on_wake(int sig)
{
	(void)sig;
}

/* The tracer's wait for a stop blocks in waitid, woken by the stop itself (polling with short
 * sleeps took 3 times as long on a loaded machine: each sleep's end waits for a CPU), bounded by
 * a timer of the tracer thread's own that interrupts it (a thread in an uninterruptible wait
 * stops only when it ends). */
static void timer_setup(struct pysampler *s)
{
	s->wake_sig = SIGRTMIN + 7;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake; /* no SA_RESTART: the wait ends with EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(s->wake_sig, NULL, &old) < 0 || (old.sa_handler != SIG_DFL && old.sa_handler != on_wake) ||
	    sigaction(s->wake_sig, &sa, NULL) < 0)
		return;
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = s->wake_sig;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	s->have_timer = timer_create(CLOCK_MONOTONIC, &ev, &s->timer) == 0;
}

/* Waits until tid has something to report or deadline (CLOCK_MONOTONIC ns) passes; without the
 * timer, a short sleep. */
static void block(struct pysampler *s, pid_t tid, uint64_t deadline)
{
	if (!s->have_timer) {
		struct timespec ts = { 0, 50000 };
		nanosleep(&ts, NULL);
		return;
	}
	struct itimerspec at = { { 0, 0 }, { (time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull) } };
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	timer_settime(s->timer, TIMER_ABSTIME, &at, NULL);
	siginfo_t si;
	waitid(P_PID, (id_t)tid, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL);
	timer_settime(s->timer, 0, &off, NULL);
}

/* Whether tid is in a ptrace stop now: its notification is peeked (WNOWAIT: PTRACE_CONT clears
 * it), never consumed, so that lperf's wait for its child and this one do not take it from
 * each other. A stop's kind is read from its siginfo. */
static enum stop_kind peek(const struct sproc *p, struct sthread *t)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	int rc;
	while ((rc = waitid(P_PID, (id_t)t->tid, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL)) < 0 &&
	       errno == EINTR)
		;
	if (rc < 0)
		return S_GONE;
	if (si.si_pid != t->tid)
		return S_NONE;
	if (si.si_code != CLD_TRAPPED && si.si_code != CLD_STOPPED) {
		reap(p, t->tid);
		return S_GONE;
	}
	siginfo_t why;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &why) < 0)
		return errno == ESRCH ? S_NONE : S_GONE;
	t->sig = 0;
	t->group_stop = false;
	if ((why.si_code >> 8) != PTRACE_EVENT_STOP)
		t->sig = why.si_signo; /* a signal-delivery stop: the signal goes on with it */
	else if (why.si_signo != SIGTRAP)
		t->group_stop = true;  /* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU */
	return S_STOPPED;
}

/* Lets a stopped thread go on (with the signal its stop caught; a group stop stays stopped,
 * listening for SIGCONT). */
static void let_go(struct sthread *t)
{
	if (!t->stopped)
		return;
	if (t->group_stop)
		ptrace(PTRACE_LISTEN, t->tid, NULL, NULL);
	else
		ptrace(PTRACE_CONT, t->tid, NULL, (void *)(uintptr_t)t->sig);
	t->stopped = t->group_stop = false;
	t->sig = 0;
}

/* Waits (bounded) for the stop that PTRACE_INTERRUPT asked of t; a signal that stops it first
 * is delivered and the interrupt asked again. S_STOPPED with t->stopped, S_NONE when it did
 * not stop in time (it stops later: the next tick lets it go), S_GONE. */
static enum stop_kind wait_stop(struct pysampler *s, const struct sproc *p, struct sthread *t, uint64_t deadline)
{
	for (int signals = 0;;) {
		enum stop_kind k = peek(p, t);
		if (k == S_GONE)
			return k;
		if (k == S_STOPPED && !t->sig) {
			t->stopped = true;
			return k;
		}
		if (k == S_STOPPED && signals++ < 8) {
			t->stopped = true;
			let_go(t);
			if (ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) < 0)
				return S_GONE;
			continue;
		}
		if (k == S_STOPPED) { /* signals keep coming: sampled where it is */
			t->stopped = true;
			return k;
		}
		if (clock_ns(CLOCK_MONOTONIC) > deadline)
			return S_NONE;
		block(s, t->tid, deadline);
	}
}

static void thread_drop(struct sproc *p, size_t i)
{
	thread_close(&p->t[i]);
	p->t[i] = p->t[--p->n];
}

/* Seizes the threads of p not seized yet; forgets those gone. -1 with err_set when the first
 * thread cannot be seized (nothing of p is traced then); a later thread that cannot be seized is
 * left out. */
static int seize_new(struct pysampler *s, struct sproc *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	DIR *d = opendir(path);
	for (size_t i = 0; i < p->n; i++)
		p->t[i].seen = false;
	if (!d && errno != ENOENT && errno != ESRCH)
		return err_set("%s: %s", path, strerror(errno));
	if (!d) { /* gone: its threads were reaped */
		while (p->n)
			thread_drop(p, p->n - 1);
		return 0;
	}
	struct dirent *de;
	int err = 0;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		struct sthread *t = NULL;
		for (size_t i = 0; i < p->n && !t; i++)
			if (p->t[i].tid == (pid_t)tid)
				t = &p->t[i];
		if (t) {
			t->seen = true;
			continue;
		}
		if (ptrace(PTRACE_SEIZE, (pid_t)tid, NULL, NULL) < 0) {
			if (errno != ESRCH && !p->n && !err)
				err = errno;
			continue;
		}
		ALLOC_GROW(p->t, p->n + 1, p->cap);
		p->traced = true;
		t = &p->t[p->n++];
		memset(t, 0, sizeof(*t));
		t->tid = (pid_t)tid;
		t->seen = true;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/schedstat", (int)p->pid, tid);
		t->schedstat_fd = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", (int)p->pid, tid);
		t->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
		t->cpu_ns = t->tick_cpu = cpu_time(t);
		t->due_ns = next_due(s);
	}
	closedir(d);
	for (size_t i = p->n; i-- > 0;)
		if (!p->t[i].seen) {
			reap(p, p->t[i].tid);
			thread_drop(p, i);
		}
	/* (a process that was traced and has no thread left to seize is ending: EPERM on its
	 * exiting leader) */
	if (err && !p->n && !p->traced) {
		if (err == EPERM)
			return err_set("pid %d cannot be paused (PTRACE_SEIZE: %s: another user's process, one "
				       "traced already by a debugger or strace, or Yama's ptrace_scope)", (int)p->pid,
				       strerror(err));
		return err_set("pid %d cannot be paused (PTRACE_SEIZE: %s)", (int)p->pid, strerror(err));
	}
	return 0;
}

/* The sample of a stopped thread into the queue. */
static void write_sample(struct pysampler *s, const struct sproc *p, struct sthread *t, uint64_t time)
{
	struct pysample_in in;
	memset(&in, 0, sizeof(in));
	struct iovec iov = { in.regs, sizeof(in.regs) };
	if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_PRSTATUS, &iov) < 0)
		return;
	in.pid = (uint32_t)p->pid;
	in.tid = (uint32_t)t->tid;
	in.time = time;
	in.id = s->id;
	thread_state(t, &in.cpu);
	uint64_t cpu = cpu_time(t);
	in.period = cpu != UINT64_MAX && cpu > t->cpu_ns ? cpu - t->cpu_ns : 1;
	if (cpu != UINT64_MAX)
		t->cpu_ns = cpu;
	t->due_ns = next_due(s);
#if defined(__x86_64__)
	uint64_t sp = in.regs[19];
	struct iovec local = { s->stack, s->attr.sample_stack_user }, remote = { (void *)(uintptr_t)sp,
										  s->attr.sample_stack_user };
	ssize_t got = sp ? process_vm_readv(p->pid, &local, 1, &remote, 1, 0) : -1;
	in.stack = s->stack;
	in.stack_len = got > 0 ? (size_t)got : 0;
#endif
	size_t need = pysample_build(NULL, 0, &s->attr, &in);
	if (!need)
		return;
	pthread_mutex_lock(&s->lock);
	ALLOC_GROW(s->q, s->qlen + need, s->qcap);
	pysample_build(s->q + s->qlen, need, &s->attr, &in);
	s->qlen += need;
	s->st.samples++;
	pthread_mutex_unlock(&s->lock);
}

/* Detaches every thread of p (each stopped first: PTRACE_DETACH wants a stopped tracee). */
static void proc_release(struct pysampler *s, struct sproc *p)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + STOP_WAIT_NS;
	for (size_t i = 0; i < p->n; i++) {
		struct sthread *t = &p->t[i];
		if (!t->stopped && ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) == 0)
			wait_stop(s, p, t, deadline);
		if (t->stopped)
			ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(uintptr_t)(t->group_stop ? 0 : t->sig));
		thread_close(t);
	}
	/* one that did not stop in time stays traced until the tracer thread ends */
	free(p->t);
	drop_mark(s, p->pid, false);
	*p = s->p[--s->n];
}

/* Stops the threads of p that ran since the last tick; the stopped ones' tids in s->tids. */
static void stop_ran(struct pysampler *s, struct sproc *p)
{
	s->ntids = 0;
	for (size_t i = p->n; i-- > 0;) {
		struct sthread *t = &p->t[i];
		enum stop_kind k = peek(p, t); /* a signal (or a late stop) since the last tick */
		if (k == S_GONE) {
			thread_drop(p, i);
			continue;
		}
		t->stopped = k == S_STOPPED;
		/* on a CPU now, having run its due CPU time since its last sample: its state 'R'
		 * and its CPU time grown since the last tick (a thread asleep, or runnable but
		 * waiting for a CPU, is not sampled: the kernel's cpu-clock would not sample it
		 * either, and a thread that woke another at a GIL handoff and waits to run again
		 * was sampled there a hundred times too often); the CPU time it ran meanwhile goes
		 * to its next sample's period */
		uint64_t cpu = cpu_time(t);
		uint32_t on;
		bool ran = cpu != UINT64_MAX && cpu != t->tick_cpu;
		t->tick_cpu = cpu;
		t->sample = ran && cpu >= t->cpu_ns + t->due_ns && !t->group_stop &&
			    (t->stopped || thread_state(t, &on) == 'R');
		if (t->sample && !t->stopped && ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) < 0)
			t->sample = false;
	}
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + STOP_WAIT_NS;
	for (size_t i = 0; i < p->n; i++) {
		struct sthread *t = &p->t[i];
		if (!t->sample)
			continue;
		if (!t->stopped && wait_stop(s, p, t, deadline) != S_STOPPED) {
			t->sample = false;
			continue;
		}
		ALLOC_GROW(s->tids, s->ntids + 1, s->tidcap);
		s->tids[s->ntids++] = (int32_t)t->tid;
	}
}

int pysampler_tick(struct pysampler *s, pid_t pid, pysampler_py_fn fn, void *arg)
{
	if (!s->timer_tried) { /* in the tracer thread, the one the timer interrupts */
		s->timer_tried = true;
		timer_setup(s);
	}
	struct sproc *p = proc_of(s, pid);
	bool first = !p->traced;
	if (seize_new(s, p) < 0) {
		char *why = xstrdup(err_msg());
		proc_release(s, p);
		err_set("%s", why);
		free(why);
		return -1;
	}
	p->ticked = true;
	if (!p->n)
		return 0;
	if (first)
		drop_mark(s, pid, true);
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	stop_ran(s, p);
	if (s->ntids) {
		uint64_t time = clock_ns(s->clock);
		fn(arg, pid, s->tids, s->ntids, time);
		for (size_t i = 0; i < p->n; i++)
			if (p->t[i].sample && p->t[i].stopped)
				write_sample(s, p, &p->t[i], time);
	}
	for (size_t i = 0; i < p->n; i++)
		let_go(&p->t[i]);
	uint64_t took = clock_ns(CLOCK_MONOTONIC) - t0;
	pthread_mutex_lock(&s->lock);
	s->st.ticks += s->ntids > 0;
	if (s->ntids) {
		s->st.pause_ns += took;
		if (took > s->st.pause_max_ns)
			s->st.pause_max_ns = took;
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

void pysampler_sweep(struct pysampler *s)
{
	for (size_t i = s->n; i-- > 0;) {
		if (!s->p[i].ticked)
			proc_release(s, &s->p[i]);
		else
			s->p[i].ticked = false;
	}
}

void pysampler_release_all(struct pysampler *s)
{
	while (s->n)
		proc_release(s, &s->p[s->n - 1]);
}

int pysampler_drain(struct pysampler *s, record_cb cb, void *arg)
{
	pthread_mutex_lock(&s->lock);
	uint8_t *q = s->q;
	size_t len = s->qlen;
	s->q = NULL;
	s->qlen = s->qcap = 0;
	pthread_mutex_unlock(&s->lock);
	int rc = 0;
	for (size_t off = 0; off + sizeof(struct perf_event_header) <= len && !rc;) {
		const struct perf_event_header *h = (const void *)(q + off);
		rc = cb(h, arg);
		off += h->size;
	}
	free(q);
	return rc;
}

void pysampler_stats(struct pysampler *s, struct pysampler_stats *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->st;
	pthread_mutex_unlock(&s->lock);
}

void pysampler_free(struct pysampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		for (size_t k = 0; k < s->p[i].n; k++)
			thread_close(&s->p[i].t[k]);
		free(s->p[i].t);
	}
	free(s->p);
	free(s->stack);
	free(s->tids);
	free(s->q);
	free(s->drop);
	pthread_mutex_destroy(&s->lock);
	if (s->have_timer)
		timer_delete(s->timer);
	free(s);
}
