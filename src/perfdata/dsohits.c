/* Which DSOs a recording's samples hit (see dsohits.h). */
#include "perfdata/dsohits.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define KERNEL_NAME "[kernel.kallsyms]"

/* One process's maps, as indexes into d->maps in the order they came. */
struct dsohit_pid {
	size_t *v;
	size_t n, cap;
	size_t marked;            /* maps counted as hit by a stack copy (the first marked ones) */
};

static size_t dso_index(struct dsohits *d, const char *name, int32_t pid, uint8_t cpumode)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(&d->by_name, name, &found);
	if (found)
		return (size_t)(uintptr_t)e->value - 1;
	ALLOC_GROW(d->dsos, d->ndsos + 1, d->dcap);
	d->dsos[d->ndsos] = (struct dsohit_dso){ xstrdup(name), pid, cpumode, false };
	e->key.str = d->dsos[d->ndsos].name; /* the probe key was the caller's */
	e->value = (void *)(uintptr_t)(d->ndsos + 1);
	return d->ndsos++;
}

static void add_map(struct dsohits *d, uint32_t pid, uint64_t start, uint64_t end, size_t dso)
{
	ALLOC_GROW(d->maps, d->nmaps + 1, d->mcap);
	d->maps[d->nmaps] = (struct dsohit_map){ pid, start, end, dso };
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&d->by_pid, pid, &found);
	if (!found)
		e->value = xcalloc(1, sizeof(struct dsohit_pid));
	struct dsohit_pid *p = e->value;
	ALLOC_GROW(p->v, p->n + 1, p->cap);
	p->v[p->n++] = d->nmaps++;
}

static void on_mmap(struct dsohits *d, const struct perf_event_header *h)
{
	struct rec_mmap m;
	if (record_parse_mmap(h, &m) < 0 || m.data || !(m.prot & 4 /* PROT_EXEC */) || !m.len)
		return;
	bool kernel = m.pid == (uint32_t)-1;
	if (!kernel && m.filename[0] != '/' && strcmp(m.filename, "[vdso]"))
		return;
	size_t i = kernel ? dso_index(d, KERNEL_NAME, -1, PERF_RECORD_MISC_KERNEL)
			  : dso_index(d, m.filename, (int32_t)m.pid, PERF_RECORD_MISC_USER);
	if (kernel) /* the kernel's map and its modules' are hit by kernel-mode addresses below */
		return;
	add_map(d, m.pid, m.start, m.start + m.len, i);
}

static uint32_t parent_of(const struct dsohits *d, uint32_t pid)
{
	for (size_t i = d->nforks; i-- > 0;)
		if (d->forks[i][0] == pid)
			return d->forks[i][1];
	return 0;
}

static const struct dsohit_map *find_map(struct dsohits *d, uint32_t pid, uint64_t ip)
{
	if (d->last < d->nmaps) {
		const struct dsohit_map *m = &d->maps[d->last];
		if (m->pid == pid && ip >= m->start && ip < m->end)
			return m;
	}
	/* A child sees its parent's maps until it maps something there itself (bounded walk). */
	for (int depth = 0; pid && depth < 16; depth++, pid = parent_of(d, pid)) {
		struct hashmap_entry *e = hashmap_find_u64(&d->by_pid, pid);
		const struct dsohit_pid *p = e ? e->value : NULL;
		for (size_t k = p ? p->n : 0; k-- > 0;) { /* the newest map at an address wins */
			size_t i = p->v[k];
			if (ip >= d->maps[i].start && ip < d->maps[i].end) {
				d->last = i;
				return &d->maps[i];
			}
		}
	}
	return NULL;
}

static int hit(struct dsohits *d, size_t i)
{
	if (d->dsos[i].hit)
		return 0;
	d->dsos[i].hit = true;
	return d->first_hit ? d->first_hit(d->arg, &d->dsos[i]) : 0;
}

static int hit_addr(struct dsohits *d, uint32_t pid, uint64_t ip, bool kernel)
{
	if (kernel)
		return hit(d, dso_index(d, KERNEL_NAME, -1, PERF_RECORD_MISC_KERNEL));
	const struct dsohit_map *m = find_map(d, pid, ip);
	return m ? hit(d, m->dso) : 0;
}

/* A sample with a user stack copy (--call-graph dwarf) may be unwound through any DSO its process
 * maps: all of them count as hit (the process's own maps and its parents'), once each. */
static int hit_all_maps(struct dsohits *d, uint32_t pid)
{
	for (int depth = 0; pid && depth < 16; depth++, pid = parent_of(d, pid)) {
		struct hashmap_entry *e = hashmap_find_u64(&d->by_pid, pid);
		struct dsohit_pid *p = e ? e->value : NULL;
		for (; p && p->marked < p->n; p->marked++)
			if (hit(d, d->maps[p->v[p->marked]].dso) < 0)
				return -1;
	}
	return 0;
}

static int on_sample(struct dsohits *d, const struct evsel_set *ev, const struct perf_event_header *h)
{
	struct perf_sample s;
	if (sample_parse(ev, h, &s) < 0)
		return 0;
	if (s.user_stack && s.user_stack_size && hit_all_maps(d, s.pid) < 0)
		return -1;
	bool kernel = s.cpumode == PERF_RECORD_MISC_KERNEL || s.cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
	if (hit_addr(d, s.pid, s.ip, kernel) < 0)
		return -1;
	for (uint64_t i = 0; s.callchain && i < s.callchain_nr; i++) {
		uint64_t a = s.callchain[i];
		if (a >= PERF_CONTEXT_MAX) {
			kernel = a == PERF_CONTEXT_KERNEL;
			continue;
		}
		if (hit_addr(d, s.pid, a, kernel) < 0)
			return -1;
	}
	return 0;
}

int dsohits_record(struct dsohits *d, const struct evsel_set *ev, const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		on_mmap(d, h);
		return 0;
	case PERF_RECORD_FORK: {
		struct rec_task t;
		if (record_parse_task(h, &t) == 0 && t.pid != t.ppid) {
			ALLOC_GROW(d->forks, d->nforks + 1, d->fcap);
			d->forks[d->nforks][0] = t.pid;
			d->forks[d->nforks++][1] = t.ppid;
		}
		return 0;
	}
	case PERF_RECORD_SAMPLE:
		return on_sample(d, ev, h);
	default:
		return 0;
	}
}

void dsohits_free(struct dsohits *d)
{
	for (size_t i = 0; i < d->by_pid.n; i++) {
		struct dsohit_pid *p = d->by_pid.v[i].value;
		free(p->v);
		free(p);
	}
	hashmap_free(&d->by_pid);
	hashmap_free(&d->by_name);
	for (size_t i = 0; i < d->ndsos; i++)
		free(d->dsos[i].name);
	free(d->dsos);
	free(d->maps);
	free(d->forks);
	memset(d, 0, sizeof(*d));
}
