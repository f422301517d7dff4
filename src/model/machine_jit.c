/* The JIT side of the machine model: per process, what the record stream and the recording say
 * about its JIT symbol sources (the jitdump marker mapping's path, its perf map DSO, the copies a
 * recording stored) and the state resolve/jit.c keeps while it reads them. No file is read here. */
#include "model/machine_jit.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symbols/jitdump.h"
#include "util/xalloc.h"

static size_t pid_hash(pid_t pid)
{
	return (size_t)((uint32_t)pid * 2654435761u);
}

static void hash_insert(struct machine_jit *j, size_t i)
{
	size_t mask = j->hcap - 1;
	size_t s = pid_hash(j->v[i]->pid) & mask;
	while (j->hash[s])
		s = (s + 1) & mask;
	j->hash[s] = i + 1;
}

struct jit_proc *machine_jit_find(struct machine *m, pid_t pid)
{
	struct machine_jit *j = m->jit;
	if (!j || !j->hcap)
		return NULL;
	size_t mask = j->hcap - 1;
	for (size_t s = pid_hash(pid) & mask; j->hash[s]; s = (s + 1) & mask)
		if (j->v[j->hash[s] - 1]->pid == pid)
			return j->v[j->hash[s] - 1];
	return NULL;
}

struct jit_proc *machine_jit_proc(struct machine *m, pid_t pid)
{
	struct jit_proc *p = machine_jit_find(m, pid);
	if (p)
		return p;
	if (!m->jit)
		m->jit = xcalloc(1, sizeof(*m->jit));
	struct machine_jit *j = m->jit;
	if ((j->n + 1) * 2 > j->hcap) {
		free(j->hash);
		j->hcap = j->hcap ? j->hcap * 2 : 64;
		j->hash = xcalloc(j->hcap, sizeof(*j->hash));
		for (size_t i = 0; i < j->n; i++)
			hash_insert(j, i);
	}
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->stand_in = (struct map){ 0, UINT64_MAX, 0, PROT_READ | PROT_EXEC, 0, NULL };
	ALLOC_GROW(j->v, j->n + 1, j->cap);
	j->v[j->n++] = p;
	hash_insert(j, j->n - 1);
	return p;
}

struct dso *machine_jit_proc_map_dso(struct machine *m, struct jit_proc *p)
{
	if (!p->pm)
		p->pm = dso_cache_get_perfmap(&m->dsos, p->pid);
	return p->pm;
}

struct dso *machine_jit_map_dso(struct machine *m, pid_t pid)
{
	return machine_jit_proc_map_dso(m, machine_jit_proc(m, pid));
}

void machine_jit_marker(struct machine *m, pid_t pid, const char *filename)
{
	struct jit_proc *p = machine_jit_proc(m, pid);
	/* Once read, a dump stays: its code DSOs are in use. */
	if (p->jd_tried || p->jd_supplied)
		return;
	free(p->jd_path);
	p->jd_path = xstrdup(filename);
}

void machine_set_perfmap_data(struct machine *m, pid_t pid, const void *bytes, size_t len)
{
	struct jit_proc *p = machine_jit_proc(m, pid);
	struct dso *d = machine_jit_proc_map_dso(m, p);
	if (!d->loaded) {
		dso_set_perfmap_data(d, bytes, len);
		p->pm_supplied = true;
	}
}

void machine_set_jitdump_data(struct machine *m, pid_t pid, const void *bytes, size_t len)
{
	struct jit_proc *p = machine_jit_proc(m, pid);
	if (p->jd_tried)
		return;
	free(p->jd_data);
	p->jd_data = xmalloc(len ? len : 1);
	if (len)
		memcpy(p->jd_data, bytes, len);
	p->jd_len = len;
	p->jd_supplied = true;
}

void machine_perfmap_path_policy(struct machine *m, bool force)
{
	dso_cache_set_jit_force(&m->dsos, force);
}

size_t machine_jit_sources(struct machine *m, const struct jit_source **out)
{
	struct machine_jit *j = m->jit;
	*out = NULL;
	if (!j)
		return 0;
	free(j->list);
	j->list = xcalloc(j->n ? j->n : 1, sizeof(*j->list));
	size_t n = 0;
	for (size_t i = 0; i < j->n; i++) {
		struct jit_proc *p = j->v[i];
		bool have_pm = p->pm != NULL, have_jd = p->jd_path || p->jd_supplied;
		if (!have_pm && !have_jd)
			continue;
		struct jit_source *s = &j->list[n++];
		s->pid = p->pid;
		s->perfmap_path = have_pm ? p->pm->path : NULL;
		s->jitdump_path = p->jd_path;
		s->perfmap_used = p->pm_used;
		s->jitdump_used = p->jd_used;
		s->perfmap_supplied = p->pm_supplied;
		s->jitdump_supplied = p->jd_supplied;
		s->perfmap_note = have_pm && p->pm->loaded ? p->pm->load_note : NULL;
		s->jitdump_note = p->jd_note;
	}
	*out = j->list;
	return n;
}

void machine_jit_free(struct machine *m)
{
	struct machine_jit *j = m->jit;
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		struct jit_proc *p = j->v[i];
		free(p->jd_path);
		free(p->jd_data);
		free(p->jd_note);
		jitdump_free(p->jd);
		free(p->codes);
		free(p);
	}
	free(j->v);
	free(j->hash);
	free(j->list);
	free(j);
	m->jit = NULL;
}
