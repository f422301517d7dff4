/* perf sched's text: see sched_out.h. */
#include "output/sched_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char sched_dashes[] =
	"----------------------------------------------------------------------------------------------------"
	"----------------------------------------------------------------------------------------------------";

void sched_print_bad(FILE *f, const struct sched_lat *l, const struct sched_bad *bad)
{
	if (l && l->nr_unordered && l->nr_timestamps)
		fprintf(f, "  INFO: %.3f%% unordered timestamps (%" PRIu64 " out of %" PRIu64 ")\n",
			(double)l->nr_unordered / (double)l->nr_timestamps * 100.0, l->nr_unordered, l->nr_timestamps);
	if (bad->lost && bad->nr_events)
		fprintf(f, "  INFO: %.3f%% lost events (%" PRIu64 " out of %" PRIu64 ", in %" PRIu64 " chunks)\n",
			(double)bad->lost / (double)bad->nr_events * 100.0, bad->lost, bad->nr_events, bad->lost_chunks);
	if (l && l->nr_switch_bugs && l->nr_timestamps) {
		fprintf(f, "  INFO: %.3f%% context switch bugs (%" PRIu64 " out of %" PRIu64 ")",
			(double)l->nr_switch_bugs / (double)l->nr_timestamps * 100.0, l->nr_switch_bugs, l->nr_timestamps);
		if (bad->lost)
			fputs(" (due to lost events?)", f);
		fputc('\n', f);
	}
}

void sched_print_latency(FILE *f, const struct sched_lat *l, const struct sched_bad *bad)
{
	fprintf(f, "\n %.139s\n", sched_dashes);
	fputs("  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | "
	      "Max delay start           | Max delay end          |\n", f);
	fprintf(f, " %.139s\n", sched_dashes);
	for (size_t i = 0; i < l->nrows; i++) {
		const struct sched_lat_task *t = l->rows[i];
		int n = t->merged > 1 ? fprintf(f, "  %s:(%d) ", t->comm, t->merged)
				      : fprintf(f, "  %s:%" PRId32 " ", t->comm, t->tid);
		for (int k = n; k < 24; k++)
			fputc(' ', f);
		char start[32], end[32];
		sched_time_str(t->max_start, start, sizeof(start));
		sched_time_str(t->max_end, end, sizeof(end));
		fprintf(f, "|%11.3f ms |%9" PRIu64 " | avg:%8.3f ms | max:%8.3f ms | max start: %12s s | max end: %12s s\n",
			(double)t->runtime / 1e6, t->switches, (double)(t->total_lat / t->switches) / 1e6,
			(double)t->max_lat / 1e6, start, end);
	}
	fprintf(f, " %.113s\n", sched_dashes);
	fprintf(f, "  TOTAL:                |%11.3f ms |%9" PRIu64 " |\n", (double)l->all_runtime / 1e6, l->all_count);
	fprintf(f, " %.51s\n", sched_dashes);
	sched_print_bad(f, l, bad);
	fputc('\n', f);
}

/* perf's msec.usec with the milliseconds right-aligned in width, and a space. */
static void sched_msec(FILE *f, uint64_t ns, int width)
{
	fprintf(f, "%*" PRIu64 ".%03" PRIu64 " ", width, ns / 1000000u, ns % 1000000u / 1000u);
}

static const char *sched_task_str(struct sched_hist_out *o, const struct sched_task *t)
{
	static char s[SCHED_COMM_LEN];
	int n;
	if (t->pid == 0)
		n = snprintf(s, sizeof(s), "%s", t->comm);
	else if (t->tid != t->pid)
		n = snprintf(s, sizeof(s), "%s[%" PRId32 "/%" PRId32 "]", t->comm, t->tid, t->pid);
	else
		n = snprintf(s, sizeof(s), "%s[%" PRId32 "]", t->comm, t->tid);
	if (n > (int)sizeof(s) - 1)
		n = (int)sizeof(s) - 1; /* perf's names stop at 31 characters */
	if (n > o->comm_width)
		o->comm_width = n;
	return s;
}

void sched_hist_header(struct sched_hist_out *o, uint32_t ncpus)
{
	FILE *f = o->f;
	fprintf(f, "%15s %6s ", "time", "cpu");
	if (o->visual) {
		fputc(' ', f);
		for (uint32_t i = 0; i < ncpus; i++)
			fprintf(f, "%x", i % 16);
		fputc(' ', f);
	}
	fprintf(f, " %-*s  %9s  %9s  %9s", o->comm_width, "task name", "wait time", "sch delay", "run time");
	if (o->state)
		fprintf(f, "  %s", "state");
	fprintf(f, "\n%15s %-6s ", "", "");
	if (o->visual)
		fprintf(f, " %*s ", (int)ncpus, "");
	fprintf(f, " %-*s  %9s  %9s  %9s", o->comm_width, "[tid/pid]", "(msec)", "(msec)", "(msec)");
	if (o->state)
		fprintf(f, "  %5s", "");
	fprintf(f, "\n%.15s %.6s ", sched_dashes, sched_dashes);
	if (o->visual)
		fprintf(f, " %.*s ", (int)ncpus, sched_dashes);
	fprintf(f, " %.*s  %.9s  %.9s  %.9s", o->comm_width, sched_dashes, sched_dashes, sched_dashes, sched_dashes);
	if (o->state)
		fprintf(f, "  %.5s", sched_dashes);
	fputc('\n', f);
}

/* The state a task left in, as perf 6.1 names it: the lowest bit set as an index into
 * "RSDTtZXxKWP", 'I' for an idle task. */
static char sched_state_char(const struct sched_hist_row *r)
{
	static const char chars[] = "RSDTtZXxKWP";
	if (r->idle || r->task.tid == 0)
		return 'I';
	unsigned bit = r->state ? (unsigned)__builtin_ffs((int)r->state) : 0;
	return bit < sizeof(chars) - 1 ? chars[bit] : '?';
}

/* perf's one-line call chain: the first frames (--max-stack + 2), the scheduler's own functions
 * left out, "[unknown]" where no symbol names a frame. */
static void sched_chain(struct sched_hist_out *o, const struct sched_hist_row *r)
{
	static const char *const ignored[] = { "schedule", "__schedule", "preempt_schedule" };
	fputs("  ", o->f);
	bool first = true;
	for (size_t i = 0; i < r->nframes && i < (size_t)o->max_stack; i++) {
		const struct symbol *sym = r->frames[i].loc.sym;
		bool skip = false;
		for (size_t k = 0; sym && k < sizeof(ignored) / sizeof(ignored[0]); k++)
			skip |= !strcmp(sym->name, ignored[k]);
		if (skip)
			continue;
		fprintf(o->f, "%s %s", first ? "" : " <-", sym ? sym->name : "[unknown]");
		first = false;
	}
}

static void sched_hist_switch(struct sched_hist_out *o, const struct sched_hist_row *r)
{
	FILE *f = o->f;
	if (o->visual) {
		fputc(' ', f);
		for (uint32_t i = 0; i < r->ncpus; i++)
			fputc(i == r->cpu ? (r->idle ? 'i' : 's') : ' ', f);
		fputc(' ', f);
	}
	const char *name = sched_task_str(o, &r->task);
	fprintf(f, " %-*s ", o->comm_width, name);
	sched_msec(f, r->wait, 6);
	sched_msec(f, r->delay, 6);
	sched_msec(f, r->run, 6);
	if (o->state)
		fprintf(f, " %5c ", sched_state_char(r));
	if (o->next) {
		char next[30];
		snprintf(next, sizeof(next), "next: %s[%" PRId32 "]", r->next_comm, r->next_pid);
		fprintf(f, " %-*s", o->comm_width, next);
	}
	if (o->wakeups && !o->next)
		fprintf(f, "  %-*s", o->comm_width, "");
	if (o->callchain && !r->idle && r->task.tid != 0)
		sched_chain(o, r);
	fputc('\n', f);
}

void sched_hist_line(struct sched_hist_out *o, const struct sched_hist_row *r)
{
	FILE *f = o->f;
	char ts[32];
	sched_time_str(r->time, ts, sizeof(ts));
	fprintf(f, "%15s [%04" PRIu32 "] ", ts, r->cpu);
	if (r->kind == SCHED_ROW_SWITCH) {
		sched_hist_switch(o, r);
		return;
	}
	if (o->visual && r->kind == SCHED_ROW_WAKEUP)
		fprintf(f, " %*s ", (int)r->ncpus, "");
	if (o->visual && r->kind == SCHED_ROW_MIGRATE) {
		fputs("  ", f);
		for (uint32_t i = 0; i < r->ncpus; i++)
			fputc(i == r->cpu ? 'm' : ' ', f);
		fputs("  ", f);
	}
	const char *name = sched_task_str(o, &r->task);
	fprintf(f, " %-*s ", o->comm_width, name);
	fprintf(f, "  %9s  %9s  %9s ", "", "", "");
	if (r->kind == SCHED_ROW_WAKEUP) {
		fprintf(f, "awakened: %s\n", sched_task_str(o, &r->other));
		return;
	}
	fprintf(f, "migrated: %s", sched_task_str(o, &r->other));
	fprintf(f, " cpu %" PRId32 " => %" PRId32 "\n", r->orig_cpu, r->dest_cpu);
}

void sched_hist_lost(struct sched_hist_out *o, uint64_t time, uint32_t cpu, uint64_t lost)
{
	char ts[32];
	sched_time_str(time, ts, sizeof(ts));
	fprintf(o->f, "%15s lost %" PRIu64 " events on cpu %" PRIu32 "\n", ts, lost, cpu);
}

static void sched_summary_tasks(struct sched_hist_out *o, const struct sched_hist *h, bool dead,
				uint64_t *tasks, uint64_t *switches, uint64_t *run)
{
	FILE *f = o->f;
	struct sched_thr **v;
	size_t n = sched_hist_tasks(h, dead, &v);
	for (size_t i = 0; i < n; i++) {
		const struct sched_thr *t = v[i];
		struct sched_task name;
		sched_task_name(h->m, t, &name);
		const char *s = sched_task_str(o, &name);
		fprintf(f, "%*s   %5" PRId32 "  %9" PRIu64 " ", o->comm_width, s, t->ppid, (uint64_t)t->run.n);
		sched_msec(f, t->total_run, 8);
		if (o->state) {
			sched_msec(f, t->total_sleep, 6);
			fputc(' ', f);
			sched_msec(f, t->total_iowait, 6);
			fputc(' ', f);
			sched_msec(f, t->total_preempt, 6);
			fputc(' ', f);
			sched_msec(f, t->total_delay, 6);
		} else {
			sched_msec(f, t->run.min, 6);
			fputc(' ', f);
			sched_msec(f, (uint64_t)t->run.mean, 6);
			fputc(' ', f);
			sched_msec(f, t->run.max, 6);
			fprintf(f, "  %5.2f   %5" PRIu64, (double)(float)sched_stats_stddev_pct(&t->run), t->migrations);
		}
		fputc('\n', f);
		(*tasks)++;
		*switches += (uint64_t)t->run.n;
		*run += t->total_run;
	}
	free(v);
}

/* -I with call chains: each CPU's idle time (whatever -C shows) over a table of the chains the
 * idle periods began from, which perf 6.1 leaves empty (it walks its sorted chains from a
 * leftmost node it never sets): lperf prints the same. */
static void sched_idle_chains(struct sched_hist_out *o, const struct sched_hist *h)
{
	FILE *f = o->f;
	fputs("\nIdle stats by callchain:\n", f);
	for (size_t i = 0; i < h->nidle; i++) {
		if (!h->idle[i])
			continue;
		fprintf(f, "  CPU %2zu:", i);
		sched_msec(f, h->idle[i]->total_run, 6);
		fputs(" msec\n", f);
		fprintf(f, "  %16s  %8s  %s\n", "Idle time (msec)", "Count", "Callchains");
		fprintf(f, "  %.16s  %.8s  %.50s\n\n", sched_dashes, sched_dashes, sched_dashes);
	}
}

void sched_hist_summary(struct sched_hist_out *o, const struct sched_hist *h)
{
	FILE *f = o->f;
	uint64_t tasks = 0, switches = 0, run = 0, hist = h->hist_end - h->hist_start;
	if (h->idle_hist) {
		fprintf(f, "\nIdle-time summary\n%*s  parent  sched-out  ", o->comm_width, "comm");
		fputs("  idle-time   min-idle    avg-idle    max-idle  stddev  migrations\n", f);
	} else if (o->state) {
		fprintf(f, "\nWait-time summary\n%*s  parent   sched-in  ", o->comm_width, "comm");
		fputs("   run-time      sleep      iowait     preempt       delay\n", f);
	} else {
		fprintf(f, "\nRuntime summary\n%*s  parent   sched-in  ", o->comm_width, "comm");
		fputs("   run-time    min-run     avg-run     max-run  stddev  migrations\n", f);
	}
	fprintf(f, "%*s            (count)  ", o->comm_width, "");
	fprintf(f, "     (msec)     (msec)      (msec)      (msec)       %s\n", o->state ? "(msec)" : "%");
	fprintf(f, "%.117s\n", sched_dashes);
	sched_summary_tasks(o, h, false, &tasks, &switches, &run);
	uint64_t alive = tasks;
	if (!alive)
		fputs("<no still running tasks>\n", f);
	fputs("\nTerminated tasks:\n", f);
	sched_summary_tasks(o, h, true, &tasks, &switches, &run);
	if (alive == tasks)
		fputs("<no terminated tasks>\n", f);
	if (h->skipped && !h->idle_hist)
		return; /* perf tracks no idle time when tasks were left out */
	fputs("\nIdle stats:\n", f);
	for (size_t i = 0; i < h->nidle; i++) {
		const struct sched_thr *t = h->idle[i];
		if (!t || (h->cpus && !cpuset_has(h->cpus, (int)i)))
			continue;
		if (t->run.n > 0) {
			switches += (uint64_t)t->run.n;
			fprintf(f, "    CPU %2zu idle for ", i);
			sched_msec(f, t->total_run, 6);
			fprintf(f, " msec  (%6.2f%%)\n", 100.0 * (double)t->total_run / (double)hist);
		} else {
			fprintf(f, "    CPU %2zu idle entire time window\n", i);
		}
	}
	if (h->idle_hist && o->callchain)
		sched_idle_chains(o, h);
	fprintf(f, "\n    Total number of unique tasks: %" PRIu64 "\nTotal number of context switches: %" PRIu64 "\n",
		tasks, switches);
	fputs("           Total run time (msec): ", f);
	sched_msec(f, run, 2);
	fputs("\n    Total scheduling time (msec): ", f);
	sched_msec(f, hist, 2);
	fprintf(f, " (x %" PRIu32 ")\n", h->max_cpu);
}

void sched_map_line(FILE *f, const struct sched_map_row *r)
{
	fputs("  ", f);
	for (size_t k = 0; k < r->ncells; k++) {
		fputc(r->cell_cpu[k] == (int32_t)r->this_cpu ? '*' : ' ', f);
		if (r->cells[k][0])
			fprintf(f, "%2s ", r->cells[k]);
		else
			fputs("   ", f);
	}
	if (!r->shown) {
		fputc('\n', f);
		return;
	}
	char ts[32];
	sched_time_str(r->time, ts, sizeof(ts));
	fprintf(f, "  %12s secs ", ts);
	if (r->named)
		fprintf(f, "%s => %s:%" PRId32, r->shortname, r->comm, r->tid);
	if (r->new_cpu)
		fprintf(f, " (CPU %" PRIu32 ")", r->this_cpu);
	fputc('\n', f);
}
