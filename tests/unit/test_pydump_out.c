/* lperf dump's renderers byte for byte on a hand-built dump: the header, "Thread TID (idle|active)
 * [name]", frames innermost first as "func (file:LINE)" (no line: "func (file)"), a thread whose
 * tid is unknown by its pthread_t, [truncated], --nonblocking's note; and the JSON's fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/pydump_out.h"

static struct pydump_frame fa[] = {
	{ (char *)"block", (char *)"/w/app.py", 21 },
	{ (char *)"Worker.run", (char *)"/w/app.py", 40 },
};
static struct pydump_frame fb[] = { { (char *)"spin", (char *)"/w/app.py", -1 } };

static struct pydump sample(bool paused)
{
	static struct pydump_thread th[2];
	memset(th, 0, sizeof(th));
	th[0].tid = 101;
	th[0].thread_id = 0x7f00;
	snprintf(th[0].name, sizeof(th[0].name), "worker");
	th[0].frames = fa;
	th[0].nframes = 2;
	th[0].truncated = true;
	th[1].tid = 0;
	th[1].thread_id = 0x7f10;
	th[1].active = false;
	th[1].frames = fb;
	th[1].nframes = 1;
	struct pydump d = { .pid = 100, .cmdline = (char *)"python3 app.py", .major = 3, .minor = 9,
			    .paused = paused, .threads = th, .nthreads = 2 };
	snprintf(d.lib, sizeof(d.lib), "/usr/lib/libpython3.9.so.1.0");
	return d;
}

/* The stream's buffer lives outside the function: gcc 12 for aarch64 takes a local one handed to
 * open_memstream for a pointer that dangles after the return (-Wdangling-pointer). */
static char *render_buf;
static size_t render_len;

static char *render(const struct pydump *d, bool json)
{
	render_buf = NULL;
	render_len = 0;
	FILE *f = open_memstream(&render_buf, &render_len);
	if (json)
		pydump_print_json(f, d);
	else
		pydump_print_text(f, d);
	fclose(f);
	return render_buf;
}

static void test_text(void **state)
{
	(void)state;
	struct pydump d = sample(true);
	char *out = render(&d, false);
	assert_string_equal(out,
		"Process 100: python3 app.py\n"
		"Python 3.9 (/usr/lib/libpython3.9.so.1.0)\n"
		"\n"
		"Thread 101 (idle) [worker]\n"
		"    block (/w/app.py:21)\n"
		"    Worker.run (/w/app.py:40)\n"
		"    [truncated]\n"
		"\n"
		"Thread 0x7f10 (unknown)\n"
		"    spin (/w/app.py)\n");
	free(out);
	d = sample(false);
	d.nthreads = 0;
	out = render(&d, false);
	assert_string_equal(out,
		"Process 100: python3 app.py\n"
		"Python 3.9 (/usr/lib/libpython3.9.so.1.0), read without pausing (--nonblocking): stacks may be inconsistent\n"
		"\n"
		"No Python threads (the interpreter has not started or has finished)\n");
	free(out);
}

static void test_json(void **state)
{
	(void)state;
	struct pydump d = sample(true);
	char *out = render(&d, true);
	assert_non_null(strstr(out, "\"pid\": 100,"));
	assert_non_null(strstr(out, "\"python_version\": \"3.9\","));
	assert_non_null(strstr(out, "\"paused\": true,"));
	assert_non_null(strstr(out, "\"tid\": 101,"));
	assert_non_null(strstr(out, "\"name\": \"worker\","));
	assert_non_null(strstr(out, "\"comm\": \"worker\","));
	assert_non_null(strstr(out, "\"active\": false,"));
	assert_non_null(strstr(out, "\"truncated\": true,"));
	assert_non_null(strstr(out, "\"function\": \"Worker.run\","));
	assert_non_null(strstr(out, "\"line\": 40"));
	/* the thread whose tid is unknown: tid, name and active null; the frame without a line */
	assert_non_null(strstr(out, "\"tid\": null,"));
	assert_non_null(strstr(out, "\"name\": null,"));
	assert_non_null(strstr(out, "\"active\": null,"));
	assert_non_null(strstr(out, "\"line\": null"));
	free(out);
}

/* --locals: under each frame its arguments, then its other locals, in py-spy's words; in the
 * JSON each frame's locals with name, arg, type and repr (and none without --locals). */
static void test_locals(void **state)
{
	(void)state;
	static struct pylocal loc[3];
	memset(loc, 0, sizeof(loc));
	loc[0] = (struct pylocal){ .name = (char *)"n", .arg = false, .v = { .kind = PYVAL_INT, .ndigits = 1, .digits = { 7 } } };
	snprintf(loc[0].v.type, sizeof(loc[0].v.type), "int");
	loc[1] = (struct pylocal){ .name = (char *)"self", .arg = true, .v = { .kind = PYVAL_OTHER, .addr = 0x10 } };
	snprintf(loc[1].v.type, sizeof(loc[1].v.type), "Worker");
	loc[2] = (struct pylocal){ .name = (char *)"gone", .arg = false, .v = { .kind = PYVAL_UNREADABLE, .addr = 0x20 } };
	struct pydump_frame fr = { (char *)"Worker.run", (char *)"/w/app.py", 40, loc, 3 };
	struct pydump_thread th = { .tid = 5, .frames = &fr, .nframes = 1 };
	/* the Python name is shown where there is one; the JSON has the kernel's as comm */
	snprintf(th.name, sizeof(th.name), "w1");
	snprintf(th.pyname, sizeof(th.pyname), "Worker 1");
	struct pydump d = { .pid = 100, .cmdline = (char *)"python3 app.py", .major = 3, .minor = 12,
			    .paused = true, .locals = true, .threads = &th, .nthreads = 1 };
	snprintf(d.lib, sizeof(d.lib), "/l");
	char *out = render(&d, false);
	assert_string_equal(out,
		"Process 100: python3 app.py\n"
		"Python 3.12 (/l)\n"
		"\n"
		"Thread 5 (idle) [Worker 1]\n"
		"    Worker.run (/w/app.py:40)\n"
		"        Arguments:\n"
		"            self: <Worker at 0x10>\n"
		"        Locals:\n"
		"            n: 7\n"
		"            gone: <unreadable at 0x20>\n");
	free(out);
	out = render(&d, true);
	assert_non_null(strstr(out, "\"name\": \"self\",\n"));
	assert_non_null(strstr(out, "\"arg\": true,\n"));
	assert_non_null(strstr(out, "\"type\": \"Worker\",\n"));
	assert_non_null(strstr(out, "\"repr\": \"<Worker at 0x10>\"\n"));
	assert_non_null(strstr(out, "\"type\": null,\n"));
	assert_non_null(strstr(out, "\"name\": \"Worker 1\",\n"));
	assert_non_null(strstr(out, "\"comm\": \"w1\",\n"));
	free(out);
	d.locals = false;
	out = render(&d, true);
	assert_null(strstr(out, "\"locals\""));
	assert_null(strstr(out, "\"native\""));
	free(out);
	/* --native: a C frame is "symbol (file)" in the text, native true in the JSON */
	struct pydump_frame two[2] = { { .func = (char *)"read", .file = (char *)"/lib/libc.so.6", .line = -1, .native = true }, fr };
	two[1].nlocals = 0;
	th.frames = two;
	th.nframes = 2;
	d.native = true;
	out = render(&d, false);
	assert_non_null(strstr(out, "[Worker 1]\n    read (/lib/libc.so.6)\n    Worker.run (/w/app.py:40)\n"));
	free(out);
	out = render(&d, true);
	assert_non_null(strstr(out, "\"file\": \"/lib/libc.so.6\",\n          \"native\": true,"));
	assert_non_null(strstr(out, "\"native\": false,"));
	free(out);
}

/* The GIL's holder: (active+gil) / (unknown+gil), "gil" in JSON (null when not read), and
 * --gil's line when no thread held it. */
static void test_gil(void **state)
{
	(void)state;
	struct pydump d = sample(true);
	d.threads[0].active = true;
	d.threads[0].gil = true;
	char *out = render(&d, false);
	assert_non_null(strstr(out, "Thread 101 (active+gil) [worker]\n"));
	assert_non_null(strstr(out, "Thread 0x7f10 (unknown)\n"));
	free(out);
	d.threads[1].gil = true;
	out = render(&d, false);
	assert_non_null(strstr(out, "Thread 0x7f10 (unknown+gil)\n"));
	free(out);
	out = render(&d, true);
	assert_non_null(strstr(out, "\"gil\": null,")); /* gil_known false */
	assert_non_null(strstr(out, "\"gil_only\": false,"));
	free(out);
	d.gil_known = true;
	d.threads[1].gil = false;
	out = render(&d, true);
	assert_non_null(strstr(out, "\"gil\": true,"));
	assert_non_null(strstr(out, "\"gil\": false,"));
	free(out);
	d.gil_only = true;
	d.nthreads = 0;
	out = render(&d, false);
	assert_non_null(strstr(out, "\nNo thread holds the GIL\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_gil),
		cmocka_unit_test(test_locals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
