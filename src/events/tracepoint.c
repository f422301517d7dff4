#include "events/tracepoint.h"

#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fileio.h"
#include "util/suggest.h"
#include "util/xalloc.h"

#define TP_MAX_WORD 255

static char *dir_cache;

static bool is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* As perf does: where tracefs is not mounted and lperf may mount it (root), mount it at
 * /sys/kernel/tracing. Only on the real /sys, never in a fixture tree. */
static bool mount_tracefs(void)
{
	static bool tried;
	if (tried || strcmp(sysfs_root(), "/sys") || geteuid() != 0)
		return false;
	tried = true;
	return is_dir("/sys/kernel/tracing") && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0;
}

static const char *find_dir(void)
{
	static const char *const where[] = { "kernel/tracing", "kernel/debug/tracing" };
	free(dir_cache);
	dir_cache = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		char *d = xasprintf("%s/%s", sysfs_root(), where[i]);
		char *ev = xasprintf("%s/events", d);
		bool ok = is_dir(ev);
		free(ev);
		if (ok) {
			dir_cache = d;
			return d;
		}
		free(d);
	}
	return NULL;
}

const char *tp_dir(void)
{
	const char *d = find_dir();
	if (!d && mount_tracefs())
		d = find_dir();
	return d;
}

/* Words become path components, so they must not be able to climb out of tracefs. */
static bool word_ok(const char *s, size_t n)
{
	if (!n || n > TP_MAX_WORD || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
			return false;
	return true;
}

bool tp_is_name(const char *name)
{
	const char *c = strchr(name, ':');
	return c && !strchr(c + 1, ':') && word_ok(name, (size_t)(c - name)) &&
	       word_ok(c + 1, strlen(c + 1));
}

static int dirs_only(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* Sorted subdirectory names of path that satisfy word_ok; NULL-free count in *n. */
static char **list_dirs(const char *path, size_t *n)
{
	struct dirent **ents;
	int k = scandir(path, &ents, dirs_only, alphasort);
	*n = 0;
	if (k <= 0)
		return NULL;
	char **out = xcalloc((size_t)k, sizeof(char *));
	for (int i = 0; i < k; i++) {
		const char *nm = ents[i]->d_name;
		char *full = xasprintf("%s/%s", path, nm);
		if (word_ok(nm, strlen(nm)) && is_dir(full))
			out[(*n)++] = xstrdup(nm);
		free(full);
		free(ents[i]);
	}
	free(ents);
	return out;
}

static void free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static int unknown_event(const char *dir, const char *subsys, const char *ev, const char *name)
{
	char *sdir = xasprintf("%s/events/%s", dir, subsys);
	size_t n;
	char **names = list_dirs(sdir, &n);
	struct suggest s;
	suggest_init(&s, ev);
	for (size_t i = 0; i < n; i++)
		suggest_offer(&s, names[i]);
	char hint[512] = "";
	if (s.n) {
		/* offer the full "subsys:name" spellings */
		char *full[3];
		struct suggest f;
		suggest_init(&f, name);
		for (size_t i = 0; i < s.n; i++) {
			full[i] = xasprintf("%s:%s", subsys, s.best[i]);
			suggest_offer(&f, full[i]);
		}
		if (!f.n) /* a long subsystem name can push them past the typo distance */
			for (size_t i = 0; i < s.n; i++)
				f.best[f.n++] = full[i];
		suggest_format(&f, hint, sizeof(hint));
		for (size_t i = 0; i < s.n; i++)
			free(full[i]);
	}
	err_set("unknown tracepoint '%s' (no %s/%s/id)%s", name, sdir, ev, hint);
	free_list(names, n);
	free(sdir);
	return -1;
}

int tp_lookup(const char *name, uint64_t *id)
{
	if (!tp_is_name(name))
		return 0;
	const char *dir = tp_dir();
	if (!dir)
		return 0;
	const char *c = strchr(name, ':');
	char *subsys = xstrndup(name, (size_t)(c - name));
	const char *ev = c + 1;
	char *sdir = xasprintf("%s/events/%s", dir, subsys);
	int r = 0;
	if (is_dir(sdir)) {
		char *edir = xasprintf("%s/%s", sdir, ev);
		if (!is_dir(edir)) {
			r = unknown_event(dir, subsys, ev, name);
		} else {
			char *path = xasprintf("%s/id", edir);
			r = file_read_u64(path, id) < 0 ? -1 : 1;
			if (r < 0)
				err_wrap("tracepoint '%s'", name);
			free(path);
		}
		free(edir);
	}
	free(sdir);
	free(subsys);
	return r;
}

long tp_for_each(tp_fn fn, void *arg)
{
	const char *d = tp_dir();
	if (!d)
		return 0;
	char *events = xasprintf("%s/events", d);
	size_t ns;
	char **subs = list_dirs(events, &ns);
	long count = 0;
	for (size_t i = 0; i < ns; i++) {
		char *sdir = xasprintf("%s/%s", events, subs[i]);
		size_t ne;
		char **evs = list_dirs(sdir, &ne);
		for (size_t j = 0; j < ne; j++) {
			char *path = xasprintf("%s/%s/id", sdir, evs[j]);
			uint64_t id;
			if (file_read_u64(path, &id) == 0) {
				char *nm = xasprintf("%s:%s", subs[i], evs[j]);
				fn(nm, id, arg);
				free(nm);
				count++;
			}
			free(path);
		}
		free_list(evs, ne);
		free(sdir);
	}
	free_list(subs, ns);
	free(events);
	return count;
}

int tp_denied(const char *what)
{
	const char *d = tp_dir() ? NULL : tracefs_denied();
	if (!d)
		return 0;
	return err_set("%s: no permission to read tracefs at %s (it is mounted, but only root may search it); "
		       "try 'sudo mount -o remount,mode=755 %s', or run as root", what, d, d);
}

void tp_hint(const char *name, char *buf, size_t size)
{
	buf[0] = 0;
	if (!tp_is_name(name))
		return;
	const char *d = tp_dir();
	if (!d) {
		snprintf(buf, size, " (no tracefs under %s/kernel/tracing or %s/kernel/debug/tracing; "
			 "mount it with 'mount -t tracefs nodev /sys/kernel/tracing')",
			 sysfs_root(), sysfs_root());
		return;
	}
	const char *c = strchr(name, ':');
	char *subsys = xstrndup(name, (size_t)(c - name));
	char *events = xasprintf("%s/events", d);
	size_t ns;
	char **subs = list_dirs(events, &ns);
	struct suggest s;
	suggest_init(&s, subsys);
	for (size_t i = 0; i < ns; i++)
		suggest_offer(&s, subs[i]);
	char *full[3];
	size_t nf = 0;
	for (size_t i = 0; i < s.n; i++) {
		char *p = xasprintf("%s/%s/%s", events, s.best[i], c + 1);
		if (is_dir(p))
			full[nf++] = xasprintf("%s:%s", s.best[i], c + 1);
		free(p);
	}
	struct suggest f;
	suggest_init(&f, name);
	for (size_t i = 0; i < nf; i++)
		f.best[f.n++] = full[i];
	suggest_format(&f, buf, size);
	for (size_t i = 0; i < nf; i++)
		free(full[i]);
	free_list(subs, ns);
	free(events);
	free(subsys);
}

bool tp_is_glob(const char *name)
{
	const char *c = strchr(name, ':');
	if (!c || strchr(c + 1, ':') || c == name || !c[1] || strchr(name, '/'))
		return false;
	return strpbrk(name, "*?[") != NULL;
}

struct glob_ctx {
	const char *sys, *ev;
	char **v;
	size_t n, cap;
};

static void glob_one(const char *name, uint64_t id, void *arg)
{
	struct glob_ctx *g = arg;
	const char *c = strchr(name, ':');
	char *sys = xstrndup(name, (size_t)(c - name));
	if (!fnmatch(g->sys, sys, 0) && !fnmatch(g->ev, c + 1, 0)) {
		ALLOC_GROW(g->v, g->n + 1, g->cap);
		g->v[g->n++] = xstrdup(name);
	}
	free(sys);
}

size_t tp_glob(const char *glob, char ***names)
{
	*names = NULL;
	if (!tp_is_glob(glob))
		return 0;
	const char *c = strchr(glob, ':');
	char *sys = xstrndup(glob, (size_t)(c - glob));
	struct glob_ctx g = { sys, c + 1, NULL, 0, 0 };
	tp_for_each(glob_one, &g);
	free(sys);
	*names = g.v;
	return g.n;
}
