/* The machine: threads by tid, each process's address space, the kernel's maps, and address
 * resolution through them (after perf's machine.c, with its semantics for fork, exec and exit). */
#include "model/machine.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/machine_jit.h"
#include "symbols/jitdump.h"
#include "symbols/perfmap.h"
#include "util/xalloc.h"

void machine_init(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	hashmap_init(&m->threads, HASHMAP_U64);
	maps_init(&m->kmaps);
	maps_init(&m->ksyms);
	dso_cache_init(&m->dsos);
}

void machine_set_symfs(struct machine *m, const char *root)
{
	dso_cache_set_root(&m->dsos, root);
}

static void thread_free(struct thread *t)
{
	if (!t)
		return;
	maps_put(t->maps);
	free(t->comm);
	free(t->kcomm);
	free(t);
}

void machine_free(struct machine *m)
{
	for (size_t i = 0; i < m->threads.n; i++)
		thread_free(m->threads.v[i].value);
	for (size_t i = 0; i < m->nretired; i++)
		thread_free(m->retired[i]);
	hashmap_free(&m->threads);
	free(m->retired);
	maps_release(&m->kmaps);
	maps_release(&m->ksyms);
	machine_jit_free(m);
	dso_cache_free(&m->dsos);
	memset(m, 0, sizeof(*m));
}

struct thread *machine_find_thread(struct machine *m, pid_t tid)
{
	struct hashmap_entry *e = hashmap_find_u64(&m->threads, (uint64_t)(uint32_t)tid);
	return e ? e->value : NULL;
}

/* Puts t in the table; a thread already there with its tid (a reused tid) is retired, not freed,
 * because samples resolved earlier may still point at it. */
static void install(struct machine *m, struct thread *t)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&m->threads, (uint64_t)(uint32_t)t->tid, &found);
	if (found) {
		ALLOC_GROW(m->retired, m->nretired + 1, m->rcap);
		m->retired[m->nretired++] = e->value;
	}
	e->value = t;
}

static struct thread *thread_new(pid_t pid, pid_t tid)
{
	struct thread *t = xcalloc(1, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	/* The idle task is what the kernel calls swapper, as perf shows it. */
	if (pid == 0 && tid == 0) {
		t->comm = xstrdup("swapper");
		t->comm_set = true;
	} else {
		t->comm = xasprintf(":%d", (int)tid);
	}
	return t;
}

/* Threads of a process share the leader's address space. Their comm stays ":TID" until a COMM
 * names them, as in perf (FORK, the usual way a thread appears, does inherit the comm). */
static void join_process(struct machine *m, struct thread *t)
{
	struct thread *leader = machine_thread(m, t->pid, t->pid);
	maps_put(t->maps);
	t->maps = maps_get(leader->maps);
}

struct thread *machine_thread(struct machine *m, pid_t pid, pid_t tid)
{
	struct thread *t = machine_find_thread(m, tid);
	if (t) {
		if (pid < 0 || t->pid == pid)
			return t;
		if (t->pid < 0) {
			/* First seen without a pid: now we know its process. */
			t->pid = pid;
			if (pid != tid && !t->maps->n)
				join_process(m, t);
			return t;
		}
		/* The tid belongs to another process now: its FORK went missing. */
	}
	t = thread_new(pid, tid);
	t->maps = maps_new();
	install(m, t);
	if (pid >= 0 && pid != tid)
		join_process(m, t);
	return t;
}

void machine_comm(struct machine *m, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	struct thread *t = machine_thread(m, pid, tid);
	free(t->comm);
	free(t->kcomm);
	t->kcomm = NULL;
	t->comm = xstrdup(comm ? comm : "");
	t->comm_set = true;
	/* exec replaces the whole image; the MMAPs of the new one follow. The other threads of the
	 * process died in the exec, so clearing the shared maps is right for them too. */
	if (exec)
		maps_clear(t->maps);
}

void machine_rename(struct machine *m, pid_t pid, pid_t tid, const char *name)
{
	struct thread *t = machine_thread(m, pid, tid);
	if (t->kcomm)
		free(t->comm);
	else
		t->kcomm = t->comm;
	t->comm = xstrdup(name);
}

/* The kernel map proper is recorded from _text to _etext, but the kernel's code goes on past
 * it (.init.text: start_kernel, x86_64_start_kernel in every idle task's stack), so it is
 * extended to the end of the address space as perf does; module maps above it end it, rather
 * than split it around themselves. */
static void insert_kernel_map(struct machine *m, struct map *mp)
{
	bool is_kernel = mp->dso->kind == DSO_KERNEL && !mp->dso->module;
	if (is_kernel)
		mp->end = UINT64_MAX;
	if (is_kernel) { /* once or so per recording: a walk over the modules */
		const struct map *v = maps_view(&m->kmaps);
		for (size_t i = 0; i < m->kmaps.n; i++) {
			const struct map *k = &v[i];
			bool k_is_kernel = k->dso->kind == DSO_KERNEL && !k->dso->module;
			if (!k_is_kernel && k->start > mp->start && k->start < mp->end)
				mp->end = k->start;
		}
	} else { /* a module inside the kernel map ends it */
		const struct map *k = maps_find(&m->kmaps, mp->start);
		if (k && k->dso->kind == DSO_KERNEL && !k->dso->module && mp->start > k->start)
			maps_set_end(&m->kmaps, k->start, mp->start);
	}
	maps_insert(&m->kmaps, mp);
}

void machine_mmap(struct machine *m, pid_t pid, pid_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t prot, const char *filename, const uint8_t *build_id, size_t bid_size, bool kernel)
{
	if (!len)
		return;
	struct map mp = { start, start + len < start ? UINT64_MAX : start + len, pgoff, prot, 0, NULL };
	if (kernel || pid == -1) {
		if (!m->kernel_map_seen)
			maps_clear(&m->kmaps); /* drop the stand-in map of resolve_addr */
		m->kernel_map_seen = true;
		mp.dso = dso_cache_get_kernel(&m->dsos, filename, build_id, bid_size);
		insert_kernel_map(m, &mp);
		return;
	}
	struct thread *t = machine_thread(m, pid, tid);
	/* A JIT's marker mapping of its dump holds no code (perf inject drops it too). */
	if (filename && jitdump_is_marker(filename, NULL)) {
		if (pid > 0)
			machine_jit_marker(m, pid, filename);
		return;
	}
	if (pid > 0 && perfmap_covers_mapping(filename, prot))
		mp.dso = machine_jit_map_dso(m, pid);
	else
		mp.dso = dso_cache_get(&m->dsos, filename, build_id, bid_size);
	maps_insert(t->maps, &mp);
}

void machine_ksymbol(struct machine *m, uint64_t addr, uint32_t len, const char *name, bool unregister)
{
	uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
	/* An unloaded program keeps its code's name until other code is registered there: calls
	 * that entered it finish after the unregister record (the kernel frees it a grace period
	 * later), and no live kallsyms may name them. */
	if (unregister)
		return;
	const struct map *old = maps_find(&m->ksyms, addr);
	if (old && old->start == addr && old->end == end && !strcmp(old->dso->path, name))
		return; /* the same function again (synthesized, then seen loading) */
	struct map mp = { addr, end, 0, PROT_READ | PROT_EXEC, 0, dso_cache_ksymbol(&m->dsos, name, len) };
	maps_insert(&m->ksyms, &mp);
}

void machine_fork(struct machine *m, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid)
{
	struct thread *parent = machine_thread(m, ppid, ptid);
	struct thread *child = thread_new(pid, tid);
	free(child->comm);
	child->comm = xstrdup(parent->kcomm ? parent->kcomm : parent->comm); /* the kernel's name */
	child->comm_set = parent->comm_set;
	child->maps = pid == ppid ? maps_get(parent->maps) : maps_clone(parent->maps);
	install(m, child);
}

void machine_exit(struct machine *m, pid_t pid, pid_t tid)
{
	struct thread *t = machine_find_thread(m, tid);
	if (t)
		t->exited = true;
}
