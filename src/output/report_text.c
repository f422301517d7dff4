/* perf report --stdio's layout, so people and scripts that read perf's text read ours. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/report_out.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void report_text_header(FILE *f, uint64_t lost_samples)
{
	fprintf(f, "# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n");
	fprintf(f, "# Total Lost Samples: %" PRIu64 "\n#\n", lost_samples);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *human_count(uint64_t n, char *buf, size_t size)
{
	if (n >= 1000000)
		snprintf(buf, size, "%" PRIu64 "M", n / 1000000);
	else if (n >= 1000)
		snprintf(buf, size, "%" PRIu64 "K", n / 1000);
	else
		snprintf(buf, size, "%" PRIu64, n);
	return buf;
}

static void node_name(const struct callnode *n, char *buf, size_t size)
{
	hist_sym_name(n->sym, n->addr, buf, size);
	size_t len = strlen(buf);
	if (n->inlined && len + 10 < size)
		memcpy(buf + len, " (inlined)", 11);
}

/* perf's graph: a single child continues the line; several children branch with |--x%--. */
static void graph(FILE *f, const struct callnode *n, uint64_t total, struct strbuf *prefix, double min)
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
		graph(f, c, total, prefix, min);
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
		graph(f, c, total, prefix, min);
		prefix->len = len;
		prefix->buf[len] = 0;
	}
}

static void entry_graph(FILE *f, const struct hist_entry *e, enum hist_graph mode, bool children,
			uint64_t total, double min, const char *indent)
{
	/* Nothing above (or below) it: perf prints no graph, and neither do we. */
	if (!e->tree || !e->tree->nkids)
		return;
	char name[512];
	struct strbuf prefix = STRBUF_INIT;
	sb_addf(&prefix, "%s   ", indent);
	fprintf(f, "%s|\n", indent);
	if (mode == HIST_CALLEE || children) {
		/* The function itself, then who called it (callee order) or what it called. */
		hist_sym_name(e->sym, e->addr, name, sizeof(name));
		fprintf(f, "%s---%s\n", indent, name);
		graph(f, e->tree, total, &prefix, min);
	} else if (e->tree->nkids == 1 && e->tree->kids[0]->period == e->tree->period) {
		/* One root: the path from it down to the function. */
		const struct callnode *root = e->tree->kids[0];
		hist_sym_name(root->sym, root->addr, name, sizeof(name));
		fprintf(f, "%s---%s\n", indent, name);
		graph(f, root, total, &prefix, min);
	} else {
		graph(f, e->tree, total, &prefix, min);
	}
	fputc('\n', f);
	sb_release(&prefix);
}

void report_text(FILE *f, const struct report_section *s, const struct report_opts *o)
{
	const struct hist *h = s->hist;
	char cnt[32];
	fprintf(f, "# Samples: %s  of event '%s'\n", human_count(s->samples, cnt, sizeof(cnt)), s->event);
	fprintf(f, "# Event count (approx.): %" PRIu64 "\n#\n", s->period);

	/* Column widths: perf sizes them to the widest value. */
	size_t wcomm = strlen("Command"), wdso = strlen("Shared Object"), wsym = strlen("Symbol");
	size_t wline = strlen("Source:Line"), wfile = strlen("Source File");
	char name[512];
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		if (e->srcline && strlen(e->srcline) > wline)
			wline = strlen(e->srcline);
		if (e->srcfile && strlen(e->srcfile) > wfile)
			wfile = strlen(e->srcfile);
		if (e->comm && strlen(e->comm) > wcomm)
			wcomm = strlen(e->comm);
		if (strlen(hist_dso_name(e->dso)) > wdso)
			wdso = strlen(hist_dso_name(e->dso));
		hist_sym_name(e->sym, e->addr, name, sizeof(name));
		if (strlen(name) + 4 > wsym)
			wsym = strlen(name) + 4;
	}
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
		case HK_COMM: COL("Command", wcomm, false); break;
		case HK_PID: COL("Pid", 7, true); break;
		case HK_TID: COL("Tid", 7, true); break;
		case HK_CPU: COL("CPU", 3, true); break;
		case HK_DSO: COL("Shared Object", wdso, false); break;
		case HK_SYM: COL("Symbol", wsym, false); break;
		case HK_SRCLINE: COL("Source:Line", wline, false); break;
		case HK_SRCFILE: COL("Source File", wfile, false); break;
		default: break;
		}
	}
#undef COL
	fprintf(f, "# %s\n# %s\n#\n", sb_str(&head), sb_str(&dots));
	sb_release(&head);
	sb_release(&dots);

	uint64_t total = h->total_period;
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		double self = pct(e->period, total), acc = pct(e->acc_period, total);
		if ((o->children ? acc : self) < o->percent_limit)
			continue;
		if (o->no_overhead)
			fputs("  ", f);
		else if (o->children)
			fprintf(f, "  %7.2f%%  %7.2f%%  ", acc, self);
		else
			fprintf(f, "  %7.2f%%  ", self);
		if (o->show_nr)
			fprintf(f, "%12" PRIu64 "  ", o->children ? e->acc_samples : e->samples);
		for (size_t k = 0; k < h->nkeys; k++) {
			switch (h->keys[k]) {
			case HK_COMM: fprintf(f, "%-*s  ", (int)wcomm, e->comm ? e->comm : ""); break;
			case HK_PID: fprintf(f, "%7d  ", e->pid); break;
			case HK_TID: fprintf(f, "%7d  ", e->tid); break;
			case HK_CPU: fprintf(f, "%03d  ", e->cpu); break;
			case HK_DSO: fprintf(f, "%-*s  ", (int)wdso, hist_dso_name(e->dso)); break;
			case HK_SYM:
				hist_sym_name(e->sym, e->addr, name, sizeof(name));
				fprintf(f, "[%c] %s", e->kernel ? 'k' : '.', name);
				break;
			case HK_SRCLINE:
				fprintf(f, "%-*s", k + 1 < h->nkeys ? (int)wline + 2 : 0, e->srcline ? e->srcline : "");
				break;
			case HK_SRCFILE:
				fprintf(f, "%-*s", k + 1 < h->nkeys ? (int)wfile + 2 : 0, e->srcfile ? e->srcfile : "");
				break;
			default:
				break;
			}
		}
		fputc('\n', f);
		if (h->graph != HIST_GRAPH_NONE)
			entry_graph(f, e, h->graph, o->children, total, o->graph_min, "            ");
	}
	fputc('\n', f);
	if (o->lost)
		fprintf(f, "# %" PRIu64 " records lost while recording\n", o->lost);
}
