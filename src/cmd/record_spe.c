/* record --dry-run and the AUX sizing for SPE events (see record_spe.h). */
#include "cmd/record_spe.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/spe_cmd.h"

#include "events/pmu.h"
#include "events/spe_terms.h"
#include "output/spe_out.h"
#include "spe/spe_capture.h"
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

static void field_text(const struct pmu_format *f, char *buf, size_t n)
{
	static const char *const names[] = { "config", "config1", "config2" };
	int lo = -1, hi = -1;
	for (int b = 0; b < 64; b++)
		if (f->mask & (1ULL << b)) {
			if (lo < 0)
				lo = b;
			hi = b;
		}
	if (lo < 0)
		snprintf(buf, n, "%s:?", names[f->field]);
	else if (lo == hi)
		snprintf(buf, n, "%s:%d", names[f->field], lo);
	else
		snprintf(buf, n, "%s:%d-%d", names[f->field], lo, hi);
}

void list_spe_filters(FILE *out)
{
	const struct pmu_table *t = pmu_table();
	for (size_t i = 0; i < t->n; i++) {
		const struct pmu *p = &t->p[i];
		if (!spe_pmu_name(p->name) || !p->nfmt)
			continue;
		struct spe_filter_row *rows = xcalloc(p->nfmt, sizeof(*rows));
		char (*fields)[40] = xcalloc(p->nfmt, sizeof(*fields));
		for (size_t k = 0; k < p->nfmt; k++) {
			const struct spe_term_info *in = spe_term_info(p->fmt[k].name);
			field_text(&p->fmt[k], fields[k], sizeof(fields[k]));
			rows[k].term = p->fmt[k].name;
			rows[k].alias = in ? in->alias : NULL;
			rows[k].field = p->fmt[k].bad ? p->fmt[k].bad : fields[k];
			rows[k].desc = in ? in->desc : NULL;
		}
		spe_print_filters(out, p->name, (long)p->type, rows, p->nfmt);
		free(fields);
		free(rows);
	}
}

int record_spe_begin(struct perfdata_writer *w, const struct evlist *l, bool per_cpu)
{
	for (size_t e = 0; e < l->n; e++)
		if (spe_pmu_name(l->ev[e].pmu))
			return spe_capture_info(w, l->ev[e].attr.type, per_cpu);
	return 0;
}

bool record_has_spe(const struct evlist *l)
{
	for (size_t e = 0; e < l->n; e++)
		if (spe_pmu_name(l->ev[e].pmu))
			return true;
	return false;
}

int record_spe_sample(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv)
{
	/* A file of its own in TMPDIR: record writes it under a temporary name and renames it when
	 * complete, so a run that fails to start leaves nothing behind. */
	const char *tmp = getenv("TMPDIR");
	/* Named by the process: one per run, and a file a dead run with this pid left is ours. */
	char *path = xasprintf("%s/lperf-spe-%d.data", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	const char *output = o->output;
	bool quiet = o->quiet;
	o->output = path;
	o->quiet = true; /* no "Captured and wrote" line for a file the user never sees */
	int status = record_run(o, l, cmd, argc, argv);
	o->output = output;
	o->quiet = quiet;
	struct perfdata_reader r;
	int rc = 0;
	if (perfdata_open(&r, path) < 0) {
		err_warn("%s", err_msg());
		rc = EXIT_RUNTIME;
	} else {
		if (spe_recording(&r)) {
			struct spe_cmd_opts so = { NULL, NULL, o->json, (unsigned)o->display_rows, 0, o->annotate,
						   o->disassemble };
			rc = spe_cmd_report(&r, &so);
		} else {
			err_warn("no Arm SPE data was recorded");
			rc = EXIT_RUNTIME;
		}
		perfdata_close(&r);
	}
	unlink(path);
	char *old = xasprintf("%s.old", path); /* record keeps a previous file as .old: there is none */
	unlink(old);
	free(old);
	free(path);
	return cmd ? status : rc ? rc : status;
}
