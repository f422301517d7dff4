/* perf lock contention's table: see lock_out.h. */
#include "output/lock_out.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

static const struct { const char *header; int width; } lock_columns[] = {
	[LOCK_SORT_CONTENDED] = { "contended", 10 },
	[LOCK_SORT_WAIT_TOTAL] = { "total wait", 12 },
	[LOCK_SORT_WAIT_MAX] = { "max wait", 12 },
	[LOCK_SORT_WAIT_MIN] = { "min wait", 12 },
	[LOCK_SORT_AVG_WAIT] = { "avg wait", 12 },
	[LOCK_SORT_ACQUIRED] = { "acquired", 10 },
};

/* A wait time as perf prints it: two decimals of the largest unit it reaches, else ns. */
static void lock_time(FILE *f, uint64_t ns, int width)
{
	/* perf divides in single precision: the same rounding of the last digit */
	static const struct { float base; const char *unit; } units[] = {
		{ 1e9 * 3600, "h " }, { 1e9 * 60, "m " }, { 1e9, "s " }, { 1e6, "ms" }, { 1e3, "us" },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((float)ns >= units[i].base) {
			fprintf(f, "%*.2f %s", width - 3, (double)((float)ns / units[i].base), units[i].unit);
			return;
		}
	fprintf(f, "%*" PRIu64 " %s", width - 3, ns, "ns");
}

/* One row's columns, each followed by a space. */
static void lock_print_fields(FILE *f, const struct lock_entry *e, const int *fields, size_t nfields)
{
	for (size_t i = 0; i < nfields; i++) {
		int w = lock_columns[fields[i]].width;
		switch (fields[i]) {
		case LOCK_SORT_CONTENDED: fprintf(f, "%*" PRIu64, w, e->contended); break;
		case LOCK_SORT_ACQUIRED: fprintf(f, "%*" PRIu64, w, e->acquired); break;
		case LOCK_SORT_WAIT_TOTAL: lock_time(f, e->total, w); break;
		case LOCK_SORT_WAIT_MAX: lock_time(f, e->max, w); break;
		case LOCK_SORT_WAIT_MIN: lock_time(f, e->min == UINT64_MAX ? 0 : e->min, w); break;
		case LOCK_SORT_AVG_WAIT: lock_time(f, e->acquired ? e->total / e->acquired : 0, w); break;
		}
		fputc(' ', f);
	}
}

void lock_print_report(FILE *f, const struct lockstat *ls, const int *fields, size_t nfields, size_t entries)
{
	fprintf(f, "%20s ", "Name");
	for (size_t i = 0; i < nfields; i++)
		fprintf(f, "%*s ", lock_columns[fields[i]].width, lock_columns[fields[i]].header);
	fputs("\n\n", f);
	for (size_t r = 0; r < ls->n && r < entries; r++) {
		const struct lock_entry *e = &ls->v[r];
		/* perf cuts a name of 20 characters or more to its first 16 and "..." */
		if (strlen(e->name) < 20) {
			fprintf(f, "%20s ", e->name);
		} else {
			char cut[20];
			snprintf(cut, sizeof(cut), "%.16s...", e->name);
			fprintf(f, "%20s ", cut);
		}
		lock_print_fields(f, e, fields, nfields);
		fputc('\n', f);
	}
}

void lock_print_contention(FILE *f, const struct lockstat *ls, const int *fields, size_t nfields,
			   size_t entries, bool quiet)
{
	if (!quiet) {
		for (size_t i = 0; i < nfields; i++)
			fprintf(f, "%*s ", lock_columns[fields[i]].width, lock_columns[fields[i]].header);
		fprintf(f, "  %10s   %s\n\n", ls->per_thread ? "pid" : "type", ls->per_thread ? "comm" : "caller");
	}
	for (size_t r = 0; r < ls->n && r < entries; r++) {
		const struct lock_entry *e = &ls->v[r];
		lock_print_fields(f, e, fields, nfields);
		if (ls->per_thread)
			fprintf(f, "  %10" PRIu32 "   %s\n", e->tid, e->name);
		else
			fprintf(f, "  %10s   %s\n", lockstat_type_name(e->flags), e->name);
	}
}

void lock_print_info(FILE *f, const struct lockstat *ls)
{
	if (ls->per_thread) {
		fprintf(f, " Thread ID: comm\n");
		for (size_t r = 0; r < ls->n; r++)
			fprintf(f, "%10" PRIu32 ": %s\n", ls->v[r].tid, ls->v[r].name);
		return;
	}
	fprintf(f, "Address of instance: name of class\n");
	for (size_t r = 0; r < ls->n; r++)
		fprintf(f, " %#" PRIx64 ": %s\n", ls->v[r].key, ls->v[r].name);
}
