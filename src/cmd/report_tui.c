/* lperf report's browser (tui/tui.h) over the walked profile: the first event with samples,
 * 'a' annotates a function from the per-instruction counts the walk kept (analysis/annot_view.h),
 * 'f' writes a flame graph of the recording narrowed as the view is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/annot_view.h"
#include "analysis/stacks_load.h"
#include "cmd/report_tui.h"
#include "output/annotate_out.h"
#include "output/pictures.h"
#include "output/report_out.h"
#include "tui/tui.h"
#include "util/error.h"
#include "util/xalloc.h"

struct browse {
	const struct report_browse *b;
	int ev;
	int flames;
};

static char *annotate_hook(void *arg, const struct tui_row *r)
{
	struct browse *x = arg;
	const struct hist_entry *e = r->ref;
	if (!e || !e->sym) {
		err_set("no symbol to annotate");
		return NULL;
	}
	struct annot *a = &x->b->av->a;
	for (size_t i = 0; i < a->n; i++) {
		struct annot_func *f = a->v[i];
		if (f->sym != e->sym || f->dso != e->dso || f->evidx != x->ev)
			continue;
		annot_func_disassemble(a, f);
		const struct hist *h = &x->b->p->hists[x->ev];
		struct annot_opts o = { .event = x->b->p->evsels->v[x->ev].name, .event_samples = h->total_samples,
					.event_period = h->total_period };
		char *buf = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&buf, &len);
		if (!mf) {
			err_set("out of memory");
			return NULL;
		}
		annotate_text_func(mf, f, &o);
		fclose(mf);
		return buf;
	}
	err_set("no samples of %s to annotate", e->sym->name);
	return NULL;
}

static int flame_hook(void *arg, const struct tui_zoom *z, char *path, size_t size)
{
	struct browse *x = arg;
	struct sample_filter f = { 0 };
	if ((z->dso && filter_add_dsos(&f, z->dso) < 0) || (z->comm && filter_add_comms(&f, z->comm) < 0)) {
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

int report_browse(const struct report_browse *b)
{
	struct browse x = { .b = b };
	for (size_t i = 0; i < b->p->n; i++)
		if (b->p->hists[i].total_samples) {
			x.ev = (int)i;
			break;
		}
	struct tui_hooks hooks = { &x, b->av ? annotate_hook : NULL, flame_hook };
	struct tui *t = tui_open(&hooks);
	if (!t)
		return -1;
	struct report_section s = report_section_of(b->p, (size_t)x.ev);
	tui_show(t, tui_model_hist(s.hist, s.event, s.samples, b->children));
	while (tui_step(t, -1))
		;
	tui_close(t);
	return 0;
}

bool report_browse_wanted(bool forced, bool stdio)
{
	if (forced)
		return true;
	return !stdio && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}
