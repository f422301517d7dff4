/* The browser's models: report's histogram entries and top's rows (tui/tui.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static double share(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static size_t widest(const struct hist *h, bool dso)
{
	size_t w = strlen(dso ? "Shared Object" : "Command");
	for (size_t i = 0; i < h->n; i++) {
		const char *s = dso ? hist_dso_name(h->v[i]->dso) : h->v[i]->comm ? h->v[i]->comm : "";
		if (strlen(s) > w)
			w = strlen(s);
	}
	return w > 40 ? 40 : w;
}

/* perf's key columns of the hist's sort keys. */
static void key_cols(struct strbuf *sb, const struct hist *h, const struct hist_entry *e, size_t wc, size_t wd)
{
	char name[512];
	for (size_t k = 0; k < h->nkeys; k++) {
		switch (h->keys[k]) {
		case HK_COMM: sb_addf(sb, "%-*.*s  ", (int)wc, (int)wc, e->comm ? e->comm : ""); break;
		case HK_PID: sb_addf(sb, "%7d  ", e->pid); break;
		case HK_TID: sb_addf(sb, "%7d  ", e->tid); break;
		case HK_CPU: sb_addf(sb, "%03d  ", e->cpu); break;
		case HK_DSO: sb_addf(sb, "%-*.*s  ", (int)wd, (int)wd, hist_dso_name(e->dso)); break;
		case HK_SYM:
			hist_sym_name(e->sym, e->addr, name, sizeof(name));
			sb_addf(sb, "[%c] %s  ", e->kernel ? 'k' : '.', name);
			break;
		case HK_SRCLINE: sb_addf(sb, "%s  ", e->srcline ? e->srcline : ""); break;
		case HK_SRCFILE: sb_addf(sb, "%s  ", e->srcfile ? e->srcfile : ""); break;
		case HK_TRACE: sb_addf(sb, "%s  ", e->trace ? e->trace : ""); break;
		default: break;
		}
	}
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = 0;
}

static const char *const titles[HK_NKEYS] = {
	[HK_PID] = "    Pid", [HK_TID] = "    Tid", [HK_CPU] = "CPU", [HK_SYM] = "Symbol",
	[HK_SRCLINE] = "Source:Line", [HK_SRCFILE] = "Source File", [HK_TRACE] = "Trace output",
};

struct tui_model *tui_model_hist(const struct hist *h, const char *event, uint64_t samples, bool children)
{
	struct tui_model *m = xcalloc(1, sizeof(*m));
	size_t wc = widest(h, false), wd = widest(h, true);
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "Samples: %" PRIu64 " of event '%s', Event count (approx.): %" PRIu64, samples, event,
		h->total_period);
	m->status = sb_detach(&sb);
	m->npct = children ? 2 : 1;
	sb_adds(&sb, children ? "  Children      Self  " : "  Overhead  ");
	for (size_t k = 0; k < h->nkeys; k++) {
		switch (h->keys[k]) {
		case HK_COMM: sb_addf(&sb, "%-*s  ", (int)wc, "Command"); break;
		case HK_DSO: sb_addf(&sb, "%-*s  ", (int)wd, "Shared Object"); break;
		default: sb_addf(&sb, "%s  ", titles[h->keys[k]] ? titles[h->keys[k]] : ""); break;
		}
	}
	m->titles = sb_detach(&sb);
	m->rows = xcalloc(h->n ? h->n : 1, sizeof(*m->rows));
	m->total = h->total_period;
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		struct tui_row *r = &m->rows[m->n++];
		key_cols(&sb, h, e, wc, wd);
		r->text = sb_detach(&sb);
		r->pct[0] = share((double)(children ? e->acc_period : e->period), (double)h->total_period);
		r->pct[1] = share((double)e->period, (double)h->total_period);
		r->samples = children ? e->acc_samples : e->samples;
		r->dso = hist_dso_name(e->dso);
		r->comm = e->comm;
		r->sym = e->sym ? e->sym->name : NULL;
		r->pid = e->pid;
		r->tree = h->graph != HIST_GRAPH_NONE && e->tree && e->tree->nkids ? e->tree : NULL;
		/* A tree that starts at the entry itself (hist.h's tree_has_self): below the entry's
		 * row, what is under that root. */
		if (r->tree && e->tree_has_self && r->tree->nkids == 1 && !r->tree->kids[0]->inlined &&
		    r->tree->kids[0]->sym == e->sym && (e->sym || r->tree->kids[0]->addr == e->addr))
			r->tree = r->tree->kids[0]->nkids ? r->tree->kids[0] : NULL;
		r->ref = e;
	}
	sb_release(&sb);
	return m;
}

struct tui_model *tui_model_top(const struct top_view *tv, const struct top_status *st)
{
	struct tui_model *m = xcalloc(1, sizeof(*m));
	struct strbuf sb = STRBUF_INIT;
	top_status_line(&sb, tv, st);
	sb_adds(&sb, "; ");
	top_status_cost(&sb, st);
	m->status = sb_detach(&sb);
	top_table_title(&sb, tv);
	m->titles = sb_detach(&sb);
	m->npct = 0; /* the rows carry their own percentages */
	m->rows = xcalloc(tv->n ? tv->n : 1, sizeof(*m->rows));
	for (size_t i = 0; i < tv->n; i++) {
		const struct top_row *t = tv->rows[i];
		double self = share(t->self, tv->sum), total = share(t->total, tv->sum);
		if ((tv->children ? total : self) < 0.005)
			continue;
		struct tui_row *r = &m->rows[m->n++];
		top_table_row(&sb, tv, i);
		r->text = sb_detach(&sb);
		r->pct[0] = tv->children ? total : self;
		r->pct[1] = self;
		r->dso = hist_dso_name(t->dso);
		r->sym = t->sym ? t->sym->name : NULL;
		r->ref = t;
	}
	sb_release(&sb);
	return m;
}

void tui_model_free(struct tui_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->rows[i].text);
	free(m->rows);
	free(m->status);
	free(m->titles);
	free(m);
}
