/* perf sched map: see sched.h. Each task gets a two-character short name the first time a CPU
 * switches to it ("A0".."Z0", "A1"..., "." for the idle task); each switch is one line with
 * what every CPU runs, the switching CPU starred. */
#include "analysis/sched.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void sched_map_init(struct sched_map *mp, struct machine *m, uint32_t ncpus)
{
	memset(mp, 0, sizeof(*mp));
	sched_hist_init(&mp->h, m, 1);
	mp->max_cpu = ncpus;
	mp->next1 = 'A';
	mp->next2 = '0';
}

static void map_grow(struct sched_map *mp, size_t n)
{
	if (n <= mp->ncpu)
		return;
	mp->curr = xrealloc(mp->curr, n * sizeof(*mp->curr));
	mp->cells = xrealloc(mp->cells, n * sizeof(*mp->cells));
	mp->cell_cpu = xrealloc(mp->cell_cpu, n * sizeof(*mp->cell_cpu));
	mp->shown_cpu = xrealloc(mp->shown_cpu, n * sizeof(*mp->shown_cpu));
	for (size_t i = mp->ncpu; i < n; i++)
		mp->curr[i] = NULL;
	mp->ncpu = n;
}

static struct sched_thr *map_task(struct sched_map *mp, int32_t tid)
{
	bool found;
	struct hashmap_entry *he = hashmap_insert_u64(&mp->h.thr, (uint64_t)(uint32_t)tid, &found);
	if (!found || !he->value) {
		struct sched_thr *t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->pid = -1;
		t->ppid = -1;
		he->value = t;
	}
	return he->value;
}

void sched_map_event(struct sched_map *mp, const struct sched_event *ev)
{
	if (ev->kind != SCHED_SWITCH)
		return;
	uint32_t this_cpu = ev->cpu;
	if (this_cpu > mp->max_cpu)
		mp->max_cpu = this_cpu;
	map_grow(mp, (size_t)(mp->max_cpu > this_cpu ? mp->max_cpu : this_cpu) + 1);
	bool new_cpu = false;
	if (mp->compact) {
		size_t k = 0;
		while (k < mp->ncols && mp->cell_cpu[k] != (int32_t)this_cpu)
			k++;
		if (k == mp->ncols) {
			mp->cell_cpu[mp->ncols++] = (int32_t)this_cpu;
			new_cpu = true;
		}
	} else {
		/* perf 6.1 shows the CPUs below the highest it knows of (this machine's count) */
		mp->ncols = mp->max_cpu;
		for (size_t k = 0; k < mp->ncols; k++)
			mp->cell_cpu[k] = (int32_t)k;
	}
	struct sched_thr *in = map_task(mp, ev->next_pid);
	mp->curr[this_cpu] = in; /* the task itself: a FORK may replace it meanwhile, as in perf */
	bool named = false;
	const char *comm = sched_comm(mp->h.m, ev->next_pid);
	if (!in->shortname[0]) {
		if (!strcmp(comm, "swapper")) {
			in->shortname[0] = '.';
			in->shortname[1] = ' ';
		} else {
			in->shortname[0] = mp->next1;
			in->shortname[1] = mp->next2;
			if (mp->next1 < 'Z') {
				mp->next1++;
			} else {
				mp->next1 = 'A';
				mp->next2 = mp->next2 < '9' ? (char)(mp->next2 + 1) : '0';
			}
		}
		named = true;
	}
	size_t shown = 0;
	for (size_t k = 0; k < mp->ncols; k++) {
		int32_t cpu = mp->cell_cpu[k];
		const struct sched_thr *t = mp->curr[cpu];
		if (mp->cpus && !cpuset_has(mp->cpus, cpu))
			continue;
		mp->shown_cpu[shown] = cpu;
		mp->cells[shown][0] = '\0';
		if (t)
			memcpy(mp->cells[shown], t->shortname, 3);
		shown++;
	}
	bool on = !mp->cpus || cpuset_has(mp->cpus, (int)this_cpu);
	struct sched_map_row r = { .time = ev->time, .this_cpu = this_cpu, .ncells = shown,
				   .cells = (const char (*)[3])mp->cells, .cell_cpu = mp->shown_cpu, .shown = on,
				   .named = named || in->comm_changed || (mp->verbose && ev->next_pid),
				   .shortname = in->shortname, .comm = comm, .tid = ev->next_pid,
				   .new_cpu = mp->compact && new_cpu };
	if (on && r.named)
		in->comm_changed = false;
	if (mp->row)
		mp->row(mp->arg, &r);
}

void sched_map_free(struct sched_map *mp)
{
	sched_hist_free(&mp->h);
	free(mp->curr);
	free(mp->cells);
	free(mp->cell_cpu);
	free(mp->shown_cpu);
	memset(mp, 0, sizeof(*mp));
}
