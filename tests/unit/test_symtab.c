/* symtab_finish's ordering: input that is nearly in address order (kallsyms: a few runs) is
 * sorted run by run and merged; any other input is sorted whole. Both must give the same table,
 * symbol for symbol, for the same candidates in the same order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbols/symtab.h"

#define NCAND 3000
/* Far above every candidate: the interleaved extra symbols that force the whole-array sort. */
#define FAR (1ull << 60)
#define NEXTRA 100

struct cand {
	uint64_t start, size;
	char name[24];
	enum symtab_rank rank;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Candidates in address order with groups at one address (aliases of every rank, names with
 * and without leading underscores), then nblocks blocks of them swapped: at most 2 * nblocks
 * runs. Sizes are never zero, so the extra symbols far above cannot change any size. */
static void make_cands(struct cand *c, size_t n, int nblocks)
{
	static const enum symtab_rank ranks[] = { SYMRANK_GLOBAL, SYMRANK_WEAK, SYMRANK_LOCAL, SYMRANK_PLT };
	uint64_t addr = 0x1000;
	for (size_t i = 0; i < n; i++) {
		if (next_rand() % 3)
			addr += 1 + next_rand() % 64;
		c[i].start = addr;
		c[i].size = 1 + next_rand() % 100;
		snprintf(c[i].name, sizeof(c[i].name), "%.*sf%u", (int)(next_rand() % 3), "__",
			 (unsigned)(next_rand() % 50));
		c[i].rank = ranks[next_rand() % 4];
	}
	for (int b = 0; b < nblocks; b++) {
		size_t len = 1 + next_rand() % (n / 20), x = next_rand() % (n - len), y = next_rand() % (n - len);
		for (size_t k = 0; k < len; k++) {
			struct cand t = c[x + k];
			c[x + k] = c[y + k];
			c[y + k] = t;
		}
	}
}

static void build(const struct cand *c, size_t n, bool last_wins, bool extra, struct symbol **syms,
		  size_t *nsyms)
{
	struct symtab_builder b = { 0 };
	b.last_wins = last_wins;
	size_t every = n / NEXTRA;
	for (size_t i = 0; i < n; i++) {
		if (extra && i % every == 0)
			symtab_add(&b, FAR + (NEXTRA - i / every) * 16, 8, 0, "far", NULL, SYMRANK_GLOBAL);
		symtab_add(&b, c[i].start, c[i].size, 0, c[i].name, NULL, c[i].rank);
	}
	symtab_finish(&b, syms, nsyms);
}

static void same_either_way(bool last_wins, int nblocks)
{
	struct cand *c = calloc(NCAND, sizeof(*c));
	assert_non_null(c);
	make_cands(c, NCAND, nblocks);
	struct symbol *runs = NULL, *whole = NULL;
	size_t nruns = 0, nwhole = 0;
	build(c, NCAND, last_wins, false, &runs, &nruns);
	build(c, NCAND, last_wins, true, &whole, &nwhole);
	assert_true(nruns > 100);
	assert_int_equal(nwhole, nruns + NEXTRA);
	for (size_t i = 0; i < nruns; i++) {
		assert_int_equal(runs[i].start, whole[i].start);
		assert_int_equal(runs[i].size, whole[i].size);
		assert_string_equal(runs[i].name, whole[i].name);
		if (i)
			assert_true(runs[i].start > runs[i - 1].start);
	}
	for (size_t i = nruns; i < nwhole; i++)
		assert_true(whole[i].start >= FAR);
	symtab_free(runs, nruns);
	symtab_free(whole, nwhole);
	free(c);
}

static void sorted_input(void **state) { same_either_way(false, 0); same_either_way(true, 0); }
static void few_runs(void **state) { same_either_way(false, 3); same_either_way(true, 3); }
static void many_swaps(void **state) { same_either_way(false, 12); same_either_way(true, 12); }
static void too_many_runs(void **state) { same_either_way(false, 200); same_either_way(true, 200); }

/* kallsyms: of the names at one address, the last listed wins, wherever the runs split. */
static void last_listed_wins(void **state)
{
	struct symtab_builder b = { 0 };
	b.last_wins = true;
	symtab_add(&b, 0x3000, 0, 0, "c", NULL, SYMRANK_GLOBAL);
	symtab_add(&b, 0x1000, 0, 0, "a1", NULL, SYMRANK_GLOBAL);
	symtab_add(&b, 0x2000, 0, 0, "b", NULL, SYMRANK_LOCAL);
	symtab_add(&b, 0x1000, 0, 0, "a2", NULL, SYMRANK_LOCAL);
	symtab_add(&b, 0x3000, 0, 0x3100, "c2", NULL, SYMRANK_WEAK);
	struct symbol *s = NULL;
	size_t n = 0;
	symtab_finish(&b, &s, &n);
	assert_int_equal(n, 3);
	assert_string_equal(s[0].name, "a2");
	assert_int_equal(s[0].size, 0x1000);
	assert_string_equal(s[1].name, "b");
	assert_string_equal(s[2].name, "c2");
	assert_int_equal(s[2].size, 0x100);
	symtab_free(s, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sorted_input),
		cmocka_unit_test(few_runs),
		cmocka_unit_test(many_swaps),
		cmocka_unit_test(too_many_runs),
		cmocka_unit_test(last_listed_wins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
