/* target/daemon_cfg.c: perf's config file as perf daemon reads it ([daemon] base, [session-NAME]
 * run), bad lines named by file and line; output/daemon_out.c: perf daemon's list, ping and signal
 * lines from the daemon's answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "output/daemon_out.h"
#include "target/daemon.h"
#include "util/error.h"

static char path[] = "/tmp/lperf-test-daemon-cfg-XXXXXX";

static int read_text(const char *text, struct daemon_config *c)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	int rc = daemon_config_read(path, c);
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
	return rc;
}

static void test_sessions(void **state)
{
	(void)state;
	struct daemon_config c;
	assert_int_equal(read_text("# perf's example\n[daemon]\nbase=/opt/perfdata\n\n[session-cycles]\n"
				   "run = -m 10M -e cycles --overwrite --switch-output -a\n[report]\nchildren = false\n"
				   "[session-sched]\n  run = \"-e sched:*\"\t\n; comment\n", &c), 0);
	assert_string_equal(c.base, "/opt/perfdata");
	assert_int_equal(c.n, 2);
	assert_string_equal(c.s[0].name, "cycles");
	assert_string_equal(c.s[0].run, "-m 10M -e cycles --overwrite --switch-output -a");
	assert_string_equal(c.s[1].name, "sched");
	assert_string_equal(c.s[1].run, "-e sched:*");
	daemon_config_free(&c);
}

static void test_bad_lines(void **state)
{
	(void)state;
	struct daemon_config c;
	assert_int_equal(read_text("[daemon]\nbase=/x\n\n[session-a\nrun = x\n", &c), -1);
	assert_non_null(strstr(err_msg(), ":4: a section is [NAME]"));
	assert_int_equal(read_text("base = /x\n", &c), -1);
	assert_non_null(strstr(err_msg(), ":1: 'base' is outside any [section]"));
	assert_int_equal(read_text("[session-a/b]\nrun = x\n", &c), -1);
	assert_non_null(strstr(err_msg(), "not a session name"));
	assert_int_equal(read_text("[daemon]\njunk\n", &c), -1);
	assert_non_null(strstr(err_msg(), ":2: expected KEY = VALUE"));
}

static char *render(void (*fn)(FILE *, const char *), const char *answer)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, answer);
	fclose(f);
	return buf;
}

static void test_output(void **state)
{
	(void)state;
	const char *list = "D\t10\t/b\t0\nS\t11\tsize\t-e cpu-clock -m 1 sleep 10\t/b/session-size\t0\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(daemon_print_list(f, list, ":", false, "perf record"), 2);
	fclose(f);
	assert_string_equal(buf, "10:daemon:/b:/b/output:/b/lock:0\n"
				 "11:size:-e cpu-clock -m 1 sleep 10:/b/session-size:/b/session-size/output:"
				 "/b/session-size/control:/b/session-size/ack:0\n");
	free(buf);
	f = open_memstream(&buf, &len);
	daemon_print_list(f, list, NULL, false, "perf record");
	fclose(f);
	assert_string_equal(buf, "[10:daemon] base: /b\n[11:size] perf record -e cpu-clock -m 1 sleep 10\n");
	free(buf);
	buf = render(daemon_print_ping, "P\ta\tOK\nP\tb\tFAIL\nP\tc\tNOTFOUND\n");
	assert_string_equal(buf, "OK   a\nFAIL b\nFAIL c (not found)\n");
	free(buf);
	buf = render(daemon_print_signal, "G\ttest\t25084\n");
	assert_string_equal(buf, "signal 12 sent to session 'test [25084]'\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sessions),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
