/* --off-cpu and --wall for record and sample (see offcpu_opts.h). */
#include "cmd/offcpu_opts.h"

#include <stdio.h>
#include <stdlib.h>

#include "events/evlist.h"
#include "kernel/offcpu.h"
#include "util/error.h"
#include "util/xalloc.h"

/* --wall without lperf's program: sched:sched_switch sampled with the call chains of the other
 * events, and PERF_RECORD_SWITCH records on them; reading weighs each switch out by the time to
 * its thread's next switch in (session/session.h: session_wall). */
static int sample_switches(struct offcpu_opts_run *r, struct evlist *l)
{
	size_t on = l->n;
	if (evlist_parse(l, "sched:sched_switch") < 0)
		return -1;
	for (size_t e = 0; e < on; e++)
		l->ev[e].attr.context_switch = 1;
	r->switches = true;
	return 0;
}

int offcpu_opts_setup(struct offcpu_opts_run *r, const struct sample_opts *o, struct evlist *l)
{
	*r = (struct offcpu_opts_run){ .o = o, .l = l };
	if (!o->off_cpu && !o->wall)
		return 0;
	/* DWARF stacks, and --python's (which are DWARF stacks, or frames read at each sample):
	 * the switches are sampled like the other events, so that they carry the same stacks (the
	 * program's frame-pointer stacks skip the caller of a libc function without a frame
	 * pointer, such as glibc's nanosleep, and have no Python frames). */
	if (o->wall && (o->python || o->callchain == LIVE_CG_DWARF) && !o->dry_run) {
		err_note("--wall %s: sampling sched:sched_switch with %s for the time off a CPU",
			 o->python ? "--python" : "--call-graph dwarf", o->python ? "Python stacks" : "stack copies");
		return sample_switches(r, l);
	}
	/* Off-CPU time needs lperf's BPF program. --wall counts every switch (a preempted thread
	 * too), so that on- and off-CPU time add up to the threads' wall time. */
	if (!o->dry_run && !(r->prof = offcpu_open(!o->system_wide && !o->cpus_given, o->wall))) {
		if (o->wall) /* time between a switch out and the next switch in, from the recording */
			fprintf(stderr, "Warning: --wall: no off-CPU BPF program (%s): sampling "
				"sched:sched_switch with call chains instead\n", err_msg());
		else /* as a perf built without BPF skeletons says it (scripts skip on BUILD_BPF_SKEL) */
			fprintf(stderr, "Warning: option `off-cpu' is being ignored: %s (perf says so when "
				"built without BUILD_BPF_SKEL=1)\n", err_msg());
	}
	if (!r->prof && !o->dry_run)
		return o->wall ? sample_switches(r, l) : 0;
	if (evlist_parse(l, "bpf-output") < 0)
		return -1;
	struct ev *ev = &l->ev[l->n - 1]; /* perf's name for it */
	free(ev->name);
	ev->name = xstrdup(OFFCPU_EVENT_NAME);
	ev->offcpu = true;
	return 0;
}

void offcpu_opts_starting(void *arg, const struct live_run *run)
{
	struct offcpu_opts_run *r = arg;
	if (!r->prof)
		return;
	if (run->command && offcpu_follow(r->prof, run->t.pid) < 0)
		err_die_last(EXIT_RUNTIME);
	for (const char *s = r->o->pid_list; s && *s;) {
		char *end;
		long pid = strtol(s, &end, 10);
		if (end == s)
			break;
		if (pid > 0 && offcpu_follow(r->prof, (pid_t)pid) < 0)
			err_die_last(EXIT_RUNTIME);
		s = *end ? end + 1 : end;
	}
	offcpu_enable(r->prof, true);
}

int offcpu_opts_ending(void *arg, const struct live_run *run, record_cb sink, void *sink_arg)
{
	struct offcpu_opts_run *r = arg;
	if (!r->prof)
		return 0;
	for (size_t e = 0; e < r->l->n; e++) {
		if (!r->l->ev[e].offcpu)
			continue;
		uint64_t n = 0, id = run->live.nids[e] ? run->live.ids[e][0] : 0;
		if (offcpu_write(r->prof, &run->live.attrs[e], id, sink, sink_arg, &n) < 0)
			return err_wrap("off-CPU samples");
	}
	return 0;
}

void offcpu_opts_close(struct offcpu_opts_run *r)
{
	offcpu_close(r->prof);
	r->prof = NULL;
}
