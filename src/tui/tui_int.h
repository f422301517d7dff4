/* The browser's state, shared by its files (tui/browser.c: the list; tui/tui_term.c: curses,
 * signals, the text views and the prompt). */
#ifndef LPERF_TUI_TUI_INT_H
#define LPERF_TUI_TUI_INT_H

#include "tui/tui.h"
#include "util/hashmap.h"

/* One screen line of the list: an entry, or a call-graph node under one. */
struct tui_line {
	size_t row;
	const struct callnode *node; /* NULL: the entry itself */
	const struct callnode *fold; /* the node whose expansion '+' toggles here; NULL: none */
	int col;                 /* a node's fold mark column (its name two further) */
	bool pct;                /* a node's line shows its percentage */
};

enum tui_sort { TS_GIVEN, TS_SELF, TS_SAMPLES, TS_NAME, TS_N };

struct tui {
	struct tui_hooks hooks;
	struct tui_model *m;
	size_t *order;           /* the rows shown, in the sort order */
	size_t norder;
	bool *open;              /* per row: its graph expanded */
	struct hashmap opened;   /* call-graph nodes expanded (pointer keys) */
	struct tui_line *lines;
	size_t nlines, lcap;
	size_t sel, top;         /* the selected line, the first line on the screen */
	enum tui_sort sort;
	char *zoom_dso, *filter;
	char *zoom_thread, *zoom_proc; /* what the title names, with the ids below */
	int zoom_tid, zoom_pid;
	int width[TUI_COLS];     /* the key columns' widths over the rows shown */
	char msg[512];           /* the bottom line's message until the next key */
	bool escaped;            /* left with Esc, not q */
	bool narrowed;           /* filtered or zoomed once: widths from the entries alone */
};

/* tui/tui_chain.c: the screen lines (tui_add_line appends one); perf's call-graph lines under an expanded entry: a straight part of a chain
 * (one function calling the next, no branch) one line each under its first, a branch's lines
 * with their percentage where it differs from the one above or has siblings, nodes under the
 * graph's threshold hidden. */
void tui_add_line(struct tui *t, struct tui_line l);
bool tui_chain_has(const struct tui *t, const struct callnode *tree);
void tui_chain_lines(struct tui *t, size_t row);
void tui_chain_draw(const struct tui *t, int y, const struct tui_line *l);

/* tui_term.c */
void tui_term_start(void);
void tui_term_end(void);
/* Enter in a text view: the text to show for the selected line (malloc'ed, its title in
 * title), or NULL with err_set(). */
struct tui_follow {
	char *(*fn)(void *arg, const char *line, char *title, size_t size);
	void *arg;
};
/* A scrollable text view (help, annotation) until q/Esc; the line at start selected. Each line
 * whose first number is a percentage is coloured as perf colours it. Enter shows what follow
 * gives for the selected line (when given) in a view of its own, q comes back. */
void tui_text_view(const char *title, const char *text, size_t start, const struct tui_follow *follow);
/* The line of text with the highest leading percentage (annotate's hottest). */
size_t tui_hottest_line(const char *text);
/* Reads a line at the bottom after prompt; NULL when cancelled (Esc). malloc'ed. */
char *tui_prompt(const char *prompt);
/* The colour pair of a percentage (perf's thresholds), 0 for none. */
int tui_pct_attr(double pct);

#endif
