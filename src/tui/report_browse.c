/* lperf report's browser (tui/tui.h) over the walked profile: the first event with samples,
 * 'a' annotates a function from the per-instruction counts the walk kept (analysis/annot_view.h),
 * 'f' writes a flame graph of the recording narrowed as the view is. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/annot_view.h"
#include "analysis/stacks_load.h"
#include "output/pictures.h"
#include "output/report_out.h"
#include "tui/report_browse.h"
#include "tui/tui_annot.h"
#include "tui/tui.h"
#include "util/error.h"
#include "util/xalloc.h"

struct browse {
	const struct report_browse *b;
	int ev;
	int flames;
	bool other;              /* showing b->other */
};

void report_walk_init(struct report_walk *w, struct annot_view *av, const struct profile *p)
{
	memset(w, 0, sizeof(*w));
	w->av = av;
	if (p->graph == HIST_GRAPH_NONE)
		return;
	profile_init(&w->other, p->evsels, p->keys, p->nkeys, p->graph == HIST_CALLER ? HIST_CALLEE : HIST_CALLER,
		     p->children);
	w->other.filter = p->filter; /* shared: not freed with this profile */
	w->other.trace_text = p->trace_text;
	w->other.trace_arg = p->trace_arg;
	w->have_other = true;
}

int report_walk_sample(const struct resolved_sample *rs, void *arg)
{
	struct report_walk *w = arg;
	int rc = annot_view_sample(rs, w->av);
	if (rc == 0 && w->have_other)
		rc = profile_sample(rs, &w->other);
	return rc;
}

void report_walk_free(struct report_walk *w)
{
	if (!w->have_other)
		return;
	memset(&w->other.filter, 0, sizeof(w->other.filter));
	profile_free(&w->other);
	w->have_other = false;
}

/* 'c': the entries with the other call-graph order (callee: who called it; caller: what it
 * called). */
static struct tui_model *switch_hook(void *arg, const char **what)
{
	struct browse *x = arg;
	if (!x->b->other) {
		err_set("the recording has no call chains");
		return NULL;
	}
	x->other = !x->other;
	const struct profile *p = x->other ? x->b->other : x->b->p;
	struct report_section s = report_section_of(p, (size_t)x->ev);
	*what = p->graph == HIST_CALLER ? "caller graphs (what each function called)"
					 : "callee graphs (who called each function)";
	return tui_model_hist(s.hist, s.event, s.samples, x->b->children, x->b->graph_min);
}

static char *annotate_at(struct browse *x, const struct hist_entry *e, uint64_t addr, char *name, size_t size)
{
	const struct hist *h = &x->b->p->hists[x->ev];
	struct tui_annot_req q = { .ev = x->ev, .dso = e->dso, .sym = addr ? NULL : e->sym, .addr = addr,
				   .event = x->b->p->evsels->v[x->ev].name, .event_samples = h->total_samples,
				   .event_period = h->total_period };
	return tui_annot_text(&x->b->av->a, &q, name, size);
}

static char *annotate_hook(void *arg, const struct tui_row *r)
{
	const struct hist_entry *e = r->ref;
	char name[256];
	if (!e || !e->sym) {
		err_set("no symbol to annotate");
		return NULL;
	}
	return annotate_at(arg, e, 0, name, sizeof(name));
}

/* Enter on a call: the function of the entry's DSO the call lands in. */
static char *annotate_addr_hook(void *arg, const struct tui_row *r, uint64_t addr, char *name, size_t size)
{
	const struct hist_entry *e = r->ref;
	if (!e || !addr) {
		err_set("no function at the call's target to annotate");
		return NULL;
	}
	return annotate_at(arg, e, addr, name, size);
}

static int flame_hook(void *arg, const struct tui_zoom *z, char *path, size_t size)
{
	struct browse *x = arg;
	/* the report's --time too: the picture is of the samples the view counts */
	const char *when = x->b->p->filter.time_spec;
	struct sample_filter f = { .time_spec = when ? xstrdup(when) : NULL };
	char id[16];
	if ((z->dso && filter_add_dsos(&f, z->dso) < 0) || (z->comm && filter_add_comms(&f, z->comm) < 0) ||
	    (z->tid && (snprintf(id, sizeof(id), "%d", z->tid), filter_add_tids(&f, id)) < 0) ||
	    (z->pid && (snprintf(id, sizeof(id), "%d", z->pid), filter_add_pids(&f, id)) < 0)) {
		filter_free(&f);
		return -1;
	}
	struct stacks st;
	stacks_init(&st);
	st.python = x->b->python;
	struct notes said = NOTES_INIT;
	int rc = stacks_load(&st, x->b->input, x->b->so, &f, &said);
	filter_free(&f);
	if (rc >= 0) {
		/* perf.data-flame.svg, then perf.data-flame-2.svg ... */
		if (x->flames++)
			snprintf(path, size, "%s-flame-%d.svg", x->b->input, x->flames);
		else
			snprintf(path, size, "%s-flame.svg", x->b->input);
		struct pictures_req pr = { .svg = path, .inverted = x->b->caller };
		rc = pictures_write(&pr, &st, &said);
	}
	notes_clear(&said);
	stacks_free(&st);
	return rc < 0 ? -1 : 0;
}

/* Tab: the next event with samples, in the order the graphs are shown. */
static struct tui_model *event_hook(void *arg, const char **what)
{
	struct browse *x = arg;
	const struct profile *p = x->other ? x->b->other : x->b->p;
	for (size_t k = 1; k <= p->n; k++) {
		size_t i = ((size_t)x->ev + k) % p->n;
		if ((int)i == x->ev || !p->hists[i].total_samples)
			continue;
		x->ev = (int)i;
		struct report_section s = report_section_of(p, i);
		*what = s.event;
		return tui_model_hist(s.hist, s.event, s.samples, x->b->children, x->b->graph_min);
	}
	err_set("the recording has no other event with samples");
	return NULL;
}

/* perf's event menu when the recording has several events with samples: "31 cpu-clock", the
 * count in thousands past 1,000 ("12K task-clock"); the event index of each item in evs. */
static char **event_menu(const struct profile *p, int *evs, size_t *n)
{
	char **items = xcalloc(p->n ? p->n : 1, sizeof(*items));
	*n = 0;
	for (size_t i = 0; i < p->n; i++) {
		uint64_t k = p->hists[i].total_samples;
		if (!k)
			continue;
		char unit[2] = "";
		for (const char *u = "KMG"; *u && k > 1000; u++) {
			k /= 1000;
			unit[0] = *u;
		}
		char buf[512];
		snprintf(buf, sizeof(buf), "%" PRIu64 "%s %s", k, unit, p->evsels->v[i].name);
		evs[*n] = (int)i;
		items[(*n)++] = xstrdup(buf);
	}
	return items;
}

int report_browse(const struct report_browse *b)
{
	struct browse x = { .b = b };
	if (b->other)
		profile_sort(b->other, b->children);
	int *evs = xcalloc(b->p->n ? b->p->n : 1, sizeof(*evs));
	size_t nev;
	char **items = event_menu(b->p, evs, &nev);
	x.ev = nev ? evs[0] : 0;
	struct tui_hooks hooks = { .arg = &x, .annotate = b->av ? annotate_hook : NULL,
				   .annotate_addr = b->av ? annotate_addr_hook : NULL, .flame = flame_hook,
				   .switch_graph = switch_hook, .next_event = event_hook };
	struct tui *t = tui_open(&hooks);
	int rc = t ? 0 : -1;
	/* Several events: perf's menu first; Esc from the list comes back to it. */
	for (size_t pick = 0; t;) {
		if (nev > 1) {
			int k = tui_menu(t, "Available samples", (const char *const *)items, nev, pick,
					 "ESC: exit, ENTER|->: Browse histograms");
			if (k < 0)
				break;
			pick = (size_t)k;
			x.ev = evs[k];
			x.other = false;
		}
		struct report_section s = report_section_of(b->p, (size_t)x.ev);
		tui_show(t, tui_model_hist(s.hist, s.event, s.samples, b->children, b->graph_min));
		while (tui_step(t, -1))
			;
		if (nev <= 1 || !tui_backed_out(t))
			break;
	}
	tui_close(t);
	for (size_t i = 0; i < nev; i++)
		free(items[i]);
	free(items);
	free(evs);
	return rc;
}

bool report_browse_wanted(bool forced, bool stdio)
{
	if (forced)
		return true;
	return !stdio && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}
