/* perf sched timehist: see sched.h. At each switch on a CPU the task switched out ran since the
 * CPU's previous switch; before that it waited since it last went out (sleeping, waiting for
 * I/O or preempted, by the state it left in) and its scheduling delay is from its wakeup to the
 * CPU's previous switch. A CPU's idle task is its own task, "<idle>". */
#include "analysis/sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/resolve.h"
#include "util/error.h"
#include "util/timerange.h"
#include "util/xalloc.h"

#define SCHED_TASK_RUNNING 0
#define SCHED_TASK_UNINTERRUPTIBLE 2

static void sched_stats_init(struct sched_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

/* perf's running mean and variance (Welford's). */
static void sched_stats_add(struct sched_stats *s, uint64_t v)
{
	s->n += 1;
	double delta = (double)v - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * ((double)v - s->mean);
	if (v > s->max)
		s->max = v;
	if (v < s->min)
		s->min = v;
}

double sched_stats_stddev_pct(const struct sched_stats *s)
{
	if (s->n < 2 || s->mean == 0)
		return 0;
	double var = s->m2 / (s->n - 1);
	return 100.0 * sqrt(var / s->n) / s->mean;
}

static struct sched_thr *thr_new(int32_t tid, int32_t pid)
{
	struct sched_thr *t = xcalloc(1, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	t->ppid = -1;
	sched_stats_init(&t->run);
	return t;
}

/* perf's machine__findnew_thread: a task is created with the process the first event naming
 * it gives (0 from a wakeup's or migration's pid field, so perf then shows its name alone), and
 * that stays, but for a FORK, which starts a new task. A thread created with its process creates
 * the process's main thread too, with that process (perf's thread__init_maps looks the leader up),
 * so a main thread first named by a wakeup after one of its threads' samples keeps its process. */
static struct sched_thr *thr_get(struct sched_hist *h, int32_t tid, int32_t pid)
{
	bool found;
	struct hashmap_entry *he = hashmap_insert_u64(&h->thr, (uint64_t)(uint32_t)tid, &found);
	bool created = !found || !he->value;
	if (created)
		he->value = thr_new(tid, pid);
	struct sched_thr *t = he->value;
	if (t->pid == -1 && pid != -1)
		t->pid = pid;
	if (created && pid > 0 && pid != tid)
		thr_get(h, pid, pid);
	return t;
}

int sched_time_window(const char *s, uint64_t *start, uint64_t *end)
{
	struct time_range r;
	if (timerange_parse_one(s, &r) < 0)
		return -1;
	*start = r.start;
	*end = r.end;
	return 0;
}

int sched_ids_parse(const char *s, struct sched_ids *ids)
{
	memset(ids, 0, sizeof(*ids));
	size_t cap = 0;
	for (const char *p = s; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || v < INT32_MIN || v > INT32_MAX) {
			sched_ids_free(ids);
			return err_set("'%s': not a list of numbers (1,2,3)", s);
		}
		ALLOC_GROW(ids->v, ids->n + 1, cap);
		ids->v[ids->n++] = (int32_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

void sched_ids_free(struct sched_ids *ids)
{
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}

static bool ids_has(const struct sched_ids *ids, int32_t id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i] == id)
			return true;
	return false;
}

/* perf's thread__is_filtered: -p by the task's process as perf knows it, -t by its tid. */
static bool hist_filtered(const struct sched_hist *h, const struct sched_thr *t)
{
	return (h->pids && !ids_has(h->pids, t->pid)) || (h->tids && !ids_has(h->tids, t->tid));
}

/* Counts a left-out task as perf's timehist_skip_sample does; -I leaves out every event but a
 * switch to or from an idle task (idle_side: the event is one). */
static bool hist_skip(struct sched_hist *h, const struct sched_thr *t, bool idle_side)
{
	bool filtered = hist_filtered(h, t);
	if (filtered)
		h->skipped++;
	return filtered || (h->idle_hist && !idle_side);
}

static struct sched_thr *idle_get(struct sched_hist *h, uint32_t cpu)
{
	if (cpu >= h->nidle) {
		size_t n = h->nidle ? h->nidle : 1;
		while (n <= cpu)
			n *= 2;
		h->idle = xrealloc(h->idle, n * sizeof(*h->idle));
		memset(h->idle + h->nidle, 0, (n - h->nidle) * sizeof(*h->idle));
		h->nidle = n;
	}
	if (!h->idle[cpu]) {
		h->idle[cpu] = thr_new(0, 0);
		h->idle[cpu]->idle = true;
	}
	return h->idle[cpu];
}

void sched_hist_init(struct sched_hist *h, struct machine *m, uint32_t nr_cpus_online)
{
	memset(h, 0, sizeof(*h));
	h->m = m;
	hashmap_init(&h->thr, HASHMAP_U64);
	h->max_cpu = nr_cpus_online ? nr_cpus_online : 4;
	for (uint32_t c = 0; c < h->max_cpu; c++)
		idle_get(h, c);
	h->nidle = h->max_cpu; /* perf lists the CPUs it set up, and those seen beyond */
}

void sched_task_name(struct machine *m, const struct sched_thr *t, struct sched_task *out)
{
	out->tid = t->tid;
	out->pid = t->pid;
	snprintf(out->comm, sizeof(out->comm), "%s", t->idle ? "<idle>" : sched_comm(m, t->tid));
}

static void hist_update(struct sched_thr *r, uint64_t t, uint64_t tprev)
{
	r->dt_delay = r->dt_sleep = r->dt_iowait = r->dt_preempt = r->dt_run = 0;
	if (tprev) {
		r->dt_run = t - tprev;
		if (r->ready_to_run && r->ready_to_run <= tprev)
			r->dt_delay = tprev - r->ready_to_run;
		if (r->last_time && r->last_time <= tprev) {
			uint64_t wait = tprev - r->last_time;
			if (r->last_state == SCHED_TASK_RUNNING)
				r->dt_preempt = wait;
			else if (r->last_state == SCHED_TASK_UNINTERRUPTIBLE)
				r->dt_iowait = wait;
			else
				r->dt_sleep = wait;
		}
	}
	sched_stats_add(&r->run, r->dt_run);
	r->total_run += r->dt_run;
	r->total_delay += r->dt_delay;
	r->total_sleep += r->dt_sleep;
	r->total_iowait += r->dt_iowait;
	r->total_preempt += r->dt_preempt;
}

/* perf 6.1's chain of a switch: its first chain_max addresses, each named where it is (kernel or
 * user by the markers before it); a marker perf does not know (a guest's, or the deferred user
 * chain of newer kernels) met before that makes perf drop the whole chain. */
static size_t hist_chain(struct sched_hist *h, const struct resolved_sample *rs)
{
	const struct perf_sample *s = rs->s;
	uint8_t mode = s->cpumode;
	size_t n = 0;
	for (uint64_t i = 0; i < s->callchain_nr && n < h->chain_max; i++) {
		uint64_t ip = s->callchain[i];
		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				mode = PERF_RECORD_MISC_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				mode = PERF_RECORD_MISC_USER;
			else if (ip == PERF_CONTEXT_HV)
				mode = PERF_RECORD_MISC_HYPERVISOR;
			else
				return 0;
			continue;
		}
		ALLOC_GROW(h->chain, n + 1, h->chain_cap);
		memset(&h->chain[n], 0, sizeof(h->chain[n]));
		h->chain[n].ip = ip;
		resolve_addr(h->m, rs->thread, mode, ip, s->time, &h->chain[n].loc);
		n++;
	}
	return n;
}

/* -I: the idle period that ends is the time of the task that went out before it, on any CPU -C
 * shows or not (its run statistics count the idle time; the rest of its deltas are dropped, as
 * perf 6.1 does). False when no task went out there before: perf shows no line then. */
static bool hist_idle_period(struct sched_thr *idle, uint64_t time, uint64_t tprev)
{
	struct sched_thr *last = idle->last_thread;
	if (!last)
		return false;
	hist_update(last, time, tprev);
	last->dt_run = last->dt_delay = last->dt_sleep = last->dt_iowait = last->dt_preempt = 0;
	idle->last_thread = NULL;
	return true;
}

static void hist_switch(struct sched_hist *h, const struct sched_event *ev)
{
	if (ev->cpu >= h->ncpu) {
		size_t n = ev->cpu + 1u;
		h->last_switch = xrealloc(h->last_switch, n * sizeof(*h->last_switch));
		memset(h->last_switch + h->ncpu, 0, (n - h->ncpu) * sizeof(*h->last_switch));
		h->ncpu = n;
	}
	bool idle = ev->prev_pid == 0;
	struct sched_thr *t = idle ? idle_get(h, ev->cpu) : thr_get(h, ev->tid ? ev->tid : ev->pid, ev->pid);
	if (h->idle_hist && !idle)
		idle_get(h, ev->cpu)->last_thread = t;
	bool skip = hist_skip(h, t, idle || ev->next_pid == 0), on_cpu = !h->cpus || cpuset_has(h->cpus, (int)ev->cpu);
	uint64_t tprev = h->last_switch[ev->cpu], time = ev->time;
	/* --time: a switch before the window is not shown; one after it closes the task's run at
	 * the window's end, as perf 6.1 does */
	bool shown = !skip && !(h->tstart && h->tstart > time);
	if (shown && tprev && h->tstart > tprev)
		tprev = h->tstart;
	if (shown && h->tend) {
		shown = tprev && tprev <= h->tend; /* a run that began before the recording: unknown */
		if (shown && time > h->tend)
			time = h->tend;
	}
	if (shown && on_cpu && (idle || !h->idle_hist))
		hist_update(t, time, tprev);
	if (shown && idle && h->idle_hist)
		shown = hist_idle_period(t, time, tprev);
	if (shown && on_cpu && !h->summary_only && h->row) {
		struct sched_hist_row r = { .kind = SCHED_ROW_SWITCH, .time = time, .cpu = ev->cpu, .idle = idle,
					    .ncpus = h->max_cpu + 1,
					    .wait = t->dt_sleep + t->dt_iowait + t->dt_preempt, .delay = t->dt_delay,
					    .run = t->dt_run, .state = ev->prev_state, .next_pid = ev->next_pid };
		memcpy(r.next_comm, ev->next_comm, sizeof(r.next_comm));
		sched_task_name(h->m, t, &r.task);
		if (!idle && ev->rs && h->chain_max) {
			r.nframes = hist_chain(h, ev->rs);
			r.frames = h->chain;
		}
		h->row(h->arg, &r);
	}
	if (!h->hist_start && time >= h->tstart)
		h->hist_start = time;
	if (!h->tend || time <= h->tend)
		h->hist_end = time;
	if (!skip) {
		t->last_time = ev->time;
		t->last_state = ev->prev_state;
		t->ready_to_run = 0;
	}
	h->last_switch[ev->cpu] = ev->time;
}

/* A wakeup's or migration's line: the sample's task and the one it is about, unless -p/-t leave
 * out both. */
static void hist_other(struct sched_hist *h, const struct sched_event *ev, enum sched_row_kind kind,
		       struct sched_thr *other)
{
	struct sched_thr *t = thr_get(h, ev->tid, ev->pid);
	if (hist_skip(h, t, false) && hist_skip(h, other, false))
		return;
	struct sched_hist_row r = { .kind = kind, .time = ev->time, .cpu = ev->cpu,
				    .ncpus = h->max_cpu + 1, .orig_cpu = ev->orig_cpu, .dest_cpu = ev->dest_cpu };
	sched_task_name(h->m, t, &r.task);
	sched_task_name(h->m, other, &r.other);
	h->row(h->arg, &r);
}

void sched_hist_event(struct sched_hist *h, const struct sched_event *ev)
{
	if (ev->cpu > h->max_cpu)
		h->max_cpu = ev->cpu;
	struct sched_thr *t;
	switch (ev->kind) {
	case SCHED_SWITCH:
		hist_switch(h, ev);
		return;
	case SCHED_WAKEUP:
		t = thr_get(h, ev->target, 0);
		if (!t->ready_to_run)
			t->ready_to_run = ev->time;
		if (h->wakeups && h->row && !(h->tstart && ev->time < h->tstart) && !(h->tend && ev->time > h->tend))
			hist_other(h, ev, SCHED_ROW_WAKEUP, t);
		return;
	case SCHED_MIGRATE:
		if (!h->migrations)
			return;
		t = thr_get(h, ev->target, 0);
		t->migrations++;
		if (!h->summary_only && h->row)
			hist_other(h, ev, SCHED_ROW_MIGRATE, t);
		return;
	case SCHED_RUNTIME:
	case SCHED_NONE:
		break;
	}
}

/* perf's machine__remove_thread: the task leaves the table (its entry empty), not perf's lists. */
static void hist_remove(struct sched_hist *h, int32_t tid)
{
	struct hashmap_entry *he = hashmap_find_u64(&h->thr, (uint64_t)(uint32_t)tid);
	if (!he || !he->value)
		return;
	ALLOC_GROW(h->removed, h->nremoved + 1, h->removed_cap);
	h->removed[h->nremoved++] = he->value;
	((struct sched_thr *)he->value)->removed = h->nremoved;
	he->value = NULL;
}

static struct sched_thr *thr_find(const struct sched_hist *h, int32_t tid)
{
	struct hashmap_entry *he = hashmap_find_u64(&h->thr, (uint64_t)(uint32_t)tid);
	return he ? he->value : NULL;
}

void sched_hist_fork(struct sched_hist *h, int32_t pid, int32_t tid, int32_t ppid, int32_t ptid)
{
	bool child = thr_find(h, tid) != NULL;
	/* a parent perf knew with another process (one first seen woken) is a stale task: perf
	 * starts it anew, as it starts the child anew over any task it knew by that tid */
	if (thr_get(h, ptid, ppid)->pid != ppid) {
		hist_remove(h, ptid);
		thr_get(h, ptid, ppid);
	}
	if (child)
		hist_remove(h, tid);
	thr_get(h, tid, pid)->ppid = ptid;
}

void sched_hist_exit(struct sched_hist *h, int32_t tid)
{
	struct sched_thr *t = thr_find(h, tid);
	if (t)
		t->dead = true;
}

void sched_hist_comm(struct sched_hist *h, int32_t pid, int32_t tid)
{
	thr_get(h, tid, pid)->comm_changed = true;
}

void sched_hist_mmap(struct sched_hist *h, int32_t pid, int32_t tid)
{
	thr_get(h, tid, pid);
}

/* perf's machine__for_each_thread: by tid modulo 256; in each, the table by tid, then the
 * replaced tasks in the order they left. */
static int thr_order(const void *a, const void *b)
{
	const struct sched_thr *l = *(struct sched_thr *const *)a, *r = *(struct sched_thr *const *)b;
	uint32_t bl = (uint32_t)l->tid % 256u, br = (uint32_t)r->tid % 256u;
	if (bl != br)
		return bl < br ? -1 : 1;
	if (!l->removed != !r->removed)
		return l->removed ? 1 : -1;
	if (l->removed)
		return l->removed < r->removed ? -1 : 1;
	return l->tid < r->tid ? -1 : l->tid > r->tid;
}

size_t sched_hist_tasks(const struct sched_hist *h, bool dead, struct sched_thr ***out)
{
	struct sched_thr **v = xcalloc(h->thr.n + h->nremoved + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < h->thr.n + h->nremoved; i++) {
		struct sched_thr *t = i < h->thr.n ? h->thr.v[i].value : h->removed[i - h->thr.n];
		if (t && t->run.n > 0 && t->dead == dead && !hist_filtered(h, t))
			v[n++] = t;
	}
	qsort(v, n, sizeof(*v), thr_order);
	*out = v;
	return n;
}

void sched_hist_free(struct sched_hist *h)
{
	for (size_t i = 0; i < h->thr.n; i++)
		free(h->thr.v[i].value);
	hashmap_free(&h->thr);
	for (size_t i = 0; i < h->nremoved; i++)
		free(h->removed[i]);
	free(h->removed);
	for (size_t i = 0; i < h->nidle; i++)
		free(h->idle[i]);
	free(h->idle);
	free(h->last_switch);
	free(h->chain);
	memset(h, 0, sizeof(*h));
}
