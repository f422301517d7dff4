/* JIT code in the machine: each process's perf map and jitdump, found through its mappings (an
 * executable anonymous mapping means a perf map; a jit-N.dump marker mapping, a jitdump), read
 * lazily once from the recording's stored copy or the file, and the lookups that turn a JIT
 * address (and the sample's time) into a DSO and a symbol. */
#include "model/machine_jit.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "symbols/jitdump.h"
#include "symbols/perfmap.h"
#include "util/error.h"
#include "util/xalloc.h"

/* A jitdump code's DSO, and the map that stands for it where no mapping was recorded. */
struct code_ref {
	struct dso *dso;
	struct map map;
};

struct jit_proc {
	pid_t pid;
	struct dso *pm;          /* its perf map DSO; NULL until a mapping or the data needs it */
	bool probed;             /* looked for a perf map file for addresses outside any mapping */
	char *jd_path;           /* from the marker mapping */
	uint8_t *jd_data;        /* supplied by the recording, until parsed */
	size_t jd_len;
	bool jd_supplied, jd_tried;
	struct jitdump *jd;
	char *jd_note;
	struct timespec jd_checked;
	struct code_ref *codes;  /* per jitdump code, made on first hit */
	size_t ncodes;
	struct map stand_in;     /* the map of perf map hits outside any recorded mapping */
	bool pm_used, jd_used;
	bool pm_supplied;
};

struct machine_jit {
	struct jit_proc **v;
	size_t n, cap;
	size_t *hash;            /* pid -> index + 1 */
	size_t hcap;
	struct jit_source *list; /* machine_jit_sources */
};

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

static struct jit_proc *proc_find(struct machine *m, pid_t pid)
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

static struct jit_proc *proc_get(struct machine *m, pid_t pid)
{
	struct jit_proc *p = proc_find(m, pid);
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

static struct dso *proc_map_dso(struct machine *m, struct jit_proc *p)
{
	if (!p->pm)
		p->pm = dso_cache_get_perfmap(&m->dsos, p->pid);
	return p->pm;
}

struct dso *machine_jit_map_dso(struct machine *m, pid_t pid)
{
	return proc_map_dso(m, proc_get(m, pid));
}

void machine_jit_marker(struct machine *m, pid_t pid, const char *filename)
{
	struct jit_proc *p = proc_get(m, pid);
	/* Once read, a dump stays: its code DSOs are in use. */
	if (p->jd_tried || p->jd_supplied)
		return;
	free(p->jd_path);
	p->jd_path = xstrdup(filename);
}

void machine_set_perfmap_data(struct machine *m, pid_t pid, const void *bytes, size_t len)
{
	struct jit_proc *p = proc_get(m, pid);
	struct dso *d = proc_map_dso(m, p);
	if (!d->loaded) {
		dso_set_perfmap_data(d, bytes, len);
		p->pm_supplied = true;
	}
}

void machine_set_jitdump_data(struct machine *m, pid_t pid, const void *bytes, size_t len)
{
	struct jit_proc *p = proc_get(m, pid);
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

static void set_note(struct jit_proc *p, char *note)
{
	free(p->jd_note);
	p->jd_note = note;
}

/* What the dump's parse left to say: damage, a skipped record, an unfinished tail. */
static void dump_note(struct jit_proc *p, size_t len)
{
	struct jitdump *jd = p->jd;
	if (jd->error)
		set_note(p, xstrdup(jd->error));
	else if (jd->bad_note)
		set_note(p, xasprintf("%zu bad record%s; first: %s", jd->stats.bad, jd->stats.bad == 1 ? "" : "s",
				      jd->bad_note));
	else if (jd->consumed < len)
		set_note(p, xasprintf("ends inside a record at offset %llu (still being written, or "
				      "truncated)", (unsigned long long)jd->consumed));
	else
		set_note(p, NULL);
}

static struct jitdump *proc_jitdump(struct machine *m, struct jit_proc *p)
{
	if (p->jd_tried || (!p->jd_supplied && !p->jd_path))
		return p->jd;
	p->jd_tried = true;
	if (p->jd_supplied) {
		p->jd = jitdump_parse(p->jd_data, p->jd_len);
		if (p->jd)
			dump_note(p, p->jd_len);
		else
			set_note(p, xasprintf("the jitdump of pid %d stored in the recording: %s", (int)p->pid,
					      err_msg()));
		free(p->jd_data);
		p->jd_data = NULL;
		return p->jd;
	}
	char *buf;
	size_t len;
	clock_gettime(CLOCK_MONOTONIC, &p->jd_checked);
	int r = perfmap_read_file(p->jd_path, m->dsos.jit_force, &buf, &len);
	if (r <= 0) {
		set_note(p, r < 0 ? xstrdup(err_msg()) : xasprintf("%s: no such file (gone since recording?)",
								  p->jd_path));
		return NULL;
	}
	p->jd = jitdump_new();
	/* Not final: a live process may still be writing the last record. */
	if (jitdump_feed(p->jd, buf, len, false) < 0) {
		set_note(p, xasprintf("%s: %s", p->jd_path, err_msg()));
		jitdump_free(p->jd);
		p->jd = NULL;
	} else {
		dump_note(p, len);
	}
	free(buf);
	return p->jd;
}

/* A live process's dump grows; read what was added (at most every 100 ms). */
static bool refresh_jitdump(struct machine *m, struct jit_proc *p)
{
	if (!p->jd || !p->jd_path || p->jd_supplied || p->jd->error)
		return false;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = (int64_t)(now.tv_sec - p->jd_checked.tv_sec) * 1000 +
		     (now.tv_nsec - p->jd_checked.tv_nsec) / 1000000;
	if (ms < 100)
		return false;
	p->jd_checked = now;
	struct stat st;
	if (lstat(p->jd_path, &st) < 0 || (uint64_t)st.st_size <= p->jd->consumed)
		return false;
	char *buf;
	size_t len;
	if (perfmap_read_file(p->jd_path, m->dsos.jit_force, &buf, &len) <= 0)
		return false;
	size_t before = p->jd->ncodes;
	if (len > p->jd->consumed && jitdump_feed(p->jd, buf + p->jd->consumed, len - p->jd->consumed, false) == 0)
		dump_note(p, len);
	free(buf);
	return p->jd->ncodes > before;
}

/* perf inject's name for a code load's ELF file: jitted-PID-INDEX.so beside the dump. */
static struct code_ref *code_ref(struct machine *m, struct jit_proc *p, const struct jitdump_code *c)
{
	if (c->idx >= p->ncodes) {
		size_t n = p->jd->ncodes;
		p->codes = xrealloc(p->codes, n * sizeof(*p->codes));
		memset(p->codes + p->ncodes, 0, (n - p->ncodes) * sizeof(*p->codes));
		p->ncodes = n;
	}
	struct code_ref *r = &p->codes[c->idx];
	if (!r->dso) {
		char *dir = xstrdup(p->jd_path ? p->jd_path : "/tmp/jit.dump");
		char *path = xasprintf("%s/jitted-%d-%llu.so", dirname(dir), c->pid ? (int)c->pid : (int)p->pid,
				       (unsigned long long)c->index);
		r->dso = dso_cache_add_jit_code(&m->dsos, path, c->addr, c->size, c->name);
		r->map = (struct map){ 0, UINT64_MAX, 0, PROT_READ | PROT_EXEC, 0, r->dso };
		free(path);
		free(dir);
	}
	return r;
}

/* Addresses outside any mapping are looked up only in processes known to have a perf map: one
 * supplied, one a mapping needed, or one found in /tmp (looked for once). */
static struct dso *unmapped_map_dso(struct machine *m, struct jit_proc *p)
{
	if (p->pm || p->probed)
		return p->pm;
	p->probed = true;
	char *path = perfmap_path(p->pid);
	struct stat st;
	if (lstat(path, &st) == 0)
		proc_map_dso(m, p);
	free(path);
	return p->pm;
}

static bool resolve_in(struct machine *m, struct jit_proc *p, const struct map *mp, uint64_t ip, uint64_t time,
		       struct addr_loc *out)
{
	struct jitdump *jd = proc_jitdump(m, p);
	if (jd) {
		uint64_t start;
		const struct jitdump_code *c = jitdump_find(jd, ip, time, &start);
		if (!c && refresh_jitdump(m, p))
			c = jitdump_find(jd, ip, time, &start);
		if (c) {
			struct code_ref *r = code_ref(m, p, c);
			out->dso = r->dso;
			out->sym = &r->dso->syms[0];
			/* A moved code keeps its DSO; addresses inside it are its load address's. */
			out->addr = c->addr + (ip - start);
			out->sym_off = ip - start;
			out->map = mp ? mp : &r->map;
			p->jd_used = true;
			return true;
		}
	}
	struct dso *d = mp && mp->dso->jit_pid == p->pid ? mp->dso : mp ? p->pm : unmapped_map_dso(m, p);
	if (!d)
		return false;
	const struct symbol *s = dso_find_symbol(d, ip);
	if (!s && perfmap_dso_refresh(d))
		s = dso_find_symbol(d, ip);
	if (!s)
		return false;
	out->dso = d;
	out->sym = s;
	out->addr = ip;
	out->sym_off = ip - s->start;
	p->pm_used = true;
	p->stand_in.dso = p->pm; /* d, when mp is NULL */
	out->map = mp ? mp : &p->stand_in;
	return true;
}

bool machine_jit_resolve(struct machine *m, struct thread *t, const struct map *mp, uint64_t ip, uint64_t time,
			 struct addr_loc *out)
{
	/* The thread's process first; then, for a mapping inherited over fork, the process whose
	 * perf map the mapping came from. */
	pid_t pids[2];
	size_t n = 0;
	if (t && t->pid > 0)
		pids[n++] = t->pid;
	if (mp && mp->dso->jit_pid > 0 && (!n || mp->dso->jit_pid != pids[0]))
		pids[n++] = mp->dso->jit_pid;
	for (size_t i = 0; i < n; i++)
		if (resolve_in(m, proc_get(m, pids[i]), mp, ip, time, out))
			return true;
	return false;
}

const struct jitdump_code *machine_jit_code(struct machine *m, struct thread *t, uint64_t ip, uint64_t time)
{
	if (!t || t->pid <= 0)
		return NULL;
	const struct map *mp = t->maps ? maps_find(t->maps, ip) : NULL;
	pid_t pids[2] = { t->pid, mp && mp->dso->jit_pid > 0 ? mp->dso->jit_pid : t->pid };
	for (size_t i = 0; i < 2; i++) {
		struct jit_proc *p = proc_find(m, pids[i]);
		struct jitdump *jd = p ? proc_jitdump(m, p) : NULL;
		const struct jitdump_code *c = jd ? jitdump_find(jd, ip, time, NULL) : NULL;
		if (c)
			return c;
	}
	return NULL;
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
