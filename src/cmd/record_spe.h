/* record's SPE side: --dry-run (each event's attr, SPE filters encoded through the PMU's
 * format files, the AUX area size) without opening anything. */
#ifndef LPERF_CMD_RECORD_SPE_H
#define LPERF_CMD_RECORD_SPE_H

#include "cmd/sample_opts.h"
#include "events/evlist.h"

#include <stdio.h>

/* Prints the events record would open and returns the exit status (0, or 2 for an SPE
 * interval below the PMU's minimum). Frees l and o. */
int record_dry_run(struct sample_opts *o, struct evlist *l);
/* AUX pages per CPU for an SPE recording: -m ,AUX, else perf's default (4 MiB when
 * privileged, 128 KiB otherwise). */
size_t record_aux_pages(const struct sample_opts *o);
/* list: the SPE PMUs' filter terms (none printed when there is no SPE PMU). */
void list_spe_filters(FILE *out);
/* record: the Arm SPE AUXTRACE_INFO when l holds an SPE event (before any data), else nothing. */
struct perfdata_writer;
int record_spe_begin(struct perfdata_writer *w, const struct evlist *l, bool per_cpu);
/* Whether l holds an event of an Arm SPE PMU. */
bool record_has_spe(const struct evlist *l);

/* record's run (record.c): the events of l on the target into o->output, with record's notes;
 * the exit status (the command's where one ran). Setup errors end the process, as in record.
 * argc/argv: the command line stored in the file. */
int record_run(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv);

/* sample and wperf sample/record with an Arm SPE event: the SPE records need the whole AUX
 * stream, so they are recorded as record does into a temporary perf.data, then shown with
 * report's SPE views (WindowsPerf's sample-source tables, latencies, data sources, cache lines;
 * with o->annotate/o->disassemble the per-function blocks; o->json as JSON), and the file is
 * removed. Returns the exit status. */
int record_spe_sample(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv);

#endif
