/* analysis/hist.c, filter.c and profile.c on hand-built resolved samples: sort keys, self
 * entries, children totals with recursion counted once, callee and caller trees, identical
 * stacks folded into one addition, unresolved addresses; the filters; one histogram per event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/filter.h"
#include "analysis/hist.h"
#include "analysis/profile.h"
#include "hist_test.h"
#include "util/error.h"

static const struct hist_entry *entry(const struct hist *h, const char *sym)
{
	char name[64];
	for (size_t i = 0; i < h->n; i++) {
		hist_sym_name(h->v[i]->sym, h->v[i]->addr, name, sizeof(name));
		if (!strcmp(name, sym))
			return h->v[i];
	}
	return NULL;
}

static const struct callnode *kid(const struct callnode *n, const char *sym)
{
	for (size_t i = 0; n && i < n->nkids; i++)
		if (n->kids[i]->sym && !strcmp(n->kids[i]->sym->name, sym))
			return n->kids[i];
	return NULL;
}

static void test_parse_sort(void **state)
{
	enum hist_key k[HK_NKEYS];
	size_t n;
	assert_int_equal(hist_parse_sort("comm,dso,sym", k, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(k[0], HK_COMM);
	assert_int_equal(k[1], HK_DSO);
	assert_int_equal(k[2], HK_SYM);
	/* perf's synonyms, any case; a key given twice counts once */
	assert_int_equal(hist_parse_sort("Symbol,command,sym", k, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(k[0], HK_SYM);
	assert_int_equal(k[1], HK_COMM);
	assert_int_equal(hist_parse_sort("srcline,srcfile,cpu,pid,tid", k, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(hist_parse_sort("dso,bogus", k, &n), -1);
	assert_non_null(strstr(err_msg(), "unknown sort key 'bogus'"));
	assert_int_equal(hist_parse_sort("", k, &n), -1);
	assert_string_equal(hist_key_name(HK_SRCFILE), "srcfile");
}

static void test_self(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_COMM, HK_DSO, HK_SYM };
	struct hist h;
	hist_init(&h, keys, 3, HIST_GRAPH_NONE, false);
	for (int i = 0; i < 3; i++)
		hist_add(&h, hworld_sample(&w, 0, 0, 1, "main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 5, "a,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 5, "a,b,main")); /* another stack, same self entry */
	hist_add(&h, hworld_sample(&w, 1, 0, 2, "memcpy,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 0, "0x4321"));    /* period 0 counts as 1 */
	hist_add(&h, hworld_sample(&w, 0, 0, 1, ""));          /* no frames: not counted */
	hist_sort(&h, false);
	assert_int_equal(h.total_samples, 7);
	assert_int_equal(h.total_period, 16);
	assert_int_equal(h.n, 4);
	/* by period, then by name */
	assert_ptr_equal(h.v[0]->sym, hworld_sym(&w, "a"));
	assert_int_equal(h.v[0]->samples, 2);
	assert_int_equal(h.v[0]->period, 10);
	assert_ptr_equal(h.v[1]->sym, hworld_sym(&w, "main"));
	assert_int_equal(h.v[1]->period, 3);
	assert_ptr_equal(h.v[2]->sym, hworld_sym(&w, "memcpy"));
	assert_string_equal(h.v[2]->comm, "worker");
	assert_string_equal(hist_dso_name(h.v[2]->dso), "libc.so.6");
	assert_null(h.v[3]->sym);
	assert_int_equal(h.v[3]->addr, 0x4321);
	char name[64];
	hist_sym_name(h.v[3]->sym, h.v[3]->addr, name, sizeof(name));
	assert_string_equal(name, "0x0000000000004321");
	assert_string_equal(hist_dso_name(NULL), "[unknown]");
	/* no graph, no children: no trees, no accumulated totals */
	for (size_t i = 0; i < h.n; i++) {
		assert_null(h.v[i]->tree);
		assert_int_equal(h.v[i]->acc_period, 0);
	}
	hist_free(&h);
}

/* HK_TRACE: entries keyed by the text a callback gives each sample (a tracepoint's fields),
 * interned once; ties in period go by that text, as perf's "trace" sort key. */
static char *fake_trace(void *arg, const struct perf_sample *s)
{
	int *calls = arg;
	(*calls)++;
	char *t = malloc(32);
	snprintf(t, 32, "cpu=%u", s->cpu);
	return t;
}

static void test_trace_key(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_TRACE };
	struct hist h;
	hist_init(&h, keys, 1, HIST_CALLEE, false);
	int calls = 0;
	h.trace_text = fake_trace;
	h.trace_arg = &calls;
	hist_add(&h, hworld_sample(&w, 1, 0, 1, "a,b,main")); /* cpu=1 */
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "main"));     /* cpu=0 */
	hist_add(&h, hworld_sample(&w, 2, 0, 2, "c,main"));   /* cpu=2 */
	hist_add(&h, hworld_sample(&w, 2, 0, 1, "main"));
	hist_sort(&h, false);
	assert_int_equal(calls, 4); /* once per sample, not per frame */
	assert_int_equal(h.n, 3);
	assert_string_equal(h.v[0]->trace, "cpu=2");
	assert_int_equal(h.v[0]->period, 3);
	assert_string_equal(h.v[1]->trace, "cpu=0"); /* a tie: by text */
	assert_string_equal(h.v[2]->trace, "cpu=1");
	assert_string_equal(hist_key_name(HK_TRACE), "trace");
	enum hist_key k[HK_NKEYS];
	size_t n;
	assert_int_equal(hist_parse_sort("trace", k, &n), 0);
	assert_int_equal(k[0], HK_TRACE);
	hist_free(&h);
}

static void test_keys_split_entries(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_TID, HK_SYM };
	struct hist h;
	hist_init(&h, keys, 2, HIST_GRAPH_NONE, false);
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "main"));
	hist_add(&h, hworld_sample(&w, 1, 0, 1, "main"));
	hist_add(&h, hworld_sample(&w, 1, 0, 1, "main"));
	hist_sort(&h, false);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.v[0]->tid, 101);
	assert_int_equal(h.v[0]->samples, 2);
	assert_int_equal(h.v[1]->tid, 100);
	/* comm is not a key here: not filled */
	assert_null(h.v[0]->comm);
	hist_free(&h);
}

/* Children: every function on the stack gets the sample once, recursion included. */
static void test_children_callee(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_SYM };
	struct hist h;
	hist_init(&h, keys, 1, HIST_CALLEE, true);
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "rec,rec,rec,main"));
	/* identical stacks are folded into one addition with their count */
	assert_int_equal(h.pending.n, 3);
	hist_sort(&h, true);
	assert_int_equal(h.n, 4);
	/* by children total: main 4, b 3, c 2, rec 1 */
	const char *order[] = { "main", "b", "c", "rec" };
	uint64_t acc[] = { 4, 3, 2, 1 }, self[] = { 0, 1, 2, 1 };
	for (size_t i = 0; i < 4; i++) {
		assert_ptr_equal(h.v[i]->sym, hworld_sym(&w, order[i]));
		assert_int_equal(h.v[i]->acc_samples, acc[i]);
		assert_int_equal(h.v[i]->acc_period, acc[i]);
		assert_int_equal(h.v[i]->samples, self[i]);
	}
	/* callee order: b's tree holds its chain from b outward: b, then who called it (main) */
	const struct hist_entry *b = entry(&h, "b");
	assert_true(b->tree_has_self);
	assert_int_equal(b->tree->samples, 3);
	assert_int_equal(b->tree->nkids, 1);
	assert_int_equal(kid(kid(b->tree, "b"), "main")->samples, 3);
	/* c: c, b, then main */
	const struct hist_entry *c = entry(&h, "c");
	assert_int_equal(kid(kid(kid(c->tree, "c"), "b"), "main")->period, 2);
	/* main is the outermost frame: nothing called it */
	assert_int_equal(kid(entry(&h, "main")->tree, "main")->nkids, 0);
	/* rec called itself: the tree shows the recursion once per level */
	const struct hist_entry *r = entry(&h, "rec");
	assert_non_null(kid(kid(kid(kid(r->tree, "rec"), "rec"), "rec"), "main"));
	/* equal children totals: the shorter chain first in callee order (perf's order) */
	assert_int_equal(entry(&h, "main")->max_depth, 1);
	assert_int_equal(r->max_depth, 4);
	hist_free(&h);
}

static void test_children_caller(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_SYM };
	struct hist h;
	hist_init(&h, keys, 1, HIST_CALLER, true);
	hist_add(&h, hworld_sample(&w, 0, 0, 3, "c,b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "a,main"));
	hist_sort(&h, true);
	/* caller order: main, then what it called, largest first */
	const struct hist_entry *m = entry(&h, "main");
	assert_int_equal(m->acc_period, 4);
	assert_int_equal(m->tree->nkids, 1);
	const struct callnode *mn = kid(m->tree, "main");
	assert_int_equal(mn->nkids, 2);
	assert_ptr_equal(mn->kids[0]->sym, hworld_sym(&w, "b"));
	assert_int_equal(mn->kids[0]->period, 3);
	assert_ptr_equal(mn->kids[1]->sym, hworld_sym(&w, "a"));
	assert_int_equal(kid(kid(mn, "b"), "c")->period, 3);
	/* the sampled function's own entry holds the whole chain, from the root down to it (perf) */
	const struct callnode *cm = kid(entry(&h, "c")->tree, "main");
	assert_int_equal(kid(kid(cm, "b"), "c")->nkids, 0);
	hist_free(&h);
}

/* Without children, caller order holds the path from the root down to the function itself. */
static void test_self_caller_path(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_SYM };
	struct hist h;
	hist_init(&h, keys, 1, HIST_CALLER, false);
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,b,main"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,a,main"));
	hist_sort(&h, false);
	assert_int_equal(h.n, 1);
	const struct hist_entry *c = h.v[0];
	assert_int_equal(c->acc_period, 0);
	const struct callnode *m = kid(c->tree, "main");
	assert_int_equal(m->samples, 2);
	assert_int_equal(m->nkids, 2);
	assert_non_null(kid(kid(m, "b"), "c"));
	assert_non_null(kid(kid(m, "a"), "c"));
	hist_free(&h);

	hist_init(&h, keys, 1, HIST_CALLEE, false);
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "c,b,main"));
	hist_sort(&h, false);
	assert_non_null(kid(kid(kid(h.v[0]->tree, "c"), "b"), "main"));
	hist_free(&h);
}

static void test_unresolved_tree(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_DSO, HK_SYM };
	struct hist h;
	hist_init(&h, keys, 2, HIST_CALLEE, false);
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "main,0x7000"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "main,0x7000"));
	hist_add(&h, hworld_sample(&w, 0, 0, 1, "main,0x8000"));
	hist_sort(&h, false);
	/* unresolved callers are told apart by address */
	const struct callnode *mn = kid(h.v[0]->tree, "main");
	assert_int_equal(mn->nkids, 2);
	assert_int_equal(mn->kids[0]->addr, 0x7000);
	assert_int_equal(mn->kids[0]->samples, 2);
	hist_free(&h);
}

static void test_filter(void **state)
{
	struct hworld w;
	hworld_init(&w);
	struct sample_filter f = { 0 };
	const struct resolved_sample *rs = hworld_sample(&w, 1, 0, 1, "memcpy,main");
	assert_true(filter_match(&f, rs));
	assert_int_equal(filter_add_comms(&f, "prog,worker"), 0);
	assert_true(filter_match(&f, rs));
	assert_false(filter_match(&f, hworld_sample(&w, 2, 0, 1, "main")));
	assert_int_equal(filter_add_tids(&f, "101"), 0);
	assert_true(filter_match(&f, hworld_sample(&w, 1, 0, 1, "memcpy")));
	assert_false(filter_match(&f, hworld_sample(&w, 0, 0, 1, "memcpy")));
	filter_free(&f);

	/* DSOs by short name or path; the sample's own frame decides */
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_add_dsos(&f, "libc.so.6"), 0);
	assert_true(filter_match(&f, hworld_sample(&w, 0, 0, 1, "memcpy,main")));
	assert_false(filter_match(&f, hworld_sample(&w, 0, 0, 1, "main,memcpy")));
	filter_free(&f);
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_add_dsos(&f, "/usr/bin/prog"), 0);
	assert_true(filter_match(&f, hworld_sample(&w, 0, 0, 1, "main")));
	assert_false(filter_match(&f, hworld_sample(&w, 0, 0, 1, "")));
	filter_free(&f);

	/* symbols: exact, ^prefix, suffix$, any case; no symbol never matches */
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_add_syms(&f, "^MEM,ain$"), 0);
	assert_true(filter_match(&f, hworld_sample(&w, 0, 0, 1, "memcpy")));
	assert_true(filter_match(&f, hworld_sample(&w, 0, 0, 1, "main")));
	assert_false(filter_match(&f, hworld_sample(&w, 0, 0, 1, "a,main")));
	assert_false(filter_match(&f, hworld_sample(&w, 0, 0, 1, "0x1234")));
	filter_free(&f);
	assert_true(filter_symbol_matches("main", "MAIN"));
	assert_false(filter_symbol_matches("mai", "main"));
	assert_true(filter_symbol_matches("^ma", "main"));
	assert_true(filter_symbol_matches("in$", "main"));
	assert_false(filter_symbol_matches("ma$", "main"));

	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_add_pids(&f, "100"), 0);
	assert_true(filter_match(&f, hworld_sample(&w, 2, 0, 1, "main")));
	assert_int_equal(filter_add_pids(&f, "12x"), -1);
	filter_free(&f);

	/* --time: the spec is checked and kept for the session (util/timerange.h parses it;
	 * test_timerange tests the grammar); filter_match leaves time to the session */
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_set_time(&f, "1094.909566,1094.9101"), 0);
	assert_string_equal(f.time_spec, "1094.909566,1094.9101");
	const struct resolved_sample *ts = hworld_sample(&w, 0, 0, 1, "main");
	w.s.time = 1;
	assert_true(filter_match(&f, ts));
	assert_int_equal(filter_set_time(&f, "10%/2,10%/4"), 0);
	assert_string_equal(f.time_spec, "10%/2,10%/4");
	assert_int_equal(filter_set_time(&f, "1.5"), -1);
	assert_int_equal(filter_set_time(&f, "2,1"), -1);
	assert_int_equal(filter_set_time(&f, "0%"), -1);
	assert_string_equal(f.time_spec, "10%/2,10%/4"); /* a refused spec changes nothing */
	filter_free(&f);
}

static void test_profile(void **state)
{
	struct hworld w;
	hworld_init(&w);
	enum hist_key keys[] = { HK_COMM, HK_SYM };
	struct profile p = { 0 };
	assert_int_equal(filter_add_comms(&p.filter, "prog"), 0); /* set before init: kept */
	profile_init(&p, &w.evsels, keys, 2, HIST_GRAPH_NONE, false);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.filter.ncomms, 1);
	profile_sample(hworld_sample(&w, 0, 0, 1, "main"), &p);
	profile_sample(hworld_sample(&w, 0, 1, 1, "a,main"), &p);
	profile_sample(hworld_sample(&w, 0, 1, 1, "a,main"), &p);
	profile_sample(hworld_sample(&w, 1, 0, 1, "main"), &p); /* worker: filtered out */
	assert_int_equal(p.kept, 3);
	assert_int_equal(p.filtered_out, 1);
	/* an event declared later (pipe mode) gets its histogram on its first sample */
	struct evsel late = { .name = "late", .idx = 3 };
	const struct resolved_sample *rs = hworld_sample(&w, 0, 0, 1, "b");
	w.s.evsel = &late;
	profile_sample(rs, &p);
	assert_int_equal(p.n, 4);
	profile_sort(&p, false);
	assert_int_equal(p.hists[0].total_samples, 1);
	assert_int_equal(p.hists[1].total_samples, 2);
	assert_int_equal(p.hists[2].total_samples, 0);
	assert_int_equal(p.hists[3].total_samples, 1);
	assert_int_equal(p.hists[3].nkeys, 2);
	assert_string_equal(p.hists[1].v[0]->comm, "prog");
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sort),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_keys_split_entries),
		cmocka_unit_test(test_trace_key),
		cmocka_unit_test(test_children_callee),
		cmocka_unit_test(test_children_caller),
		cmocka_unit_test(test_self_caller_path),
		cmocka_unit_test(test_unresolved_tree),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
