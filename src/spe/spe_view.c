/* An SPE recording decoded for report and script (see spe_view.h). */
#include "spe/spe_view.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

int spe_view_load(struct session *ss, const struct spe_view_opts *o, struct spe_view *v)
{
	memset(v, 0, sizeof(*v));
	v->rows = o->rows ? o->rows : 50;
	v->evsels = ss->evsels;
	if (spe_itrace_parse(o->itrace, &v->it) < 0) {
		v->bad_itrace = true;
		notes_add(&ss->notes, "%s", err_msg());
		return -1;
	}
	enum spe_version ver = o->version ? (enum spe_version)o->version : SPE_V1P3;
	struct spe_load_opts lo = { 0 };
	if (o->report && (o->annotate || o->disassemble)) {
		enum hist_key keys[] = { HK_SYM, HK_DSO };
		profile_init(&v->p, ss->evsels, keys, 2, HIST_GRAPH_NONE, false);
		v->av = xcalloc(1, sizeof(*v->av));
		annot_view_init(v->av, &v->p, &ss->machine, o->disassemble, o->rows);
		lo.select = &v->it;
		lo.sample = annot_view_sample;
		lo.arg = v->av;
	}
	if (spe_session_load(ss, ver, &lo, &v->d) < 0) {
		notes_add(&ss->notes, "%s", err_msg());
		return -1;
	}
	for (size_t i = 0; i < v->d.notes.n; i++)
		notes_add(&ss->notes, "%s", v->d.notes.v[i]);
	if (v->d.errors > v->d.notes.n)
		notes_add(&ss->notes, "%llu more malformed SPE packets", (unsigned long long)(v->d.errors - v->d.notes.n));
	if (o->report) {
		spe_report_build(&v->d, &v->it, &v->rep);
		v->have_rep = true;
	}
	return 0;
}

void spe_view_free(struct spe_view *v)
{
	if (v->have_rep)
		spe_report_free(&v->rep);
	spe_data_free(&v->d);
	if (v->av) {
		annot_view_free(v->av);
		free(v->av);
		profile_free(&v->p);
	}
	memset(v, 0, sizeof(*v));
}
