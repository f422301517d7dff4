/* perf report --stdio's layout, so people and scripts that read perf's text read ours. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/colour.h"
#include "output/report_out.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void report_text_header(FILE *f, uint64_t lost_samples, uint64_t lost_replaced)
{
	fprintf(f, "# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n");
	fprintf(f, "# Total Lost Samples: %" PRIu64 "\n", lost_samples);
	/* perf's count above is the file's; say which of it the profile did not lose */
	if (lost_replaced)
		fprintf(f, "# (%" PRIu64 " of them the kernel's samples of paused Python processes, which lperf "
			   "wrote itself: none of the profile's)\n", lost_replaced);
	fprintf(f, "#\n");
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *report_sample_count(uint64_t n, char *buf, size_t size)
{
	static const char units[] = " KMG";
	int u = 0;
	while (n > 1000 && u < 3) {
		n /= 1000;
		u++;
	}
	snprintf(buf, size, "%" PRIu64 "%c", n, units[u]);
	return buf;
}

/* A call-graph line's name: perf's callchain spelling, the symbol or the bare address ("%#lx":
 * 0x7f2c3432f8a8, 0), where the entry columns pad it to 16 digits. */
static void chain_name(const struct symbol *sym, uint64_t addr, char *buf, size_t size)
{
	if (sym)
		hist_sym_name(sym, addr, buf, size);
	else
		snprintf(buf, size, "%#" PRIx64, addr);
}

static void node_name(const struct callnode *n, char *buf, size_t size)
{
	chain_name(n->sym, n->addr, buf, size);
	size_t len = strlen(buf);
	if (n->inlined && len + 10 < size)
		memcpy(buf + len, " (inlined)", 11);
}

/* perf's graph: a single child continues the line; several children branch with |--x%--.
 * fractal: each level's percentages are of its parent (the caller passes the node's period as
 * total), not of the whole. */
static void graph(FILE *f, const struct callnode *n, uint64_t total, struct strbuf *prefix, double min,
		  bool fractal)
{
	char name[512];
	size_t shown = 0;
	for (size_t i = 0; i < n->nkids; i++)
		if (pct(n->kids[i]->period, total) >= min)
			shown++;
	if (shown == 1 && n->nkids >= 1 && pct(n->kids[0]->period, total) >= min &&
	    n->kids[0]->period == n->period) {
		const struct callnode *c = n->kids[0];
		node_name(c, name, sizeof(name));
		fprintf(f, "%s%s\n", sb_str(prefix), name);
		graph(f, c, fractal ? c->period : total, prefix, min, fractal);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < n->nkids; i++) {
		const struct callnode *c = n->kids[i];
		if (pct(c->period, total) < min)
			continue;
		bool last = ++k == shown;
		node_name(c, name, sizeof(name));
		fprintf(f, "%s|%s\n", sb_str(prefix), "          ");
		fprintf(f, "%s%s--%.2f%%--%s\n", sb_str(prefix), last ? " " : "|", pct(c->period, total), name);
		size_t len = prefix->len;
		sb_adds(prefix, last ? "           " : "|          ");
		graph(f, c, fractal ? c->period : total, prefix, min, fractal);
		prefix->len = len;
		prefix->buf[len] = 0;
	}
}

/* perf's -g flat and -g folded: each path through the entry's call tree with the share of the
 * samples that ended on it: "           PCT%" and one line per frame (flat), or "PCT% a;b;c"
 * (folded). */
#define PATH_MAX_DEPTH 512
struct paths {
	FILE *f;
	uint64_t total;
	double min;
	bool folded;
	const char *first;      /* the entry's own name, ahead of the tree's (callee order) */
	const struct callnode *stack[PATH_MAX_DEPTH];
	size_t depth;
};

static void emit_path(struct paths *p, uint64_t self)
{
	char name[512];
	if (pct(self, p->total) < p->min)
		return;
	if (p->folded)
		fprintf(p->f, "%.2f%% ", pct(self, p->total));
	else
		fprintf(p->f, "           %.2f%%\n", pct(self, p->total));
	for (size_t i = 0; i <= p->depth; i++) {
		if (i == 0 && !p->first)
			continue;
		if (i == 0)
			snprintf(name, sizeof(name), "%s", p->first);
		else
			node_name(p->stack[i - 1], name, sizeof(name));
		if (p->folded)
			fprintf(p->f, "%s%s", i > (p->first ? 0u : 1u) ? ";" : "", name);
		else
			fprintf(p->f, "                %s\n", name);
	}
	fputc('\n', p->f);
}

static void walk_paths(struct paths *p, const struct callnode *n)
{
	uint64_t below = 0;
	for (size_t i = 0; i < n->nkids; i++)
		below += n->kids[i]->period;
	if (n->period > below && (p->depth || p->first))
		emit_path(p, n->period - below);
	for (size_t i = 0; i < n->nkids && p->depth < PATH_MAX_DEPTH; i++) {
		p->stack[p->depth++] = n->kids[i];
		walk_paths(p, n->kids[i]);
		p->depth--;
	}
}

static void entry_paths(FILE *f, const struct hist_entry *e, enum hist_graph mode, bool children,
			uint64_t total, double min, bool folded)
{
	if (!e->tree)
		return;
	char name[512];
	struct paths *p = xcalloc(1, sizeof(*p));
	p->f = f;
	p->total = total;
	p->min = min;
	p->folded = folded;
	if ((mode == HIST_CALLEE || children) && !e->tree_has_self) {
		hist_entry_name(e, name, sizeof(name));
		p->first = name;
	}
	walk_paths(p, e->tree);
	free(p);
}

static void entry_graph(FILE *f, const struct hist_entry *e, enum hist_graph mode, bool children,
			uint64_t total, double min, const char *indent, enum report_graph_style style)
{
	if (style == RG_FLAT || style == RG_FOLDED) {
		entry_paths(f, e, mode, children, total, min, style == RG_FOLDED);
		return;
	}
	/* Nothing above (or below) it: perf prints no graph, and neither do we. */
	if (!e->tree || !e->tree->nkids)
		return;
	/* No chain above the graph's threshold (-g graph,0.5): perf prints none. */
	bool any = false;
	for (size_t i = 0; i < e->tree->nkids && !any; i++)
		any = pct(e->tree->kids[i]->period, total) >= min;
	if (e->tree_has_self && !any)
		return;
	/* An entry keyed by tracepoint fields is no function: its tree is the whole chain. */
	bool func = !(e->trace && !e->sym && !e->addr);
	bool fractal = style == RG_FRACTAL;
	char name[512];
	struct strbuf prefix = STRBUF_INIT;
	if (func && (mode == HIST_CALLEE || children) && !e->tree_has_self) {
		/* The function itself, then who called it (callee order) or what it called. */
		sb_addf(&prefix, "%s   ", indent);
		hist_entry_name(e, name, sizeof(name));
		fprintf(f, "%s|\n%s---%s\n", indent, indent, name);
		graph(f, e->tree, fractal ? e->tree->period : total, &prefix, min, fractal);
	} else if (e->tree->nkids == 1 && e->tree->kids[0]->period == e->tree->period) {
		/* One root: the path from it down to the function. */
		const struct callnode *root = e->tree->kids[0];
		sb_addf(&prefix, "%s   ", indent);
		node_name(root, name, sizeof(name));
		fprintf(f, "%s|\n%s---%s\n", indent, indent, name);
		graph(f, root, fractal ? root->period : total, &prefix, min, fractal);
	} else {
		/* Several roots (the chains' first frames): each a branch, as perf draws them. */
		sb_adds(&prefix, indent);
		graph(f, e->tree, fractal ? e->tree->period : total, &prefix, min, fractal);
	}
	fputc('\n', f);
	sb_release(&prefix);
}

/* --percent-limit: of the Children column when there is one, else of Overhead. */
static bool below_limit(const struct report_opts *o, double self, double acc)
{
	return (o->children ? acc : self) < o->percent_limit;
}

/* Column widths: perf sizes them to the widest value. */
struct widths {
	size_t comm, dso, sym, line, file, trace;
};

static void col_widths(const struct hist *h, struct widths *w)
{
	*w = (struct widths){ strlen("Command"), strlen("Shared Object"), strlen("Symbol"), strlen("Source:Line"),
			      strlen("Source File"), strlen("Trace output") };
	char name[512];
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		if (e->srcline && strlen(e->srcline) > w->line)
			w->line = strlen(e->srcline);
		if (e->srcfile && strlen(e->srcfile) > w->file)
			w->file = strlen(e->srcfile);
		if (e->trace && strlen(e->trace) > w->trace)
			w->trace = strlen(e->trace);
		if (e->comm && strlen(e->comm) > w->comm)
			w->comm = strlen(e->comm);
		if (strlen(hist_dso_name(e->dso)) > w->dso)
			w->dso = strlen(hist_dso_name(e->dso));
		hist_sym_name(e->sym, e->addr, name, sizeof(name)); /* perf's width leaves out " (inlined)" */
		if (strlen(name) + 4 > w->sym)
			w->sym = strlen(name) + 4;
	}
}

/* The value of sort key k of e padded to its column, as perf pads every column but the last
 * (last: the symbol, source line, file and trace text end where they end; the command and the
 * shared object are padded by their own formats in perf, so always). */
static void key_value(struct strbuf *sb, const struct hist_entry *e, enum hist_key k, const struct widths *w,
		      bool last)
{
	char name[512];
	switch (k) {
	case HK_COMM: sb_addf(sb, "%-*s", (int)w->comm, e->comm ? e->comm : ""); break;
	case HK_PID: sb_addf(sb, "%7d", e->pid); break;
	case HK_TID: sb_addf(sb, "%7d", e->tid); break;
	case HK_CPU: sb_addf(sb, "%03d", e->cpu); break;
	case HK_DSO: sb_addf(sb, "%-*s", (int)w->dso, hist_dso_name(e->dso)); break;
	case HK_SYM:
		hist_entry_name(e, name, sizeof(name));
		sb_addf(sb, "[%c] %-*s", e->kernel ? 'k' : '.', last ? 0 : (int)w->sym - 4, name);
		break;
	case HK_SRCLINE: sb_addf(sb, "%-*s", last ? 0 : (int)w->line, e->srcline ? e->srcline : ""); break;
	case HK_SRCFILE: sb_addf(sb, "%-*s", last ? 0 : (int)w->file, e->srcfile ? e->srcfile : ""); break;
	case HK_TRACE: sb_addf(sb, "%-*s", last ? 0 : (int)w->trace, e->trace ? e->trace : ""); break;
	default: break;
	}
}

/* perf report -t SEP: the same columns with SEP between them and no dotted line; percentages as
 * " 5.00%" in 8 characters, samples as " N" in 12, as perf prints them. */
static void sep_header(FILE *f, const struct hist *h, const struct report_opts *o, const struct widths *w)
{
	static const char *const titles[HK_NKEYS] = {
		[HK_COMM] = "Command", [HK_PID] = "Pid", [HK_TID] = "Tid", [HK_CPU] = "CPU",
		[HK_DSO] = "Shared Object", [HK_SYM] = "Symbol", [HK_SRCLINE] = "Source:Line", [HK_SRCFILE] = "Source File",
		[HK_TRACE] = "Trace output",
	};
	const size_t widths[HK_NKEYS] = { [HK_COMM] = w->comm, [HK_PID] = 7, [HK_TID] = 7, [HK_CPU] = 3,
					  [HK_DSO] = w->dso, [HK_SYM] = w->sym, [HK_SRCLINE] = w->line,
					  [HK_SRCFILE] = w->file, [HK_TRACE] = w->trace };
	struct strbuf sb = STRBUF_INIT;
	const char *sep = o->field_sep;
	if (!o->no_overhead)
		sb_adds(&sb, o->children ? "Children;Self" : "Overhead");
	if (o->show_nr)
		sb_addf(&sb, "%s%12s", sb.len ? sep : "", "Samples");
	for (size_t k = 0; k < h->nkeys; k++)
		if (titles[h->keys[k]])
			sb_addf(&sb, "%s%-*s", sb.len ? sep : "", (int)widths[h->keys[k]], titles[h->keys[k]]);
	if (!o->no_header)
		fprintf(f, "# %s\n", sb_str(&sb));
	sb_release(&sb);
}

static void sep_row(FILE *f, const struct hist *h, const struct hist_entry *e, const struct report_opts *o,
		    const struct widths *w, double self, double acc)
{
	struct strbuf sb = STRBUF_INIT;
	const char *sep = o->field_sep;
	char v[32];
	if (!o->no_overhead && o->children) {
		snprintf(v, sizeof(v), " %.2f%%", acc);
		sb_addf(&sb, "%-8s%s", v, sep);
	}
	if (!o->no_overhead) {
		snprintf(v, sizeof(v), " %.2f%%", self);
		sb_addf(&sb, "%-8s", v);
	}
	if (o->show_nr) {
		snprintf(v, sizeof(v), " %" PRIu64, o->children ? e->acc_samples : e->samples);
		sb_addf(&sb, "%s%-12s", sb.len ? sep : "", v);
	}
	for (size_t k = 0; k < h->nkeys; k++) {
		if (sb.len)
			sb_adds(&sb, sep);
		key_value(&sb, e, h->keys[k], w, true);
	}
	fputs(sb_str(&sb), f);
	sb_release(&sb);
}

/* The Overhead (or Children and Self) columns, "  %7.2f%%" each, in perf's colours. */
static void pct_cols(FILE *f, bool colour, int n, double a, double b)
{
	for (int i = 0; i < n; i++) {
		fputs("  ", f);
		colour_pct_print(f, colour, "%7.2f%%", i ? b : a);
	}
	fputs("  ", f);
}

void report_text(FILE *f, const struct report_section *s, const struct report_opts *o)
{
	const struct hist *h = s->hist;
	char cnt[32];
	if (!o->no_header) {
		fprintf(f, "# Samples: %s of event '%s'", report_sample_count(s->samples, cnt, sizeof(cnt)), s->event);
		if (o->time_slices)
			fprintf(f, " (time slices: %s)", o->time_slices);
		fputc('\n', f);
		fprintf(f, "# Event count (approx.): %" PRIu64 "\n#\n", s->period);
	}

	struct widths w;
	col_widths(h, &w);

	struct strbuf head = STRBUF_INIT, dots = STRBUF_INIT;
#define COL(title, width, right)                                                              \
	do {                                                                                 \
		if (right)                                                                   \
			sb_addf(&head, "%*s  ", (int)(width), title);                        \
		else                                                                         \
			sb_addf(&head, "%-*s  ", (int)(width), title);                       \
		for (size_t d_ = 0; d_ < (size_t)(width); d_++)                             \
			sb_addc(&dots, '.');                                                 \
		sb_adds(&dots, "  ");                                                        \
	} while (0)
	if (o->no_overhead) {
	} else if (o->children) {
		COL("Children", 8, true);
		COL("Self", 8, true);
	} else {
		COL("Overhead", 8, true);
	}
	if (o->show_nr)
		COL("Samples", 12, true);
	for (size_t k = 0; k < h->nkeys; k++) {
		switch (h->keys[k]) {
		case HK_COMM: COL("Command", w.comm, false); break;
		case HK_PID: COL("Pid", 7, true); break;
		case HK_TID: COL("Tid", 7, true); break;
		case HK_CPU: COL("CPU", 3, true); break;
		case HK_DSO: COL("Shared Object", w.dso, false); break;
		case HK_SYM: COL("Symbol", w.sym, false); break;
		case HK_SRCLINE: COL("Source:Line", w.line, false); break;
		case HK_SRCFILE: COL("Source File", w.file, false); break;
		case HK_TRACE: COL("Trace output", w.trace, false); break;
		default: break;
		}
	}
#undef COL
	/* No separator after the last column. */
	if (head.len >= 2) {
		head.buf[head.len -= 2] = 0;
		dots.buf[dots.len -= 2] = 0;
	}
	if (o->field_sep)
		sep_header(f, h, o, &w);
	else if (!o->no_header)
		fprintf(f, "# %s\n# %s\n#\n", sb_str(&head), sb_str(&dots));
	sb_release(&head);
	sb_release(&dots);

	uint64_t total = h->total_period;
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		double self = pct(e->period, total), acc = pct(e->acc_period, total);
		if (below_limit(o, self, acc))
			continue;
		if (o->field_sep) {
			sep_row(f, h, e, o, &w, self, acc);
			goto row_done;
		}
		if (o->no_overhead)
			fputs("  ", f);
		else if (o->children)
			pct_cols(f, o->colour, 2, acc, self);
		else
			pct_cols(f, o->colour, 1, self, 0);
		if (o->show_nr)
			fprintf(f, "%12" PRIu64 "  ", o->children ? e->acc_samples : e->samples);
		struct strbuf row = STRBUF_INIT;
		for (size_t k = 0; k < h->nkeys; k++) {
			if (k)
				sb_adds(&row, "  ");
			key_value(&row, e, h->keys[k], &w, k + 1 == h->nkeys);
		}
		fputs(sb_str(&row), f);
		sb_release(&row);
row_done:
		fputc('\n', f);
		if (h->graph != HIST_GRAPH_NONE)
			entry_graph(f, e, h->graph, o->children, total, o->graph_min, "            ", o->graph_style);
	}
	fputc('\n', f);
}
