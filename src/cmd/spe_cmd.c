/* report and script for SPE recordings (see spe_cmd.h). */
#include "cmd/spe_cmd.h"

#include <stdio.h>

#include "output/spe_out.h"
#include "spe/spe_load.h"
#include "spe/spe_stats.h"
#include "util/error.h"

static int load(struct perfdata_reader *r, const struct spe_cmd_opts *o, struct spe_itrace *it,
		struct spe_data *d)
{
	if (spe_itrace_parse(o->itrace, it) < 0) {
		err_warn("%s", err_msg());
		return EXIT_USAGE;
	}
	enum spe_version v = o->version ? (enum spe_version)o->version : SPE_V1P3;
	if (spe_load(r, v, o->symfs, d) < 0) {
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

int spe_cmd_report(struct perfdata_reader *r, const struct spe_cmd_opts *o)
{
	struct spe_itrace it;
	struct spe_data d;
	int rc = load(r, o, &it, &d);
	if (rc)
		return rc;
	struct spe_report rep;
	spe_report_build(&d, &it, &rep);
	if (o->json)
		spe_print_report_json(stdout, &d, &rep);
	else
		spe_print_report(stdout, &d, &rep, o->rows ? o->rows : 50);
	spe_report_free(&rep);
	spe_data_free(&d);
	return 0;
}

int spe_cmd_script(struct perfdata_reader *r, const struct spe_cmd_opts *o)
{
	struct spe_itrace it;
	struct spe_data d;
	int rc = load(r, o, &it, &d);
	if (rc)
		return rc;
	if (o->json)
		spe_print_script_json(stdout, &d, &it);
	else
		spe_print_script(stdout, &d, &it);
	spe_data_free(&d);
	return 0;
}
