/* The annotation of a profile's hot functions (see annot_view.h). */
#include "analysis/annot_view.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "util/xalloc.h"

void annot_view_init(struct annot_view *av, struct profile *p, struct machine *m, bool disassemble,
		     size_t max_funcs)
{
	memset(av, 0, sizeof(*av));
	av->p = p;
	annot_init(&av->a);
	av->a.machine = m;
	av->disassemble = disassemble;
	av->max_funcs = max_funcs ? max_funcs : 50;
}

int annot_view_sample(const struct resolved_sample *rs, void *arg)
{
	struct annot_view *av = arg;
	if (filter_match(&av->p->filter, rs))
		annot_add(&av->a, rs);
	return profile_sample(rs, av->p);
}

void annot_view_prepare(struct annot_view *av)
{
	if (av->prepared)
		return;
	av->prepared = true;
	annot_sort(&av->a);
	av->hot = xcalloc(av->a.n ? av->a.n : 1, sizeof(*av->hot));
	size_t shown = 0;
	int ev = -1;
	bool kernel_said = false;
	for (size_t i = 0; i < av->a.n; i++) {
		struct annot_func *f = av->a.v[i];
		if (f->evidx != ev) {
			ev = f->evidx;
			shown = 0;
		}
		if (shown++ >= av->max_funcs)
			continue;
		if (annot_func_disassemble(&av->a, f) < 0 && f->dso->kind == DSO_KERNEL) {
			if (kernel_said)
				continue;
			kernel_said = true;
		}
		av->hot[av->nhot++] = f;
	}
}

static int cmp_pcs(const void *pa, const void *pb)
{
	const struct annot_pc *x = pa, *y = pb;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

size_t annot_view_pcs(struct annot_view *av, int ev, struct annot_pc **out)
{
	struct annot_pc *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < av->a.n; i++) {
		struct annot_func *f = av->a.v[i];
		if (f->evidx != ev)
			continue;
		annot_func_merge(f);
		for (size_t k = 0; k < f->nhits; k++) {
			ALLOC_GROW(v, n + 1, cap);
			v[n++] = (struct annot_pc){ f->hits[k].addr, f->hits[k].samples, f };
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_pcs);
	*out = v;
	return n;
}

void annot_view_free(struct annot_view *av)
{
	free(av->hot);
	annot_free(&av->a);
	annot_sources_free();
	memset(av, 0, sizeof(*av));
}
