/* SPE renderers: record --dry-run rows, decoded records for script, and the report views
 * (operation x events tables, latency percentiles, data sources, cache lines). */
#ifndef LPERF_OUTPUT_SPE_OUT_H
#define LPERF_OUTPUT_SPE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct spe_dry_row {
	const char *name, *pmu, *encoding;
	uint32_t type;
	uint64_t config, config1, config2;
	uint64_t period;        /* 0: frequency mode */
	uint64_t freq;
	bool spe;
};
void spe_print_dry_run(FILE *f, const struct spe_dry_row *rows, size_t n, size_t aux_pages,
		       size_t page_size, size_t data_pages);


struct spe_filter_row {
	const char *term, *alias, *field, *desc;
};
/* `list`: the SPE PMU's filter terms, WindowsPerf's "[SPE filter]" rows. */
void spe_print_filters(FILE *f, const char *pmu, long type, const struct spe_filter_row *rows,
		       size_t n);
#endif
