/* session_wall (record --wall): the off-CPU event's samples count as the on-CPU event's, which
 * is renamed wall-clock; offcpu-time's samples keep their periods (ns from the BPF program), and
 * sched:sched_switch's (recorded without BPF) wait for their thread's next switch in and weigh
 * the time between. A session whose tool did not ask keeps the events apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/record.h"
#include "session/session.h"

enum { ON_ID = 11, OFF_ID = 22 };
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

struct seen {
	size_t n;
	int idx[8];
	uint64_t period[8];
	const char *name[8];
};

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct seen *s = arg;
	assert_true(s->n < 8);
	s->idx[s->n] = rs->s->evsel->idx;
	s->period[s->n] = rs->s->period;
	s->name[s->n] = rs->s->evsel->name;
	s->n++;
	return 0;
}

static void events(struct evsel_set *set, const char *off_name, uint32_t off_type)
{
	memset(set, 0, sizeof(*set));
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = SAMPLE_TYPE, .sample_id_all = 1 };
	uint64_t id = ON_ID;
	evsel_set_add(set, &a, "cpu-clock", &id, 1);
	a.type = off_type;
	a.config = 0;
	id = OFF_ID;
	evsel_set_add(set, &a, off_name, &id, 1);
	evsel_set_index(set);
}

static void push_sample(struct session *ss, const struct evsel_set *set, int e, uint32_t tid, uint64_t time,
			uint64_t period)
{
	uint8_t buf[8192];
	struct perf_sample s = { .id = e ? OFF_ID : ON_ID, .ip = 0x1000, .pid = tid, .tid = tid, .time = time,
				 .period = period };
	size_t n = record_build_sample(buf, sizeof(buf), &set->v[e].attr, &s);
	assert_true(n > 0 && n <= sizeof(buf));
	assert_int_equal(session_push(ss, (const struct perf_event_header *)buf), 0);
}

/* A PERF_RECORD_SWITCH of tid at time (sample_id: TID, TIME, IDENTIFIER, as the kernel lays it). */
static void push_switch(struct session *ss, uint32_t tid, uint64_t time, bool out)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t time, id;
	} r = { { PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0, sizeof(r) }, tid, tid, time, ON_ID };
	assert_int_equal(session_push(ss, &r.h), 0);
}

static void test_offcpu_time(void **state)
{
	struct evsel_set set;
	events(&set, "offcpu-time", PERF_TYPE_SOFTWARE);
	struct seen seen = { 0 };
	struct session_tool tool = { .sample = on_sample, .arg = &seen, .wall = true };
	struct session ss;
	session_init(&ss, &set, &tool);
	session_wall(&ss, &set);
	push_sample(&ss, &set, 0, 10, 100, 250000);
	push_sample(&ss, &set, 1, 10, 200, 7000000);
	assert_int_equal(session_flush(&ss), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.idx[0], 0);
	assert_int_equal(seen.idx[1], 0);
	assert_int_equal(seen.period[0], 250000);
	assert_int_equal(seen.period[1], 7000000);
	assert_string_equal(seen.name[1], "wall-clock");
	session_free(&ss);
	assert_string_equal(set.v[0].name, "cpu-clock"); /* the name given back */
	evsel_set_free(&set);
}

static void test_switches(void **state)
{
	struct evsel_set set;
	events(&set, "sched:sched_switch", PERF_TYPE_TRACEPOINT);
	struct seen seen = { 0 };
	struct session_tool tool = { .sample = on_sample, .arg = &seen, .wall = true };
	struct session ss;
	session_init(&ss, &set, &tool);
	session_wall(&ss, &set);
	push_sample(&ss, &set, 0, 10, 100, 250000);
	push_sample(&ss, &set, 1, 10, 1000, 1);  /* 10 goes off ... */
	push_switch(&ss, 10, 1001, true);
	push_switch(&ss, 20, 1500, false);       /* another thread comes on: nothing held */
	push_switch(&ss, 10, 4000, false);       /* ... and comes back: 3000 ns */
	push_switch(&ss, 10, 5000, false);       /* nothing held any more */
	push_sample(&ss, &set, 1, 10, 6000, 1);  /* off again, and the recording ends: not weighed */
	assert_int_equal(session_flush(&ss), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.idx[1], 0);
	assert_int_equal(seen.period[0], 250000);
	assert_int_equal(seen.period[1], 3000);
	assert_int_equal(ss.nsamples, 2);
	session_free(&ss); /* frees the held sample (ASan's leak check) */
	evsel_set_free(&set);
}

static void test_apart_without_wall(void **state)
{
	struct evsel_set set;
	events(&set, "offcpu-time", PERF_TYPE_SOFTWARE);
	struct seen seen = { 0 };
	struct session_tool tool = { .sample = on_sample, .arg = &seen };
	struct session ss;
	session_init(&ss, &set, &tool);
	push_sample(&ss, &set, 0, 10, 100, 250000);
	push_sample(&ss, &set, 1, 10, 200, 7000000);
	assert_int_equal(session_flush(&ss), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.idx[1], 1);
	assert_string_equal(seen.name[1], "offcpu-time");
	assert_string_equal(seen.name[0], "cpu-clock");
	session_free(&ss);
	evsel_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offcpu_time),
		cmocka_unit_test(test_switches),
		cmocka_unit_test(test_apart_without_wall),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
