/* What report, script and sample share on the command side. */
#include "cmd/report_view.h"

#include <string.h>

#include "cmd/annotate_view.h"

#include <inttypes.h>

#include "python/pystore.h"
#include "util/error.h"

void report_warnings(const struct session *ss, bool quiet, int verbose)
{
	for (size_t i = 0; i < ss->notes.n; i++)
		err_warn("%s", ss->notes.v[i]);
	if (ss->resolver.truncated)
		err_note("%" PRIu64 " of %" PRIu64 " stacks are cut short and end in [truncated]: the user "
			 "stack copy was too small or code had no unwind information; try a larger "
			 "--call-graph dwarf,SIZE (up to 65528)", ss->resolver.truncated, ss->nsamples);
	if (ss->bad_samples)
		err_warn("%" PRIu64 " samples could not be parsed and were skipped", ss->bad_samples);
	if (ss->lost_records || ss->lost_samples) {
		/* perf writes the same loss twice (LOST records, and LOST_SAMPLES from the counters'
		 * lost counts): take the larger, never the sum. */
		uint64_t lost = ss->lost_records > ss->lost_samples ? ss->lost_records : ss->lost_samples;
		err_warn("%" PRIu64 " samples lost while recording (%.2f%%)", lost,
			 100.0 * (double)lost / (double)(lost + ss->nsamples));
	}
	const struct jit_source *js;
	size_t njs = machine_jit_sources((struct machine *)&ss->machine, &js);
	for (size_t i = 0; i < njs && !quiet; i++) {
		/* A JIT that writes a jitdump writes no perf map: its absence is no news then; nor,
		 * as with perf, for a process that never wrote one (node without flags), unless -v. */
		bool missing = js[i].perfmap_note && !strncmp(js[i].perfmap_note, "no perf map", 11);
		if (js[i].perfmap_note && !js[i].jitdump_path && (!missing || verbose))
			err_note("%s: %s", js[i].perfmap_path ? js[i].perfmap_path : "perf map", js[i].perfmap_note);
		if (js[i].jitdump_note)
			err_note("%s: %s", js[i].jitdump_path ? js[i].jitdump_path : "jitdump", js[i].jitdump_note);
	}
	const struct dso_cache *c = &ss->machine.dsos;
	for (size_t i = 0; i < c->n; i++) {
		const struct dso *d = c->v[i];
		if (d->mismatch)
			err_warn("%s changed since recording (build-id mismatch): its samples are not "
				 "resolved", d->path);
		else if (!quiet && d->loaded && d->kind == DSO_KERNEL && dso_load_note(d))
			err_note("%s: %s", d->path, dso_load_note(d));
	}
}

static void annot_json(struct json *j, void *arg)
{
	struct annot_view *av = arg;
	annot_view_json(j, av, av->p->evsels);
}

void report_view_print(FILE *f, const struct report_view *v, const struct profile *p,
		       const struct session *ss, const char *source)
{
	struct report_totals tot = { ss->nsamples, ss->lost_records, ss->lost_samples, pystore_approx(ss->py) };
	report_print(f, v->style, &v->ro, p, &tot, source, v->annot ? annot_json : NULL, v->annot);
	if (v->annot && v->style != STYLE_JSON)
		annot_view_print(f, v->annot, p->evsels);
}
