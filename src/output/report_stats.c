/* perf report --stats and --task: a recording's records counted by type, and its tasks as a
 * tree, in perf's layout. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "output/report_out.h"
#include "perfdata/perfdata_stats.h"
#include "util/xalloc.h"

/* perf's names where they differ from lperf's record_type_name (its pipe-mode records). */
static const char *stats_type_name(uint32_t type)
{
	if (type == REC_HEADER_ATTR)
		return "ATTR";
	if (type == REC_HEADER_FEATURE)
		return "FEATURE";
	return record_type_name(type);
}

void report_print_stats(FILE *f, const struct perfdata_stats *st, const struct evsel_set *evs)
{
	fprintf(f, "\nAggregated stats:\n");
	fprintf(f, "%16s events: %10" PRIu64 "\n", "TOTAL", st->total);
	for (uint32_t t = 1; t < PDSTATS_NTYPES; t++) {
		if (!st->types[t])
			continue;
		fprintf(f, "%16s events: %10" PRIu64 "  (%4.1f%%)\n", stats_type_name(t), st->types[t],
			st->total ? 100.0 * (double)st->types[t] / (double)st->total : 0.0);
	}
	for (size_t e = 0; e < evs->n && e < st->nev; e++) {
		fprintf(f, "%s stats:\n", evs->v[e].name ? evs->v[e].name : "");
		if (st->ev_samples[e])
			fprintf(f, "%16s events: %10" PRIu64 "\n", "SAMPLE", st->ev_samples[e]);
	}
}

static void print_task(FILE *f, const struct perfdata_tasks *t, size_t i, int level, bool *done)
{
	const struct pdtask *k = &t->v[i];
	done[i] = true;
	fprintf(f, "  %8d %8d %8d |%*s%s\n", (int)k->pid, (int)k->tid, (int)k->ppid, level, "",
		k->comm ? k->comm : ":unknown");
	for (size_t c = 0; c < t->n; c++)
		if (!done[c] && t->v[c].ppid == k->tid && c != i)
			print_task(f, t, c, level + 1, done);
}

void report_print_tasks(FILE *f, const struct perfdata_tasks *t)
{
	fprintf(f, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	bool *done = xcalloc(t->n ? t->n : 1, sizeof(*done));
	for (size_t i = 0; i < t->n; i++) {
		bool root = t->v[i].ppid == -1;
		if (!root) { /* a parent the recording does not name */
			root = true;
			for (size_t p = 0; p < t->n && root; p++)
				root = !(p != i && t->v[p].tid == t->v[i].ppid);
		}
		if (root && !done[i])
			print_task(f, t, i, 0, done);
	}
	/* A cycle of parents (a damaged file) still lists every task once. */
	for (size_t i = 0; i < t->n; i++)
		if (!done[i])
			print_task(f, t, i, 0, done);
	free(done);
}
