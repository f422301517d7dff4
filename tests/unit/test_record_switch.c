/* perfdata/record_switch: when record closes its file and starts the next (--switch-output by
 * size, time, SIGUSR2), where the closed file goes (OUTPUT.<timestamp>, at most
 * --switch-max-files kept), --control's FIFO commands, and --overwrite's hold of the newest
 * records. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfdata/record_switch.h"
#include "util/error.h"
#include "util/xalloc.h"

static void due_by_size_and_time(void **state)
{
	(void)state;
	struct record_switch s;
	struct record_switch_opts o = { .output = "x.data", .mode = SWITCH_SIZE, .size = 1000 };
	assert_int_equal(record_switch_init(&s, &o, 0), 0);
	assert_false(record_switch_due(&s, 1, 999));
	assert_true(record_switch_due(&s, 1, 1000));
	record_switch_free(&s);

	o = (struct record_switch_opts){ .output = "x.data", .mode = SWITCH_TIME, .secs = 2 };
	assert_int_equal(record_switch_init(&s, &o, 10), 0);
	assert_false(record_switch_due(&s, 11.9, 1u << 30));
	assert_true(record_switch_due(&s, 12, 0));
	assert_false(record_switch_due(&s, 13, 0));
	/* a stall longer than the period: one switch, the next a period later */
	assert_true(record_switch_due(&s, 30, 0));
	assert_false(record_switch_due(&s, 31.9, 0));
	assert_true(record_switch_due(&s, 32, 0));
	record_switch_free(&s);

	o = (struct record_switch_opts){ .output = "x.data", .mode = SWITCH_NONE };
	assert_int_equal(record_switch_init(&s, &o, 0), 0);
	assert_false(record_switch_due(&s, 1e9, 1ull << 40));
	record_switch_free(&s);
}

static void signal_switches_once_each(void **state)
{
	(void)state;
	struct record_switch s;
	struct record_switch_opts o = { .output = "x.data", .mode = SWITCH_SIGNAL };
	assert_int_equal(record_switch_init(&s, &o, 0), 0);
	assert_false(record_switch_due(&s, 0, 0));
	raise(SIGUSR2);
	raise(SIGUSR2);
	assert_true(record_switch_due(&s, 0, 0));
	assert_true(record_switch_due(&s, 0, 0));
	assert_false(record_switch_due(&s, 0, 0));
	record_switch_free(&s);
}

static void bad_settings(void **state)
{
	(void)state;
	struct record_switch s;
	struct record_switch_opts o = { .output = "-", .mode = SWITCH_SIGNAL };
	assert_int_equal(record_switch_init(&s, &o, 0), -1);
	assert_non_null(strstr(err_msg(), "-o -"));
	record_switch_free(&s);
	o = (struct record_switch_opts){ .output = "x.data", .mode = SWITCH_SIGNAL, .max_files = -1 };
	assert_int_equal(record_switch_init(&s, &o, 0), -1);
	assert_non_null(strstr(err_msg(), "--switch-max-files"));
	record_switch_free(&s);
	o = (struct record_switch_opts){ .output = "x.data", .control = "pipe:x" };
	assert_int_equal(record_switch_init(&s, &o, 0), -1);
	assert_non_null(strstr(err_msg(), "fifo:CTL"));
	record_switch_free(&s);
	o = (struct record_switch_opts){ .output = "x.data", .control = "fifo:/nonexistent/ctl" };
	assert_int_equal(record_switch_init(&s, &o, 0), -1);
	assert_non_null(strstr(err_msg(), "cannot open"));
	record_switch_free(&s);
}

static size_t count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static void rename_keeps_max_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/lperf-test-switch-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *out = xasprintf("%s/r.data", dir);
	struct record_switch s;
	struct record_switch_opts o = { .output = out, .mode = SWITCH_SIGNAL, .max_files = 2 };
	assert_int_equal(record_switch_init(&s, &o, 0), 0);
	char *names[3];
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(out, "w");
		assert_non_null(f);
		fclose(f);
		names[i] = record_switch_rename(&s);
		assert_non_null(names[i]);
		assert_int_equal(strncmp(names[i], out, strlen(out)), 0);
		assert_int_equal(strlen(names[i]), strlen(out) + 1 + 16); /* .YYYYMMDDHHMMSSCC */
		assert_int_equal(access(out, F_OK), -1);
	}
	/* names differ even within one hundredth; the oldest is gone */
	assert_string_not_equal(names[0], names[1]);
	assert_string_not_equal(names[1], names[2]);
	assert_int_equal(access(names[0], F_OK), -1);
	assert_int_equal(access(names[1], F_OK), 0);
	assert_int_equal(access(names[2], F_OK), 0);
	assert_int_equal(count_files(dir, "r.data."), 2);
	/* nothing to rename: an error naming both files */
	assert_null(record_switch_rename(&s));
	assert_non_null(strstr(err_msg(), "cannot rename"));
	record_switch_free(&s);
	for (int i = 0; i < 3; i++) {
		unlink(names[i]);
		free(names[i]);
	}
	rmdir(dir);
	free(out);
}

static int toggles[2];

static void toggle(void *arg, bool on)
{
	assert_ptr_equal(arg, toggles);
	toggles[on]++;
}

static void control_fifo(void **state)
{
	(void)state;
	char dir[] = "/tmp/lperf-test-control-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *ctl = xasprintf("%s/ctl", dir), *ack = xasprintf("%s/ack", dir);
	char *spec = xasprintf("fifo:%s,%s", ctl, ack);
	assert_int_equal(mkfifo(ctl, 0600), 0);
	assert_int_equal(mkfifo(ack, 0600), 0);
	struct record_switch s;
	struct record_switch_opts o = { .output = "x.data", .mode = SWITCH_SIGNAL, .control = spec };
	assert_int_equal(record_switch_init(&s, &o, 0), 0);
	int w = open(ctl, O_WRONLY | O_NONBLOCK), r = open(ack, O_RDONLY | O_NONBLOCK);
	assert_true(w >= 0 && r >= 0);
	const char cmds[] = "enable\ndisable\nenable\nbogus\nping\nsnapshot";
	assert_int_equal(write(w, cmds, sizeof(cmds)), (ssize_t)sizeof(cmds)); /* the last ends with NUL */
	record_switch_control(&s, toggle, toggles);
	assert_int_equal(toggles[1], 2);
	assert_int_equal(toggles[0], 1);
	char buf[64] = { 0 };
	/* enable, disable, enable, ping, snapshot acknowledged; the unknown command is not */
	assert_int_equal(read(r, buf, sizeof(buf) - 1), 20);
	assert_string_equal(buf, "ack\nack\nack\nack\nack\n");
	assert_true(record_switch_due(&s, 0, 0)); /* the snapshot */
	assert_false(record_switch_due(&s, 0, 0));
	record_switch_free(&s);
	close(w);
	close(r);
	unlink(ctl);
	unlink(ack);
	rmdir(dir);
	free(ctl);
	free(ack);
	free(spec);
}

static struct perf_event_header *rec(uint16_t size, uint32_t type)
{
	struct perf_event_header *h = xcalloc(1, size);
	h->size = size;
	h->type = type;
	return h;
}

static int collect(const struct perf_event_header *h, void *arg)
{
	struct perf_event_header *types = arg;
	types[types[0].type++ + 1].type = h->type;
	return 0;
}

static void hold_keeps_the_newest(void **state)
{
	(void)state;
	struct record_hold h;
	record_hold_init(&h, 100);
	for (uint32_t t = 1; t <= 3000; t++) { /* the queue grows past its first 1024 */
		struct perf_event_header *r = rec(t % 2 ? 16 : 24, t);
		assert_int_equal(record_hold_push(r, &h), 0);
		free(r);
	}
	/* 16 + 24 bytes alternate: the newest 4 fit in 100 bytes, 5 do not */
	assert_int_equal(h.n, 4);
	assert_int_equal(h.bytes, 80);
	assert_int_equal(h.dropped, 2996);
	struct perf_event_header types[8] = { 0 };
	assert_int_equal(record_hold_flush(&h, collect, types), 0);
	assert_int_equal(types[0].type, 4);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(types[i + 1].type, 2997 + i);
	assert_int_equal(h.n, 0);
	assert_int_equal(h.bytes, 0);
	/* a record larger than the limit is still kept alone */
	struct perf_event_header *big = rec(200, 7);
	assert_int_equal(record_hold_push(big, &h), 0);
	free(big);
	assert_int_equal(h.n, 1);
	record_hold_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(due_by_size_and_time),
		cmocka_unit_test(signal_switches_once_each),
		cmocka_unit_test(bad_settings),
		cmocka_unit_test(rename_keeps_max_files),
		cmocka_unit_test(control_fifo),
		cmocka_unit_test(hold_keeps_the_newest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
