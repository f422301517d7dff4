/* The interactive browser of report and top (ncurses, Debian's libncurses): a list of hot
 * entries with perf's columns, call chains that expand and collapse, zoom into a DSO, thread or
 * process, a symbol filter, sort orders, help, annotation and a flame graph of the view through
 * the command's hooks. The terminal is restored on exit, on SIGINT/SIGTERM and on a crash
 * (SIGSEGV, SIGABRT, SIGBUS, SIGFPE). */
#ifndef LPERF_TUI_TUI_H
#define LPERF_TUI_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/hist.h"
#include "analysis/topview.h"
#include "output/top_out.h"

#define TUI_COLS 8

struct tui_row {
	char *text;              /* the key columns, e.g. "tui_work  tui_work  [.] main" */
	char *cols[TUI_COLS];    /* report: each key column alone, padded by the browser to the
				  * widest shown (as perf, whose widths follow the zooms and filter) */
	double pct[2];           /* Children and Self, or Overhead alone in pct[0] */
	uint64_t samples;
	const char *dso, *comm, *sym; /* for the zooms and the filter (sym: the symbol's name) */
	int pid, tid;            /* the thread of the entry (perf's he->thread): 't' and 'p' */
	const struct callnode *tree; /* the call graph under the entry (NULL: none) */
	const void *ref;         /* the command's own (a hist_entry for report) */
};

struct tui_model {
	char *status;            /* the first line */
	char *titles;            /* the column titles */
	int npct;                /* 1 (Overhead) or 2 (Children, Self) */
	struct tui_row *rows;
	size_t n;
	uint64_t total;          /* call-graph percentages are shares of this */
	double min;              /* call-graph nodes under this percent are not shown (-g graph,0.5) */
	int ncols;               /* report: the key columns in cols[] (0: text and titles whole) */
	const char *coltitle[TUI_COLS];
	int dso_col;             /* the Shared Object column, hidden in a DSO zoom; -1: none */
	bool by_tid;             /* the entries are keyed by thread: the title names its id */
};

/* What the view is narrowed to (for 'f'). NULL fields, 0 ids: no narrowing. */
struct tui_zoom {
	const char *dso, *comm, *filter;
	int pid, tid;
};

struct tui_hooks {
	void *arg;
	/* 'a': row r's annotation as text (malloc'ed), NULL with err_set() when there is none. */
	char *(*annotate)(void *arg, const struct tui_row *r);
	/* Enter on a call in the annotate view: the annotation of the function at addr (an
	 * address of row r's DSO), its name in name; NULL with err_set(). */
	char *(*annotate_addr)(void *arg, const struct tui_row *r, uint64_t addr, char *name, size_t size);
	/* 'f': a flame graph of the view; its path into path; -1 with err_set(). */
	int (*flame)(void *arg, const struct tui_zoom *z, char *path, size_t size);
	/* 'c': the model with the other call-graph order, and what it shows in *what; NULL with
	 * err_set() when there is none. */
	struct tui_model *(*switch_graph)(void *arg, const char **what);
	/* Tab: the next event's model (a recording of several events), its name in *what; NULL
	 * with err_set() when there is no other. */
	struct tui_model *(*next_event)(void *arg, const char **what);
};

struct tui;
/* NULL with err_set() when standard input or output is no terminal or curses cannot start. */
struct tui *tui_open(const struct tui_hooks *h);
/* Shows model (the browser owns it from now on; the previous one is freed). The selection stays
 * on the entry with the same text when it is still there. */
void tui_show(struct tui *t, struct tui_model *m);
/* Waits up to ms milliseconds (-1: for ever) for a key and acts on it; false once the user quit. */
bool tui_step(struct tui *t, int ms);
void tui_close(struct tui *t);
/* A menu of items (perf's event menu) under title, foot at the bottom, item sel selected at
 * first: the item chosen with Enter or Right, -1 on Esc, q or Left. */
int tui_menu(struct tui *t, const char *title, const char *const *items, size_t n, size_t sel, const char *foot);
/* Whether the browser was last left with Esc (nothing left to back out of) rather than q. */
bool tui_backed_out(const struct tui *t);

/* Models (tui_model.c): report's entries of one event, top's rows. */
struct tui_model *tui_model_hist(const struct hist *h, const char *event, uint64_t samples, bool children,
				  double graph_min);
struct tui_model *tui_model_top(const struct top_view *tv, const struct top_status *st);
void tui_model_free(struct tui_model *m);

#endif
