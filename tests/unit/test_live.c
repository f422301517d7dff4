/* The live source against the real kernel (software events: this VM has no hardware PMU):
 * per-task, per-CPU and per-task-per-CPU sampling, side-band records, several events, call
 * chains, DWARF dumps, lost records and open errors. Records are parsed here straight from the
 * uapi layouts, independently of lperf's own parsers. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "events/evlist.h"
#include "kernel/perf_event.h"
#include "live/live.h"
#include "util/cpuset.h"
#include "util/error.h"

#include "records_test.h"

/* ---- a SAMPLE, parsed from the uapi layout ---- */

struct tsample {
	uint64_t id, ip, time, period;
	uint32_t pid, tid, cpu;
	uint64_t nr;
	const uint64_t *ips;
	uint64_t abi, nregs;
	uint64_t stack_size, dyn_size;
};

static bool parse_sample(const struct perf_event_attr *a, const struct perf_event_header *h,
			 struct tsample *s)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	const uint64_t *end = (const uint64_t *)((const uint8_t *)h + h->size);
	uint64_t t = a->sample_type;
	memset(s, 0, sizeof(*s));
#define TAKE(dst)                      \
	do {                           \
		if (p >= end)          \
			return false;  \
		(dst) = *p++;          \
	} while (0)
	uint64_t w;
	if (t & PERF_SAMPLE_IDENTIFIER)
		TAKE(s->id);
	if (t & PERF_SAMPLE_IP)
		TAKE(s->ip);
	if (t & PERF_SAMPLE_TID) {
		TAKE(w);
		s->pid = (uint32_t)w;
		s->tid = (uint32_t)(w >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		TAKE(s->time);
	if (t & PERF_SAMPLE_CPU) {
		TAKE(w);
		s->cpu = (uint32_t)w;
	}
	if (t & PERF_SAMPLE_PERIOD)
		TAKE(s->period);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		TAKE(s->nr);
		if (s->nr > (uint64_t)(end - p))
			return false;
		s->ips = p;
		p += s->nr;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		TAKE(s->abi);
		if (s->abi) {
			s->nregs = (uint64_t)__builtin_popcountll(a->sample_regs_user);
			if (s->nregs > (uint64_t)(end - p))
				return false;
			p += s->nregs;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		TAKE(s->stack_size);
		if (s->stack_size) {
			if (s->stack_size % 8 || s->stack_size / 8 > (uint64_t)(end - p))
				return false;
			p += s->stack_size / 8;
			TAKE(s->dyn_size);
		}
	}
#undef TAKE
	return p == end; /* exactly the announced size */
}

/* The sample_id trailer of a side-band record: {pid,tid} {time} {cpu,res} [identifier]. */
static bool parse_trailer(const struct perf_event_attr *a, const struct perf_event_header *h,
			  uint32_t *pid, uint64_t *id)
{
	size_t n = 3 + !!(a->sample_type & PERF_SAMPLE_IDENTIFIER);
	if (h->size < sizeof(*h) + n * 8)
		return false;
	const uint64_t *t = (const uint64_t *)((const uint8_t *)h + h->size) - n;
	*pid = (uint32_t)t[0];
	*id = (a->sample_type & PERF_SAMPLE_IDENTIFIER) ? t[n - 1] : 0;
	return true;
}

/* ---- a child to sample ---- */

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t spin_leaf(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	__asm__ volatile("" : "+r"(x));
	return x;
}

static long ms_since(clockid_t clk, const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(clk, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Spins until this thread had `ms` of CPU time (within 50 times as long of wall time): the
 * samples a test counts at 1000 Hz of task-clock or cpu-clock follow CPU time, which a busy
 * machine (2 CPUs shared by a dozen jobs, ASan's slowdown) gives out at a fraction of wall time. */
__attribute__((noinline)) static void spin_ms(int ms)
{
	struct timespec t0, c0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	uint64_t x = 1;
	do
		x = spin_leaf(x);
	while (ms_since(CLOCK_THREAD_CPUTIME_ID, &c0) < ms && ms_since(CLOCK_MONOTONIC, &t0) < 50L * ms);
	sink = x;
}

static void *thread_spin(void *arg)
{
	spin_ms(20);
	return NULL;
}

struct child {
	pid_t pid;
	int go;
};

/* Forks a child that waits for the go byte, names itself, starts a thread, spins `ms` of CPU. */
static struct child child_start(int ms)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct child c = { .pid = fork(), .go = p[1] };
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		close(p[1]);
		char b;
		if (read(p[0], &b, 1) != 1)
			_exit(1);
		prctl(PR_SET_NAME, "lperf-spin");
		pthread_t th;
		if (pthread_create(&th, NULL, thread_spin, NULL) == 0)
			pthread_join(th, NULL);
		spin_ms(ms);
		_exit(0);
	}
	close(p[0]);
	return c;
}

static void child_go(struct child *c)
{
	assert_int_equal(write(c->go, "g", 1), 1);
	close(c->go);
}

/* Reads until the child exited, then once more after disabling (the final drain). */
static void read_until_exit(struct live *l, struct child *c, struct coll *col)
{
	int st;
	for (;;) {
		assert_true(live_read(l, 20, collect, col) >= 0);
		pid_t r = waitpid(c->pid, &st, WNOHANG);
		if (r == c->pid)
			break;
	}
	live_disable(l);
	assert_true(live_read(l, 0, collect, col) >= 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void parse_events(struct evlist *evl, const char *spec)
{
	memset(evl, 0, sizeof(*evl));
	assert_int_equal(evlist_parse(evl, spec), 0);
}

/* ---- live tests ---- */

static void test_child_samples_and_sideband(void **state)
{
	struct evlist evl;
	parse_events(&evl, "cpu-clock");
	struct child c = child_start(200);
	struct live_opts o = { .pids = &c.pid, .npids = 1, .freq = 1000 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	/* The attr that perf.data will get. */
	const struct perf_event_attr *a = &l.attrs[0];
	assert_true(a->mmap && a->mmap2 && a->comm && a->comm_exec && a->task && a->sample_id_all);
	assert_false(a->mmap_data);
	assert_true(a->freq);
	assert_int_equal(a->sample_freq, 1000);
	assert_int_equal(a->sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU);
	assert_int_equal(a->read_format, PERF_FORMAT_ID);
	assert_int_equal(l.nrbs, 1);
	assert_int_equal(l.nids[0], 1);
	assert_int_equal(l.fd_ids[0], l.ids[0][0]);
	assert_int_equal(l.pids[0], c.pid);
	assert_int_equal(l.cpus[0], -1);

	live_enable(&l);
	child_go(&c);
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	assert_int_equal(col.bad, 0);

	size_t samples = 0, comm = 0, fork_ = 0, exit_ = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		const uint32_t *u = (const uint32_t *)(h + 1);
		if (h->type == PERF_RECORD_SAMPLE) {
			struct tsample s;
			assert_true(parse_sample(a, h, &s));
			assert_int_equal(s.pid, c.pid);
			assert_int_equal(s.tid, c.pid); /* no inherit: the leader only */
			assert_true(s.period > 0);
			samples++;
		} else if (h->type == PERF_RECORD_COMM) {
			if (u[0] == (uint32_t)c.pid && !strcmp((const char *)(u + 2), "lperf-spin"))
				comm++;
		} else if (h->type == PERF_RECORD_FORK) {
			/* pid, ppid, tid, ptid: the child's new thread */
			if (u[1] == (uint32_t)c.pid && u[0] == (uint32_t)c.pid && u[2] != (uint32_t)c.pid)
				fork_++;
		} else if (h->type == PERF_RECORD_EXIT) {
			if (u[0] == (uint32_t)c.pid)
				exit_++;
		}
		if (h->type != PERF_RECORD_SAMPLE) {
			uint32_t pid = 0;
			uint64_t id = 0;
			assert_true(parse_trailer(a, h, &pid, &id));
		}
	}
	/* 200 ms at 1000 Hz; allow a slow, busy machine. */
	assert_true(samples >= 20);
	assert_int_equal(comm, 1);
	assert_true(fork_ >= 1);
	assert_true(exit_ >= 1);
	/* The task has gone: its fd hung up. */
	assert_true(live_read(&l, 10, collect, &col) >= 0);
	assert_true(l.all_hup);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
}

static bool in_ids(const struct live *l, size_t e, uint64_t id)
{
	for (size_t i = 0; i < l->nids[e]; i++)
		if (l->ids[e][i] == id)
			return true;
	return false;
}

static void test_two_events_identifier(void **state)
{
	struct evlist evl;
	parse_events(&evl, "cpu-clock,task-clock");
	struct child c = child_start(150);
	struct live_opts o = { .pids = &c.pid, .npids = 1, .freq = 1000 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	for (int e = 0; e < 2; e++)
		assert_true(l.attrs[e].sample_type & PERF_SAMPLE_IDENTIFIER);
	/* Side-band only once. */
	assert_false(l.attrs[1].mmap || l.attrs[1].comm || l.attrs[1].task);
	assert_int_equal(l.nrbs, 1); /* the second event is redirected into the first's buffer */
	assert_true(l.ids[0][0] != l.ids[1][0]);

	live_enable(&l);
	child_go(&c);
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	assert_int_equal(col.bad, 0);
	size_t per_event[2] = { 0, 0 }, sideband = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		if (h->type == PERF_RECORD_SAMPLE) {
			uint64_t id = *(const uint64_t *)(h + 1);
			int e = in_ids(&l, 0, id) ? 0 : in_ids(&l, 1, id) ? 1 : -1;
			assert_true(e >= 0);
			struct tsample s;
			assert_true(parse_sample(&l.attrs[e], h, &s));
			assert_int_equal(s.pid, c.pid);
			per_event[e]++;
		} else {
			uint32_t pid = 0;
			uint64_t id = 0;
			assert_true(parse_trailer(&l.attrs[0], h, &pid, &id));
			if (h->type != PERF_RECORD_LOST)
				assert_true(in_ids(&l, 0, id));
			sideband++;
		}
	}
	assert_true(per_event[0] >= 10);
	assert_true(per_event[1] >= 10);
	assert_true(sideband >= 2);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
}

static void test_cpu_wide(void **state)
{
	if (!pe_cpu_wide_allowed())
		skip();
	struct cpuset cpus;
	assert_int_equal(cpuset_online(&cpus), 0);
	struct evlist evl;
	parse_events(&evl, "cpu-clock");
	struct live_opts o = { .cpus = cpus.cpu, .ncpus = cpus.n, .freq = 1000, .mmap_pages = 16 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	assert_int_equal(l.nrbs, cpus.n);
	assert_int_equal(l.nids[0], cpus.n);
	live_enable(&l);
	struct coll col = { 0 };
	struct timespec t0, t, cpu0;
	long ms_wall, ms_cpu;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
	do {
		/* Drain each buffer by hand to know which CPU each record came from. */
		for (size_t b = 0; b < l.nrbs; b++) {
			col.rb = (int)b;
			assert_true(ringbuf_drain(&l.rbs[b], collect, &col) >= 0);
		}
		spin_ms(10);
		clock_gettime(CLOCK_MONOTONIC, &t);
		/* At least 100 ms, and 60 ms of this process's CPU time (a busy machine gives it less
		 * than all of one CPU), within 5 s. */
		struct timespec cpu;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		ms_wall = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		ms_cpu = (cpu.tv_sec - cpu0.tv_sec) * 1000 + (cpu.tv_nsec - cpu0.tv_nsec) / 1000000;
	} while (ms_wall < 100 || (ms_cpu < 60 && ms_wall < 5000));
	live_disable(&l);
	for (size_t b = 0; b < l.nrbs; b++) {
		col.rb = (int)b;
		assert_true(ringbuf_drain(&l.rbs[b], collect, &col) >= 0);
	}
	assert_int_equal(col.bad, 0);
	size_t mine = 0, total = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		struct tsample s;
		assert_true(parse_sample(&l.attrs[0], h, &s));
		/* A CPU's buffer holds that CPU's samples. */
		assert_int_equal(s.cpu, l.rbs[col.v[i].rb].cpu);
		mine += s.pid == (uint32_t)getpid();
		total++;
	}
	/* This process spun for 60 ms of CPU or more at 1000 Hz (idle CPUs may report little: in
	 * this VM an idle CPU's cpu-clock hardly ticks). */
	assert_true(mine >= 20);
	assert_true(total >= mine);
	assert_int_equal(live_read(&l, 0, collect, &col), 0);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
	cpuset_free(&cpus);
}

static void test_fp_callchain(void **state)
{
	struct evlist evl;
	parse_events(&evl, "task-clock");
	struct child c = child_start(150);
	struct live_opts o = { .pids = &c.pid, .npids = 1, .freq = 1000,
			       .callchain = LIVE_CG_FP };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	assert_true(l.attrs[0].sample_type & PERF_SAMPLE_CALLCHAIN);
	assert_false(l.attrs[0].exclude_callchain_user);
	live_enable(&l);
	child_go(&c);
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	size_t samples = 0, user_chains = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		struct tsample s;
		assert_true(parse_sample(&l.attrs[0], h, &s));
		assert_true(s.nr > 0);
		samples++;
		for (uint64_t k = 0; k + 1 < s.nr; k++)
			if (s.ips[k] == PERF_CONTEXT_USER && s.ips[k + 1] < PERF_CONTEXT_MAX)
				user_chains++;
	}
	assert_true(samples >= 10);
	assert_true(user_chains >= 1);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
}

static void test_dwarf_regs_and_stack(void **state)
{
	if (!live_user_regs_mask())
		skip();
	struct evlist evl;
	parse_events(&evl, "task-clock");
	struct child c = child_start(150);
	struct live_opts o = { .pids = &c.pid, .npids = 1, .freq = 500,
			       .callchain = LIVE_CG_DWARF, .stack_size = 4090 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	const struct perf_event_attr *a = &l.attrs[0];
	assert_true(a->sample_type & PERF_SAMPLE_REGS_USER);
	assert_true(a->sample_type & PERF_SAMPLE_STACK_USER);
	assert_int_equal(a->sample_regs_user, live_user_regs_mask());
	assert_int_equal(a->sample_stack_user, 4096); /* rounded up to 8 */
	assert_true(a->exclude_callchain_user);
	live_enable(&l);
	child_go(&c);
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	size_t with_regs = 0, with_stack = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		struct tsample s;
		assert_true(parse_sample(a, h, &s));
		if (s.abi) {
			assert_int_equal(s.nregs, __builtin_popcountll(live_user_regs_mask()));
			with_regs++;
		}
		if (s.stack_size) {
			assert_int_equal(s.stack_size, 4096);
			assert_true(s.dyn_size <= 4096);
			with_stack += s.dyn_size > 0;
		}
	}
	assert_true(with_regs >= 5);
	assert_true(with_stack >= 5);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
}

static void test_tiny_buffer_loses_cleanly(void **state)
{
	struct evlist evl;
	parse_events(&evl, "task-clock");
	struct child c = child_start(300);
	/* 50,000 samples a second into one page: the reader cannot keep up. */
	struct live_opts o = { .pids = &c.pid, .npids = 1, .period = 20000, .mmap_pages = 1 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	assert_false(l.attrs[0].freq);
	assert_int_equal(l.attrs[0].sample_period, 20000);
	live_enable(&l);
	child_go(&c);
	usleep(100 * 1000); /* let it overflow */
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	/* Whatever was dropped, what arrived is whole. */
	assert_int_equal(col.bad, 0);
	uint64_t lost = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		if (h->type == PERF_RECORD_SAMPLE) {
			struct tsample s;
			assert_true(parse_sample(&l.attrs[0], h, &s));
		} else if (h->type == PERF_RECORD_LOST) {
			const uint64_t *u = (const uint64_t *)(h + 1);
			assert_int_equal(u[0], l.ids[0][0]);
			lost += u[1];
		}
	}
	/* The kernel reports what it dropped, unless it throttled the event instead. */
	assert_true(lost > 0 || count_type(&col, PERF_RECORD_THROTTLE) > 0);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
}

static void test_open_errors(void **state)
{
	struct evlist evl;
	parse_events(&evl, "cpu-clock");
	pid_t self = getpid();
	struct live l;
	struct live_opts o = { 0 };
	assert_int_equal(live_open(&l, &evl, &o), -1);
	assert_non_null(strstr(err_msg(), "nothing to sample"));
	o = (struct live_opts){ .pids = &self, .npids = 1, .inherit = true };
	assert_int_equal(live_open(&l, &evl, &o), -1);
	assert_non_null(strstr(err_msg(), "CPU list"));
	o = (struct live_opts){ .pids = &self, .npids = 1, .mmap_pages = 3 };
	assert_int_equal(live_open(&l, &evl, &o), -1);
	assert_non_null(strstr(err_msg(), "power of two"));
	o = (struct live_opts){ .pids = &self, .npids = 1, .callchain = LIVE_CG_DWARF,
				.stack_size = 70000 };
	assert_int_equal(live_open(&l, &evl, &o), -1);
	assert_non_null(strstr(err_msg(), "65528"));
	pid_t gone = INT_MAX - 1;
	o = (struct live_opts){ .pids = &gone, .npids = 1 };
	assert_int_equal(live_open(&l, &evl, &o), -1);
	assert_non_null(strstr(err_msg(), "does not exist"));
	evlist_free(&evl);

	/* No hardware PMU here: cycles is explained, not just "No such file". */
	parse_events(&evl, "cycles");
	o = (struct live_opts){ .pids = &self, .npids = 1 };
	if (!ev_have_hw_pmu()) {
		assert_int_equal(live_open(&l, &evl, &o), -1);
		assert_non_null(strstr(err_msg(), "cannot open event 'cycles'"));
		assert_non_null(strstr(err_msg(), "no hardware PMU"));
	}
	evlist_free(&evl);

	/* Too high a frequency is lowered to the kernel's limit, and said so. */
	parse_events(&evl, "task-clock");
	o = (struct live_opts){ .pids = &self, .npids = 1, .freq = 100000000 };
	assert_int_equal(live_open(&l, &evl, &o), 0);
	assert_true(l.freq_max > 0 && l.freq_max < 100000000);
	assert_int_equal(l.attrs[0].sample_freq, l.freq_max);
	live_close(&l);
	evlist_free(&evl);
}

static void test_per_task_per_cpu_inherit(void **state)
{
	/* What `record -- cmd` uses: the command's fds on every CPU, inherited by its threads. */
	struct cpuset cpus;
	assert_int_equal(cpuset_online(&cpus), 0);
	struct evlist evl;
	parse_events(&evl, "task-clock");
	struct child c = child_start(100);
	struct live_opts o = { .pids = &c.pid, .npids = 1, .cpus = cpus.cpu, .ncpus = cpus.n,
			       .inherit = true, .freq = 1000, .mmap_pages = 8 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	assert_int_equal(l.nrbs, cpus.n);
	assert_true(l.attrs[0].inherit);
	live_enable(&l);
	child_go(&c);
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	size_t thread_samples = 0, leader_samples = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		struct tsample s;
		assert_true(parse_sample(&l.attrs[0], h, &s));
		assert_int_equal(s.pid, c.pid);
		if (s.tid == (uint32_t)c.pid)
			leader_samples++;
		else
			thread_samples++;
	}
	assert_true(leader_samples >= 10);
	assert_true(thread_samples >= 1); /* the thread was followed */
	/* Every CPU's fd of the command hangs up once it and its threads are gone. */
	assert_true(live_read(&l, 10, collect, &col) >= 0);
	assert_true(l.all_hup);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
	cpuset_free(&cpus);
}

static void test_enable_on_exec(void **state)
{
	/* The `record -- cmd` start: the child waits, we open disabled with enable_on_exec, it
	 * execs; samples start at the exec, which is announced by a COMM with the exec flag. */
	struct evlist evl;
	parse_events(&evl, "task-clock");
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct child c = { .pid = fork(), .go = p[1] };
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		close(p[1]);
		char b;
		if (read(p[0], &b, 1) != 1)
			_exit(1);
		spin_ms(50); /* before exec: must not be sampled */
		execl("/bin/sh", "sh", "-c", "i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done",
		      (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	struct live_opts o = { .pids = &c.pid, .npids = 1, .enable_on_exec = true, .freq = 1000 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	assert_true(l.attrs[0].enable_on_exec && l.attrs[0].disabled);
	child_go(&c);
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	uint64_t exec_time = 0;
	size_t samples = 0, early = 0, exe_maps = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		const uint32_t *u = (const uint32_t *)(h + 1);
		if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
			assert_int_equal(u[0], c.pid);
			assert_string_equal((const char *)(u + 2), "sh");
			/* trailer: pid/tid, time, cpu */
			exec_time = ((const uint64_t *)((const uint8_t *)h + h->size))[-2];
		} else if (h->type == PERF_RECORD_MMAP2) {
			const char *name = (const char *)(u + 16); /* after the 64-byte body */
			exe_maps += strstr(name, "dash") != NULL || strstr(name, "/sh") != NULL ||
				    strstr(name, "busybox") != NULL; /* the Arm guest's sh */
		} else if (h->type == PERF_RECORD_SAMPLE) {
			struct tsample s;
			assert_true(parse_sample(&l.attrs[0], h, &s));
			assert_int_equal(s.pid, c.pid);
			early += exec_time == 0 || s.time < exec_time;
			samples++;
		}
	}
	assert_true(exec_time > 0);
	assert_int_equal(early, 0);
	assert_true(samples >= 10);
	assert_true(exe_maps >= 1);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
}

static void test_unprivileged_user_mode_fallback(void **state)
{
	/* perf_event_paranoid 2 forbids an unprivileged user kernel samples: opening falls back
	 * to user mode and says so. Checked in a child that drops root. */
	if (geteuid() != 0 || pe_paranoid() < 2)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		struct evlist evl = { 0 };
		if (evlist_parse(&evl, "cpu-clock") < 0)
			_exit(11);
		pid_t self = getpid();
		struct live_opts o = { .pids = &self, .npids = 1, .mmap_pages = 4 };
		struct live l;
		if (live_open(&l, &evl, &o) < 0)
			_exit(12);
		int ok = l.kernel_excluded && l.attrs[0].exclude_kernel;
		live_close(&l);
		evlist_free(&evl);
		_exit(ok ? 0 : 13);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_group(void **state)
{
	/* {a,b}: the leader alone is enabled; both sample into one buffer. */
	struct evlist evl;
	parse_events(&evl, "{cpu-clock,task-clock}");
	struct child c = child_start(100);
	struct live_opts o = { .pids = &c.pid, .npids = 1, .freq = 1000 };
	struct live l;
	assert_int_equal(live_open(&l, &evl, &o), 0);
	assert_true(l.attrs[0].disabled);
	assert_false(l.attrs[1].disabled);
	live_enable(&l);
	child_go(&c);
	struct coll col = { .rb = -1 };
	read_until_exit(&l, &c, &col);
	size_t per_event[2] = { 0, 0 };
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		uint64_t id = *(const uint64_t *)(h + 1);
		per_event[in_ids(&l, 0, id) ? 0 : 1]++;
		assert_true(in_ids(&l, 0, id) || in_ids(&l, 1, id));
	}
	assert_true(per_event[0] >= 10);
	assert_true(per_event[1] >= 10);
	coll_free(&col);
	live_close(&l);
	evlist_free(&evl);
}

/* The ring buffer size: -m as given; DWARF stack copies get more room as root (a power of two,
 * 4 to 16 MiB of 4 KiB pages); everything else perf's 128 pages. */
static void test_mmap_pages(void **state)
{
	(void)state;
	assert_int_equal(live_mmap_pages(8, LIVE_CG_DWARF), 8);
	assert_int_equal(live_mmap_pages(0, LIVE_CG_NONE), 128);
	assert_int_equal(live_mmap_pages(0, LIVE_CG_FP), 128);
	size_t d = live_mmap_pages(0, LIVE_CG_DWARF);
	if (geteuid() != 0) {
		assert_int_equal(d, 128);
		return;
	}
	assert_true(d >= 1024 && d <= 4096);
	assert_int_equal(d & (d - 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_samples_and_sideband),
		cmocka_unit_test(test_two_events_identifier),
		cmocka_unit_test(test_cpu_wide),
		cmocka_unit_test(test_fp_callchain),
		cmocka_unit_test(test_dwarf_regs_and_stack),
		cmocka_unit_test(test_tiny_buffer_loses_cleanly),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_per_task_per_cpu_inherit),
		cmocka_unit_test(test_enable_on_exec),
		cmocka_unit_test(test_unprivileged_user_mode_fallback),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_mmap_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
