/* record's and sample's --off-cpu and --wall (cmd/offcpu_opts.c): the off-CPU event added to
 * the events sample_build_events made, and the hooks of a run that follow the target and write
 * the off-CPU samples at its end. */
#ifndef LPERF_CMD_OFFCPU_OPTS_H
#define LPERF_CMD_OFFCPU_OPTS_H

#include <stdbool.h>

#include "cmd/sample_opts.h"
#include "live/live_run.h"
#include "record/record.h"

struct offcpu_prof;
struct evlist;

struct offcpu_opts_run {
	struct offcpu_prof *prof;   /* lperf's BPF program; NULL: none (not asked, or no BPF) */
	bool switches;              /* --wall without BPF: sched:sched_switch samples and the
				     * on-CPU event's PERF_RECORD_SWITCH records instead */
	const struct sample_opts *o;
	const struct evlist *l;
};

/* After sample_build_events: --off-cpu and --wall load the BPF program and add its offcpu-time
 * event to l (--dry-run: only the event). Without BPF, --off-cpu goes on without it with perf's
 * warning, and --wall samples sched:sched_switch with call chains instead, said once, both on
 * stderr. -1 after err_set when l cannot take the event. */
int offcpu_opts_setup(struct offcpu_opts_run *r, const struct sample_opts *o, struct evlist *l);
/* The run's hooks (arg: the offcpu_opts_run): the processes to follow (the command, -p's),
 * counting on; at the end the totals as offcpu-time samples handed to sink. */
void offcpu_opts_starting(void *arg, const struct live_run *run);
int offcpu_opts_ending(void *arg, const struct live_run *run, record_cb sink, void *sink_arg);
void offcpu_opts_close(struct offcpu_opts_run *r);

#endif
