/* Synthesis: the records that describe what already exists when a recording starts (the
 * kernel and its modules, running processes, their threads and executable mappings), built as
 * perf 6.1 builds them so that perf and lperf readers see the same thing. */
#include "live/live.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "record/record.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

/* Large enough for any record a builder makes from a /proc line (PATH_MAX names). */
#define SYNTH_BUF 16384
#define MODDIR_MAX_DEPTH 8

struct synth {
	const struct perf_event_attr *attr;
	record_cb cb;
	void *arg;
	uint64_t buf[SYNTH_BUF / 8];
};

static int emit(struct synth *s, size_t n, const char *what)
{
	if (n == 0 || n > sizeof(s->buf))
		return err_set("cannot build the %s record (name too long?)", what);
	if (s->cb((const struct perf_event_header *)s->buf, s->arg) != 0)
		return -1;
	return 0;
}

static int emit_mmap(struct synth *s, const struct rec_mmap *m)
{
	return emit(s, record_build_mmap(s->buf, sizeof(s->buf), s->attr, m), "MMAP");
}

static int emit_mmap2(struct synth *s, const struct rec_mmap *m)
{
	return emit(s, record_build_mmap2(s->buf, sizeof(s->buf), s->attr, m), "MMAP2");
}

/* ---- the kernel and its modules ---- */

struct kmod {
	char *name;      /* as in /proc/modules */
	char *path;      /* its .ko, or NULL */
	uint64_t start, size;
};

struct kernel_syms {
	uint64_t text, etext;
	const char *text_name; /* "_text" or "_stext" */
	bool have_text, have_stext, have_etext;
	uint64_t stext;
};

/* Scans /proc/kallsyms ("ADDR TYPE NAME [MODULE]") for _text, _stext and _etext. */
static void read_kallsyms(const char *path, struct kernel_syms *k)
{
	memset(k, 0, sizeof(*k));
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		char *end;
		errno = 0;
		unsigned long long addr = strtoull(line, &end, 16);
		if (end == line || errno || *end != ' ')
			continue;
		/* Skip " T " to the name; the type is one character. */
		if (!end[1] || end[2] != ' ')
			continue;
		char *name = end + 3;
		size_t n = strcspn(name, " \t\n");
		if (name[n] == ' ' || name[n] == '\t')
			continue; /* a module's symbol ("name [mod]") */
		name[n] = 0;
		if (!k->have_text && !strcmp(name, "_text")) {
			k->text = addr;
			k->have_text = true;
		} else if (!k->have_stext && !strcmp(name, "_stext")) {
			k->stext = addr;
			k->have_stext = true;
		} else if (!k->have_etext && !strcmp(name, "_etext")) {
			k->etext = addr;
			k->have_etext = true;
		}
		if (k->have_text && k->have_etext)
			break;
	}
	free(line);
	fclose(f);
	if (k->have_text) {
		k->text_name = "_text";
	} else if (k->have_stext) {
		k->text = k->stext;
		k->text_name = "_stext";
	} else {
		k->text_name = "_text";
	}
}

/* /proc/modules: "name size refcount deps state address [taint]". Malformed lines are skipped. */
static size_t read_modules(const char *path, struct kmod **out)
{
	*out = NULL;
	FILE *f = path ? fopen(path, "re") : NULL;
	if (!f)
		return 0;
	struct kmod *v = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	while (getline(&line, &lcap, f) > 0) {
		char name[64];
		unsigned long long size, addr;
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) != 3)
			continue;
		if (strchr(name, '/') || size == 0)
			continue;
		ALLOC_GROW(v, n + 1, cap);
		v[n].name = xstrdup(name);
		v[n].path = NULL;
		v[n].start = addr;
		v[n].size = size;
		n++;
	}
	free(line);
	fclose(f);
	*out = v;
	return n;
}

/* "snd-hda.ko.xz" -> "snd_hda" when it names a kernel module file, else NULL. */
static char *kmod_file_name(const char *base)
{
	static const char *const exts[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst" };
	size_t len = strlen(base);
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		size_t el = strlen(exts[i]);
		if (len > el && !strcmp(base + len - el, exts[i])) {
			char *name = xstrndup(base, len - el);
			for (char *p = name; *p; p++)
				if (*p == '-')
					*p = '_';
			return name;
		}
	}
	return NULL;
}

/* Walks the module tree (not following links; skipping the top-level source and build links
 * as perf does) and gives each loaded module the path of its file. */
static void find_module_paths(const char *dir, int depth, struct kmod *mods, size_t nmods)
{
	if (depth > MODDIR_MAX_DEPTH)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (depth == 0 && (!strcmp(de->d_name, "source") || !strcmp(de->d_name, "build")))
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		unsigned char type = de->d_type;
		struct stat st;
		if (type == DT_UNKNOWN && lstat(path, &st) == 0)
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
		if (type == DT_DIR) {
			find_module_paths(path, depth + 1, mods, nmods);
		} else if (type == DT_REG) {
			char *name = kmod_file_name(de->d_name);
			for (size_t i = 0; name && i < nmods; i++) {
				if (!mods[i].path && !strcmp(mods[i].name, name)) {
					mods[i].path = path;
					path = NULL;
					break;
				}
			}
			free(name);
		}
		free(path);
	}
	closedir(d);
}

int synth_kernel_from(const struct perf_event_attr *attr, const char *kallsyms, const char *modules,
		      const char *moddir, record_cb cb, void *arg)
{
	struct synth *s = xmalloc(sizeof(*s));
	s->attr = attr;
	s->cb = cb;
	s->arg = arg;
	struct kernel_syms k;
	read_kallsyms(kallsyms, &k);
	struct kmod *mods;
	size_t nmods = read_modules(modules, &mods);
	if (nmods && moddir)
		find_module_paths(moddir, 0, mods, nmods);

	/* perf 6.1: the map ends at _etext; without it, at the next map (the lowest module
	 * above); without one, at ~0. Hidden addresses are all 0, so the map covers everything. */
	uint64_t start = k.text, end = ~0ULL;
	if (k.have_etext && k.etext > start) {
		end = k.etext;
	} else {
		for (size_t i = 0; i < nmods; i++)
			if (mods[i].start > start && mods[i].start < end)
				end = mods[i].start;
	}
	char filename[64];
	snprintf(filename, sizeof(filename), "[kernel.kallsyms]%s", k.text_name);
	struct rec_mmap m = {
		.pid = (uint32_t)-1,
		.tid = 0,
		.start = start,
		.len = end - start,
		.pgoff = start,
		.prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE,
		.filename = filename,
		.cpumode = PERF_RECORD_MISC_KERNEL,
	};
	int ret = emit_mmap(s, &m);
	for (size_t i = 0; i < nmods && ret == 0; i++) {
		char *bracketed = NULL;
		if (!mods[i].path)
			bracketed = xasprintf("[%s]", mods[i].name);
		m.start = mods[i].start;
		m.len = mods[i].size;
		m.pgoff = 0;
		m.filename = mods[i].path ? mods[i].path : bracketed;
		ret = emit_mmap(s, &m);
		free(bracketed);
	}
	for (size_t i = 0; i < nmods; i++) {
		free(mods[i].name);
		free(mods[i].path);
	}
	free(mods);
	free(s);
	return ret;
}

int synth_kernel(const struct perf_event_attr *attr, record_cb cb, void *arg)
{
	struct utsname u;
	char *moddir = NULL;
	if (uname(&u) == 0 && !strchr(u.release, '/'))
		moddir = xasprintf("/lib/modules/%s", u.release);
	int ret = synth_kernel_from(attr, "/proc/kallsyms", "/proc/modules", moddir, cb, arg);
	free(moddir);
	return ret;
}

/* ---- processes ---- */

static bool parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	if (!isxdigit((unsigned char)*s))
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 16);
	if (errno)
		return false;
	*v = x;
	*p = end;
	return true;
}

static bool parse_dec(const char **p, uint64_t *v)
{
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno)
		return false;
	*v = x;
	*p = end;
	return true;
}

static bool expect(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/* One /proc/PID/maps line: "start-end perms offset maj:min inode   path" (path may be empty or
 * hold spaces). Fills m (name points into line, which loses its newline); false if malformed. */
static bool parse_maps_line(char *line, struct rec_mmap *m, char perms[5])
{
	const char *p = line;
	uint64_t start, end, off, maj, min, ino;
	if (!parse_hex(&p, &start) || !expect(&p, '-') || !parse_hex(&p, &end) || !expect(&p, ' '))
		return false;
	for (int i = 0; i < 4; i++) {
		if (!p[i] || p[i] == ' ' || p[i] == '\n')
			return false;
		perms[i] = p[i];
	}
	perms[4] = 0;
	p += 4;
	if (!expect(&p, ' ') || !parse_hex(&p, &off) || !expect(&p, ' ') || !parse_hex(&p, &maj) ||
	    !expect(&p, ':') || !parse_hex(&p, &min) || !expect(&p, ' ') || !parse_dec(&p, &ino))
		return false;
	if (*p && *p != ' ' && *p != '\n')
		return false;
	if (end <= start || maj > UINT32_MAX || min > UINT32_MAX)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	char *name = line + (p - line);
	size_t n = strlen(name);
	if (n && name[n - 1] == '\n')
		name[--n] = 0;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->len = end - start;
	m->pgoff = off;
	m->maj = (uint32_t)maj;
	m->min = (uint32_t)min;
	m->ino = ino;
	m->filename = name;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->cpumode = PERF_RECORD_MISC_USER;
	return true;
}

static int synth_mmaps(struct synth *s, pid_t tgid, const char *maps_path)
{
	FILE *f = fopen(maps_path, "re");
	if (!f)
		return 0; /* exited, or a kernel thread's empty view: nothing to say */
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	while (ret == 0 && getline(&line, &cap, f) > 0) {
		struct rec_mmap m;
		char perms[5];
		if (!parse_maps_line(line, &m, perms) || perms[2] != 'x')
			continue;
		if (!m.filename[0])
			m.filename = "//anon";
		m.pid = m.tid = (uint32_t)tgid;
		ret = emit_mmap2(s, &m);
	}
	free(line);
	fclose(f);
	return ret;
}

int synth_mmaps_from(const struct perf_event_attr *attr, pid_t pid, const char *maps_path,
		     record_cb cb, void *arg)
{
	struct synth *s = xmalloc(sizeof(*s));
	s->attr = attr;
	s->cb = cb;
	s->arg = arg;
	int ret = synth_mmaps(s, pid, maps_path);
	free(s);
	return ret;
}

/* The thread's name from /proc/PID/task/TID/comm; false when it is gone. */
static bool read_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	char *c = file_read(path, 256, NULL);
	if (!c) {
		err_clear();
		return false;
	}
	size_t n = strcspn(c, "\n");
	c[n] = 0;
	snprintf(buf, size, "%s", c);
	free(c);
	return true;
}

/* Tgid from /proc/PID/status (pid may name a thread); pid itself when unreadable. */
static pid_t read_tgid(pid_t pid)
{
	pid_t tgid = proc_tgid(pid);
	return tgid ? tgid : pid;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* The numeric entries of a /proc directory, sorted. */
static size_t list_pids(const char *dir, pid_t **out)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		errno = 0;
		long x = strtol(de->d_name, &end, 10);
		if (!isdigit((unsigned char)de->d_name[0]) || *end || errno || x <= 0 || x > INT32_MAX)
			continue;
		ALLOC_GROW(v, n + 1, cap);
		v[n++] = (pid_t)x;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_pid);
	*out = v;
	return n;
}

static int synth_one_process(struct synth *s, pid_t pid)
{
	pid_t tgid = read_tgid(pid);
	char dir[64], comm[256];
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)tgid);
	pid_t *tids;
	size_t n = list_pids(dir, &tids);
	int ret = 0;
	/* The leader first (its name and maps), then each other thread as a FORK from the leader
	 * and its own name: perf's view of a process whose threads the leader created. */
	if (read_comm(tgid, tgid, comm, sizeof(comm))) {
		ret = emit(s, record_build_comm(s->buf, sizeof(s->buf), s->attr, (uint32_t)tgid,
						(uint32_t)tgid, comm, false), "COMM");
		if (ret == 0) {
			char maps[64];
			snprintf(maps, sizeof(maps), "/proc/%d/task/%d/maps", (int)tgid, (int)tgid);
			ret = synth_mmaps(s, tgid, maps);
		}
	}
	for (size_t i = 0; i < n && ret == 0; i++) {
		if (tids[i] == tgid || !read_comm(tgid, tids[i], comm, sizeof(comm)))
			continue;
		struct rec_task t = {
			.pid = (uint32_t)tgid,
			.ppid = (uint32_t)tgid,
			.tid = (uint32_t)tids[i],
			.ptid = (uint32_t)tgid,
			.time = 0,
		};
		ret = emit(s, record_build_task(s->buf, sizeof(s->buf), s->attr, PERF_RECORD_FORK, &t),
			   "FORK");
		if (ret == 0)
			ret = emit(s, record_build_comm(s->buf, sizeof(s->buf), s->attr, (uint32_t)tgid,
							(uint32_t)tids[i], comm, false), "COMM");
	}
	free(tids);
	return ret;
}

int synth_process(const struct perf_event_attr *attr, pid_t pid, record_cb cb, void *arg)
{
	struct synth *s = xmalloc(sizeof(*s));
	s->attr = attr;
	s->cb = cb;
	s->arg = arg;
	int ret = synth_one_process(s, pid);
	free(s);
	return ret;
}

int synth_all_processes(const struct perf_event_attr *attr, record_cb cb, void *arg)
{
	struct synth *s = xmalloc(sizeof(*s));
	s->attr = attr;
	s->cb = cb;
	s->arg = arg;
	pid_t *pids;
	size_t n = list_pids("/proc", &pids);
	int ret = 0;
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = synth_one_process(s, pids[i]);
	free(pids);
	free(s);
	return ret;
}

/* The parent of pid from /proc/pid/stat (after the command's closing parenthesis); 0 when it
 * cannot be read. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *paren = strrchr(buf, ')');
	int ppid = 0;
	if (!paren || sscanf(paren + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

int synth_process_tree(const struct perf_event_attr *attr, pid_t pid, record_cb cb, void *arg)
{
	pid_t *pids;
	size_t n = list_pids("/proc", &pids);
	pid_t *parent = xcalloc(n ? n : 1, sizeof(*parent));
	bool *in = xcalloc(n ? n : 1, sizeof(*in));
	for (size_t i = 0; i < n; i++) {
		parent[i] = parent_of(pids[i]);
		in[i] = pids[i] == pid;
	}
	/* Descendants, to a fixed point: a process is in when its parent is. */
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < n; i++) {
			if (in[i] || !parent[i])
				continue;
			pid_t *hit = bsearch(&parent[i], pids, n, sizeof(*pids), cmp_pid);
			if (hit && in[hit - pids])
				in[i] = more = true;
		}
	}
	struct synth *s = xmalloc(sizeof(*s));
	*s = (struct synth){ .attr = attr, .cb = cb, .arg = arg };
	int ret = synth_process(attr, pid, cb, arg);
	for (size_t i = 0; i < n && ret == 0; i++)
		if (in[i] && pids[i] != pid)
			ret = synth_one_process(s, pids[i]);
	free(s);
	free(in);
	free(parent);
	free(pids);
	return ret;
}
