/* lperf sched latency, timehist and map on a small hand-made stream of scheduler events: the
 * fields read from raw tracepoint records (and a short record refused), perf 6.1's latency
 * atoms (a preempted task's delay from its switch out, a sleeping one's from its wakeup,
 * sched_waking ignored, tasks merged by comm or kept per pid), timehist's wait/delay/run
 * columns, map's short names, and the text perf prints for them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event-parse.h>

#include "analysis/sched.h"
#include "output/sched_out.h"
#include "util/error.h"

static const char switch_fmt[] =
	"name: sched_switch\nID: 300\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";
static const char waking_fmt[] =
	"name: sched_waking\nID: 301\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"pid=%d\", REC->pid\n";

static void test_decode(void **state)
{
	(void)state;
	struct tep_handle *tep = tep_alloc();
	struct sched_tp tp;
	assert_int_equal(sched_tp_init(&tp, tep), -1); /* no sched_switch: said what to run */
	assert_non_null(strstr(err_msg(), "lperf sched record"));
	err_clear();
	assert_int_equal(tep_parse_event(tep, switch_fmt, strlen(switch_fmt), "sched"), 0);
	assert_int_equal(tep_parse_event(tep, waking_fmt, strlen(waking_fmt), "sched"), 0);
	assert_int_equal(sched_tp_init(&tp, tep), 0);

	uint8_t raw[64] = { 0 };
	uint16_t id = 300;
	int32_t prev = 42, next = 7;
	int64_t st = 0x100;
	memcpy(raw, &id, 2);
	memcpy(raw + 24, &prev, 4);
	memcpy(raw + 32, &st, 8);
	memcpy(raw + 40, "worker-with-a-long-name", 16); /* no NUL within the field */
	memcpy(raw + 56, &next, 4);
	struct perf_sample s = { .time = 5, .cpu = 1, .pid = 42, .tid = 42, .raw = raw, .raw_size = sizeof(raw) };
	struct resolved_sample rs = { .s = &s };
	struct sched_event ev;
	assert_int_equal(sched_tp_decode(&tp, &rs, &ev), 1);
	assert_int_equal(ev.kind, SCHED_SWITCH);
	assert_int_equal(ev.prev_pid, 42);
	assert_int_equal(ev.next_pid, 7);
	assert_int_equal(ev.prev_state, 0x100);
	assert_string_equal(ev.next_comm, "worker-with-a-lo");
	s.raw_size = 50; /* cut inside next_comm */
	assert_int_equal(sched_tp_decode(&tp, &rs, &ev), -1);

	uint8_t wk[36] = { 0 };
	id = 301;
	memcpy(wk, &id, 2);
	memcpy(wk + 24, &next, 4);
	s.raw = wk;
	s.raw_size = sizeof(wk);
	assert_int_equal(sched_tp_decode(&tp, &rs, &ev), 1);
	assert_int_equal(ev.kind, SCHED_WAKEUP);
	assert_true(ev.waking);
	assert_int_equal(ev.target, 7);
	id = 999;
	memcpy(wk, &id, 2);
	assert_int_equal(sched_tp_decode(&tp, &rs, &ev), 0);
	tep_free(tep);
}

static struct sched_event sw(uint64_t t, uint32_t cpu, int32_t prev, int64_t state, int32_t next)
{
	return (struct sched_event){ .kind = SCHED_SWITCH, .time = t, .cpu = cpu, .pid = prev, .tid = prev,
				     .prev_pid = prev, .prev_state = state, .next_pid = next };
}

static struct sched_event other(enum sched_kind k, uint64_t t, int32_t target, uint64_t runtime, bool waking)
{
	return (struct sched_event){ .kind = k, .time = t, .target = target, .runtime = runtime, .waking = waking };
}

/* Tasks 100 and 200 named "app", 300 named "db", on CPU 0 (times in microseconds). */
static void feed(void (*fn)(void *, const struct sched_event *), void *arg)
{
	const uint64_t us = 1000;
	struct sched_event v[] = {
		sw(1000 * us, 0, 0, 0, 100),                         /* 100 first seen: no delay */
		other(SCHED_RUNTIME, 1500 * us, 100, 400 * us, false),
		sw(2000 * us, 0, 100, 1, 0),                         /* 100 sleeps */
		other(SCHED_WAKEUP, 2500 * us, 100, 0, true),        /* sched_waking: latency ignores it */
		other(SCHED_WAKEUP, 3000 * us, 100, 0, false),       /* sched_wakeup */
		sw(4000 * us, 0, 0, 0, 100),                         /* delay 1 ms */
		sw(5000 * us, 0, 100, 0, 200),                       /* 100 preempted (R) */
		other(SCHED_RUNTIME, 5500 * us, 200, 1000 * us, false),
		sw(8000 * us, 0, 200, 1, 100),                       /* 100 waited 3 ms */
		sw(9000 * us, 0, 300, 1, 0),                         /* not 100: a context switch bug */
		other(SCHED_WAKEUP, 9500 * us, 300, 0, false),
		sw(9700 * us, 0, 0, 0, 300),                         /* 300: delay 0.2 ms */
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		fn(arg, &v[i]);
}

static void lat_feed(void *arg, const struct sched_event *ev)
{
	sched_lat_event(arg, ev);
}

static void names(struct machine *m)
{
	machine_init(m);
	machine_comm(m, 100, 100, "app", false);
	machine_comm(m, 200, 200, "app", false);
	machine_comm(m, 300, 300, "db", false);
}

static char *lat_text(bool per_pid, const char *keys_spec)
{
	struct machine m;
	names(&m);
	struct sched_lat l;
	sched_lat_init(&l, -1, per_pid);
	feed(lat_feed, &l);
	int keys[8];
	size_t nkeys;
	assert_int_equal(sched_lat_keys(keys_spec, keys, 8, &nkeys), 0);
	sched_lat_finish(&l, &m, keys, nkeys);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sched_bad bad = { 0 };
	sched_print_latency(f, &l, &bad);
	fclose(f);
	sched_lat_free(&l);
	machine_free(&m);
	return buf;
}

static void test_latency(void **state)
{
	(void)state;
	char *t = lat_text(false, "avg, max, switch, runtime");
	if (getenv("SCHED_DEBUG"))
		fputs(t, stderr);
	/* app: 100's delays 0, 1 and 3 ms, 200's 0; db: 0.2 ms. avg sorts app (1.000) first. */
	assert_non_null(strstr(t, "  app:(2)               |      1.400 ms |        4 | avg:   1.000 ms | "
				  "max:   3.000 ms | max start:     0.005000 s | max end:     0.008000 s\n"
				  "  db:300                |      0.000 ms |        1 | avg:   0.200 ms | "
				  "max:   0.200 ms | max start:     0.009500 s | max end:     0.009700 s\n"));
	assert_non_null(strstr(t, "  TOTAL:                |      1.400 ms |        5 |\n"));
	assert_null(strstr(t, "swapper"));
	assert_non_null(strstr(t, "  INFO: 50.000% context switch bugs (1 out of 2)\n"));
	free(t);
	/* per pid, by switches: 100 (3), then 300 and 200 (1 each: the higher tid first) */
	t = lat_text(true, "switch");
	char *a = strstr(t, "  app:100 "), *b = strstr(t, "  db:300 "), *c = strstr(t, "  app:200 ");
	assert_true(a && b && c && a < b && b < c);
	free(t);
	int keys[8];
	size_t n;
	assert_int_equal(sched_lat_keys("max,bogus", keys, 8, &n), -1);
	assert_non_null(strstr(err_msg(), "bogus"));
	err_clear();
}

static void test_switch_bugs(void **state)
{
	(void)state;
	struct sched_lat l;
	sched_lat_init(&l, -1, false);
	feed(lat_feed, &l);
	assert_int_equal(l.nr_switch_bugs, 1);
	assert_int_equal(l.nr_timestamps, 2); /* the two sched_wakeups of sleeping tasks */
	sched_lat_free(&l);
}

static char hist_buf[4096];
static size_t hist_len;

static void hist_row(void *arg, const struct sched_hist_row *r)
{
	FILE *f = ((struct sched_hist_out *)arg)->f;
	sched_hist_line(arg, r);
	fflush(f);
}

static void hist_feed(void *arg, const struct sched_event *ev)
{
	sched_hist_event(arg, ev);
}

/* timehist of feed's events, its lines in hist_buf (SCHED_DEBUG=1 shows them). */
static void hist_run(struct sched_hist *h, struct machine *m, struct sched_hist_out *o, const struct sched_ids *pids,
		     bool idle_hist)
{
	memset(hist_buf, 0, sizeof(hist_buf));
	*o = (struct sched_hist_out){ .f = fmemopen(hist_buf, sizeof(hist_buf), "w"), .comm_width = 30 };
	sched_hist_init(h, m, 1);
	h->row = hist_row;
	h->arg = o;
	h->pids = pids;
	h->idle_hist = idle_hist;
	feed(hist_feed, h);
	fclose(o->f);
	if (getenv("SCHED_DEBUG"))
		fputs(hist_buf, stderr);
}

static void test_timehist(void **state)
{
	(void)state;
	struct machine m;
	names(&m);
	struct sched_hist_out o;
	struct sched_hist h;
	hist_run(&h, &m, &o, NULL, false);
	hist_len = strlen(hist_buf);
	/* 100's line at 5 ms: ran 1 ms (4..5), slept 2 ms (2..4), a delay of 1.5 ms (woken at 2.5 ms
	 * by sched_waking, which timehist takes, unlike latency); the idle task at 9.7 ms: out since
	 * 4 ms, preempted (state 0) until the switch before, 9 ms */
	assert_non_null(strstr(hist_buf, "       0.005000 [0000]  app[100]                            2.000      1.500      1.000 \n"));
	assert_non_null(strstr(hist_buf, "       0.008000 [0000]  app[200]                            0.000      0.000      3.000 \n"));
	assert_non_null(strstr(hist_buf, "       0.009700 [0000]  <idle>                              5.000      0.000      0.700 \n"));
	struct sched_thr **v;
	size_t n = sched_hist_tasks(&h, false, &v);
	assert_int_equal(n, 3);
	assert_int_equal(v[0]->tid, 300); /* perf's order: by tid % 256 (44, 100, 200) */
	assert_int_equal(v[1]->tid, 100);
	assert_int_equal((int)v[1]->run.n, 2);
	free(v);
	sched_hist_free(&h);

	/* -p 100: only 100's switches, its times as before; the others counted as left out */
	struct sched_ids pids;
	assert_int_equal(sched_ids_parse("100", &pids), 0);
	hist_run(&h, &m, &o, &pids, false);
	assert_non_null(strstr(hist_buf, "       0.005000 [0000]  app[100]                            2.000      1.500      1.000 \n"));
	assert_null(strstr(hist_buf, "app[200]"));
	assert_null(strstr(hist_buf, "<idle>"));
	assert_int_equal(h.skipped, 5);
	n = sched_hist_tasks(&h, false, &v);
	assert_int_equal(n, 1);
	free(v);
	sched_hist_free(&h);
	sched_ids_free(&pids);
	assert_int_equal(sched_ids_parse("1,x", &pids), -1);
	err_clear();
	machine_free(&m);
}

/* A process's main thread first named by a wakeup, after a sample of another of its threads: perf
 * made it with that thread (its leader, with its process), so its lines name it with its
 * process, ":500[500]", not as a woken task perf first met would be (":500", process 0). */
static void test_timehist_leader(void **state)
{
	(void)state;
	const uint64_t ms = 1000000;
	struct sched_event v[] = {
		{ .kind = SCHED_SWITCH, .time = 1 * ms, .pid = 500, .tid = 501, .prev_pid = 501, .next_pid = 0 },
		{ .kind = SCHED_WAKEUP, .time = 2 * ms, .pid = 500, .tid = 501, .target = 500 },
		{ .kind = SCHED_SWITCH, .time = 3 * ms, .prev_pid = 0, .next_pid = 500 },
		{ .kind = SCHED_SWITCH, .time = 4 * ms, .pid = 500, .tid = 500, .prev_pid = 500, .prev_state = 1 },
		{ .kind = SCHED_WAKEUP, .time = 5 * ms, .pid = 0, .tid = 0, .target = 700 },
		{ .kind = SCHED_SWITCH, .time = 6 * ms, .prev_pid = 0, .next_pid = 700 },
		{ .kind = SCHED_SWITCH, .time = 7 * ms, .pid = 700, .tid = 700, .prev_pid = 700, .prev_state = 1 },
	};
	struct machine m;
	machine_init(&m);
	struct sched_hist_out o;
	struct sched_hist h;
	memset(hist_buf, 0, sizeof(hist_buf));
	o = (struct sched_hist_out){ .f = fmemopen(hist_buf, sizeof(hist_buf), "w"), .comm_width = 30 };
	sched_hist_init(&h, &m, 1);
	h.row = hist_row;
	h.arg = &o;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		sched_hist_event(&h, &v[i]);
	fclose(o.f);
	if (getenv("SCHED_DEBUG"))
		fputs(hist_buf, stderr);
	assert_non_null(strstr(hist_buf, "       0.004000 [0000]  :500[500] "));
	/* 700, first met woken, keeps process 0 as in perf */
	assert_non_null(strstr(hist_buf, "       0.007000 [0000]  :700 "));
	sched_hist_free(&h);
	machine_free(&m);
}

/* -I: only the switches to and from the idle task; each idle period goes to the task that went
 * out before it (100 from 2 to 4 ms, 300 from 9 to 9.7 ms); the first, with no task before it,
 * shows no line. The idle task's wait is since it last went out (1 ms). */
static void test_idle_hist(void **state)
{
	(void)state;
	struct machine m;
	names(&m);
	struct sched_hist_out o;
	struct sched_hist h;
	hist_run(&h, &m, &o, NULL, true);
	assert_string_equal(hist_buf,
			    "       0.002000 [0000]  app[100]                            0.000      0.000      0.000 \n"
			    "       0.004000 [0000]  <idle>                              1.000      0.000      2.000 \n"
			    "       0.009000 [0000]  db[300]                             0.000      0.000      0.000 \n"
			    "       0.009700 [0000]  <idle>                              5.000      0.000      0.700 \n");
	struct sched_thr **v;
	size_t n = sched_hist_tasks(&h, false, &v);
	assert_int_equal(n, 2);
	assert_int_equal(v[0]->tid, 300);
	assert_int_equal(v[0]->total_run, 700000);
	assert_int_equal(v[1]->tid, 100);
	assert_int_equal(v[1]->total_run, 2000000);
	assert_int_equal((int)v[1]->run.n, 1);
	free(v);
	assert_int_equal(h.idle[0]->total_run, 2700000);
	assert_int_equal((int)h.idle[0]->run.n, 3);
	sched_hist_free(&h);
	machine_free(&m);
}

static char map_buf[2048];

static void map_row(void *arg, const struct sched_map_row *r)
{
	sched_map_line(arg, r);
}

static void map_feed(void *arg, const struct sched_event *ev)
{
	sched_map_event(arg, ev);
}

static void test_map(void **state)
{
	(void)state;
	struct machine m;
	names(&m);
	FILE *f = fmemopen(map_buf, sizeof(map_buf), "w");
	struct sched_map mp;
	sched_map_init(&mp, &m, 2);
	mp.row = map_row;
	mp.arg = f;
	feed(map_feed, &mp);
	fclose(f);
	if (getenv("SCHED_DEBUG"))
		fputs(map_buf, stderr);
	assert_non_null(strstr(map_buf, "  *A0           0.001000 secs A0 => app:100\n"));
	assert_non_null(strstr(map_buf, "  *.            0.002000 secs .  => swapper:0\n"));
	assert_non_null(strstr(map_buf, "  *A0           0.004000 secs \n"));
	assert_non_null(strstr(map_buf, "  *B0           0.005000 secs B0 => app:200\n"));
	sched_map_free(&mp);
	machine_free(&m);
}

/* -g: the chain on the switch's line, the scheduler's functions left out, at most --max-stack + 2
 * frames looked at, [unknown] for a frame without a symbol; an idle task's line has none. */
static void test_chain_line(void **state)
{
	(void)state;
	static struct symbol s_sched = { 0x100, 0x10, (char *)"__schedule", NULL };
	static struct symbol s_sched2 = { 0x200, 0x10, (char *)"schedule", NULL };
	static struct symbol s_wait = { 0x300, 0x10, (char *)"do_wait", NULL };
	static struct symbol s_sys = { 0x400, 0x10, (char *)"do_syscall_64", NULL };
	struct frame frames[5] = { { .loc.sym = &s_sched }, { .loc.sym = &s_sched2 }, { .loc.sym = &s_wait },
				   { .loc.sym = NULL }, { .loc.sym = &s_sys } };
	char buf[512] = { 0 };
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct sched_hist_out o = { .f = f, .comm_width = 30, .callchain = true, .max_stack = 4 };
	struct sched_hist_row r = { .kind = SCHED_ROW_SWITCH, .time = 1000000000, .cpu = 1, .ncpus = 2,
				    .task = { "sh", 7, 7 }, .run = 2000000, .frames = frames, .nframes = 5 };
	sched_hist_line(&o, &r);
	r.idle = true;
	r.task = (struct sched_task){ "<idle>", 0, 0 };
	sched_hist_line(&o, &r);
	fclose(f);
	assert_string_equal(buf, "       1.000000 [0001]  sh[7]                               0.000      0.000      2.000 "
				 "   do_wait <- [unknown]\n"
				 "       1.000000 [0001]  <idle>                              0.000      0.000      2.000 \n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),      cmocka_unit_test(test_latency), cmocka_unit_test(test_switch_bugs),
		cmocka_unit_test(test_timehist),    cmocka_unit_test(test_map),     cmocka_unit_test(test_chain_line),
		cmocka_unit_test(test_idle_hist),   cmocka_unit_test(test_timehist_leader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
