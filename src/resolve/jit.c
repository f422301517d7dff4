/* JIT code resolution: each process's jitdump and perf map, read lazily once from the
 * recording's stored copy or the file, and the lookups that turn a JIT address (and the sample's
 * time) into a DSO and a symbol. The per-process state lives in the model (model/machine_jit.h). */
#include "resolve/resolve.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "model/machine_jit.h"
#include "symbols/jitdump.h"
#include "symbols/perfmap.h"
#include "util/error.h"
#include "util/xalloc.h"

/* The dump's note is its current state: a new one replaces the old, NULL clears it. */
static void set_note(struct jit_proc *p, char *note)
{
	notes_clear(&p->jd_notes);
	notes_take(&p->jd_notes, note);
}

/* What the dump's parse left to say: damage, a skipped record, an unfinished tail. */
static void dump_note(struct jit_proc *p, size_t len)
{
	struct jitdump *jd = p->jd;
	if (jd->error)
		set_note(p, xstrdup(jd->error));
	else if (jd->bad.n)
		set_note(p, xasprintf("%zu bad record%s; first: %s", jd->stats.bad, jd->stats.bad == 1 ? "" : "s",
				      jd->bad.v[0]));
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
		machine_jit_proc_map_dso(m, p);
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
	struct dso *d = mp && mp->dso->jit.pid == p->pid ? mp->dso : mp ? p->pm : unmapped_map_dso(m, p);
	if (!d)
		return false;
	const struct symbol *s = dso_find_symbol(d, ip);
	if (!s && dso_perfmap_refresh(d))
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

bool resolve_jit(struct machine *m, struct thread *t, const struct map *mp, uint64_t ip, uint64_t time,
			 struct addr_loc *out)
{
	/* The thread's process first; then, for a mapping inherited over fork, the process whose
	 * perf map the mapping came from. */
	pid_t pids[2];
	size_t n = 0;
	if (t && t->pid > 0)
		pids[n++] = t->pid;
	if (mp && mp->dso->jit.pid > 0 && (!n || mp->dso->jit.pid != pids[0]))
		pids[n++] = mp->dso->jit.pid;
	for (size_t i = 0; i < n; i++)
		if (resolve_in(m, machine_jit_proc(m, pids[i]), mp, ip, time, out))
			return true;
	return false;
}

const struct jitdump_code *resolve_jit_code(struct machine *m, struct thread *t, uint64_t ip, uint64_t time)
{
	if (!t || t->pid <= 0)
		return NULL;
	const struct map *mp = t->maps ? maps_find(t->maps, ip) : NULL;
	pid_t pids[2] = { t->pid, mp && mp->dso->jit.pid > 0 ? mp->dso->jit.pid : t->pid };
	for (size_t i = 0; i < 2; i++) {
		struct jit_proc *p = machine_jit_find(m, pids[i]);
		struct jitdump *jd = p ? proc_jitdump(m, p) : NULL;
		const struct jitdump_code *c = jd ? jitdump_find(jd, ip, time, NULL) : NULL;
		if (c)
			return c;
	}
	return NULL;
}

