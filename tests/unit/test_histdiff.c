/* analysis/histdiff.c (perf diff's computations and order) and output/diff_text.c (its layout)
 * on hand-made rows: -c parsing, delta/ratio/wdiff values, the order of each mode (rows of the
 * baseline alone last, N/A rows before them with ratio and wdiff), the columns and
 * --percent-limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/histdiff.h"
#include "output/diff_out.h"
#include "util/xalloc.h"

static void add(struct histdiff_event *e, const char *sym, uint64_t oldp, uint64_t newp)
{
	ALLOC_GROW(e->rows, e->n + 1, e->cap);
	struct histdiff_row *r = &e->rows[e->n++];
	memset(r, 0, sizeof(*r));
	r->dso = xstrdup("prog");
	r->sym = xstrdup(sym);
	r->in_old = oldp > 0;
	r->in_new = newp > 0;
	r->old_period = oldp;
	r->new_period = newp;
	r->old_samples = oldp / 10;
	r->new_samples = newp / 10;
	e->old_period += oldp;
	e->new_period += newp;
	e->old_samples += oldp / 10;
	e->new_samples += newp / 10;
}

/* Old: a 500, b 400, c 100; new: a 100 (4/5 of its work gone), b 400, d 50. */
static void build(struct histdiff *d, const char *compute)
{
	memset(d, 0, sizeof(*d));
	assert_int_equal(histdiff_parse_compute(d, compute), 0);
	d->ev = xcalloc(1, sizeof(*d->ev));
	d->n = d->cap = 1;
	d->ev[0].name = xstrdup("cpu-clock");
	add(&d->ev[0], "a", 500, 100);
	add(&d->ev[0], "b", 400, 400);
	add(&d->ev[0], "c", 100, 0);
	add(&d->ev[0], "d", 0, 50);
	histdiff_finish(d);
}

static const char *order(const struct histdiff *d, char *buf)
{
	buf[0] = 0;
	for (size_t i = 0; i < d->ev[0].n; i++)
		strcat(buf, d->ev[0].rows[i].sym);
	return buf;
}

static void test_parse(void **state)
{
	struct histdiff d = { 0 };
	assert_int_equal(histdiff_parse_compute(&d, "wdiff:2,3"), 0);
	assert_int_equal(d.compute, HD_WDIFF);
	assert_int_equal(d.w1, 2);
	assert_int_equal(d.w2, 3);
	assert_int_equal(histdiff_parse_compute(&d, "delta-abs"), 0);
	assert_int_equal(d.compute, HD_DELTA_ABS);
	assert_int_equal(histdiff_parse_compute(&d, "wdiff"), -1);
	assert_int_equal(histdiff_parse_compute(&d, "wdiff:1"), -1);
	assert_int_equal(histdiff_parse_compute(&d, "wdiff:0,1"), -1);
	assert_int_equal(histdiff_parse_compute(&d, "wdiff:1,x"), -1);
	assert_int_equal(histdiff_parse_compute(&d, "speed"), -1);
}

static void test_values_and_orders(void **state)
{
	struct histdiff d;
	char buf[16];
	build(&d, "delta");
	/* b's share grew from 40% to 72.73% although its period did not change */
	const struct histdiff_row *b = &d.ev[0].rows[0];
	assert_string_equal(b->sym, "b");
	assert_true(b->delta > 32 && b->delta < 33);
	assert_true(b->ratio > 0.999 && b->ratio < 1.001);
	assert_string_equal(order(&d, buf), "bdac"); /* by value; c (old only) last */
	histdiff_free(&d);
	build(&d, "delta-abs");
	assert_string_equal(order(&d, buf), "badc"); /* by size: b +32.73, a -31.82, d +9.09 */
	histdiff_free(&d);
	build(&d, "ratio");
	assert_string_equal(order(&d, buf), "badc"); /* 1.0, 0.2, then N/A (d), then c */
	histdiff_free(&d);
	build(&d, "wdiff:1,2");
	assert_string_equal(order(&d, buf), "badc"); /* 400, -300 */
	assert_int_equal(d.ev[0].rows[0].wdiff, 400);
	assert_int_equal(d.ev[0].rows[1].wdiff, -300);
	histdiff_free(&d);
}

static void test_text(void **state)
{
	struct histdiff d;
	build(&d, "ratio");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct diff_view v = { .period = true, .percent_limit = 10 };
	diff_print_perf(f, &d, &v);
	fclose(f);
	assert_string_equal(buf,
			    "# Event 'cpu-clock'\n"
			    "#\n"
			    "# Baseline     Base period           Ratio          Period  Shared Object  Symbol\n"
			    "# ........  ..............  ..............  ..............  .............  ......\n"
			    "#\n"
			    "    40.00%             400        1.000000             400  prog           [.] b\n"
			    "    50.00%             500        0.200000             100  prog           [.] a\n"
			    "    10.00%             100                                  prog           [.] c\n"
			    "#\n"
			    "# 1 more rows not shown (under 10.00% in both recordings or past --limit; --percent-limit 0 shows all)\n");
	free(buf);
	histdiff_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_values_and_orders),
		cmocka_unit_test(test_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
