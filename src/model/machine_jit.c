/* The JIT side of the machine model: per process, what the record stream and the recording say
 * about its JIT symbol sources (the jitdump marker mapping's path, its perf map DSO, the copies a
 * recording stored) and the state resolve/jit.c keeps while it reads them. No file is read here. */
#include "model/machine_jit.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symbols/jitdump.h"
#include "util/xalloc.h"

struct jit_proc *machine_jit_find(struct machine *m, pid_t pid)
{
	struct hashmap_entry *e = m->jit ? hashmap_find_u64(&m->jit->procs, (uint64_t)(uint32_t)pid) : NULL;
	return e ? e->value : NULL;
}

struct jit_proc *machine_jit_proc(struct machine *m, pid_t pid)
{
	if (!m->jit) {
		m->jit = xcalloc(1, sizeof(*m->jit));
		hashmap_init(&m->jit->procs, HASHMAP_U64);
	}
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&m->jit->procs, (uint64_t)(uint32_t)pid, &found);
	if (found)
		return e->value;
	struct jit_proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->stand_in = (struct map){ 0, UINT64_MAX, 0, PROT_READ | PROT_EXEC, 0, NULL };
	e->value = p;
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
	j->list = xcalloc(j->procs.n ? j->procs.n : 1, sizeof(*j->list));
	size_t n = 0;
	for (size_t i = 0; i < j->procs.n; i++) {
		struct jit_proc *p = j->procs.v[i].value;
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
		s->perfmap_note = have_pm && p->pm->loaded ? dso_load_note(p->pm) : NULL;
		s->jitdump_note = notes_last(&p->jd_notes);
	}
	*out = j->list;
	return n;
}

void machine_jit_free(struct machine *m)
{
	struct machine_jit *j = m->jit;
	if (!j)
		return;
	for (size_t i = 0; i < j->procs.n; i++) {
		struct jit_proc *p = j->procs.v[i].value;
		free(p->jd_path);
		free(p->jd_data);
		notes_clear(&p->jd_notes);
		jitdump_free(p->jd);
		free(p->codes);
		free(p);
	}
	hashmap_free(&j->procs);
	free(j->list);
	free(j);
	m->jit = NULL;
}
