/* record --dry-run and the AUX sizing for SPE events (see record_spe.h). */
#include "cmd/record_spe.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "events/spe_terms.h"
#include "output/spe_out.h"
#include "util/error.h"
#include "util/xalloc.h"

size_t record_aux_pages(const struct sample_opts *o)
{
	if (o->aux_pages)
		return o->aux_pages;
	long page = sysconf(_SC_PAGESIZE);
	size_t bytes = geteuid() == 0 ? 4u << 20 : 128u << 10;
	return bytes / (size_t)(page > 0 ? page : 4096);
}

int record_dry_run(struct sample_opts *o, struct evlist *l)
{
	struct spe_dry_row *rows = xcalloc(l->n ? l->n : 1, sizeof(*rows));
	int rc = 0;
	bool any_spe = false;
	for (size_t e = 0; e < l->n; e++) {
		struct ev *ev = &l->ev[e];
		struct spe_dry_row *r = &rows[e];
		r->spe = spe_pmu_name(ev->pmu);
		if (r->spe) {
			any_spe = true;
			if (spe_attr_prepare(&ev->attr, ev->pmu, ev->period ? ev->period : o->period) < 0) {
				err_warn("%s: %s", ev->name, err_msg());
				rc = EXIT_USAGE;
			}
		}
		r->name = ev->name;
		r->pmu = ev->pmu ? ev->pmu : "";
		r->encoding = ev->encoding ? ev->encoding : "";
		r->type = ev->attr.type;
		r->config = ev->attr.config;
		r->config1 = ev->attr.config1;
		r->config2 = ev->attr.config2;
		r->period = r->spe ? ev->attr.sample_period : (ev->period ? ev->period : o->period);
		r->freq = r->period ? 0 : o->freq;
	}
	long page = sysconf(_SC_PAGESIZE);
	spe_print_dry_run(stdout, rows, l->n, any_spe ? record_aux_pages(o) : 0,
			  (size_t)(page > 0 ? page : 4096), o->mmap_pages);
	free(rows);
	evlist_free(l);
	sample_opts_free(o);
	return rc;
}
