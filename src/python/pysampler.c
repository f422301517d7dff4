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

#include "python/pyclock.h"
#include "python/pytrace.h"
#include "python/pysample.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

/* How long a thread asked to stop may take to stop before this tick leaves it (a thread in an
 * uninterruptible wait: it stops later, and the next tick lets it go). */
#define STOP_WAIT_NS 50000000ull
/* The same at the end (every process let go): one not stopped in time stays traced until the
 * tracer thread ends, and an alarm's signal still queued then reaches the program. */
#define END_WAIT_NS 1000000000ull
/* How often the threads without a CPU-time alarm (or whose alarm has not come for a long time:
 * the signal blocked) are looked at: every tick for the former, every 25th for the latter. */
#define CHECK_EVERY 25

struct drop {
	uint32_t pid;
	uint64_t from, to;
};

struct pysampler {
	struct perf_event_attr attr;
	uint64_t id;
	clockid_t clock;
	uint64_t interval_ns;
	unsigned hz, asked, seed;
	bool timer_tried, have_timer;
	bool stuck;               /* a report the tracer cannot take (an own child's leader's exit,
				   * left to lperf's wait): each thread looked at by itself */
	unsigned ticks;
	int wake_sig;
	timer_t timer;
	struct pytrace_proc **p;         /* the tracer thread's own */
	size_t n, cap;
	struct pytrace_table threads;  /* every thread traced */
	struct pytrace_thread **held;    /* the threads stopped in this batch */
	size_t nheld, heldcap;
	uint8_t *stack;
	int32_t *tids;
	size_t ntids, tidcap;
	/* lock guards what other threads read: the samples written, the drop list, the counts */
	pthread_mutex_t lock;
	uint8_t *q;
	size_t qlen, qcap;
	struct drop *drop;
	size_t ndrop, dcap;
	uint8_t *cpu_last;        /* per CPU: its buffer's last sample read 1 kept, 2 replaced (0 none) */
	size_t ncpu_last;
	struct pysampler_stats st;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pysampler *pysampler_new(const struct perf_event_attr *attr, uint64_t id, bool given)
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
	uint64_t hz = attr->freq ? attr->sample_freq : attr->sample_period ? 1000000000ull / attr->sample_period : 0;
	unsigned most = given ? PYSAMPLER_HZ_MAX : PYSAMPLER_HZ;
	s->hz = hz && hz < most ? (unsigned)hz : most;
	s->asked = given && hz > most ? (unsigned)(hz < 1000000000 ? hz : 1000000000) : 0;
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

uint64_t pysampler_next_wait(struct pysampler *s, bool reads)
{
	/* ticks at twice the rate, a quarter to three quarters of the interval apart, while a
	 * thread has no alarm (it is sampled at the first tick after its due CPU time); else five
	 * times slower (they seize new processes, and sample a thread whose alarm does not come) */
	uint64_t wait = s->interval_ns / 4 + (uint64_t)rand_r(&s->seed) % (s->interval_ns / 2 + 1);
	bool all = !reads && s->threads.n;
	for (size_t i = 0; i < s->threads.n && all; i++)
		all = s->threads.v[i]->clock_fd >= 0;
	return all ? 10 * wait : wait;
}

unsigned pysampler_hz(const struct pysampler *s, unsigned *asked)
{
	if (asked)
		*asked = s->asked;
	return s->hz;
}

static struct pytrace_proc *proc_find(const struct pysampler *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i]->pid == pid)
			return s->p[i];
	return NULL;
}

static struct pytrace_proc *proc_of(struct pysampler *s, pid_t pid)
{
	struct pytrace_proc *p = proc_find(s, pid);
	if (p)
		return p;
	ALLOC_GROW(s->p, s->n + 1, s->cap);
	p = s->p[s->n++] = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->own_child = proc_ppid(pid) == getpid();
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

bool pysampler_replaces_on(struct pysampler *s, uint32_t pid, uint64_t time, uint32_t cpu)
{
	bool yes = pysampler_replaces(s, pid, time);
	if (cpu >= 65536)
		return yes;
	pthread_mutex_lock(&s->lock);
	if (cpu >= s->ncpu_last) {
		s->cpu_last = xrealloc(s->cpu_last, (size_t)cpu + 1);
		memset(s->cpu_last + s->ncpu_last, 0, (size_t)cpu + 1 - s->ncpu_last);
		s->ncpu_last = (size_t)cpu + 1;
	}
	s->cpu_last[cpu] = yes ? 2 : 1;
	pthread_mutex_unlock(&s->lock);
	return yes;
}

bool pysampler_lost(struct pysampler *s, uint32_t pid, uint64_t time, uint32_t cpu)
{
	pthread_mutex_lock(&s->lock);
	bool before = cpu < s->ncpu_last && s->cpu_last[cpu] == 2;
	pthread_mutex_unlock(&s->lock);
	return before && pysampler_replaces(s, pid, time);
}

/* Reaps an exited traced thread (not the leader of lperf's own child: lperf's wait does). */
static void reap(const struct pytrace_proc *p, pid_t tid)
{
	if (p && p->own_child && tid == p->pid)
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

/* The tracer's waits for a stop block in waitid, woken by the stop itself (polling with short
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

/* Waits until idtype/id (P_PID tid, or P_ALL: any thread this thread traces) has something to
 * report or deadline (CLOCK_MONOTONIC ns) passes: whether something was reported. */
static bool block(struct pysampler *s, idtype_t idtype, pid_t id, uint64_t deadline)
{
	struct itimerspec at = { { 0, 0 }, { (time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull) } };
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	timer_settime(s->timer, TIMER_ABSTIME, &at, NULL);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	int rc = waitid(idtype, (id_t)id, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL | __WNOTHREAD);
	timer_settime(s->timer, 0, &off, NULL);
	return rc == 0 && si.si_pid != 0;
}

static void sleep_until(uint64_t deadline)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	struct timespec ts = { 0, 50000 };
	if (deadline > now && deadline - now < 1000000000ull)
		ts.tv_nsec = (long)(deadline - now);
	nanosleep(&ts, NULL);
}

static bool exited(const siginfo_t *si)
{
	return si->si_code != CLD_TRAPPED && si->si_code != CLD_STOPPED && si->si_code != CLD_CONTINUED;
}

static void thread_add_clone(struct pysampler *s, struct pytrace_thread *parent);

/* What t's stop is, from its siginfo: its alarm (a sample's instant; the signal suppressed), a
 * clone's report (the new thread taken on), an interrupt's stop, a group stop or a signal that
 * goes on with it when t does. */
static void classify(struct pysampler *s, struct pytrace_thread *t, const siginfo_t *why)
{
	int event = why->si_code >> 8;
	t->sig = 0;
	t->group_stop = false;
	if (pyclock_is(why, t->clock_fd))
		t->sample = true;
	else if (why->si_signo == SIGTRAP && event == PTRACE_EVENT_CLONE)
		thread_add_clone(s, t);
	else if (event != PTRACE_EVENT_STOP)
		t->sig = why->si_signo; /* a signal-delivery stop: the signal goes on with it */
	else if (why->si_signo != SIGTRAP)
		t->group_stop = true;  /* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU */
}

/* Whether t is in a ptrace stop now: its notification is peeked (WNOWAIT: PTRACE_CONT clears
 * it), never consumed, so that lperf's wait for its child and this one do not take it from
 * each other. */
static enum stop_kind peek(struct pysampler *s, struct pytrace_thread *t)
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
	if (exited(&si)) {
		reap(t->p, t->tid);
		return S_GONE;
	}
	siginfo_t why;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &why) < 0)
		return errno == ESRCH ? S_NONE : S_GONE;
	classify(s, t, &why);
	return S_STOPPED;
}

/* Lets a stopped thread go on (with the signal its stop caught; a group stop stays stopped,
 * listening for SIGCONT). */
static void let_go(struct pytrace_thread *t)
{
	if (!t->stopped)
		return;
	if (t->group_stop)
		ptrace(PTRACE_LISTEN, t->tid, NULL, NULL);
	else
		ptrace(PTRACE_CONT, t->tid, NULL, (void *)(uintptr_t)t->sig);
	t->stopped = t->group_stop = t->sample = false;
	t->sig = 0;
}

/* Waits (bounded) for the stop that PTRACE_INTERRUPT asked of t; a signal that stops it first
 * is delivered and the interrupt asked again. S_STOPPED with t->stopped, S_NONE when it did
 * not stop in time (it stops later: an event or the next tick lets it go), S_GONE. */
static enum stop_kind wait_stop(struct pysampler *s, struct pytrace_thread *t, uint64_t deadline)
{
	for (int signals = 0;;) {
		enum stop_kind k = peek(s, t);
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
		if (s->have_timer)
			block(s, P_PID, t->tid, deadline);
		else
			sleep_until(clock_ns(CLOCK_MONOTONIC) + 50000);
	}
}

/* A clone of parent (PTRACE_O_TRACECLONE traces it already): taken on when it is a thread of
 * the same process (its first stop, an interrupt's, lets it go). */
static void thread_add_clone(struct pysampler *s, struct pytrace_thread *parent)
{
	unsigned long msg = 0;
	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, NULL, &msg) < 0 || !msg || pytrace_find(&s->threads, (pid_t)msg))
		return;
	if (proc_tgid((pid_t)msg) == parent->p->pid)
		pytrace_add(&s->threads, parent->p, (pid_t)msg, false, next_due(s));
}

/* Seizes every thread of p (a pass over /proc/PID/task until one finds none new: a thread that
 * starts later is a clone of one traced, traced with it). -1 with err_set when the first thread
 * cannot be seized (nothing of p is traced then); a later thread that cannot be seized is left
 * out. */
static int seize_all(struct pysampler *s, struct pytrace_proc *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	int err = 0;
	for (int round = 0, added = 1; added && round < 64; round++) {
		DIR *d = opendir(path);
		if (!d)
			return errno == ENOENT || errno == ESRCH ? 0 : err_set("%s: %s", path, strerror(errno));
		struct dirent *de;
		added = 0;
		while ((de = readdir(d))) {
			char *end;
			long tid = strtol(de->d_name, &end, 10);
			if (*end || tid <= 0 || pytrace_find(&s->threads, (pid_t)tid))
				continue;
			if (pytrace_add(&s->threads, p, (pid_t)tid, true, next_due(s)))
				added++;
			else if (errno != ESRCH && !p->n && !err)
				err = errno;
		}
		closedir(d);
	}
	if (err && !p->n) {
		if (err == EPERM)
			return err_set("pid %d cannot be paused (PTRACE_SEIZE: %s: another user's process, one "
				       "traced already by a debugger or strace, or Yama's ptrace_scope)", (int)p->pid,
				       strerror(err));
		return err_set("pid %d cannot be paused (PTRACE_SEIZE: %s)", (int)p->pid, strerror(err));
	}
	return 0;
}
/* The sample of a stopped thread into the queue. */
static void write_sample(struct pysampler *s, struct pytrace_thread *t, uint64_t time)
{
	struct pysample_in in;
	memset(&in, 0, sizeof(in));
	struct iovec iov = { in.regs, sizeof(in.regs) };
	if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_PRSTATUS, &iov) < 0)
		return;
	in.pid = (uint32_t)t->p->pid;
	in.tid = (uint32_t)t->tid;
	in.time = time;
	in.id = s->id;
	pytrace_state(t, &in.cpu);
	uint64_t cpu = pytrace_cpu(t);
	in.period = cpu != UINT64_MAX && cpu > t->cpu_ns ? cpu - t->cpu_ns : 1;
	if (cpu != UINT64_MAX)
		t->cpu_ns = cpu;
	t->due_ns = next_due(s);
	if (t->clock_fd >= 0 && pyclock_set(t->clock_fd, t->due_ns) < 0) {
		close(t->clock_fd); /* the ticks sample it from now on */
		t->clock_fd = -1;
	}
#if defined(__x86_64__)
	uint64_t sp = in.regs[19];
	struct iovec local = { s->stack, s->attr.sample_stack_user }, remote = { (void *)(uintptr_t)sp,
										  s->attr.sample_stack_user };
	ssize_t got = sp ? process_vm_readv(t->p->pid, &local, 1, &remote, 1, 0) : -1;
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

/* A stopped thread about to be let go: its alarm stopped, and the alarm's signal still queued
 * (raised as the thread was asked to stop, often on a loaded machine: the interrupt's stop comes
 * before a pending signal's) taken here and suppressed, so that a program that handles SIGURG
 * never sees one of lperf's. The thread goes on with every signal but SIGURG blocked (its own
 * mask is put back): it stops at once, at the alarm's signal-delivery stop. */
static void settle(struct pysampler *s, struct pytrace_thread *t, uint64_t deadline)
{
	uint64_t mask, only = ~(1ull << (PYCLOCK_SIG - 1));
	if (t->clock_fd < 0 || pyclock_stop(t->clock_fd) < 0 || t->group_stop || !pyclock_queued(t->tid, t->clock_fd) ||
	    ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(mask), &mask) < 0 ||
	    ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(only), &only) < 0)
		return;
	for (int n = 0; n < 4 && t->stopped && !t->sample; n++) {
		if (ptrace(PTRACE_CONT, t->tid, NULL, (void *)(uintptr_t)t->sig) < 0)
			break;
		t->stopped = false;
		enum stop_kind k;
		while ((k = peek(s, t)) == S_NONE && clock_ns(CLOCK_MONOTONIC) < deadline) {
			if (s->have_timer)
				block(s, P_PID, t->tid, deadline);
			else
				sleep_until(clock_ns(CLOCK_MONOTONIC) + 50000);
		}
		if (k == S_GONE)
			return;
		if (k == S_NONE) /* it stops later, and stays traced until the tracer thread ends */
			ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL);
		t->stopped = k == S_STOPPED;
	}
	if (t->stopped)
		ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(mask), &mask);
}

/* Detaches every thread of p (each stopped first: PTRACE_DETACH wants a stopped tracee; its
 * alarm's signal queued meanwhile taken and suppressed: settle). */
static void proc_release(struct pysampler *s, struct pytrace_proc *p, uint64_t wait_ns)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + wait_ns;
	for (size_t i = 0; i < p->n; i++) {
		struct pytrace_thread *t = p->t[i];
		if (!t->stopped && ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) == 0)
			wait_stop(s, t, deadline);
		if (t->stopped)
			settle(s, t, deadline);
		pytrace_close(t);
		if (t->stopped)
			ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(uintptr_t)(t->group_stop ? 0 : t->sig));
	}
	/* one that did not stop in time stays traced until the tracer thread ends */
	while (p->n)
		pytrace_forget(&s->threads, p->t[p->n - 1]);
	free(p->t);
	drop_mark(s, p->pid, false);
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i] == p) {
			s->p[i] = s->p[--s->n];
			break;
		}
	free(p);
}

static void hold(struct pysampler *s, struct pytrace_thread *t)
{
	ALLOC_GROW(s->held, s->nheld + 1, s->heldcap);
	s->held[s->nheld++] = t;
}

/* Takes tid's report (peeked in si): an exit is reaped (false: one left to lperf's wait), a
 * stop is taken (consumed: its thread is held until the batch's end). A stop of a thread not
 * known yet is a clone reporting before its parent: taken on, or let go when it is not a thread
 * of a process sampled here. */
static bool take(struct pysampler *s, const siginfo_t *si)
{
	pid_t tid = si->si_pid;
	struct pytrace_thread *t = pytrace_find(&s->threads, tid);
	if (exited(si)) {
		struct pytrace_proc *p = t ? t->p : proc_find(s, tid);
		if (t) {
			for (size_t i = 0; i < s->nheld; i++)
				if (s->held[i] == t)
					s->held[i] = s->held[--s->nheld];
			pytrace_forget(&s->threads, t);
		}
		/* lperf's own child's leader (known or released already) is left to lperf's wait */
		if ((p && p->own_child && tid == p->pid) ||
		    (!t && proc_tgid(tid) == tid && proc_ppid(tid) == getpid()))
			return false;
		reap(NULL, tid);
		return true;
	}
	siginfo_t st, why;
	if (waitid(P_PID, (id_t)tid, &st, WSTOPPED | WNOHANG | __WALL) < 0 ||
	    ptrace(PTRACE_GETSIGINFO, tid, NULL, &why) < 0)
		return true; /* gone meanwhile: its exit comes next */
	if (!t) {
		struct pytrace_proc *p = proc_find(s, proc_tgid(tid));
		if (!p || !(t = pytrace_add(&s->threads, p, tid, false, next_due(s)))) {
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
			return true;
		}
	}
	classify(s, t, &why);
	if (!t->stopped) {
		t->stopped = true;
		hold(s, t);
	}
	return true;
}

/* Every report of the threads traced (their alarms' stops, clones, signals, exits): taken, and
 * the threads stopped at their alarm sampled. A report that cannot be taken (an own child's
 * leader's exit) would hide the others behind it: then each thread is peeked by itself. */
static void take_all(struct pysampler *s)
{
	s->stuck = false;
	pid_t last = 0;
	for (size_t n = 0; n < 4 * s->threads.n + 64; n++) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL | __WNOTHREAD) < 0 ||
		    !si.si_pid)
			return;
		/* (one reported again after it was taken would be peeked for ever) */
		if (si.si_pid == last || !take(s, &si)) {
			s->stuck = true;
			break;
		}
		last = si.si_pid;
	}
	if (!s->stuck)
		return;
	s->ntids = 0; /* the table changes as they are taken (clones, exits) */
	for (size_t i = 0; i < s->threads.n; i++)
		if (!s->threads.v[i]->stopped) {
			ALLOC_GROW(s->tids, s->ntids + 1, s->tidcap);
			s->tids[s->ntids++] = (int32_t)s->threads.v[i]->tid;
		}
	for (size_t i = 0; i < s->ntids; i++) {
		struct pytrace_thread *t = pytrace_find(&s->threads, (pid_t)s->tids[i]);
		enum stop_kind k = t && !t->stopped ? peek(s, t) : S_NONE;
		if (k == S_GONE)
			pytrace_forget(&s->threads, t);
		else if (k == S_STOPPED) {
			t->stopped = true;
			hold(s, t);
		}
	}
}

/* The threads held: the stacks of those at a sample's instant read (fn, a process at a time)
 * and their samples written, then every one let go. */
static void sample_held(struct pysampler *s, pysampler_py_fn fn, void *arg, uint64_t t0)
{
	if (!s->nheld)
		return;
	uint64_t time = clock_ns(s->clock);
	size_t nsampled = 0;
	for (size_t i = 0; i < s->nheld; i++) {
		struct pytrace_proc *p = s->held[i]->p;
		bool seen = false; /* p's samples were taken at its first held thread */
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->held[j]->p == p;
		s->ntids = 0;
		for (size_t k = i; k < s->nheld && !seen; k++)
			if (s->held[k]->p == p && s->held[k]->sample) {
				ALLOC_GROW(s->tids, s->ntids + 1, s->tidcap);
				s->tids[s->ntids++] = (int32_t)s->held[k]->tid;
			}
		if (!s->ntids)
			continue;
		fn(arg, p->pid, s->tids, s->ntids, time);
		for (size_t k = i; k < s->nheld; k++)
			if (s->held[k]->p == p && s->held[k]->sample)
				write_sample(s, s->held[k], time);
		nsampled += s->ntids;
	}
	for (size_t i = 0; i < s->nheld; i++)
		let_go(s->held[i]);
	s->nheld = 0;
	uint64_t took = clock_ns(CLOCK_MONOTONIC) - t0;
	pthread_mutex_lock(&s->lock);
	s->st.ticks += nsampled > 0;
	if (nsampled) {
		s->st.pause_ns += took;
		if (took > s->st.pause_max_ns)
			s->st.pause_max_ns = took;
	}
	pthread_mutex_unlock(&s->lock);
}

/* The threads of p the alarms do not sample (none could be opened: perf_event_open refused; or
 * the alarm has not come for four intervals past its due CPU time: its signal blocked, or
 * kernel time left out), stopped when they ran their due CPU time since their last sample, are
 * on a CPU (their state 'R' and their CPU time grown since the last look) and not in a group
 * stop; held. */
static void stop_due(struct pysampler *s, struct pytrace_proc *p)
{
	size_t from = s->nheld;
	for (size_t i = 0; i < p->n; i++) {
		struct pytrace_thread *t = p->t[i];
		if (t->stopped)
			continue;
		uint64_t cpu = pytrace_cpu(t), late = t->clock_fd >= 0 ? 4 * s->interval_ns : 0;
		uint32_t on;
		bool ran = cpu != UINT64_MAX && cpu != t->tick_cpu;
		t->tick_cpu = cpu;
		if (ran && cpu >= t->cpu_ns + t->due_ns + late && pytrace_state(t, &on) == 'R' &&
		    ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) == 0)
			hold(s, t);
	}
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + STOP_WAIT_NS;
	for (size_t i = from; i < s->nheld;) {
		struct pytrace_thread *t = s->held[i];
		enum stop_kind k = wait_stop(s, t, deadline);
		if (k == S_STOPPED && !t->group_stop) {
			t->sample = true;
			i++;
			continue;
		}
		s->held[i] = s->held[--s->nheld];
		if (k == S_GONE)
			pytrace_forget(&s->threads, t);
		else if (k == S_STOPPED)
			let_go(t);
	}
}

int pysampler_tick(struct pysampler *s, pid_t pid, pysampler_py_fn fn, void *arg)
{
	if (!s->timer_tried) { /* in the tracer thread, the one the timer interrupts */
		s->timer_tried = true;
		timer_setup(s);
	}
	struct pytrace_proc *p = proc_of(s, pid);
	bool first = !p->traced;
	if (first && seize_all(s, p) < 0) {
		char *why = xstrdup(err_msg());
		proc_release(s, p, STOP_WAIT_NS);
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
	take_all(s);
	if ((p = proc_find(s, pid)))
		stop_due(s, p);
	sample_held(s, fn, arg, t0);
	return 0;
}

void pysampler_events(struct pysampler *s, pysampler_py_fn fn, void *arg)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	take_all(s);
	sample_held(s, fn, arg, t0);
}

bool pysampler_block(struct pysampler *s, uint64_t ns)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + ns;
	if (s->threads.n && s->have_timer && !s->stuck && block(s, P_ALL, 0, deadline))
		return true;
	if (clock_ns(CLOCK_MONOTONIC) < deadline)
		sleep_until(deadline);
	return false;
}

void pysampler_sweep(struct pysampler *s)
{
	for (size_t i = s->n; i-- > 0;) {
		if (!s->p[i]->ticked)
			proc_release(s, s->p[i], STOP_WAIT_NS);
		else
			s->p[i]->ticked = false;
	}
}

void pysampler_release_all(struct pysampler *s)
{
	while (s->n)
		proc_release(s, s->p[s->n - 1], END_WAIT_NS);
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
		for (size_t k = 0; k < s->p[i]->n; k++) {
			pytrace_close(s->p[i]->t[k]);
			free(s->p[i]->t[k]);
		}
		free(s->p[i]->t);
		free(s->p[i]);
	}
	free(s->p);
	free(s->threads.v);
	free(s->held);
	free(s->stack);
	free(s->tids);
	free(s->q);
	free(s->drop);
	free(s->cpu_last);
	pthread_mutex_destroy(&s->lock);
	if (s->have_timer)
		timer_delete(s->timer);
	free(s);
}
