/* report/sample --annotate and --disassemble (see annotate_view.h). */
#include "cmd/annotate_view.h"

#include <inttypes.h>
#include <string.h>

#include "analysis/filter.h"
#include "output/annotate_out.h"
#include "util/error.h"

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

/* Calls fn for the hot functions of each event, disassembled. */
static void each_hot(struct annot_view *av, const struct evsel_set *evsels,
		     void (*fn)(struct annot_func *f, const struct annot_opts *o, void *arg), void *arg)
{
	annot_sort(&av->a);
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
		struct annot_opts o = { .max_lines = 0, .disassemble = av->disassemble };
		o.event = (size_t)f->evidx < evsels->n ? evsels->v[f->evidx].name : "?";
		o.event_samples = (size_t)f->evidx < av->a.nev ? av->a.ev_samples[f->evidx] : 0;
		o.event_period = (size_t)f->evidx < av->a.nev ? av->a.ev_period[f->evidx] : 0;
		o.max_lines = SIZE_MAX; /* hot lines only: rows with samples */
		/* Kernel code that cannot be read is said once, not per function. */
		if (annot_func_disassemble(&av->a, f) < 0 && f->dso->kind == DSO_KERNEL) {
			if (kernel_said)
				continue;
			kernel_said = true;
		}
		fn(f, &o, arg);
	}
}

static void print_one(struct annot_func *f, const struct annot_opts *o, void *arg)
{
	annotate_wperf_func(arg, f, o);
}

void annot_view_print(FILE *f, struct annot_view *av, const struct evsel_set *evsels)
{
	fputs("\nsample source code annotation\n\n", f);
	each_hot(av, evsels, print_one, f);
	fflush(f);
}

static void json_one(struct annot_func *f, const struct annot_opts *o, void *arg)
{
	annotate_wperf_json(arg, f, o);
}

void annot_view_json(struct json *j, struct annot_view *av, const struct evsel_set *evsels)
{
	json_begin_array(j, "annotate");
	each_hot(av, evsels, json_one, j);
	json_end_array(j);
}

void annot_view_free(struct annot_view *av)
{
	annot_free(&av->a);
	annot_sources_free();
}
