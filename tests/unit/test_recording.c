/* session/recording: record's engine, on a real command (cpu-clock, software: no PMU needed).
 * A recording is written whole and read back by the session with its samples and command line;
 * -D's hook is told of the events held and then enabled; requests that cannot work are refused
 * before anything runs, and nothing is left open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "events/evlist.h"
#include "session/recording.h"
#include "session/session.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/xalloc.h"

static char dir[] = "/tmp/lperf-test-recording-XXXXXX";

struct seen {
	int disabled, enabled, ticks, finals, said;
};

static void on_events(void *arg, bool enabled)
{
	struct seen *s = arg;
	if (enabled)
		s->enabled++;
	else
		s->disabled++;
}

static void on_tick(void *arg, const struct recording_progress *p, double now, bool final)
{
	struct seen *s = arg;
	s->ticks++;
	s->finals += final;
}

static void on_say(void *arg, const struct notes *ns)
{
	struct seen *s = arg;
	s->said += (int)ns->n;
}

/* Records a shell loop with cpu-clock into path; returns how the recording ended. */
static enum recording_end record(const char *path, int delay_ms, const char *control, bool overwrite,
				 struct seen *seen, struct recording_result *res)
{
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "cpu-clock"), 0);
	struct cpuset cpus;
	assert_int_equal(cpuset_online(&cpus), 0);
	char *cmd[] = { (char *)"sh", (char *)"-c", (char *)"i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
			NULL };
	char *line[] = { (char *)"lperf", (char *)"record", NULL };
	struct recording_opts o = { .sw = { .output = path, .control = control }, .overwrite = overwrite,
				    .buildids = RECORDER_BUILDIDS_NONE, .argc = 2, .argv = line,
				    .say = on_say, .events = on_events, .tick = on_tick, .arg = seen };
	struct live_opts lo = { .cpus = cpus.cpu, .ncpus = cpus.n, .inherit = true, .freq = 1000,
				.use_clockid = true, .clockid = CLOCK_MONOTONIC, .delay_ms = delay_ms };
	struct live_run_target tg = { cmd, NULL, NULL, NULL, false, false };
	struct recording r;
	enum recording_end end = recording_record(&r, &l, &tg, &lo, &o, res);
	if (end == RECORDING_DONE) {
		assert_int_equal(r.status, 0);
		struct notes ns = NOTES_INIT;
		recording_notes(&r, res, &ns);
		notes_clear(&ns);
		recording_free(&r);
	}
	free(res->why);
	cpuset_free(&cpus);
	evlist_free(&l);
	return end;
}

static int count_sample(const struct resolved_sample *rs, void *arg)
{
	(*(uint64_t *)arg)++;
	return 0;
}

static void records_a_command(void **state)
{
	(void)state;
	char *path = xasprintf("%s/a.data", dir);
	struct seen seen = { 0 };
	struct recording_result res;
	assert_int_equal(record(path, 0, NULL, false, &seen, &res), RECORDING_DONE);
	assert_false(res.error);
	assert_true(res.bytes > 0);
	assert_int_equal(seen.disabled + seen.enabled, 0);
	assert_int_equal(seen.finals, 1);
	assert_true(seen.ticks >= 1);
	uint64_t n = 0;
	struct session ss;
	struct session_tool tool = { .sample = count_sample, .arg = &n };
	struct session_opts so = { 0 };
	assert_int_equal(session_open(&ss, path, &so, &tool), 0);
	assert_int_equal(session_run(&ss), 0);
	assert_int_equal(ss.reader->info.ncmdline, 2);
	assert_string_equal(ss.reader->info.cmdline[1], "record");
	session_close(&ss);
	assert_int_equal(n, res.samples);
	unlink(path);
	free(path);
}

static void delayed_events_are_said(void **state)
{
	(void)state;
	char *path = xasprintf("%s/d.data", dir);
	struct seen seen = { 0 };
	struct recording_result res;
	assert_int_equal(record(path, 10, NULL, false, &seen, &res), RECORDING_DONE);
	assert_int_equal(seen.disabled, 1);
	assert_int_equal(seen.enabled, 1);
	seen = (struct seen){ 0 };
	assert_int_equal(record(path, -1, NULL, false, &seen, &res), RECORDING_DONE);
	assert_int_equal(seen.disabled, 1);
	assert_int_equal(seen.enabled, 0);
	assert_int_equal(res.samples, 0);
	char *old = xasprintf("%s.old", path); /* the first recording, kept as perf keeps it */
	assert_int_equal(access(old, F_OK), 0);
	unlink(old);
	free(old);
	unlink(path);
	free(path);
}

static void bad_requests_run_nothing(void **state)
{
	(void)state;
	char *path = xasprintf("%s/b.data", dir);
	struct seen seen = { 0 };
	struct recording_result res;
	assert_int_equal(record(path, 0, "pipe:x", false, &seen, &res), RECORDING_BAD_REQUEST);
	assert_non_null(strstr(err_msg(), "fifo:CTL"));
	assert_int_equal(seen.ticks, 0);
	assert_int_equal(access(path, F_OK), -1);
	char *missing = xasprintf("%s/no/such/dir/c.data", dir);
	assert_int_equal(record(missing, 0, NULL, false, &seen, &res), RECORDING_FAILED);
	assert_int_equal(seen.ticks, 0);
	free(missing);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_a_command),
		cmocka_unit_test(delayed_events_are_said),
		cmocka_unit_test(bad_requests_run_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
