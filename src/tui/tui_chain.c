/* The call-graph lines of the browser (tui/tui_int.h), laid out as perf's hists browser lays
 * them: level by level three columns in, a fold mark ('+' shut, '-' open) where there is more to
 * show, percentages of the whole recording. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/tui_int.h"
#include "util/xalloc.h"

void tui_add_line(struct tui *t, struct tui_line l)
{
	if (t->nlines == t->lcap) {
		t->lcap = t->lcap ? 2 * t->lcap : 256;
		t->lines = xrealloc(t->lines, t->lcap * sizeof(*t->lines));
	}
	t->lines[t->nlines++] = l;
}

/* Deeper levels than this are not laid out (a line is cut at the screen's edge anyway). */
#define CHAIN_MAX_LEVEL 1024

static bool shown(const struct tui *t, const struct callnode *n)
{
	return t->m->total && 100.0 * (double)n->period / (double)t->m->total >= t->m->min;
}

static size_t nshown(const struct tui *t, const struct callnode *n)
{
	size_t k = 0;
	for (size_t i = 0; i < n->nkids; i++)
		k += shown(t, n->kids[i]);
	return k;
}

bool tui_chain_has(const struct tui *t, const struct callnode *tree)
{
	return tree && nshown(t, tree) > 0;
}

static bool is_open(const struct tui *t, const struct callnode *n)
{
	return hashmap_find_ptr(&t->opened, n) != NULL;
}

/* The kids of parent at a level: each starts a run, the straight part of the chain below it
 * (one kid with all of its node's samples), shown whole once its first line is opened. */
static void level_lines(struct tui *t, size_t row, const struct callnode *parent, int level)
{
	size_t vis = nshown(t, parent);
	/* perf's test for a percentage: siblings, or less than all the parent's callees (hidden
	 * ones too; samples that ended in the parent itself do not count) */
	uint64_t below = 0;
	for (size_t i = 0; i < parent->nkids; i++)
		below += parent->kids[i]->period;
	for (size_t i = 0; i < parent->nkids; i++) {
		const struct callnode *c = parent->kids[i];
		if (!shown(t, c))
			continue;
		bool need_pct = vis > 1 || c->period != below;
		size_t len = 1;
		const struct callnode *last = c;
		while (last->nkids == 1 && last->kids[0]->period == last->period) {
			last = last->kids[0];
			len++;
		}
		bool kids = nshown(t, last) > 0, stopped = false;
		const struct callnode *n = c;
		for (size_t j = 0; j < len && !stopped; j++, n = j < len ? n->kids[0] : n) {
			/* perf's fold marks: the last line of a run folds its kids; the first folds the
			 * rest of the run, at the first level when it has siblings shown, deeper
			 * always. */
			const struct callnode *fold = NULL;
			if (j == len - 1 && kids)
				fold = n;
			else if (j == 0 && len > 1 && (level > 1 || vis > 1))
				fold = n;
			int col = 3 * level + (j && need_pct ? 3 : 0);
			tui_add_line(t, (struct tui_line){ row, n, fold, col, j == 0 && need_pct });
			stopped = fold && !is_open(t, fold);
		}
		if (!stopped && kids && level < CHAIN_MAX_LEVEL)
			level_lines(t, row, last, level + (need_pct && len > 1 ? 2 : 1));
	}
}

void tui_chain_lines(struct tui *t, size_t row)
{
	const struct callnode *tree = t->m->rows[row].tree;
	if (tree)
		level_lines(t, row, tree, 1);
}

void tui_chain_draw(const struct tui *t, int y, const struct tui_line *l)
{
	int x = l->col;
	if (x >= COLS)
		return;
	char name[512], pct[32] = "";
	hist_sym_name(l->node->sym, l->node->addr, name, sizeof(name));
	mvaddstr(y, x, l->fold ? (is_open(t, l->fold) ? "-" : "+") : " ");
	x += 2;
	double share = t->m->total ? 100.0 * (double)l->node->period / (double)t->m->total : 0.0;
	if (l->pct && x < COLS) {
		snprintf(pct, sizeof(pct), "%.2f%% ", share);
		int pa = tui_pct_attr(share);
		attron(pa);
		mvaddnstr(y, x, pct, COLS - x);
		attroff(pa);
		x += (int)strlen(pct);
	}
	if (x < COLS) {
		mvaddnstr(y, x, name, COLS - x);
		x += (int)strlen(name);
	}
	if (l->node->inlined && x < COLS)
		mvaddnstr(y, x, " (inlined)", COLS - x);
}
