/* The browser's terminal (tui/tui_int.h): curses started and ended, the terminal restored on
 * signals and crashes, the text views and the prompt. */
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/colour.h"
#include "tui/tui_int.h"
#include "util/error.h"
#include "util/xalloc.h"

static volatile sig_atomic_t curses_on;

/* SIGINT/SIGTERM: the screen back as it was, then the default action. A crash: the same, so a
 * shell is usable after it, and the signal re-raised for the core dump. */
static void restore_and_raise(int sig)
{
	if (curses_on) {
		curses_on = 0;
		endwin();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

enum { PAIR_RED = 1, PAIR_GREEN, PAIR_BAR };

void tui_term_start(void)
{
	initscr();
	curses_on = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_RED, COLOR_RED, -1);
		init_pair(PAIR_GREEN, COLOR_GREEN, -1);
		init_pair(PAIR_BAR, COLOR_WHITE, COLOR_BLUE);
	}
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGABRT, SIGBUS, SIGFPE };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa = { .sa_handler = restore_and_raise };
		sigemptyset(&sa.sa_mask);
		/* Interrupting signals may have a handler already (top's run loop): keep it. */
		struct sigaction old;
		sigaction(sigs[i], NULL, &old);
		if (old.sa_handler == SIG_DFL || sigs[i] == SIGSEGV || sigs[i] == SIGABRT || sigs[i] == SIGBUS ||
		    sigs[i] == SIGFPE)
			sigaction(sigs[i], &sa, NULL);
	}
}

void tui_term_end(void)
{
	if (curses_on) {
		curses_on = 0;
		endwin();
	}
}

int tui_pct_attr(double pct)
{
	if (!has_colors())
		return pct >= COLOUR_HOT_RED ? A_BOLD : 0;
	if (pct >= COLOUR_HOT_RED)
		return COLOR_PAIR(PAIR_RED);
	if (pct >= COLOUR_HOT_GREEN)
		return COLOR_PAIR(PAIR_GREEN);
	return 0;
}

static void bar(int y, const char *text)
{
	attron(has_colors() ? COLOR_PAIR(PAIR_BAR) : A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, text, COLS);
	attroff(has_colors() ? COLOR_PAIR(PAIR_BAR) : A_REVERSE);
}

/* The text's lines as pointers into a copy. */
static char **split_lines(char *copy, size_t *n)
{
	size_t cap = 64;
	char **v = xcalloc(cap, sizeof(*v));
	*n = 0;
	for (char *p = copy; *p;) {
		if (*n == cap) {
			cap *= 2;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	return v;
}

static void draw_text(const char *title, char **v, size_t n, size_t top, size_t sel, const char *msg)
{
	erase();
	bar(0, title);
	int rows = LINES - 2;
	for (int y = 0; y < rows && top + (size_t)y < n; y++) {
		const char *l = v[top + (size_t)y];
		char *end;
		double pct = strtod(l, &end);
		int attr = end != l && (*end == '%' || *end == ' ') ? tui_pct_attr(pct) : 0;
		if (top + (size_t)y == sel)
			attr |= A_REVERSE;
		attron(attr);
		mvaddnstr(y + 1, 0, l, COLS);
		if (top + (size_t)y == sel)
			mvhline(y + 1, (int)strlen(l) < COLS ? (int)strlen(l) : COLS, ' ', COLS);
		attroff(attr);
	}
	bar(LINES - 1, msg && *msg ? msg : "q/Esc: back   arrows, PgUp/PgDn: move   Enter: follow a call");
	refresh();
}

/* The lines a view shows under its title (above its bar), *top moved to keep sel on them. */
static size_t scroll_to(size_t sel, size_t *top)
{
	size_t page = LINES > 3 ? (size_t)LINES - 2 : 1;
	if (sel < *top)
		*top = sel;
	if (sel >= *top + page)
		*top = sel - page + 1;
	return page;
}

size_t tui_hottest_line(const char *text)
{
	size_t best = 0, line = 0;
	double hottest = -1;
	for (const char *p = text; *p; line++) {
		char *end;
		double v = strtod(p, &end);
		if (end != p && v > hottest) {
			hottest = v;
			best = line;
		}
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return best;
}

/* Enter: the view of what the selected line leads to, or why there is none in msg. */
static void follow_line(const struct tui_follow *follow, const char *line, char *msg, size_t size)
{
	char title[512];
	char *text = follow->fn(follow->arg, line, title, sizeof(title));
	if (!text) {
		snprintf(msg, size, "%s", err_msg());
		return;
	}
	tui_text_view(title, text, tui_hottest_line(text), follow);
	free(text);
}

void tui_text_view(const char *title, const char *text, size_t start, const struct tui_follow *follow)
{
	timeout(-1); /* top's browser polls; a view waits for its keys */
	char *copy = xstrdup(text);
	size_t n;
	char **v = split_lines(copy, &n);
	size_t sel = start < n ? start : 0, top = sel > (size_t)(LINES / 2) ? sel - (size_t)(LINES / 2) : 0;
	char msg[512] = "";
	for (;;) {
		size_t page = scroll_to(sel, &top);
		draw_text(title, v, n, top, sel, msg);
		msg[0] = 0;
		int ch = getch();
		if (ch == 'q' || ch == 27 || ch == KEY_LEFT || ch == ERR)
			break;
		if ((ch == KEY_DOWN || ch == 'j') && sel + 1 < n)
			sel++;
		else if ((ch == KEY_UP || ch == 'k') && sel)
			sel--;
		else if (ch == KEY_NPAGE || ch == ' ')
			sel = sel + page < n ? sel + page : (n ? n - 1 : 0);
		else if (ch == KEY_PPAGE)
			sel = sel > page ? sel - page : 0;
		else if (ch == KEY_HOME)
			sel = 0;
		else if (ch == KEY_END)
			sel = n ? n - 1 : 0;
		else if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == KEY_RIGHT) && follow && sel < n)
			follow_line(follow, v[sel], msg, sizeof(msg));
	}
	free(v);
	free(copy);
}

char *tui_prompt(const char *prompt)
{
	char buf[256];
	size_t len = 0;
	buf[0] = 0;
	timeout(-1);
	curs_set(1);
	for (;;) {
		move(LINES - 1, 0);
		clrtoeol();
		mvprintw(LINES - 1, 0, "%s%s", prompt, buf);
		refresh();
		int ch = getch();
		if (ch == 27) {
			curs_set(0);
			return NULL;
		}
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
			buf[--len] = 0;
		else if (ch >= 32 && ch < 127 && len + 1 < sizeof(buf)) {
			buf[len++] = (char)ch;
			buf[len] = 0;
		}
	}
	curs_set(0);
	return xstrdup(buf);
}

int tui_menu(struct tui *t, const char *title, const char *const *items, size_t n, size_t sel, const char *foot)
{
	(void)t;
	timeout(-1);
	size_t top = 0;
	if (sel >= n)
		sel = 0;
	for (;;) {
		size_t page = scroll_to(sel, &top);
		erase();
		mvaddnstr(0, 0, title, COLS);
		for (size_t y = 0; y < page && top + y < n; y++) {
			int attr = top + y == sel ? A_REVERSE : 0;
			attron(attr);
			mvhline((int)y + 1, 0, ' ', COLS);
			mvaddnstr((int)y + 1, 0, items[top + y], COLS);
			attroff(attr);
		}
		bar(LINES - 1, foot);
		refresh();
		int ch = getch();
		if (ch == 27 || ch == 'q' || ch == KEY_LEFT || ch == ERR)
			return -1;
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == KEY_RIGHT)
			return (int)sel;
		if ((ch == KEY_DOWN || ch == 'j') && sel + 1 < n)
			sel++;
		else if ((ch == KEY_UP || ch == 'k') && sel)
			sel--;
	}
}
