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

/* One key column of an entry as perf prints it (unpadded). */
static char *key_col(const struct hist_entry *e, enum hist_key k)
{
	char name[512];
	struct strbuf sb = STRBUF_INIT;
	switch (k) {
	case HK_COMM: sb_adds(&sb, e->comm ? e->comm : ""); break;
	case HK_PID: sb_addf(&sb, "%7d", e->pid); break;
	case HK_TID: sb_addf(&sb, "%7d", e->tid); break;
	case HK_CPU: sb_addf(&sb, "%03d", e->cpu); break;
	case HK_DSO: sb_adds(&sb, hist_dso_name(e->dso)); break;
	case HK_SYM:
		hist_sym_name(e->sym, e->addr, name, sizeof(name));
		sb_addf(&sb, "[%c] %s", e->kernel ? 'k' : '.', name);
		break;
	case HK_SRCLINE: sb_adds(&sb, e->srcline ? e->srcline : ""); break;
	case HK_SRCFILE: sb_adds(&sb, e->srcfile ? e->srcfile : ""); break;
	case HK_TRACE: sb_adds(&sb, e->trace ? e->trace : ""); break;
	default: break;
	}
	return sb_detach(&sb);
}

static const char *const titles[HK_NKEYS] = {
	[HK_COMM] = "Command", [HK_PID] = "    Pid", [HK_TID] = "    Tid", [HK_CPU] = "CPU",
	[HK_DSO] = "Shared Object", [HK_SYM] = "Symbol", [HK_SRCLINE] = "Source:Line",
	[HK_SRCFILE] = "Source File", [HK_TRACE] = "Trace output",
};

/* perf's hists browser title: the sample count in thousands past 1,000 ("Samples: 12K of"). */
static void status_line(struct strbuf *sb, const char *event, uint64_t samples, uint64_t period)
{
	char unit = ' ';
	static const char units[] = "KMG";
	for (int i = 0; i < 3 && samples > 1000; i++) {
		samples /= 1000;
		unit = units[i];
	}
	sb_addf(sb, "Samples: %" PRIu64 "%c of event '%s', Event count (approx.): %" PRIu64, samples, unit, event,
		period);
}

struct tui_model *tui_model_hist(const struct hist *h, const char *event, uint64_t samples, bool children,
				  double graph_min)
{
	struct tui_model *m = xcalloc(1, sizeof(*m));
	struct strbuf sb = STRBUF_INIT;
	status_line(&sb, event, samples, h->total_period);
	m->status = sb_detach(&sb);
	m->npct = children ? 2 : 1;
	m->min = graph_min;
	m->dso_col = -1;
	m->ncols = h->nkeys < TUI_COLS ? (int)h->nkeys : TUI_COLS;
	for (int k = 0; k < m->ncols; k++) {
		m->coltitle[k] = titles[h->keys[k]] ? titles[h->keys[k]] : "";
		if (h->keys[k] == HK_DSO)
			m->dso_col = k;
		if (h->keys[k] == HK_TID)
			m->by_tid = true;
	}
	sb_adds(&sb, children ? "  Children      Self  " : "  Overhead  ");
	for (int k = 0; k < m->ncols; k++)
		sb_addf(&sb, "%s  ", m->coltitle[k]);
	m->titles = sb_detach(&sb);
	m->rows = xcalloc(h->n ? h->n : 1, sizeof(*m->rows));
	m->total = h->total_period;
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		struct tui_row *r = &m->rows[m->n++];
		for (int k = 0; k < m->ncols; k++) {
			r->cols[k] = key_col(e, h->keys[k]);
			sb_addf(&sb, "%s%s", k ? "  " : "", r->cols[k]);
		}
		r->text = sb_detach(&sb);
		r->pct[0] = share((double)(children ? e->acc_period : e->period), (double)h->total_period);
		r->pct[1] = share((double)e->period, (double)h->total_period);
		r->samples = children ? e->acc_samples : e->samples;
		r->dso = hist_dso_name(e->dso);
		r->comm = e->comm;
		r->sym = e->sym ? e->sym->name : NULL;
		r->pid = e->thread_pid;
		r->tid = e->thread_tid;
		/* The whole chain, from the entry's own frame where the tree starts there, as perf's
		 * browser shows it. */
		r->tree = h->graph != HIST_GRAPH_NONE && e->tree && e->tree->nkids ? e->tree : NULL;
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
	m->dso_col = -1;
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
	for (size_t i = 0; i < m->n; i++) {
		free(m->rows[i].text);
		for (int k = 0; k < TUI_COLS; k++)
			free(m->rows[i].cols[k]);
	}
	free(m->rows);
	free(m->status);
	free(m->titles);
	free(m);
}
