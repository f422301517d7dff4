/* output/report_text.c (perf's --stdio layout) and report_print's JSON on histograms built from
 * hand-made resolved samples: columns sized to the widest value, Overhead or Children/Self, -n,
 * --percent-limit, the callee and caller graphs with their branches and the threshold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/hist.h"
#include "analysis/profile.h"
#include "hist_test.h"
#include "output/report_out.h"

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *out_open(struct out *o)
{
	o->buf = NULL;
	o->f = open_memstream(&o->buf, &o->len);
	return o->f;
}

static const char *out_close(struct out *o)
{
	fclose(o->f);
	return o->buf;
}

static void render(struct out *o, struct hist *h, const struct report_opts *ro)
{
	struct report_section s = { "cpu-clock", h, h->total_samples, h->total_period, 0 };
	report_text(out_open(o), &s, ro);
	out_close(o);
}

static void test_flat(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_COMM, HK_DSO, HK_SYM };
	struct hist h;
	hist_init(&h, keys, 3, HIST_GRAPH_NONE, false);
	for (int i = 0; i < 3; i++)
		hist_add(&h, hworld_sample(&w, 0, 0, 1000, "main"));
	hist_add(&h, hworld_sample(&w, 1, 0, 1000, "memcpy,main"));
	hist_add(&h, hworld_sample(&w, 1, 0, 1000, "schedule,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1000, "0x4321"));
	hist_sort(&h, false);
	struct report_opts ro = { .graph_min = 0.5 };
	struct out o;
	render(&o, &h, &ro);
	assert_string_equal(o.buf,
			    "# Samples: 6  of event 'cpu-clock'\n"
			    "# Event count (approx.): 6000\n"
			    "#\n"
			    "# Overhead  Command  Shared Object      Symbol                \n"
			    "# ........  .......  .................  ......................\n"
			    "#\n"
			    "    50.00%  prog     prog               [.] main\n"
			    "    16.67%  prog     prog               [.] 0x0000000000004321\n"
			    "    16.67%  worker   [kernel.kallsyms]  [k] schedule\n"
			    "    16.67%  worker   libc.so.6          [.] memcpy\n"
			    "\n");
	free(o.buf);

	/* -n and --percent-limit */
	ro.show_nr = true;
	ro.percent_limit = 20;
	render(&o, &h, &ro);
	assert_non_null(strstr(o.buf, "# Overhead       Samples  Command"));
	assert_non_null(strstr(o.buf, "    50.00%             3  prog     prog               [.] main\n"));
	assert_null(strstr(o.buf, "memcpy"));
	free(o.buf);
	hist_free(&h);
}

static void test_children_graph(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_SYM };
	struct hist h;
	hist_init(&h, keys, 1, HIST_CALLER, true);
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "a,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "main"));
	hist_sort(&h, true);
	struct report_opts ro = { .children = true, .graph_min = 0.5 };
	struct out o;
	render(&o, &h, &ro);
	assert_string_equal(o.buf,
			    "# Samples: 4  of event 'cpu-clock'\n"
			    "# Event count (approx.): 4\n"
			    "#\n"
			    "# Children      Self  Symbol  \n"
			    "# ........  ........  ........\n"
			    "#\n"
			    "   100.00%    25.00%  [.] main\n"
			    "            |\n"
			    "            ---main\n"
			    "               |          \n"
			    "               |--50.00%--b\n"
			    "               |          c\n"
			    "               |          \n"
			    "                --25.00%--a\n"
			    "\n"
			    "    50.00%    50.00%  [.] c\n"
			    "            |\n"
			    "            ---main\n"
			    "               b\n"
			    "               c\n"
			    "\n"
			    "    50.00%     0.00%  [.] b\n"
			    "            |\n"
			    "            ---b\n"
			    "               c\n"
			    "\n"
			    "    25.00%    25.00%  [.] a\n"
			    "            |\n"
			    "            ---main\n"
			    "               a\n"
			    "\n"
			    "\n");
	free(o.buf);
	/* a threshold above a branch hides it */
	ro.graph_min = 30;
	render(&o, &h, &ro);
	assert_null(strstr(o.buf, "--25.00%--a"));
	assert_non_null(strstr(o.buf, "--50.00%--b"));
	free(o.buf);
	hist_free(&h);
}

static void test_callee_graph(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_SYM };
	struct hist h;
	hist_init(&h, keys, 1, HIST_CALLEE, false);
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,a,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,a,main"));
	hist_sort(&h, false);
	struct report_opts ro = { .graph_min = 0.5 };
	struct out o;
	render(&o, &h, &ro);
	assert_string_equal(o.buf,
			    "# Samples: 3  of event 'cpu-clock'\n"
			    "# Event count (approx.): 3\n"
			    "#\n"
			    "# Overhead  Symbol\n"
			    "# ........  ......\n"
			    "#\n"
			    "   100.00%  [.] c\n"
			    "            |\n"
			    "            ---c\n"
			    "               |          \n"
			    "               |--66.67%--a\n"
			    "               |          main\n"
			    "               |          \n"
			    "                --33.33%--b\n"
			    "                          main\n"
			    "\n"
			    "\n");
	free(o.buf);
	hist_free(&h);
}

/* perf's sample count in the section's header: a unit once over 1000, then one space; none and
 * two spaces up to 1000 (perf 6.1's "# Samples: 1K of event", "# Samples: 405  of event"). */
static void test_samples_unit(void **state)
{
	static const struct { uint64_t n; const char *line; } cases[] = {
		{ 405, "# Samples: 405  of event 'cpu-clock'\n" },
		{ 1000, "# Samples: 1000  of event 'cpu-clock'\n" },
		{ 1001, "# Samples: 1K of event 'cpu-clock'\n" },
		{ 4321, "# Samples: 4K of event 'cpu-clock'\n" },
		{ 1000999, "# Samples: 1000K of event 'cpu-clock'\n" },
		{ 1001000, "# Samples: 1M of event 'cpu-clock'\n" },
		{ 5000000000ULL, "# Samples: 5G of event 'cpu-clock'\n" },
		{ 5000000000000ULL, "# Samples: 5000G of event 'cpu-clock'\n" },
	};
	enum hist_key keys[] = { HK_SYM };
	struct hist h;
	hist_init(&h, keys, 1, HIST_GRAPH_NONE, false);
	struct report_opts ro = { .graph_min = 0.5 };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report_section s = { "cpu-clock", &h, cases[i].n, cases[i].n, 0 };
		struct out o;
		report_text(out_open(&o), &s, &ro);
		out_close(&o);
		assert_true(!strncmp(o.buf, cases[i].line, strlen(cases[i].line)));
		free(o.buf);
	}
	hist_free(&h);
}

static void test_print_json_and_header(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_SYM };
	struct profile p = { 0 };
	profile_init(&p, &w.evsels, keys, 1, HIST_GRAPH_NONE, false);
	profile_sample(hworld_sample(&w, 0, 0, 1, "main"), &p);
	profile_sort(&p, false);
	struct report_opts ro = { .graph_min = 0.5 };
	struct report_totals tot = { .samples = 1, .lost_records = 2, .lost_samples = 2 };
	struct out o;
	report_print(out_open(&o), STYLE_PERF, &ro, &p, &tot, "perf.data", NULL);
	out_close(&o);
	/* perf's header, then only the event with samples */
	assert_true(!strncmp(o.buf, "# To display the perf.data header info", 38));
	assert_non_null(strstr(o.buf, "# Total Lost Samples: 2\n"));
	assert_non_null(strstr(o.buf, "of event 'cpu-clock'"));
	assert_null(strstr(o.buf, "page-faults"));
	free(o.buf);
	report_print(out_open(&o), STYLE_JSON, &ro, &p, &tot, "perf.data", NULL);
	out_close(&o);
	assert_non_null(strstr(o.buf, "\"schema\": \"lperf-report/1\""));
	assert_non_null(strstr(o.buf, "\"lost_samples\": 2"));
	assert_null(strstr(o.buf, "lost_replaced"));
	assert_non_null(strstr(o.buf, "\"main\""));
	free(o.buf);
	/* losses of paused Python processes (record --python): perf's total, then which they were;
	 * no line of lperf's own at the end, where perf prints none */
	tot.lost_replaced = 1;
	report_print(out_open(&o), STYLE_PERF, &ro, &p, &tot, "perf.data", NULL);
	out_close(&o);
	assert_non_null(strstr(o.buf, "# Total Lost Samples: 2\n# (1 of them the kernel's samples of paused "
				     "Python processes, which lperf wrote itself: none of the profile's)\n#\n"));
	assert_null(strstr(o.buf, "lost while recording"));
	free(o.buf);
	report_print(out_open(&o), STYLE_JSON, &ro, &p, &tot, "perf.data", NULL);
	out_close(&o);
	assert_non_null(strstr(o.buf, "\"lost_replaced\": 1"));
	free(o.buf);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_children_graph),
		cmocka_unit_test(test_callee_graph),
		cmocka_unit_test(test_samples_unit),
		cmocka_unit_test(test_print_json_and_header),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
