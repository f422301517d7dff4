/* sample's Arm SPE path: the recording is made by record's run (record.c), then shown with
 * report's SPE views. */
#ifndef LPERF_CMD_RECORD_SPE_H
#define LPERF_CMD_RECORD_SPE_H

#include "cmd/sample_opts.h"
#include "events/evlist.h"

#include <stdio.h>

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
