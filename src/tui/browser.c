/* The hot-entry browser (tui/tui.h): the rows in a sort order, narrowed by the zooms and the
 * filter, each entry's call graph expanded level by level. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/tui_int.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char help_text[] =
	"Keys\n"
	"\n"
	"  Up/Down, PgUp/PgDn, Home/End   move\n"
	"  Enter, +                       expand or collapse the selected call chain level\n"
	"  e                              expand or collapse the whole chain of the entry\n"
	"  E, C                           expand, collapse every entry's chain\n"
	"  a                              annotate the selected function (Enter on a call: the\n"
	"                                 function it calls; q: back)\n"
	"  d                              zoom into the selected entry's DSO (again: back)\n"
	"  t                              zoom into the selected entry's thread (again: back)\n"
	"  p                              zoom into the selected entry's process (again: back)\n"
	"  /                              filter symbols (empty: all)\n"
	"  s                              next sort order: as given, self, samples, name\n"
	"  c                              caller graphs <-> callee graphs\n"
	"  Tab                            the next event of the recording\n"
	"  f                              write a flame graph of this view, show its path\n"
	"  h, ?                           this help\n"
	"  Esc                            back (filter, zoom), then quit\n"
	"  q                              quit\n";

static const char *const sort_names[TS_N] = { "as given", "self", "samples", "name" };

struct tui *tui_open(const struct tui_hooks *h)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		err_set("the browser needs a terminal (use --stdio)");
		return NULL;
	}
	const char *term = getenv("TERM");
	if (!term || !*term || !strcmp(term, "dumb")) {
		err_set("the browser needs a terminal that can move the cursor (TERM is '%s'; use --stdio)",
			term ? term : "");
		return NULL;
	}
	struct tui *t = xcalloc(1, sizeof(*t));
	t->hooks = *h;
	hashmap_init(&t->opened, HASHMAP_PTR);
	tui_term_start();
	return t;
}

static bool row_visible(const struct tui *t, const struct tui_row *r)
{
	if (t->zoom_dso && (!r->dso || strcmp(r->dso, t->zoom_dso)))
		return false;
	if (t->zoom_thread && r->tid != t->zoom_tid)
		return false;
	if (t->zoom_proc && r->pid != t->zoom_pid)
		return false;
	return !t->filter || !*t->filter || (r->text && strstr(r->sym ? r->sym : r->text, t->filter));
}

static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct tui *t = arg;
	const struct tui_row *x = &t->m->rows[*(const size_t *)a], *y = &t->m->rows[*(const size_t *)b];
	int self = t->m->npct == 2 ? 1 : 0;
	switch (t->sort) {
	case TS_SELF:
		if (x->pct[self] != y->pct[self])
			return x->pct[self] > y->pct[self] ? -1 : 1;
		break;
	case TS_SAMPLES:
		if (x->samples != y->samples)
			return x->samples > y->samples ? -1 : 1;
		break;
	case TS_NAME: {
		int c = strcmp(x->sym ? x->sym : x->text, y->sym ? y->sym : y->text);
		if (c)
			return c;
		break;
	}
	default:
		break;
	}
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	return ia < ib ? -1 : ia > ib;
}

/* perf's column widths: each key column as wide as its widest value among the entries shown
 * (the title cut to it once narrowed), the last one unpadded. */
static void widths(struct tui *t)
{
	/* perf's widths: at least the title's until a filter or zoom recounts them from the
	 * entries alone ("Shared O" for tui_work). */
	for (int k = 0; k < TUI_COLS; k++)
		t->width[k] = !t->narrowed && k < t->m->ncols ? (int)strlen(t->m->coltitle[k]) : 0;
	for (size_t i = 0; i < t->norder; i++) {
		const struct tui_row *r = &t->m->rows[t->order[i]];
		for (int k = 0; k < t->m->ncols; k++) {
			int len = r->cols[k] ? (int)strlen(r->cols[k]) : 0;
			if (len > t->width[k])
				t->width[k] = len;
		}
	}
}

static bool col_shown(const struct tui *t, int k)
{
	return !(t->zoom_dso && k == t->m->dso_col);
}

/* The key columns of a row (or the titles, r NULL) padded to the widths. */
static void key_text(const struct tui *t, const struct tui_row *r, struct strbuf *sb)
{
	int last = t->m->ncols - 1;
	while (last > 0 && !col_shown(t, last))
		last--;
	bool first = true;
	for (int k = 0; k <= last; k++) {
		if (!col_shown(t, k))
			continue;
		const char *v = r ? (r->cols[k] ? r->cols[k] : "") : t->m->coltitle[k];
		if (!first)
			sb_adds(sb, "  ");
		first = false;
		if (k == last)
			sb_adds(sb, v);
		else
			sb_addf(sb, "%-*.*s", t->width[k], t->width[k], v);
	}
}

/* The screen lines from the rows, the order, the zooms and what is expanded. */
static void rebuild(struct tui *t)
{
	const struct tui_line *cur = t->sel < t->nlines ? &t->lines[t->sel] : NULL;
	size_t keep_row = cur ? cur->row : (size_t)-1;
	const struct callnode *keep_node = cur ? cur->node : NULL;
	free(t->order);
	t->order = xcalloc(t->m->n ? t->m->n : 1, sizeof(*t->order));
	t->norder = 0;
	for (size_t i = 0; i < t->m->n; i++)
		if (row_visible(t, &t->m->rows[i]))
			t->order[t->norder++] = i;
	qsort_r(t->order, t->norder, sizeof(*t->order), cmp_order, t);
	t->nlines = 0;
	t->sel = 0;
	widths(t);
	for (size_t k = 0; k < t->norder; k++) {
		size_t r = t->order[k];
		tui_add_line(t, (struct tui_line){ .row = r });
		if (t->open[r] && t->m->rows[r].tree)
			tui_chain_lines(t, r);
	}
	bool kept = false;
	for (size_t i = 0; i < t->nlines && !kept; i++)
		if (t->lines[i].row == keep_row && t->lines[i].node == keep_node)
			t->sel = i, kept = true;
	for (size_t i = 0; i < t->nlines && !kept; i++)
		if (t->lines[i].row == keep_row && !t->lines[i].node)
			t->sel = i, kept = true;
}

void tui_show(struct tui *t, struct tui_model *m)
{
	/* Keep the selection on the same entry (by its text) across top's refreshes. */
	char *keep = NULL;
	if (t->m && t->sel < t->nlines)
		keep = xstrdup(t->m->rows[t->lines[t->sel].row].text);
	tui_model_free(t->m);
	t->m = m;
	free(t->open);
	t->open = xcalloc(m->n ? m->n : 1, sizeof(bool));
	hashmap_free(&t->opened);
	t->nlines = 0;
	rebuild(t);
	for (size_t i = 0; keep && i < t->nlines; i++)
		if (!t->lines[i].node && !strcmp(m->rows[t->lines[i].row].text, keep))
			t->sel = i;
	free(keep);
}

static void draw_line(struct tui *t, int y, const struct tui_line *l, bool selected)
{
	const struct tui_row *r = &t->m->rows[l->row];
	int attr = selected ? A_REVERSE : 0;
	attron(attr);
	mvhline(y, 0, ' ', COLS);
	if (l->node) {
		tui_chain_draw(t, y, l);
		attroff(attr);
		return;
	}
	/* perf's columns: the fold mark, then each percentage ten wide ("+   33.78%    33.11%"). */
	mvaddstr(y, 0, tui_chain_has(t, r->tree) ? (t->open[l->row] ? "-" : "+") : " ");
	int x = 1;
	for (int k = 0; k < t->m->npct; k++) {
		int pa = tui_pct_attr(r->pct[k]);
		attron(pa);
		mvprintw(y, x, k ? "%9.2f%%" : "%8.2f%%", r->pct[k]);
		attroff(pa);
		x += k ? 10 : 9;
	}
	if (!t->m->npct) { /* top: the text carries its percentage, coloured as a whole */
		int pa = tui_pct_attr(r->pct[0]);
		attron(pa);
		mvaddnstr(y, x, r->text, COLS - x > 0 ? COLS - x : 0);
		attroff(pa);
	} else if (t->m->ncols) {
		struct strbuf sb = STRBUF_INIT;
		key_text(t, r, &sb);
		mvaddnstr(y, x + 2, sb_str(&sb), COLS - x - 2 > 0 ? COLS - x - 2 : 0);
		sb_release(&sb);
	} else {
		mvaddnstr(y, x + 2, r->text, COLS - x - 2 > 0 ? COLS - x - 2 : 0);
	}
	attroff(attr);
}

/* The first line: the model's, then what the view is zoomed into, as perf's title names it. */
static void title(const struct tui *t, struct strbuf *sb)
{
	sb_adds(sb, t->m->status);
	if (t->zoom_thread) {
		sb_addf(sb, ", Thread: %s", t->zoom_thread);
		if (t->m->by_tid)
			sb_addf(sb, "(%d)", t->zoom_tid);
	}
	if (t->zoom_proc)
		sb_addf(sb, ", Process: %s(%d)", t->zoom_proc, t->zoom_pid);
	if (t->zoom_dso)
		sb_addf(sb, ", DSO: %s", t->zoom_dso);
}

/* The bottom line: the zooms with their ids (the title may be cut on a narrow terminal). */
static void zoom_foot(const struct tui *t, char *foot, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	if (t->zoom_thread)
		sb_addf(&sb, "thread: %s(%d)  ", t->zoom_thread, t->zoom_tid);
	if (t->zoom_proc)
		sb_addf(&sb, "process: %s(%d)  ", t->zoom_proc, t->zoom_pid);
	if (t->zoom_dso)
		sb_addf(&sb, "DSO: %s  ", t->zoom_dso);
	sb_addf(&sb, "sort: %s   h/?: help  q: quit%s", sort_names[t->sort],
		t->zoom_dso || t->zoom_thread || t->zoom_proc || t->filter ? "  Esc: back" : "");
	snprintf(foot, size, "%s", sb_str(&sb));
	sb_release(&sb);
}

static void draw(struct tui *t)
{
	erase();
	int list = LINES - 3;
	if (list < 1)
		list = 1;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)list)
		t->top = t->sel - (size_t)list + 1;
	struct strbuf sb = STRBUF_INIT;
	title(t, &sb);
	attron(A_REVERSE);
	mvhline(0, 0, ' ', COLS);
	mvaddnstr(0, 0, sb_str(&sb), COLS);
	attroff(A_REVERSE);
	sb.len = 0;
	if (t->m->ncols) {
		sb_adds(&sb, t->m->npct == 2 ? "  Children      Self  " : "  Overhead  ");
		key_text(t, NULL, &sb);
	} else {
		sb_adds(&sb, t->m->titles);
	}
	attron(A_BOLD);
	mvaddnstr(1, 0, sb_str(&sb), COLS);
	attroff(A_BOLD);
	sb_release(&sb);
	for (int y = 0; y < list && t->top + (size_t)y < t->nlines; y++)
		draw_line(t, y + 2, &t->lines[t->top + (size_t)y], t->top + (size_t)y == t->sel);
	if (!t->nlines)
		mvaddnstr(2, 2, "(no entries)", COLS - 2);
	char foot[600];
	if (t->msg[0])
		snprintf(foot, sizeof(foot), "%s", t->msg);
	else
		zoom_foot(t, foot, sizeof(foot));
	if (t->filter && !t->msg[0]) {
		size_t len = strlen(foot);
		snprintf(foot + len, sizeof(foot) - len, "   filter: %s", t->filter);
	}
	attron(A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvaddnstr(LINES - 1, 0, foot, COLS);
	attroff(A_REVERSE);
	refresh();
}

/* Marks n and every node under it in m. */
static void mark_all(struct hashmap *m, const struct callnode *n)
{
	bool found;
	hashmap_insert_ptr(m, n, &found);
	for (size_t i = 0; i < n->nkids; i++)
		mark_all(m, n->kids[i]);
}

/* The expanded set without node (when given) and without the nodes under `under` (when given):
 * a hashmap keeps its entries, so it is rebuilt. */
static void forget(struct tui *t, const struct callnode *node, const struct callnode *under)
{
	struct hashmap drop, keep;
	bool found;
	hashmap_init(&drop, HASHMAP_PTR);
	hashmap_init(&keep, HASHMAP_PTR);
	if (node)
		hashmap_insert_ptr(&drop, node, &found);
	if (under)
		mark_all(&drop, under);
	for (size_t i = 0; i < t->opened.n; i++)
		if (!hashmap_find_ptr(&drop, t->opened.v[i].key.ptr))
			hashmap_insert_ptr(&keep, t->opened.v[i].key.ptr, &found);
	hashmap_free(&drop);
	hashmap_free(&t->opened);
	t->opened = keep;
}

/* Enter/+: the entry's graph or one node, a level at a time; e: the entry's whole graph. */
static void toggle(struct tui *t, bool whole)
{
	if (t->sel >= t->nlines)
		return;
	const struct tui_line *l = &t->lines[t->sel];
	const struct tui_row *r = &t->m->rows[l->row];
	bool found;
	if (!r->tree)
		return;
	if (whole) {
		bool open = !(t->open[l->row] && hashmap_find_ptr(&t->opened, r->tree));
		t->open[l->row] = open;
		if (open)
			mark_all(&t->opened, r->tree);
		else
			forget(t, NULL, r->tree);
	} else if (!l->node) {
		t->open[l->row] = !t->open[l->row];
	} else if (l->fold) {
		if (hashmap_find_ptr(&t->opened, l->fold))
			forget(t, l->fold, NULL);
		else
			hashmap_insert_ptr(&t->opened, l->fold, &found);
	}
	rebuild(t);
}

/* E/C: every shown entry's whole graph expanded, or every graph collapsed. */
static void toggle_all(struct tui *t, bool open)
{
	hashmap_free(&t->opened);
	hashmap_init(&t->opened, HASHMAP_PTR);
	memset(t->open, 0, (t->m->n ? t->m->n : 1) * sizeof(*t->open));
	for (size_t k = 0; open && k < t->norder; k++) {
		size_t i = t->order[k];
		t->open[i] = t->m->rows[i].tree != NULL;
		if (t->open[i])
			mark_all(&t->opened, t->m->rows[i].tree);
	}
	rebuild(t);
}

/* d/t/p: narrow to the selected entry's DSO, thread or process (the thread of its first
 * sample, as perf's he->thread), or back when narrowed so already. */
static void zoom(struct tui *t, int key)
{
	t->narrowed = true;
	char **slot = key == 'd' ? &t->zoom_dso : key == 't' ? &t->zoom_thread : &t->zoom_proc;
	if (*slot) {
		free(*slot);
		*slot = NULL;
		rebuild(t);
		return;
	}
	if (t->sel >= t->nlines)
		return;
	const struct tui_row *r = &t->m->rows[t->lines[t->sel].row];
	if (key == 'd') {
		if (!r->dso) {
			snprintf(t->msg, sizeof(t->msg), "no DSO to zoom into");
			return;
		}
		*slot = xstrdup(r->dso);
	} else if (!t->m->ncols) {
		snprintf(t->msg, sizeof(t->msg), "no thread to zoom into here (top's rows are functions)");
		return;
	} else if (key == 't') {
		t->zoom_tid = r->tid;
		*slot = xstrdup(r->comm ? r->comm : "");
	} else {
		/* The process by its main thread's command where an entry has it. */
		const char *name = r->comm;
		for (size_t i = 0; i < t->m->n; i++)
			if (t->m->rows[i].tid == r->pid && t->m->rows[i].comm) {
				name = t->m->rows[i].comm;
				break;
			}
		t->zoom_pid = r->pid;
		*slot = xstrdup(name ? name : "");
	}
	rebuild(t);
}

struct follow_ctx {
	struct tui *t;
	const struct tui_row *r;
};

/* Enter on an annotate line: a call ("call 0x1189", "callq 0x1189", "bl 0x1189") to the
 * function at its target. */
static char *follow_call(void *arg, const char *line, char *title, size_t size)
{
	const struct follow_ctx *c = arg;
	const char *p = strstr(line, "call");
	if (!p)
		p = strstr(line, " bl ");
	const char *hex = p ? strstr(p, "0x") : NULL;
	if (!hex) {
		err_set("not a call: Enter follows a call to the function it calls");
		return NULL;
	}
	uint64_t addr = strtoull(hex, NULL, 16);
	char name[256];
	char *text = c->t->hooks.annotate_addr(c->t->hooks.arg, c->r, addr, name, sizeof(name));
	if (text)
		snprintf(title, size, "Annotate %s", name);
	return text;
}

static void annotate(struct tui *t)
{
	if (t->sel >= t->nlines)
		return;
	const struct tui_row *r = &t->m->rows[t->lines[t->sel].row];
	if (!t->hooks.annotate) {
		snprintf(t->msg, sizeof(t->msg), "annotate: not here (lperf report annotates)");
		return;
	}
	char *text = t->hooks.annotate(t->hooks.arg, r);
	if (!text) {
		snprintf(t->msg, sizeof(t->msg), "annotate: %s", err_msg());
		return;
	}
	char title[600];
	snprintf(title, sizeof(title), "Annotate %s", r->sym ? r->sym : r->text);
	struct follow_ctx c = { t, r };
	struct tui_follow f = { follow_call, &c };
	/* Start on the hottest line: the highest leading percentage. */
	tui_text_view(title, text, tui_hottest_line(text), t->hooks.annotate_addr ? &f : NULL);
	free(text);
}

static void flame(struct tui *t)
{
	if (!t->hooks.flame) {
		snprintf(t->msg, sizeof(t->msg), "flame graph: not here");
		return;
	}
	struct tui_zoom z = { .dso = t->zoom_dso, .filter = t->filter, .tid = t->zoom_thread ? t->zoom_tid : 0,
			      .pid = t->zoom_proc ? t->zoom_pid : 0 };
	char path[400];
	snprintf(t->msg, sizeof(t->msg), "writing a flame graph...");
	draw(t);
	if (t->hooks.flame(t->hooks.arg, &z, path, sizeof(path)) < 0)
		snprintf(t->msg, sizeof(t->msg), "flame graph: %s", err_msg());
	else
		snprintf(t->msg, sizeof(t->msg), "flame graph written to %s", path);
}

/* c and Tab: another model from the command (the other call-graph order, the next event). */
static void switch_model(struct tui *t, struct tui_model *(*hook)(void *arg, const char **what), const char *name)
{
	const char *what = "";
	struct tui_model *m = hook ? hook(t->hooks.arg, &what) : NULL;
	if (!m) {
		snprintf(t->msg, sizeof(t->msg), "%s: %s", name, hook ? err_msg() : "not here");
		return;
	}
	tui_show(t, m);
	snprintf(t->msg, sizeof(t->msg), "now: %s", what);
}

static void ask_filter(struct tui *t)
{
	char *f = tui_prompt("Symbol filter: ");
	if (!f)
		return;
	t->narrowed = true;
	free(t->filter);
	t->filter = *f ? f : NULL;
	if (!*f)
		free(f);
	rebuild(t);
}

/* Esc: undo the last narrowing, else quit (returns true). */
static bool back(struct tui *t)
{
	if (t->filter) {
		free(t->filter);
		t->filter = NULL;
	} else if (t->zoom_thread) {
		free(t->zoom_thread);
		t->zoom_thread = NULL;
	} else if (t->zoom_proc) {
		free(t->zoom_proc);
		t->zoom_proc = NULL;
	} else if (t->zoom_dso) {
		free(t->zoom_dso);
		t->zoom_dso = NULL;
	} else {
		return true;
	}
	rebuild(t);
	return false;
}

static void move_sel(struct tui *t, long by)
{
	long n = (long)t->nlines, s = (long)t->sel + by;
	t->sel = (size_t)(s < 0 || !n ? 0 : s >= n ? n - 1 : s);
}

bool tui_step(struct tui *t, int ms)
{
	draw(t);
	timeout(ms);
	int ch = getch();
	if (ch == ERR)
		return true;
	t->msg[0] = 0;
	long page = LINES > 4 ? LINES - 3 : 1;
	switch (ch) {
	case KEY_DOWN: case 'j': move_sel(t, 1); break;
	case KEY_UP: case 'k': move_sel(t, -1); break;
	case KEY_NPAGE: case ' ': move_sel(t, page); break;
	case KEY_PPAGE: move_sel(t, -page); break;
	case KEY_HOME: t->sel = 0; break;
	case KEY_END: move_sel(t, (long)t->nlines); break;
	case '\n': case '\r': case KEY_ENTER: case '+': toggle(t, false); break;
	case 'e': toggle(t, true); break;
	case 'E': toggle_all(t, true); break;
	case 'C': toggle_all(t, false); break;
	case 'a': annotate(t); break;
	case 'd': case 't': case 'p': zoom(t, ch); break;
	case '/': ask_filter(t); break;
	case 's': t->sort = (t->sort + 1) % TS_N; rebuild(t); break;
	case 'f': flame(t); break;
	case 'c': switch_model(t, t->hooks.switch_graph, "call graphs"); break;
	case '\t': switch_model(t, t->hooks.next_event, "events"); break;
	case 'h': case '?': tui_text_view("Help", help_text, 0, NULL); break;
	case KEY_RESIZE: break;
	case 'q': t->escaped = false; return false;
	case 27: t->escaped = true; return !back(t);
	default: break;
	}
	return true;
}

bool tui_backed_out(const struct tui *t)
{
	return t->escaped;
}

void tui_close(struct tui *t)
{
	if (!t)
		return;
	tui_term_end();
	tui_model_free(t->m);
	free(t->order);
	free(t->open);
	free(t->lines);
	hashmap_free(&t->opened);
	free(t->zoom_dso);
	free(t->zoom_thread);
	free(t->zoom_proc);
	free(t->filter);
	free(t);
}
