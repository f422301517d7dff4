/* Golden outputs of the sampling views, byte for byte, on a fixed set of resolved samples fed
 * through the same calls the commands make (profile_sample → profile_sort → the renderer): the
 * hot-function tables of lperf sample and wperf sample/record (text and WindowsPerf's JSON), and
 * the WindowsPerf --annotate / --disassemble blocks (text and JSON) from an annotated function
 * built by hand (no disassembler, no DWARF). Sampling is not deterministic; these are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/annot_view.h"
#include "analysis/annot.h"
#include "analysis/profile.h"
#include "output/annotate_out.h"
#include "output/report_out.h"
#include "output/wperf_out.h"
#include "symbols/dso.h"

static const char WPERF_JSON[] =
	"{\n"
	"  \"sampling\": {\n"
	"    \"pe_file\": \"/tmp/prog\",\n"
	"    \"pdb_file\": \"\",\n"
	"    \"sample_display_row\": 3,\n"
	"    \"samples_generated\": 178,\n"
	"    \"samples_dropped\": 2,\n"
	"    \"base_address\": 93824992231424,\n"
	"    \"runtime_delta\": 4096,\n"
	"    \"events\": [\n"
	"      {\n"
	"        \"type\": \"cpu-clock\",\n"
	"        \"samples\": [\n"
	"          {\n"
	"            \"overhead\": 91.8129,\n"
	"            \"count\": 157,\n"
	"            \"symbol\": \"hot_loop_fn:prog\"\n"
	"          },\n"
	"          {\n"
	"            \"overhead\": 5.26316,\n"
	"            \"count\": 9,\n"
	"            \"symbol\": \"main:prog\"\n"
	"          },\n"
	"          {\n"
	"            \"overhead\": 1.75439,\n"
	"            \"count\": 3,\n"
	"            \"symbol\": \"__memcpy_avx_unaligned:libc.so.6\"\n"
	"          }\n"
	"        ],\n"
	"        \"interval\": 100000,\n"
	"        \"printed_sample_num\": 3,\n"
	"        \"annotate\": [],\n"
	"        \"pcs\": [\n"
	"          {\n"
	"            \"address\": 4416,\n"
	"            \"count\": 120,\n"
	"            \"in_symbol\": \"hot_loop_fn:prog\"\n"
	"          },\n"
	"          {\n"
	"            \"address\": 4424,\n"
	"            \"count\": 37,\n"
	"            \"in_symbol\": \"hot_loop_fn:prog\"\n"
	"          },\n"
	"          {\n"
	"            \"address\": 4472,\n"
	"            \"count\": 9,\n"
	"            \"in_symbol\": \"main:prog\"\n"
	"          },\n"
	"          {\n"
	"            \"address\": 630800,\n"
	"            \"count\": 3,\n"
	"            \"in_symbol\": \"__memcpy_avx_unaligned:libc.so.6\"\n"
	"          }\n"
	"        ]\n"
	"      },\n"
	"      {\n"
	"        \"type\": \"task-clock\",\n"
	"        \"samples\": [\n"
	"          {\n"
	"            \"overhead\": 100,\n"
	"            \"count\": 5,\n"
	"            \"symbol\": \"hot_loop_fn:prog\"\n"
	"          }\n"
	"        ],\n"
	"        \"interval\": 67108864,\n"
	"        \"printed_sample_num\": 1,\n"
	"        \"annotate\": [],\n"
	"        \"pcs\": [\n"
	"          {\n"
	"            \"address\": 4416,\n"
	"            \"count\": 5,\n"
	"            \"in_symbol\": \"hot_loop_fn:prog\"\n"
	"          }\n"
	"        ]\n"
	"      }\n"
	"    ]\n"
	"  }\n"
	"}\n";

/* Two events; three functions in two DSOs and one unresolved address. */
struct fixture {
	struct evsel ev[2];
	struct evsel_set set;
	struct dso prog, libc;
	struct symbol hot, warm, memcpy_;
	struct map map;
	struct profile p;
};

static void feed(struct fixture *f, int ev, struct dso *d, const struct symbol *sym, uint64_t addr,
		 unsigned times)
{
	struct perf_sample s = { .evsel = &f->ev[ev], .period = 100000, .pid = 42, .tid = 42 };
	struct frame fr = { .ip = addr };
	fr.loc = (struct addr_loc){ sym ? &f->map : NULL, d, addr, sym, sym ? addr - sym->start : 0, false };
	struct resolved_sample rs = { .s = &s, .frames = &fr, .nframes = 1 };
	for (unsigned i = 0; i < times; i++)
		profile_sample(&rs, &f->p);
}

static void make(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->ev[0].name = "cpu-clock";
	f->ev[0].attr.sample_period = 100000;
	f->ev[0].idx = 0;
	f->ev[1].name = "task-clock";
	f->ev[1].attr.sample_period = 0x4000000;
	f->ev[1].idx = 1;
	f->set.v = f->ev;
	f->set.n = 2;
	f->prog.kind = DSO_ELF;
	f->prog.path = "/tmp/prog";
	f->prog.short_name = "prog";
	f->libc.kind = DSO_ELF;
	f->libc.path = "/lib/libc.so.6";
	f->libc.short_name = "libc.so.6";
	f->hot = (struct symbol){ 0x1130, 0x40, "hot_loop_fn", NULL };
	f->warm = (struct symbol){ 0x1170, 0x20, "main", NULL };
	f->memcpy_ = (struct symbol){ 0x9a000, 0x100, "__memcpy_avx_unaligned", "__memcpy_avx_unaligned_erms" };
	enum hist_key keys[] = { HK_SYM, HK_DSO };
	profile_init(&f->p, &f->set, keys, 2, HIST_GRAPH_NONE, false);
	feed(f, 0, &f->prog, &f->hot, 0x1140, 120);
	feed(f, 0, &f->prog, &f->hot, 0x1148, 37);
	feed(f, 0, &f->prog, &f->warm, 0x1178, 9);
	feed(f, 0, &f->libc, &f->memcpy_, 0x9a010, 3);
	feed(f, 0, NULL, NULL, 0x7fff0000, 2);
	feed(f, 1, &f->prog, &f->hot, 0x1140, 5);
	profile_sort(&f->p, false);
}

static struct report_section section(struct fixture *f, size_t i)
{
	return (struct report_section){ f->ev[i].name, &f->p.hists[i], f->p.hists[i].total_samples,
					f->p.hists[i].total_period, f->ev[i].attr.sample_period };
}

static void expect(const char *got, const char *want)
{
	if (strcmp(got, want))
		fprintf(stderr, "--- want\n%s--- got\n%s---\n", want, got);
	assert_string_equal(got, want);
}

static const char SAMPLE_TEXT[] =
	"======================== sample source: cpu-clock, top 50 hot functions ========================\n"
	"        overhead  count  symbol\n"
	"        ========  =====  ======\n"
	"           91.81    157  hot_loop_fn:prog\n"
	"            5.26      9  main:prog\n"
	"            1.75      3  __memcpy_avx_unaligned:libc.so.6\n"
	"            1.17      2  unknown\n"
	"100.00%       171  top 4 in total\n"
	"\n"
	"======================== sample source: task-clock, top 50 hot functions ========================\n"
	"        overhead  count  symbol\n"
	"        ========  =====  ======\n"
	"          100.00      5  hot_loop_fn:prog\n"
	"100.00%         5  top 1 in total\n"
	"\n";

/* lperf sample's table (report_print in WindowsPerf's style, as report_view_print calls it). */
static void test_sample_tables(void **state)
{
	struct fixture f;
	make(&f);
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	struct report_opts ro = { .max_rows = 50 };
	struct report_totals tot = { .samples = 176 };
	report_print(m, STYLE_WPERF, &ro, &f.p, &tot, "live", NULL);
	fclose(m);
	expect(buf, SAMPLE_TEXT);
	free(buf);
	profile_free(&f.p);
	/* wperf sample/record: the same table per event (report_wperf), display rows and long names. */
	make(&f);
	buf = NULL;
	m = open_memstream(&buf, &len);
	ro = (struct report_opts){ .max_rows = 3, .long_names = true };
	struct report_section s = section(&f, 0);
	report_wperf(m, &s, &ro);
	fclose(m);
	expect(buf, "======================== sample source: cpu-clock, top 3 hot functions ========================\n"
		    "        overhead  count  symbol\n"
		    "        ========  =====  ======\n"
		    "           91.81    157  hot_loop_fn:prog\n"
		    "            5.26      9  main:prog\n"
		    "            1.75      3  __memcpy_avx_unaligned_erms:libc.so.6\n"
		    " 98.83%       169  top 3 in total\n"
		    "\n");
	free(buf);
	profile_free(&f.p);
}

/* WindowsPerf's sampling JSON (wperf_sample_json, as wperf sample/record --json call it), with
 * -v's "pcs" rows: every sampled PC of the event, counted by the annotation view. */
static void test_sample_json(void **state)
{
	struct fixture f;
	make(&f);
	profile_free(&f.p);
	/* The same samples through annot_view_sample, as wperf -v --json collects them. */
	enum hist_key keys[] = { HK_SYM, HK_DSO };
	struct profile p = { 0 };
	profile_init(&p, &f.set, keys, 2, HIST_GRAPH_NONE, false);
	struct annot_view av;
	annot_view_init(&av, &p, NULL, false, 3);
	f.p = p;
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	av.p = &f.p;
	struct { int ev; struct dso *d; const struct symbol *sym; uint64_t addr; unsigned n; } feeds[] = {
		{ 0, &f.prog, &f.hot, 0x1140, 120 }, { 0, &f.prog, &f.hot, 0x1148, 37 },
		{ 0, &f.prog, &f.warm, 0x1178, 9 }, { 0, &f.libc, &f.memcpy_, 0x9a010, 3 },
		{ 0, NULL, NULL, 0x7fff0000, 2 }, { 1, &f.prog, &f.hot, 0x1140, 5 },
	};
	for (size_t i = 0; i < sizeof(feeds) / sizeof(feeds[0]); i++) {
		struct perf_sample s = { .evsel = &f.ev[feeds[i].ev], .period = 100000, .pid = 42, .tid = 42 };
		struct frame fr = { .ip = feeds[i].addr };
		fr.loc = (struct addr_loc){ feeds[i].sym ? &f.map : NULL, feeds[i].d, feeds[i].addr, feeds[i].sym,
					    feeds[i].sym ? feeds[i].addr - feeds[i].sym->start : 0, false };
		struct resolved_sample rs = { .s = &s, .frames = &fr, .nframes = 1 };
		for (unsigned k = 0; k < feeds[i].n; k++)
			annot_view_sample(&rs, &av);
	}
	profile_sort(&f.p, false);
	struct wperf_sample_info in = { "/tmp/prog", NULL, 3, 178, 2, 0x555555554000ULL, 0x1000 };
	struct report_opts ro = { .max_rows = 3 };
	wperf_sample_json(m, &in, &f.p, &ro, NULL, &av);
	fclose(m);
	expect(buf, WPERF_JSON);
	free(buf);
	annot_view_free(&av);
	profile_free(&f.p);
}

/* An annotated function as analysis/annotate.c leaves it after annot_func_disassemble: two
 * source lines with samples, one without, and an instruction without line information. */
struct annot_fixture {
	struct dso d;
	struct symbol sym;
	struct annot_insn insns[5];
	struct annot_line lines[3];
	struct annot_func fn;
};

static void make_annot(struct annot_fixture *a)
{
	memset(a, 0, sizeof(*a));
	a->d.kind = DSO_ELF;
	a->d.path = "/tmp/prog";
	a->d.short_name = "prog";
	a->sym = (struct symbol){ 0x1130, 0x20, "hot_loop_fn", NULL };
	static const char *file = "/src/prog.c";
	struct annot_insn in[] = {
		{ 0x1130, 4, "movq $0, -8(%rsp)", 0, 0, file, 2, NULL, false, 0, false, false },
		{ 0x1138, 4, "addq %rax, %rdx", 120, 12000000, file, 3, NULL, false, 0, false, true },
		{ 0x113c, 4, "leaq 7(%rdx), %rax", 37, 3700000, file, 3, NULL, false, 0, false, false },
		{ 0x1140, 2, "jne 0x1138", 9, 900000, file, 2, NULL, true, 0x1138, true, false },
		{ 0x1142, 1, "retq", 1, 100000, NULL, 0, NULL, false, 0, false, false },
	};
	memcpy(a->insns, in, sizeof(in));
	a->lines[0] = (struct annot_line){ file, 3, 157, 15700000, 1 };
	a->lines[1] = (struct annot_line){ file, 2, 9, 900000, 0 };
	a->lines[2] = (struct annot_line){ NULL, 0, 1, 100000, 4 };
	a->fn.dso = &a->d;
	a->fn.sym = &a->sym;
	a->fn.samples = 167;
	a->fn.period = 16700000;
	a->fn.done = true;
	a->fn.insns = a->insns;
	a->fn.ninsns = 5;
	a->fn.lines = a->lines;
	a->fn.nlines = 3;
}

static char *annot_text(struct annot_fixture *a, bool disasm)
{
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	struct annot_opts o = { .event = "cpu-clock", .max_lines = SIZE_MAX, .disassemble = disasm };
	annotate_wperf_func(m, &a->fn, &o);
	fclose(m);
	return buf;
}

/* report/sample --annotate and --disassemble: WindowsPerf's per-function table. */
static void test_annotate_text(void **state)
{
	struct annot_fixture a;
	make_annot(&a);
	char *t = annot_text(&a, false);
	expect(t, "hot_loop_fn\n"
		  "        line_number  hits  filename\n"
		  "        ===========  ====  ========\n"
		  "        3            157   /src/prog.c\n"
		  "        2            9     /src/prog.c\n"
		  "        ?            1     ??\n"
		  "\n");
	free(t);
	t = annot_text(&a, true);
	expect(t, "hot_loop_fn\n"
		  "        line_number  hits  filename     instruction_address  disassembled_line\n"
		  "        ===========  ====  ========     ===================  =================\n"
		  "        3            157   /src/prog.c  1138                 address  instruction\n"
		  "                                                             =======  ===========\n"
		  "                                                             1138     addq %rax, %rdx\n"
		  "                                                             113c     leaq 7(%rdx), %rax\n"
		  "        2            9     /src/prog.c  1130                 address  instruction\n"
		  "                                                             =======  ===========\n"
		  "                                                             1130     movq $0, -8(%rsp)\n"
		  "                                                             1140     jne 0x1138\n"
		  "        ?            1     ??           1142                 address  instruction\n"
		  "                                                             =======  ===========\n"
		  "                                                             1142     retq\n"
		  "\n");
	free(t);
	a.fn.note = "its file cannot be read";
	t = annot_text(&a, false);
	expect(t, "hot_loop_fn\n        not annotated: its file cannot be read\n\n");
	free(t);
}

/* report --json --annotate/--disassemble: the "annotate" element (lperf's report JSON). */
static void test_annotate_json(void **state)
{
	struct annot_fixture a;
	make_annot(&a);
	a.lines[2].samples = 0; /* rows with samples only */
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	struct json j;
	json_init(&j, m, false);
	json_begin_array(&j, NULL);
	struct annot_opts o = { .event = "cpu-clock", .max_lines = SIZE_MAX, .disassemble = false };
	annotate_wperf_json(&j, &a.fn, &o);
	o.disassemble = true;
	annotate_wperf_json(&j, &a.fn, &o);
	json_end_array(&j);
	json_finish(&j);
	fclose(m);
	expect(buf, "[{\"event\":\"cpu-clock\",\"function_name\":\"hot_loop_fn\",\"dso\":\"prog\",\"samples\":167,"
		    "\"source_code\":[{\"line_number\":3,\"hits\":157,\"filename\":\"/src/prog.c\"},"
		    "{\"line_number\":2,\"hits\":9,\"filename\":\"/src/prog.c\"}]},"
		    "{\"event\":\"cpu-clock\",\"function_name\":\"hot_loop_fn\",\"dso\":\"prog\",\"samples\":167,"
		    "\"source_code\":[{\"line_number\":3,\"hits\":157,\"filename\":\"/src/prog.c\","
		    "\"instruction_address\":\"1138\",\"disassembled_line\":{\"disassemble\":["
		    "{\"address\":\"1138\",\"instruction\":\"addq %rax, %rdx\",\"hits\":120},"
		    "{\"address\":\"113c\",\"instruction\":\"leaq 7(%rdx), %rax\",\"hits\":37}]}},"
		    "{\"line_number\":2,\"hits\":9,\"filename\":\"/src/prog.c\","
		    "\"instruction_address\":\"1130\",\"disassembled_line\":{\"disassemble\":["
		    "{\"address\":\"1130\",\"instruction\":\"movq $0, -8(%rsp)\",\"hits\":0},"
		    "{\"address\":\"1140\",\"instruction\":\"jne 0x1138\",\"hits\":9}]}}]}]\n");
	free(buf);
}

/* wperf sample/record --annotate/--disassemble: the same table as report/sample --annotate
 * (annotate_wperf_func, pinned above) and the same JSON element in WindowsPerf's keys only. Until
 * the sample paths were merged, wperf had its own engine and renderer (wperf/wperf_annotate.c,
 * wperf_annotate_text), which had drifted: a right-aligned table, one row per sampled instruction
 * address with the instructions of its line-table row, Intel syntax, and a "No line for N
 * samples" note on stderr. lperf's behaviour won: one row per source line with its first
 * instruction address and all its instructions (AT&T syntax on x86-64, as perf annotate), rows
 * without line information shown as "?"; in the JSON such rows are left out (WindowsPerf's
 * schema requires a filename). */
static void test_wperf_annotate_json(void **state)
{
	struct annot_fixture a;
	make_annot(&a);
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	struct json j;
	json_init(&j, m, false);
	json_begin_array(&j, NULL);
	struct annot_opts o = { .event = "cpu-clock", .max_lines = SIZE_MAX, .disassemble = true,
				.wperf_schema = true };
	annotate_wperf_json(&j, &a.fn, &o);
	json_end_array(&j);
	json_finish(&j);
	fclose(m);
	expect(buf, "[{\"function_name\":\"hot_loop_fn\",\"source_code\":["
		    "{\"line_number\":3,\"hits\":157,\"filename\":\"/src/prog.c\",\"instruction_address\":\"1138\","
		    "\"disassembled_line\":{\"disassemble\":[{\"address\":\"1138\",\"instruction\":\"addq %rax, %rdx\"},"
		    "{\"address\":\"113c\",\"instruction\":\"leaq 7(%rdx), %rax\"}]}},"
		    "{\"line_number\":2,\"hits\":9,\"filename\":\"/src/prog.c\",\"instruction_address\":\"1130\","
		    "\"disassembled_line\":{\"disassemble\":[{\"address\":\"1130\",\"instruction\":\"movq $0, -8(%rsp)\"},"
		    "{\"address\":\"1140\",\"instruction\":\"jne 0x1138\"}]}}]}]\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_tables),
		cmocka_unit_test(test_sample_json),
		cmocka_unit_test(test_annotate_text),
		cmocka_unit_test(test_annotate_json),
		cmocka_unit_test(test_wperf_annotate_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
