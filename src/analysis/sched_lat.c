/* perf sched latency: see sched.h. Each task's history is a chain of atoms, one per time it went
 * off a CPU; only the last one matters as the walk goes: it waits for the CPU from its wakeup
 * (or from the switch itself when the task was preempted, state R) and its delay ends at the
 * next switch that runs it. As perf 6.1 does, a task seen first switching in is taken as
 * runnable since then, and a wakeup only counts for a sleeping task unless -C looks at one CPU
 * (whose events miss the others'). */
#include "analysis/sched.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

enum { SCHED_ATOM_SLEEPING, SCHED_ATOM_WAIT_CPU, SCHED_ATOM_SCHED_IN, SCHED_ATOM_IGNORE, SCHED_ATOM_NONE };

void sched_lat_init(struct sched_lat *l, int profile_cpu, bool per_pid)
{
	memset(l, 0, sizeof(*l));
	l->profile_cpu = profile_cpu;
	l->per_pid = per_pid;
	hashmap_init(&l->bytid, HASHMAP_U64);
}

static struct sched_lat_task *lat_task(struct sched_lat *l, int32_t tid, bool *created)
{
	bool found;
	struct hashmap_entry *he = hashmap_insert_u64(&l->bytid, (uint64_t)(uint32_t)tid, &found);
	*created = !found;
	if (!found) {
		ALLOC_GROW(l->v, l->n + 1, l->cap);
		memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
		l->v[l->n].tid = tid;
		l->v[l->n].state = SCHED_ATOM_NONE;
		he->value = (void *)(uintptr_t)(++l->n);
	}
	return &l->v[(uintptr_t)he->value - 1];
}

/* A new atom: the task went off the CPU at t, runnable (preempted) or not. */
static void lat_out(struct sched_lat_task *t, bool runnable, uint64_t time)
{
	t->out_time = time;
	t->state = runnable ? SCHED_ATOM_WAIT_CPU : SCHED_ATOM_SLEEPING;
	t->wake_time = runnable ? time : 0;
}

static void lat_in(struct sched_lat_task *t, uint64_t time)
{
	if (t->state != SCHED_ATOM_WAIT_CPU)
		return;
	if (time < t->wake_time) {
		t->state = SCHED_ATOM_IGNORE;
		return;
	}
	t->state = SCHED_ATOM_SCHED_IN;
	uint64_t delta = time - t->wake_time;
	t->total_lat += delta;
	if (delta > t->max_lat) {
		t->max_lat = delta;
		t->max_start = t->wake_time;
		t->max_end = time;
	}
	t->switches++;
}

static void lat_switch(struct sched_lat *l, const struct sched_event *ev)
{
	if (ev->cpu >= l->ncpu) {
		size_t n = ev->cpu + 1u;
		l->curr = xrealloc(l->curr, n * sizeof(*l->curr));
		for (size_t i = l->ncpu; i < n; i++)
			l->curr[i] = -1;
		l->ncpu = n;
	}
	if (l->curr[ev->cpu] != -1 && l->curr[ev->cpu] != ev->prev_pid)
		l->nr_switch_bugs++;
	l->curr[ev->cpu] = ev->next_pid;
	bool created;
	/* perf 6.1 reads prev_state as an index into "RSDTtZXxKWP": only 0 is R */
	lat_out(lat_task(l, ev->prev_pid, &created), ev->prev_state == 0, ev->time);
	struct sched_lat_task *in = lat_task(l, ev->next_pid, &created);
	if (created)
		lat_out(in, true, ev->time);
	lat_in(in, ev->time);
}

void sched_lat_event(struct sched_lat *l, const struct sched_event *ev)
{
	bool created;
	struct sched_lat_task *t;
	switch (ev->kind) {
	case SCHED_SWITCH:
		lat_switch(l, ev);
		return;
	case SCHED_RUNTIME:
		t = lat_task(l, ev->target, &created);
		if (created)
			lat_out(t, true, ev->time);
		t->runtime += ev->runtime;
		return;
	case SCHED_WAKEUP:
		if (ev->waking)
			return; /* perf 6.1's latency reads sched_wakeup and sched_wakeup_new only */
		t = lat_task(l, ev->target, &created);
		if (created)
			lat_out(t, false, ev->time);
		if (l->profile_cpu == -1 && t->state != SCHED_ATOM_SLEEPING)
			return;
		l->nr_timestamps++;
		if (t->out_time > ev->time) {
			l->nr_unordered++;
			return;
		}
		t->state = SCHED_ATOM_WAIT_CPU;
		t->wake_time = ev->time;
		return;
	case SCHED_MIGRATE:
		if (l->profile_cpu == -1)
			return;
		t = lat_task(l, ev->target, &created);
		if (created)
			lat_out(t, true, ev->time);
		t->out_time = t->wake_time = ev->time;
		l->nr_timestamps++;
		return;
	case SCHED_NONE:
		break;
	}
}

int sched_lat_keys(const char *spec, int *keys, size_t max, size_t *n)
{
	static const char *const names[] = { "pid", "avg", "max", "switch", "runtime" };
	char *copy = xstrdup(spec), *save = NULL;
	*n = 0;
	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		size_t k = 0;
		while (k < ARRAY_SIZE(names) && strcmp(names[k], tok))
			k++;
		if (k == ARRAY_SIZE(names) || *n == max) {
			err_set("unknown --sort key: `%s' (runtime, switch, avg, max, pid)", tok);
			free(copy);
			return -1;
		}
		keys[(*n)++] = (int)k;
	}
	free(copy);
	return 0;
}

static const int *lat_sort_keys;
static size_t lat_sort_nkeys;

static int lat_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* perf's comparison of two rows by one key: > 0 sorts l first. */
static int lat_cmp_key(const struct sched_lat_task *l, const struct sched_lat_task *r, int key)
{
	switch (key) {
	case SCHED_LAT_PID:
		return l->tid < r->tid ? -1 : l->tid > r->tid;
	case SCHED_LAT_AVG:
		if (!l->switches || !r->switches) /* rows without a delay go last (and are not shown) */
			return !l->switches && !r->switches ? 0 : l->switches ? 1 : -1;
		return lat_cmp_u64(l->total_lat / l->switches, r->total_lat / r->switches);
	case SCHED_LAT_MAX:
		return lat_cmp_u64(l->max_lat, r->max_lat);
	case SCHED_LAT_SWITCH:
		return lat_cmp_u64(l->switches, r->switches);
	default:
		return lat_cmp_u64(l->runtime, r->runtime);
	}
}

static int lat_cmp(const void *a, const void *b)
{
	const struct sched_lat_task *l = *(struct sched_lat_task *const *)a, *r = *(struct sched_lat_task *const *)b;
	for (size_t i = 0; i < lat_sort_nkeys; i++) {
		int c = lat_cmp_key(l, r, lat_sort_keys[i]);
		if (c)
			return -c;
	}
	return 0;
}

/* Equal rows keep the order perf's trees give them: by comm, the last first when merged; by
 * tid, the highest first, per pid. */
static int lat_order(const void *a, const void *b)
{
	const struct sched_lat_task *l = *(struct sched_lat_task *const *)a, *r = *(struct sched_lat_task *const *)b;
	int c = lat_cmp(a, b);
	if (c)
		return c;
	if (l->merged || r->merged) {
		c = strcmp(r->comm, l->comm);
		if (c)
			return c;
	}
	return l->tid > r->tid ? -1 : l->tid < r->tid;
}

static int lat_by_tid_desc(const void *a, const void *b)
{
	const struct sched_lat_task *l = *(struct sched_lat_task *const *)a, *r = *(struct sched_lat_task *const *)b;
	return l->tid > r->tid ? -1 : l->tid < r->tid;
}

static int lat_by_comm(const void *a, const void *b)
{
	const struct sched_lat_task *l = *(struct sched_lat_task *const *)a, *r = *(struct sched_lat_task *const *)b;
	int c = strcmp(l->comm, r->comm);
	return c ? c : lat_by_tid_desc(a, b);
}

/* perf's merge: the tasks of one comm in one row, walked from the highest tid, the first
 * keeping its tid and its maximum unless a later one's is larger. */
static size_t lat_merge(struct sched_lat_task **v, size_t n)
{
	qsort(v, n, sizeof(*v), lat_by_comm);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		struct sched_lat_task *t = v[i];
		if (out && !strcmp(v[out - 1]->comm, t->comm)) {
			struct sched_lat_task *m = v[out - 1];
			m->merged++;
			m->runtime += t->runtime;
			m->switches += t->switches;
			m->total_lat += t->total_lat;
			if (m->max_lat < t->max_lat) {
				m->max_lat = t->max_lat;
				m->max_start = t->max_start;
				m->max_end = t->max_end;
			}
			continue;
		}
		t->merged = 1;
		v[out++] = t;
	}
	return out;
}

void sched_lat_finish(struct sched_lat *l, struct machine *m, const int *keys, size_t nkeys)
{
	struct sched_lat_task **v = xcalloc(l->n ? l->n : 1, sizeof(*v));
	for (size_t i = 0; i < l->n; i++) {
		v[i] = &l->v[i];
		v[i]->comm = xstrdup(sched_comm(m, v[i]->tid));
	}
	size_t n = l->per_pid ? l->n : lat_merge(v, l->n);
	lat_sort_keys = keys;
	lat_sort_nkeys = nkeys;
	qsort(v, n, sizeof(*v), lat_order);
	l->nrows = 0;
	l->all_runtime = l->all_count = 0;
	for (size_t i = 0; i < n; i++) {
		if (!v[i]->switches || !strcmp(v[i]->comm, "swapper"))
			continue; /* perf shows only tasks with a delay measured, and not the idle tasks */
		l->all_runtime += v[i]->runtime;
		l->all_count += v[i]->switches;
		v[l->nrows++] = v[i];
	}
	free(l->rows);
	l->rows = v;
}

void sched_lat_free(struct sched_lat *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].comm);
	free(l->v);
	free(l->rows);
	free(l->curr);
	hashmap_free(&l->bytid);
	memset(l, 0, sizeof(*l));
}
