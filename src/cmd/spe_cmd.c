/* report and script for SPE recordings (see spe_cmd.h). */
#include "cmd/spe_cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/annot_view.h"
#include "output/annotate_out.h"

#include "output/spe_out.h"
#include "session/session.h"
#include "spe/spe_load.h"
#include "spe/spe_stats.h"
#include "util/error.h"
#include "util/xalloc.h"

/* --annotate/--disassemble: the selected records also count per instruction of their
 * functions, through the view report and sample use for samples. */
struct spe_annot {
	struct annot_view av;
	struct profile p;
};

static int load(struct session *ss, const struct spe_cmd_opts *o, struct spe_itrace *it,
		struct spe_data *d, struct spe_annot *sa)
{
	if (spe_itrace_parse(o->itrace, it) < 0) {
		err_warn("%s", err_msg());
		return EXIT_USAGE;
	}
	enum spe_version v = o->version ? (enum spe_version)o->version : SPE_V1P3;
	struct spe_load_opts lo = { 0 };
	if (sa) {
		enum hist_key keys[] = { HK_SYM, HK_DSO };
		profile_init(&sa->p, ss->evsels, keys, 2, HIST_GRAPH_NONE, false);
		annot_view_init(&sa->av, &sa->p, &ss->machine, o->disassemble, o->rows);
		lo.select = it;
		lo.sample = annot_view_sample;
		lo.arg = &sa->av;
	}
	if (spe_session_load(ss, v, &lo, d) < 0) {
		err_warn("%s", err_msg());
		spe_data_free(d);
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < d->notes.n; i++)
		err_warn("%s", d->notes.v[i]);
	if (d->errors > d->notes.n)
		err_warn("%llu more malformed SPE packets", (unsigned long long)(d->errors - d->notes.n));
	return 0;
}

static void annot_json(struct json *j, void *arg)
{
	struct spe_annot *sa = arg;
	annotate_view_json(j, &sa->av, sa->p.evsels, -1, false);
}

int spe_cmd_report(struct session *ss, const struct spe_cmd_opts *o)
{
	struct spe_itrace it;
	struct spe_data d;
	struct spe_annot *sa = o->annotate || o->disassemble ? xcalloc(1, sizeof(*sa)) : NULL;
	int rc = load(ss, o, &it, &d, sa);
	if (!rc) {
		struct spe_report rep;
		spe_report_build(&d, &it, &rep);
		if (o->json) {
			spe_print_report_json(stdout, &d, &rep, sa ? annot_json : NULL, sa);
		} else {
			spe_print_report(stdout, &d, &rep, o->rows ? o->rows : 50);
			if (sa)
				annotate_view_print(stdout, &sa->av, ss->evsels);
		}
		spe_report_free(&rep);
		spe_data_free(&d);
	}
	if (sa) {
		annot_view_free(&sa->av);
		profile_free(&sa->p);
		free(sa);
	}
	return rc;
}

int spe_cmd_script(struct session *ss, const struct spe_cmd_opts *o)
{
	struct spe_itrace it;
	struct spe_data d;
	int rc = load(ss, o, &it, &d, NULL);
	if (rc)
		return rc;
	if (o->json)
		spe_print_script_json(stdout, &d, &it);
	else
		spe_print_script(stdout, &d, &it);
	spe_data_free(&d);
	return 0;
}
