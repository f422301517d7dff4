/* report and script on recordings that hold Arm SPE AUX data: they decode the SPE records
 * (src/spe) instead of reading samples, and render SPE's own views (src/output/spe_report.c). */
#ifndef LPERF_CMD_SPE_CMD_H
#define LPERF_CMD_SPE_CMD_H

#include <stdbool.h>

#include "spe/spe_load.h" /* spe_recording() */
#include "perfdata/perfdata.h"

struct spe_cmd_opts {
	const char *itrace;   /* --itrace, or NULL */
	const char *symfs;
	bool json;
	unsigned rows;        /* entries per table (report), 0: 50 */
	int version;          /* --spe-version 1..4, 0: v1p3 (accept everything) */
	bool annotate;        /* report: per hot function, SPE records per source line (WindowsPerf's
	                       * --annotate), with --disassemble each hot line's instructions */
	bool disassemble;
};

/* Each returns the exit status; r stays open (the caller closes it). */
int spe_cmd_report(struct perfdata_reader *r, const struct spe_cmd_opts *o);
int spe_cmd_script(struct perfdata_reader *r, const struct spe_cmd_opts *o);

#endif
