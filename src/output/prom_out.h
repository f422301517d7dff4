/* lperf stat's counts for Prometheus: the series (one walk shared by the text page of
 * --prometheus and --textfile and by --remote-write's requests, output/prom_rw.h) and the text
 * exposition format (0.0.4). Families: lperf_event_total (counter; labels cgroup for an event of
 * -G, comm and pid of threads where asked, cpu when counting CPUs, event, pmu), lperf_ipc (gauge: instructions per cycle since the start, per CPU when
 * counting CPUs, wherever both events are counted; NaN before any cycle) and lperf_up_seconds (gauge). */
#ifndef LPERF_OUTPUT_PROM_OUT_H
#define LPERF_OUTPUT_PROM_OUT_H

#include <stddef.h>

#include "stat/stat_result.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct prom_label {
	const char *name, *value;
};

/* What may be shown of threads counted apart (--per-thread): with neither, their totals only.
 * A command name is shown only when asked for (--labels comm). */
#define PROM_LABEL_COMM 1u
#define PROM_LABEL_PID 2u

/* Called per series, families in the order above; labels sorted by name (at most 6). */
typedef void (*prom_series_fn)(const char *family, const struct prom_label *labels, size_t nlabels,
			       double value, void *arg);
void prom_walk(const struct stat_result *r, unsigned labels, prom_series_fn fn, void *arg);
/* The instructions-per-cycle of column c (c < 0: the totals), NAN without both events. */
double prom_ipc(const struct stat_result *r, long c);

/* The page (free it): per CPU when r counts CPUs, per thread with labels (PROM_LABEL_*), else one
 * series per event. */
char *prom_format(const struct stat_result *r, unsigned labels);

#endif
