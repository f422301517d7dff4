#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/parse.h"
#include "util/xalloc.h"

char *file_read(const char *path, size_t max, size_t *len)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. Only regular files are read
	 * (/proc and /sys files are regular): a FIFO, a device (a link to /dev/zero) or a
	 * directory is refused rather than waited on or cut at max. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err_set("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_set("cannot read '%s': not a regular file", path);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= max + 1)
				break;
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err_set("cannot read '%s': %s", path, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int file_read_u64(const char *path, uint64_t *v)
{
	char *s = file_read(path, 4096, NULL);
	if (!s)
		return -1;
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
	int r = parse_u64(s, v);
	if (r < 0)
		err_wrap("%s", path);
	free(s);
	return r;
}

int file_read_int(const char *path, long *v)
{
	char *s = file_read(path, 4096, NULL);
	if (!s)
		return -1;
	char *end;
	errno = 0;
	long x = strtol(s, &end, 0);
	while (*end == '\n' || *end == ' ')
		end++;
	int bad = errno || end == s || *end;
	free(s);
	if (bad)
		return err_set("%s: not an integer", path);
	*v = x;
	return 0;
}

/* Reads /proc/ID/NAME, NULL (no error left set) when it cannot. */
static char *proc_read(pid_t id, const char *name)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)id, name);
	char *s = file_read(path, 1 << 16, NULL);
	if (!s)
		err_clear();
	return s;
}

pid_t proc_tgid(pid_t tid)
{
	char *st = proc_read(tid, "status");
	const char *l = st ? strstr(st, "\nTgid:") : NULL;
	long v = l ? strtol(l + 6, NULL, 10) : 0;
	free(st);
	return v > 0 && v <= INT32_MAX ? (pid_t)v : 0;
}

pid_t proc_ppid(pid_t pid)
{
	char *st = proc_read(pid, "stat");
	const char *p = st ? strrchr(st, ')') : NULL;
	int ppid = 0;
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1 || ppid < 0)
		ppid = 0;
	free(st);
	return (pid_t)ppid;
}

bool proc_self_mapping(uintptr_t addr, struct self_mapping *m)
{
	char *maps = file_read("/proc/self/maps", 64u << 20, NULL);
	bool found = false;
	for (char *line = maps; line && *line && !found;) {
		uint64_t off;
		unsigned dmaj, dmin;
		memset(m, 0, sizeof(*m));
		int k = sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64, &m->start, &m->end,
			       m->perms, &off, &dmaj, &dmin, &m->inode);
		found = k == 7 && m->start <= addr && addr < m->end;
		char *nl = strchr(line, '\n');
		line = nl ? nl + 1 : NULL;
	}
	free(maps);
	return found;
}

const char *sysfs_root(void)
{
	const char *r = getenv("LPERF_SYSFS_ROOT");
	return r && *r ? r : "/sys";
}

char *sysfs_read(const char *rel)
{
	char *path = xasprintf("%s/%s", sysfs_root(), rel);
	char *s = file_read(path, 1 << 20, NULL);
	free(path);
	return s;
}

bool mounts_has(const char *path, const char *dir, const char *type)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return true;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	while (!found && getline(&line, &cap, f) > 0) {
		/* source, mount point, type: the fields are space-free (octal escapes) */
		char *save = NULL, *src = strtok_r(line, " ", &save), *mnt = src ? strtok_r(NULL, " ", &save) : NULL;
		char *t = mnt ? strtok_r(NULL, " ", &save) : NULL;
		found = t && !strcmp(mnt, dir) && !strcmp(t, type);
	}
	free(line);
	fclose(f);
	return found;
}

const char *tracefs_denied(void)
{
	static const char *const rel[] = { "kernel/tracing", "kernel/debug/tracing" };
	static char dir[4096];
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		struct stat st;
		snprintf(dir, sizeof(dir), "%s/%s/events", sysfs_root(), rel[i]);
		if (stat(dir, &st) == 0)
			return NULL;
		if (errno == EACCES) {
			dir[strlen(dir) - strlen("/events")] = 0;
			if (strcmp(sysfs_root(), "/sys") || mounts_has("/proc/self/mounts", dir, "tracefs"))
				return dir;
		}
	}
	return NULL;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **dir_list(const char *dir, bool (*keep)(const char *name), size_t max,
		int (*cmp)(const void *, const void *), size_t *n)
{
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **names = NULL;
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) && *n < max) {
		if (e->d_name[0] == '.' || (keep && !keep(e->d_name)))
			continue;
		ALLOC_GROW(names, *n + 1, cap);
		names[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(names, *n, sizeof(*names), cmp ? cmp : cmp_names);
	return names;
}

void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
