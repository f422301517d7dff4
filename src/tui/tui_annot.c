/* The annotate view's text (tui/tui_annot.h): a function's instructions and source with their
 * share of its samples, as lperf annotate --stdio prints them, for report's and top's browser. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/annotate_out.h"
#include "tui/tui_annot.h"
#include "util/error.h"

/* The function of (dso, sym) for event ev, or with sym NULL the one in dso holding addr. */
static struct annot_func *find(const struct annot *a, int ev, const struct dso *dso, const struct symbol *sym,
			       uint64_t addr)
{
	for (size_t i = 0; i < a->n; i++) {
		struct annot_func *f = a->v[i];
		if (f->evidx != ev || f->dso != dso || !f->sym)
			continue;
		if (sym ? f->sym == sym
			: addr >= f->sym->start && addr < f->sym->start + (f->sym->size ? f->sym->size : 1))
			return f;
	}
	return NULL;
}

char *tui_annot_text(struct annot *a, const struct tui_annot_req *q, char *name, size_t size)
{
	struct annot_func *f = find(a, q->ev, q->dso, q->sym, q->addr);
	if (!f) {
		if (q->sym)
			err_set("no samples of %s to annotate", q->sym->name);
		else
			err_set("no samples at %#" PRIx64 " (the call's target) to annotate", q->addr);
		return NULL;
	}
	snprintf(name, size, "%s", f->sym->name);
	if (q->fresh)
		annot_func_reset(f);
	annot_func_disassemble(a, f);
	struct annot_opts o = { .event = q->event, .event_samples = q->event_samples, .event_period = q->event_period };
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
