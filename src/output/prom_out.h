/* lperf stat --prometheus: the counts in Prometheus' text exposition format (0.0.4), one counter
 * family lperf_event_total with the labels event, pmu and (counting CPUs) cpu. */
#ifndef LPERF_OUTPUT_PROM_OUT_H
#define LPERF_OUTPUT_PROM_OUT_H

#include "stat/stat_result.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The page (free it): per CPU when r counts CPUs, else one series per event. */
char *prom_format(const struct stat_result *r);

#endif
