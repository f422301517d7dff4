/* report and script on recordings that hold Arm SPE AUX data: the session they opened decodes
 * the SPE records (src/spe) instead of reading samples, and SPE's own views are rendered
 * (src/output/spe_report.c). */
#ifndef LPERF_CMD_SPE_CMD_H
#define LPERF_CMD_SPE_CMD_H

#include <stdbool.h>

#include "spe/spe_load.h" /* spe_recording() */
#include "perfdata/perfdata.h"

struct spe_cmd_opts {
	const char *itrace;   /* --itrace, or NULL */
	bool json;
	unsigned rows;        /* entries per table (report), 0: 50 */
	int version;          /* --spe-version 1..4, 0: v1p3 (accept everything) */
	bool annotate;        /* report: per hot function, SPE records per source line (WindowsPerf's
	                       * --annotate), with --disassemble each hot line's instructions */
	bool disassemble;
};

/* Each walks the session (from session_open, not yet run) and returns the exit status; the caller
 * closes the session. */
struct session;
int spe_cmd_report(struct session *ss, const struct spe_cmd_opts *o);
int spe_cmd_script(struct session *ss, const struct spe_cmd_opts *o);

#endif
