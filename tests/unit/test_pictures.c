/* Stack trees and the picture writers: counts up the tree, per-function totals with recursion
 * counted once, folded paths both ways, escaping, narrow frames merged, the pprof encoding read
 * back field by field, the gzipped Firefox profile, speedscope, and diff's ordering and per-node
 * changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "analysis/stackdiff.h"
#include "analysis/stacks.h"
#include "output/pictures.h"
#include "resolve/resolve.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Adds "a;b;c" n times. */
static void add(struct stacks *st, const char *ev, const char *folded, int n, int tid)
{
	char *copy = xstrdup(folded), *save = NULL;
	const char *names[64];
	size_t k = 0;
	for (char *w = strtok_r(copy, ";", &save); w && k < 64; w = strtok_r(NULL, ";", &save))
		names[k++] = w;
	for (int i = 0; i < n; i++)
		stacks_add_names(st, ev, names, k, 1000 + (uint64_t)i, 1, tid);
	free(copy);
}

/* The caller owns the stream's buffer and size (GCC 12 flags a memstream buffer returned from
 * the function that opened it as dangling). */
static void render(char **buf, size_t *len, const struct stacks *st, const struct picture_opts *o)
{
	*buf = NULL;
	FILE *f = open_memstream(buf, len);
	flamegraph_svg_write(f, st, o, true);
	fclose(f);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_tree_counts(void **state)
{
	struct stacks st;
	stacks_init(&st);
	add(&st, "cpu-clock", "prog;main;f", 3, 1);
	add(&st, "cpu-clock", "prog;main;g", 2, 2);
	add(&st, "cpu-clock", "prog;main", 1, 1);
	add(&st, "other", "prog;main;f", 4, 1);
	stacks_finish(&st);
	assert_int_equal(st.nevents, 2);
	assert_int_equal(st.events[0].samples, 6);
	assert_int_equal(st.nodes[st.events[0].root].total, 6);
	uint32_t m = stacks_find(&st, 0, "prog;main");
	assert_int_not_equal(m, UINT32_MAX);
	assert_int_equal(st.nodes[m].total, 6);
	assert_int_equal(st.nodes[m].self, 1);
	uint32_t f = stacks_find(&st, 0, "prog;main;f");
	assert_int_equal(st.nodes[f].self, 3);
	char *p = stacks_path(&st, f);
	assert_string_equal(p, "prog;main;f");
	free(p);
	assert_int_equal(stacks_find(&st, 0, "prog;main;h"), UINT32_MAX);
	assert_int_equal(st.nodes[stacks_find(&st, 1, "prog;main;f")].total, 4);
	assert_int_equal(st.nthreads, 2);
	/* Children sorted by name: f before g. */
	assert_int_equal(st.nodes[m].kids[0], f);
	stacks_free(&st);
}

static void test_functions_recursion_once(void **state)
{
	struct stacks st;
	stacks_init(&st);
	add(&st, "ev", "p;r;r;r", 2, 1);
	add(&st, "ev", "p;r;x", 1, 1);
	stacks_finish(&st);
	struct stack_func *fn;
	size_t n = stacks_functions(&st, 0, &fn);
	assert_int_equal(n, 2);
	assert_string_equal(st.frames[fn[0].frame].name, "r");
	assert_int_equal(fn[0].self, 2);
	assert_int_equal(fn[0].total, 3);  /* not 2 * 3 + 1 */
	assert_string_equal(st.frames[fn[1].frame].name, "x");
	free(fn);
	stacks_free(&st);
}

static void test_svg_escapes_and_kinds(void **state)
{
	struct stacks st;
	stacks_init(&st);
	add(&st, "ev", "p;op<>&\"x;py::f:/a.py;bad\xff", 5, 1);
	add(&st, "ev", "p;g_[k]", 5, 1);
	stacks_set_command(&st, 2, (char *[]){ "prog", "<arg>" });
	stacks_finish(&st);
	struct picture_opts o = { 0 };
	char *svg;
	size_t len;
	render(&svg, &len, &st, &o);
	assert_non_null(strstr(svg, "data-n=\"op&lt;&gt;&amp;&quot;x\""));
	assert_non_null(strstr(svg, "data-n=\"bad\xEF\xBF\xBD\""));  /* U+FFFD (util/utf8.h) */
	assert_non_null(strstr(svg, "data-k=\"python\" data-n=\"py::f:/a.py\""));
	assert_non_null(strstr(svg, "data-k=\"kernel\" data-n=\"g_[k]\""));
	assert_non_null(strstr(svg, "Flame graph: prog &lt;arg&gt;"));
	assert_non_null(strstr(svg, "ev: 10 samples"));
	assert_non_null(strstr(svg, "lperfFlame(document.documentElement)"));
	free(svg);
	o.inverted = true;
	render(&svg, &len, &st, &o);
	assert_non_null(strstr(svg, "Icicle graph"));
	free(svg);
	stacks_free(&st);
}

static void test_narrow_frames_merged(void **state)
{
	struct stacks st;
	stacks_init(&st);
	char name[64];
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "p;main;tiny%04d", i);
		add(&st, "ev", name, 1, 1);
	}
	add(&st, "ev", "p;main;zzz_big", 200000, 1);
	stacks_finish(&st);
	struct picture_opts o = { 0 };
	char *svg;
	size_t len;
	render(&svg, &len, &st, &o);
	assert_non_null(strstr(svg, "[3000 narrow frames]"));
	assert_true(count(svg, "class=\"f\"") <= 6);   /* all, p, main, the run, zzz_big */
	assert_null(strstr(svg, "tiny0001"));
	free(svg);
	stacks_free(&st);
}

/* pprof read back: a minimal protobuf walk over the top-level message. */
static uint64_t rd_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (int s = 0; *p < end && s < 64; s += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static size_t gunzip(const char *path, uint8_t *buf, size_t cap)
{
	gzFile z = gzopen(path, "rb");
	assert_non_null(z);
	int n = gzread(z, buf, (unsigned)cap);
	gzclose(z);
	assert_true(n > 0);
	return (size_t)n;
}

static void test_pprof_fields(void **state)
{
	struct stacks st;
	stacks_init(&st);
	add(&st, "cpu-clock", "p;main;f", 3, 1);
	add(&st, "cpu-clock", "p;main;g", 2, 1);
	stacks_finish(&st);
	char path[] = "/tmp/lperf-test-pprof.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pprof_write(path, &st), 0);
	static uint8_t buf[1 << 16];
	size_t n = gunzip(path, buf, sizeof(buf));
	unlink(path);
	const uint8_t *p = buf, *end = buf + n;
	int fields[16] = { 0 };
	bool saw_f = false, saw_samples = false, saw_ns = false;
	while (p < end) {
		uint64_t key = rd_varint(&p, end);
		unsigned field = (unsigned)(key >> 3), wt = key & 7;
		if (field < 16)
			fields[field]++;
		if (wt == 0) {
			rd_varint(&p, end);
		} else {
			assert_int_equal(wt, 2);
			uint64_t len = rd_varint(&p, end);
			assert_true(len <= (uint64_t)(end - p));
			if (field == 6) {
				saw_f |= len == 1 && p[0] == 'f';
				saw_samples |= len == 7 && !memcmp(p, "samples", 7);
				saw_ns |= len == 11 && !memcmp(p, "nanoseconds", 11);
			}
			p += len;
		}
	}
	assert_int_equal(fields[1], 2);   /* samples/count and cpu-clock/nanoseconds */
	assert_int_equal(fields[2], 2);   /* two distinct stacks */
	assert_int_equal(fields[4], 3);   /* locations: main, f, g */
	assert_int_equal(fields[5], 3);
	assert_int_equal(fields[11], 1);
	assert_true(saw_f && saw_samples && saw_ns);
	stacks_free(&st);
}

/* The number of times the string s is the whole of a length-delimited field anywhere in the
 * message (the string table is field 6, labels refer to it by index). */
static int pprof_strings_equal(const uint8_t *buf, size_t n, const char *s)
{
	int hits = 0;
	for (const uint8_t *p = buf; p + strlen(s) + 2 <= buf + n; p++)
		hits += p[0] == (6 << 3 | 2) && p[1] == strlen(s) && !memcmp(p + 2, s, strlen(s));
	return hits;
}

/* record --pprof-dir's profiles: every sample labelled service, host, pid and event; one sample
 * per stack and process; the start time (field 9) written. */
static void test_pprof_labelled(void **state)
{
	struct stacks st;
	stacks_init(&st);
	add(&st, "cpu-clock", "p;main;f", 3, 10);
	add(&st, "cpu-clock", "p;main;f", 2, 20);
	add(&st, "cpu-clock", "p;main;g", 1, 20);
	stacks_finish(&st);
	char path[] = "/tmp/lperf-test-pprofl.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct pprof_labels l = { "web", "host1", true, 1234567890123ULL };
	assert_int_equal(pprof_write_labelled(path, &st, &l), 0);
	static uint8_t buf[1 << 16];
	size_t n = gunzip(path, buf, sizeof(buf));
	unlink(path);
	int samples = 0, time_fields = 0;
	for (const uint8_t *p = buf, *end = buf + n; p < end;) {
		uint64_t key = rd_varint(&p, end);
		if ((key & 7) == 0) {
			uint64_t v = rd_varint(&p, end);
			if (key >> 3 == 9)
				time_fields += v == 1234567890123ULL;
			continue;
		}
		uint64_t len = rd_varint(&p, end);
		assert_true(len <= (uint64_t)(end - p));
		samples += key >> 3 == 2;
		p += len;
	}
	assert_int_equal(samples, 3);   /* f in pid 10, f in pid 20, g in pid 20 */
	assert_int_equal(time_fields, 1);
	const char *const want[] = { "service", "web", "host", "host1", "pid", "10", "20", "event", "cpu-clock" };
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		assert_int_equal(pprof_strings_equal(buf, n, want[i]), 1);
	stacks_free(&st);
}

static void label_is(const char *pyname, int line, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	resolve_py_label(&sb, pyname, line);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

/* The Python view names Python frames py-spy's way, one frame per function and line (one per
 * function with --nolineno), and the viewers get the function, file and line apart. */
static void test_python_view_lines(void **state)
{
	label_is("py::work:/w/app.py", 10, "work (app.py:10)");
	label_is("py::work:/w/app.py", 0, "work (app.py)");
	label_is("py::C.m:/w/pkg/__init__.py", 3, "C.m (pkg/__init__.py:3)");
	label_is("py::<lambda>:<frozen importlib._bootstrap>", 241, "<lambda> (<frozen importlib._bootstrap>:241)");
	label_is("py::nofile", 5, "nofile (line 5)");

	static struct symbol s_work = { 0, 0, (char *)"py::work:/w/app.py", NULL };
	static struct symbol s_main = { 0, 0, (char *)"py::main:/w/app.py", NULL };
	struct frame fr[2] = { { .loc.sym = &s_work, .line = 10 }, { .loc.sym = &s_main, .line = 17 } };
	struct perf_sample smp = { .time = 1, .period = 1, .pid = 7, .tid = 7 };
	struct resolved_sample rs = { .s = &smp, .frames = fr, .nframes = 2 };
	for (int nolineno = 0; nolineno < 2; nolineno++) {
		struct stacks st;
		stacks_init(&st);
		st.python = true;
		st.python_nolineno = nolineno;
		fr[0].line = 10;
		for (int i = 0; i < 3; i++)
			stacks_add(&st, &rs);
		fr[0].line = 12;
		stacks_add(&st, &rs);
		stacks_finish(&st);
		uint32_t n10 = stacks_find(&st, 0, "[unknown];main (app.py:17);work (app.py:10)");
		uint32_t n12 = stacks_find(&st, 0, "[unknown];main (app.py:17);work (app.py:12)");
		uint32_t nw = stacks_find(&st, 0, "[unknown];main (app.py);work (app.py)");
		if (!nolineno) {
			assert_true(n10 != UINT32_MAX && n12 != UINT32_MAX);
			assert_int_equal(st.nodes[n10].self, 3);
			assert_int_equal(st.nodes[n12].self, 1);
			const struct stack_frame *f = &st.frames[st.nodes[n12].frame];
			assert_int_equal(f->kind, SK_PYTHON);
			assert_string_equal(f->func, "work");
			assert_string_equal(f->file, "/w/app.py");
			assert_int_equal(f->line, 12);
			char *out = NULL;
			size_t len = 0;
			render(&out, &len, &st, &(struct picture_opts){ 0 });
			assert_non_null(strstr(out, "data-k=\"python\" data-n=\"work (app.py:10)\"><title>"));
			free(out);
			FILE *sf = open_memstream(&out, &len);
			speedscope_write(sf, &st);
			fclose(sf);
			assert_non_null(strstr(out, "{\"name\":\"work\",\"file\":\"/w/app.py\",\"line\":12}"));
			free(out);
		} else {
			assert_true(n10 == UINT32_MAX && nw != UINT32_MAX);
			assert_int_equal(st.nodes[nw].self, 4);
			assert_int_equal(st.frames[st.nodes[nw].frame].line, 0);
		}
		stacks_free(&st);
	}
	/* folded text read back: a label is a Python frame */
	struct stacks st;
	stacks_init(&st);
	add(&st, "ev", "p;main (app.py:17);work (app.py)", 1, 1);
	stacks_finish(&st);
	assert_int_equal(st.frames[st.nodes[stacks_find(&st, 0, "p;main (app.py:17)")].frame].kind, SK_PYTHON);
	assert_int_equal(st.frames[st.nodes[stacks_find(&st, 0, "p;main (app.py:17);work (app.py)")].frame].kind,
			 SK_PYTHON);
	stacks_free(&st);
}

static void test_firefox_and_speedscope(void **state)
{
	struct stacks st;
	stacks_init(&st);
	add(&st, "ev", "p;main;py::f:/x.py", 3, 7);
	add(&st, "ev", "q;main;g", 2, 8);
	stacks_finish(&st);
	char path[] = "/tmp/lperf-test-ff.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(firefox_write(path, &st), 0);
	static uint8_t buf[1 << 16];
	size_t n = gunzip(path, buf, sizeof(buf) - 1);
	unlink(path);
	buf[n] = 0;
	const char *s = (const char *)buf;
	assert_non_null(strstr(s, "\"preprocessedProfileVersion\":44"));
	assert_int_equal(count(s, "\"stackTable\""), 2);   /* one thread per tid */
	assert_non_null(strstr(s, "\"py::f\",\"/x.py\""));
	assert_non_null(strstr(s, "\"name\":\"Python\""));

	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	speedscope_write(f, &st);
	fclose(f);
	assert_non_null(strstr(out, "\"type\":\"sampled\""));
	assert_non_null(strstr(out, "\"name\":\"ev: p (pid 7, tid 7)\""));
	assert_non_null(strstr(out, "\"weights\":[1,1,1]"));
	free(out);
	stacks_free(&st);
}

static void test_html_self_contained(void **state)
{
	struct stacks st;
	stacks_init(&st);
	add(&st, "ev", "p;main;f", 3, 1);
	stacks_finish(&st);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct picture_opts o = { 0 };
	html_write(f, &st, &o);
	fclose(f);
	/* Nothing fetched: the only address is the SVG namespace. */
	assert_int_equal(count(out, "http://"), count(out, "http://www.w3.org/2000/svg"));
	assert_null(strstr(out, "https://"));
	assert_null(strstr(out, "src="));
	assert_non_null(strstr(out, "<details"));
	assert_non_null(strstr(out, "id=\"selftest\""));
	assert_non_null(strstr(out, "Hot functions: ev"));
	assert_non_null(strstr(out, "Threads: ev"));
	free(out);
	stacks_free(&st);
}

static void test_diff_orders_by_change(void **state)
{
	struct stacks a, b;
	stacks_init(&a);
	stacks_init(&b);
	add(&a, "ev", "old;main;f", 50, 1);
	add(&a, "ev", "old;main;g", 50, 1);
	add(&b, "ev", "new;main;f", 80, 1);   /* another command name: still matched */
	add(&b, "ev", "new;main;g", 20, 1);
	stacks_finish(&a);
	stacks_finish(&b);
	struct stack_diff d;
	assert_int_equal(stack_diff_compute(&d, &a, &b, NULL, false), 0);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.rows[0].key, "f");
	assert_true(d.rows[0].new_pct - d.rows[0].old_pct > 29.9);
	stack_diff_free(&d);
	assert_int_equal(stack_diff_compute(&d, &a, &b, NULL, true), 0);
	assert_string_equal(d.rows[0].key, "main;f");
	stack_diff_free(&d);
	assert_int_equal(stack_diff_compute(&d, &a, &b, "missing", false), -1);
	stack_diff_free(&d);
	double *delta = stack_diff_nodes(&a, &b);
	assert_true(delta[stacks_find(&b, 0, "new;main;f")] > 29.9);
	assert_true(delta[stacks_find(&b, 0, "new;main;g")] < -29.9);
	assert_true(delta[stacks_find(&b, 0, "new;main")] < 0.001 && delta[stacks_find(&b, 0, "new;main")] > -0.001);
	free(delta);
	stacks_free(&a);
	stacks_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_counts),
		cmocka_unit_test(test_functions_recursion_once),
		cmocka_unit_test(test_svg_escapes_and_kinds),
		cmocka_unit_test(test_narrow_frames_merged),
		cmocka_unit_test(test_pprof_fields),
		cmocka_unit_test(test_pprof_labelled),
		cmocka_unit_test(test_firefox_and_speedscope),
		cmocka_unit_test(test_python_view_lines),
		cmocka_unit_test(test_html_self_contained),
		cmocka_unit_test(test_diff_orders_by_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
