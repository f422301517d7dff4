/* perf's build-id cache (see buildid_cache.h for the layout and the rules that make it safe to
 * write as root). Every path below the cache directory is walked one component at a time with
 * openat(O_NOFOLLOW), so a symlink planted in the cache is never followed. */
#include "symbols/buildid_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/xalloc.h"

static char *cache_dir;

/* The directories buildid_cache_map reads from, opened once (a report looks up a store for each
 * of its files: perf inject's output maps one file per JIT function, hundreds of them, and each
 * walk from the cache's root took six system calls), keyed by the cache's root and rel. */
#define MAP_DIRS 4

static struct map_dir {
	char *root, *rel;
	int fd;
} map_dirs[MAP_DIRS];
static pthread_mutex_t map_dirs_mu = PTHREAD_MUTEX_INITIALIZER;

static void map_dirs_close(void)
{
	pthread_mutex_lock(&map_dirs_mu);
	for (size_t i = 0; i < MAP_DIRS; i++) {
		if (map_dirs[i].root)
			close(map_dirs[i].fd);
		free(map_dirs[i].root);
		free(map_dirs[i].rel);
		map_dirs[i] = (struct map_dir){ NULL, NULL, -1 };
	}
	pthread_mutex_unlock(&map_dirs_mu);
}

void buildid_cache_set_dir(const char *dir)
{
	map_dirs_close();
	free(cache_dir);
	cache_dir = dir ? xstrdup(dir) : NULL;
}

const char *buildid_cache_dir(void)
{
	static char *dflt;
	if (cache_dir)
		return cache_dir;
	const char *env = getenv("PERF_BUILDID_DIR");
	if (env && *env)
		return env;
	if (!dflt) {
		const char *home = getenv("HOME");
		dflt = xasprintf("%s/.debug", home && *home ? home : "");
	}
	return dflt;
}

size_t buildid_from_notes(const void *buf, size_t len, uint8_t id[BUILDID_SIZE])
{
	const uint8_t *p = buf;
	size_t off = 0;
	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		size_t nlen = ((size_t)namesz + 3) & ~(size_t)3, dlen = ((size_t)descsz + 3) & ~(size_t)3;
		if (namesz > len - off || nlen > len - off || descsz > len - off - nlen)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(p + off, "GNU", 4) && descsz) {
			size_t n = descsz > BUILDID_SIZE ? BUILDID_SIZE : descsz;
			memcpy(id, p + off + nlen, n);
			return n;
		}
		if (dlen > len - off - nlen)
			return 0;
		off += nlen + dlen;
	}
	return 0;
}

size_t buildid_kernel(uint8_t id[BUILDID_SIZE])
{
	size_t len;
	char *buf = file_read("/sys/kernel/notes", 1 << 16, &len);
	if (!buf)
		return 0;
	size_t n = buildid_from_notes(buf, len, id);
	free(buf);
	return n;
}

size_t buildid_vdso(uint8_t id[BUILDID_SIZE])
{
	size_t size, n = 0;
	void *img = vdso_image(&size);
	if (!img)
		return 0;
	buildid_libelf_init();
	Elf *elf = elf_memory(img, size);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = buildid_of_elf(elf, id);
	elf_end(elf);
	free(img);
	return n;
}

size_t buildid_read(const char *name, uint8_t id[BUILDID_SIZE])
{
	if (!strcmp(name, "[kernel.kallsyms]"))
		return buildid_kernel(id);
	if (!strcmp(name, "[vdso]"))
		return buildid_vdso(id);
	return buildid_of_file(name, id);
}

/* What a cache entry is made of: its directory's name below DIR (no leading '/') and the file
 * in it. */
struct entry_name {
	char rel[PATH_MAX];
	const char *file;         /* "elf", "kallsyms", "vdso" */
	int kind;                 /* 0 file, 1 kernel, 2 vdso */
};

static int component_ok(const char *c, size_t len)
{
	return len && len <= NAME_MAX && !(len == 1 && c[0] == '.') && !(len == 2 && !memcmp(c, "..", 2));
}

/* name -> "tmp/x/prog", refusing what could climb out of DIR. */
static int entry_name(const char *name, struct entry_name *e)
{
	e->kind = !strcmp(name, "[kernel.kallsyms]") ? 1 : !strcmp(name, "[vdso]") ? 2 : 0;
	e->file = e->kind == 1 ? "kallsyms" : e->kind == 2 ? "vdso" : "elf";
	if (!e->kind && name[0] != '/')
		return err_set("'%s': the build-id cache takes absolute paths", name);
	size_t o = 0;
	for (const char *p = name; *p;) {
		while (*p == '/')
			p++;
		const char *end = strchrnul(p, '/');
		if (end == p)
			break;
		if (!component_ok(p, (size_t)(end - p)))
			return err_set("'%s': a path with '.', '..' or an over-long name cannot be cached", name);
		if (o + (size_t)(end - p) + 2 >= sizeof(e->rel))
			return err_set("'%s': path too long", name);
		if (o)
			e->rel[o++] = '/';
		memcpy(e->rel + o, p, (size_t)(end - p));
		o += (size_t)(end - p);
		p = end;
	}
	e->rel[o] = 0;
	if (!o)
		return err_set("'%s': no file name", name);
	return 0;
}

/* name's entry, and its build-id when none was given (*n 0): read from the file. */
static int entry_and_id(const char *name, struct entry_name *e, const uint8_t **id, size_t *n,
			uint8_t own[BUILDID_SIZE])
{
	if (entry_name(name, e) < 0)
		return -1;
	if (!*n) {
		struct stat st;
		*n = buildid_read(name, own);
		if (!*n && !e->kind && stat(name, &st) < 0)
			return err_set("%s", strerror(errno));
		if (!*n)
			return err_set("no build-id found");
		*id = own;
	}
	return 0;
}

/* Opens the directory rel below dirfd one component at a time, never through a symlink;
 * creates what is missing when create. The fd, or -1 with err_set(). */
static int walk(int dirfd, const char *rel, bool create)
{
	char comp[NAME_MAX + 1];
	int fd = dup(dirfd);
	if (fd < 0)
		return err_set("build-id cache: %s", strerror(errno));
	for (const char *p = rel; *p;) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		if (!component_ok(p, len)) {
			close(fd);
			return err_set("build-id cache: bad path '%s'", rel);
		}
		memcpy(comp, p, len);
		comp[len] = 0;
		if (create && mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
			err_set("build-id cache: cannot create '%s' in %s: %s", comp, buildid_cache_dir(), strerror(errno));
			close(fd);
			return -1;
		}
		int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (nfd < 0)
			return err_set("build-id cache: '%s' in '%s': %s", comp, rel,
				       e == ELOOP || e == ENOTDIR ? "not a directory (a symlink is never followed)"
								  : strerror(e));
		/* Another user's directory in our cache could have its files swapped under us. */
		struct stat st;
		if (create && (fstat(nfd, &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0))) {
			close(nfd);
			return err_set("build-id cache: '%s' in '%s' belongs to another user", comp, rel);
		}
		fd = nfd;
		p = *end ? end + 1 : end;
	}
	return fd;
}

static int open_root(bool create)
{
	const char *dir = buildid_cache_dir();
	if (!*dir)
		return err_set("build-id cache: no directory (set HOME or --buildid-dir)");
	if (create && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_set("build-id cache: cannot create '%s': %s", dir, strerror(errno));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set("build-id cache: cannot open '%s': %s", dir, strerror(errno));
	return fd;
}

static size_t fd_build_id(int fd, uint8_t id[BUILDID_SIZE])
{
	buildid_libelf_init();
	size_t n = 0;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = buildid_of_elf(elf, id);
	elf_end(elf);
	return n;
}

/* Writes dirfd/name via an O_EXCL temporary, filled by fill, renamed into place. */
static int store_in(int dirfd, const char *name, mode_t mode, int (*fill)(int fd, void *arg), void *arg)
{
	char tmp[NAME_MAX + 1];
	snprintf(tmp, sizeof(tmp), ".%s.tmp.%d", name, (int)getpid());
	unlinkat(dirfd, tmp, 0);
	int fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return err_set("build-id cache: cannot create '%s': %s", name, strerror(errno));
	bool ok = fill(fd, arg) == 0;
	if (close(fd) < 0)
		ok = false;
	if (!ok || renameat(dirfd, tmp, dirfd, name) < 0) {
		int e = errno;
		unlinkat(dirfd, tmp, 0);
		return err_set("build-id cache: cannot write '%s': %s", name, strerror(e));
	}
	return 0;
}

/* What store_in copies: len bytes of data, or of srcfd when data is NULL. */
struct copy_src {
	int srcfd;
	const void *data;
	size_t len;
};

static int copy_fill(int fd, void *arg)
{
	const struct copy_src *c = arg;
	char buf[65536];
	for (size_t done = 0; done < c->len;) {
		size_t chunk = c->len - done < sizeof(buf) ? c->len - done : sizeof(buf);
		const void *src = c->data ? (const char *)c->data + done : buf;
		if (!c->data) {
			ssize_t r = pread(c->srcfd, buf, chunk, (off_t)done);
			if (r <= 0)
				return -1;
			chunk = (size_t)r;
		}
		ssize_t w = write(fd, src, chunk);
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

static int write_file(int dirfd, const char *name, int srcfd, const void *data, size_t len, mode_t mode)
{
	struct copy_src c = { srcfd, data, len };
	return store_in(dirfd, name, mode, copy_fill, &c);
}

static int open_dir(const char *rel, bool create)
{
	int root = open_root(create);
	if (root < 0)
		return -1;
	int fd = walk(root, rel, create);
	close(root);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0))) {
		close(fd);
		return err_set("build-id cache: '%s' belongs to another user", rel);
	}
	return fd;
}

/* Opens rel/name for buildid_cache_map, through the directory kept for rel (opened on first
 * use; a directory missing is looked for again next time). -1 with errno when the file is not
 * there, -2 with err_set() when the directory is not. */
static int map_open(const char *rel, const char *name)
{
	const char *root = buildid_cache_dir();
	pthread_mutex_lock(&map_dirs_mu);
	struct map_dir *m = NULL, *free_slot = NULL;
	for (size_t i = 0; i < MAP_DIRS && !m; i++) {
		if (!map_dirs[i].root)
			free_slot = free_slot ? free_slot : &map_dirs[i];
		else if (!strcmp(map_dirs[i].rel, rel) && !strcmp(map_dirs[i].root, root))
			m = &map_dirs[i];
	}
	int dir = m ? m->fd : open_dir(rel, false);
	int fd = dir < 0 ? -1 : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	int e = errno;
	if (!m && dir >= 0) {
		if (free_slot)
			*free_slot = (struct map_dir){ xstrdup(root), xstrdup(rel), dir };
		else
			close(dir);
	}
	pthread_mutex_unlock(&map_dirs_mu);
	errno = e;
	return dir < 0 ? -2 : fd;
}

void *buildid_cache_map(const char *rel, const char *name, size_t max, size_t *len)
{
	int fd = map_open(rel, name);
	if (fd == -2)
		return NULL;
	if (fd < 0) {
		err_set("build-id cache: %s/%s: %s", rel, name, strerror(errno));
		return NULL;
	}
	struct stat st;
	void *p = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) ||
	    st.st_size <= 0 || (uint64_t)st.st_size > max) {
		err_set("build-id cache: %s/%s is not this user's regular file, or writable by others, or empty "
			"or too large", rel, name);
	} else {
		*len = (size_t)st.st_size;
		p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			err_set("build-id cache: %s/%s: %s", rel, name, strerror(errno));
			p = NULL;
		}
	}
	close(fd);
	return p;
}

int buildid_cache_store(const char *rel, const char *name, const void *data, size_t len, mode_t mode)
{
	int dir = open_dir(rel, true);
	if (dir < 0)
		return -1;
	int rc = write_file(dir, name, -1, data, len, mode);
	close(dir);
	return rc;
}

int buildid_cache_store_with(const char *rel, const char *name, mode_t mode, int (*fill)(int fd, void *arg),
			     void *arg)
{
	int dir = open_dir(rel, true);
	if (dir < 0)
		return -1;
	int rc = store_in(dir, name, mode, fill, arg);
	close(dir);
	return rc;
}

/* Removes the files of DIR/rel (not following links; directories in it are left) and rel itself. */
static void remove_own(int root, const char *rel)
{
	int dir = walk(root, rel, false);
	DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
	if (!d) {
		if (dir >= 0)
			close(dir);
		return;
	}
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	unlinkat(root, rel, AT_REMOVEDIR);
}

void buildid_cache_purge_own(void)
{
	map_dirs_close(); /* the directories kept are removed */
	int root = open_root(false);
	if (root < 0) {
		err_clear();
		return;
	}
	remove_own(root, ".lperf/ksyms");
	remove_own(root, ".lperf/lines");
	remove_own(root, ".lperf/syms");
	unlinkat(root, ".lperf", AT_REMOVEDIR);
	close(root);
	err_clear();
}

/* The content of an entry: the file itself (checked to carry id), kallsyms or the vDSO. */
static int store_content(int dirfd, const struct entry_name *e, const char *name, const uint8_t *id, size_t n)
{
	uint8_t run[BUILDID_SIZE];
	if (e->kind && (buildid_read(name, run) != n || memcmp(run, id, n))) /* another boot's kernel */
		return err_set("build-id cache: the running %s is not the recorded one", name);
	if (e->kind == 1) {
		size_t len;
		char *buf = file_read("/proc/kallsyms", 256u << 20, &len);
		if (!buf)
			return -1;
		if (!strncmp(buf, "0000000000000000 ", 17)) { /* kptr_restrict hides the addresses */
			free(buf);
			return err_set("build-id cache: /proc/kallsyms shows no addresses to this user");
		}
		int r = write_file(dirfd, e->file, -1, buf, len, 0644);
		free(buf);
		return r;
	}
	if (e->kind == 2) {
		size_t size;
		void *img = vdso_image(&size);
		if (!img)
			return err_set("build-id cache: this process has no vDSO");
		int r = write_file(dirfd, e->file, -1, img, size, 0755);
		free(img);
		return r;
	}
	int src = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (src < 0)
		return err_set("build-id cache: cannot read '%s': %s", name, strerror(errno));
	struct stat st;
	uint8_t fid[BUILDID_SIZE];
	int r = -1;
	if (fstat(src, &st) < 0 || !S_ISREG(st.st_mode))
		err_set("build-id cache: '%s' is not a regular file", name);
	else if ((uint64_t)st.st_size > BUILDID_CACHE_MAX_FILE)
		err_set("build-id cache: '%s' is larger than %llu bytes", name, BUILDID_CACHE_MAX_FILE);
	else if (fd_build_id(src, fid) != n || memcmp(fid, id, n))
		err_set("build-id cache: '%s' no longer has the recorded build-id (rebuilt?)", name);
	else
		r = write_file(dirfd, e->file, src, NULL, (size_t)st.st_size, st.st_mode & 0755);
	close(src);
	return r;
}

/* DIR/.build-id/xx/yyyy -> ../../REL/HEX, replaced atomically. */
static int store_link(int root, const char *rel, const char *hex)
{
	char sub[3] = { hex[0], hex[1], 0 }, target[PATH_MAX + 64], tmp[NAME_MAX + 1];
	int d1 = walk(root, ".build-id", true);
	if (d1 < 0)
		return -1;
	int d2 = walk(d1, sub, true);
	close(d1);
	if (d2 < 0)
		return -1;
	snprintf(target, sizeof(target), "../../%s/%s", rel, hex);
	snprintf(tmp, sizeof(tmp), ".%s.tmp.%d", hex + 2, (int)getpid());
	unlinkat(d2, tmp, 0);
	int r = 0;
	if (symlinkat(target, d2, tmp) < 0 || renameat(d2, tmp, d2, hex + 2) < 0) {
		r = err_set("build-id cache: cannot link %s: %s", hex, strerror(errno));
		unlinkat(d2, tmp, 0);
	}
	close(d2);
	return r;
}

int buildid_cache_add(const char *name, const uint8_t *id, size_t n, uint8_t out_id[BUILDID_SIZE], size_t *out_n)
{
	struct entry_name e;
	uint8_t own[BUILDID_SIZE];
	if (entry_and_id(name, &e, &id, &n, own) < 0)
		return -1;
	if (out_id)
		memcpy(out_id, id, n);
	if (out_n)
		*out_n = n;
	char hex[BUILDID_HEX], rel[PATH_MAX + BUILDID_HEX + 1];
	buildid_hex(id, n, hex);
	snprintf(rel, sizeof(rel), "%s/%s", e.rel, hex);
	int root = open_root(true);
	if (root < 0)
		return -1;
	int dir = walk(root, rel, true), r = -1;
	if (dir >= 0) {
		struct stat st;
		bool had = fstatat(dir, e.file, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
		r = had ? 0 : store_content(dir, &e, name, id, n);
		if (r == 0 && !had)
			r = 1;
		close(dir);
	}
	if (r >= 0 && store_link(root, e.rel, hex) < 0)
		r = -1;
	close(root);
	return r;
}

/* Removes DIR/REL/HEX (its files; directories in it are left) and its link. */
static int remove_entry(int root, const char *rel, const char *hex)
{
	char path[PATH_MAX + BUILDID_HEX + 1];
	snprintf(path, sizeof(path), "%s/%s", rel, hex);
	int dir = walk(root, path, false);
	if (dir < 0)
		return 0;
	DIR *d = fdopendir(dir);
	if (!d) {
		close(dir);
		return err_set("build-id cache: %s: %s", path, strerror(errno));
	}
	for (struct dirent *de; (de = readdir(d));)
		if (de->d_name[0] != '.' || (de->d_name[1] && strcmp(de->d_name, "..")))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	int parent = walk(root, rel, false);
	if (parent >= 0) {
		unlinkat(parent, hex, AT_REMOVEDIR);
		close(parent);
	}
	char sub[3] = { hex[0], hex[1], 0 };
	int ld = walk(root, ".build-id", false);
	int l2 = ld >= 0 ? walk(ld, sub, false) : -1;
	struct stat st;
	if (l2 >= 0 && fstatat(l2, hex + 2, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		unlinkat(l2, hex + 2, 0);
	if (l2 >= 0)
		close(l2);
	if (ld >= 0)
		close(ld);
	return 1;
}

int buildid_cache_remove(const char *name, const uint8_t *id, size_t n)
{
	struct entry_name e;
	uint8_t own[BUILDID_SIZE];
	if (entry_and_id(name, &e, &id, &n, own) < 0)
		return -1;
	char hex[BUILDID_HEX];
	buildid_hex(id, n, hex);
	int root = open_root(false);
	if (root < 0)
		return 0;
	int r = remove_entry(root, e.rel, hex);
	close(root);
	return r;
}

static bool is_hex_name(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || n > 2 * BUILDID_SIZE || n % 2)
		return false;
	for (; *s; s++)
		if (hex_digit(*s) < 0)
			return false;
	return true;
}

int buildid_cache_purge(const char *name)
{
	struct entry_name e;
	if (entry_name(name, &e) < 0)
		return -1;
	int root = open_root(false);
	if (root < 0)
		return 0;
	int dir = walk(root, e.rel, false), count = 0;
	char **ids = NULL;
	size_t nids = 0;
	if (dir >= 0) {
		DIR *d = fdopendir(dir);
		if (d) {
			for (struct dirent *de; (de = readdir(d));)
				if (is_hex_name(de->d_name)) {
					ids = xrealloc(ids, (nids + 1) * sizeof(*ids));
					ids[nids++] = xstrdup(de->d_name);
				}
			closedir(d);
		} else {
			close(dir);
		}
	}
	for (size_t i = 0; i < nids; i++) {
		count += remove_entry(root, e.rel, ids[i]) > 0;
		free(ids[i]);
	}
	free(ids);
	close(root);
	return count;
}

/* A link's target "../../REL/HEX" -> the name it was cached under ("/REL" or "[...]"); NULL when
 * the target is not of that shape (another tool's link, or a hostile one). */
static char *origin_of(const char *target, const char *hex)
{
	size_t tl = strlen(target), hl = strlen(hex);
	if (strncmp(target, "../../", 6) || tl < 6 + hl + 2 || strcmp(target + tl - hl, hex) ||
	    target[tl - hl - 1] != '/')
		return NULL;
	const char *rel = target + 6;
	size_t rl = tl - 6 - hl - 1;
	for (size_t i = 0; i < rl;) {
		size_t j = i;
		while (j < rl && rel[j] != '/')
			j++;
		if (!component_ok(rel + i, j - i))
			return NULL;
		i = j + 1;
	}
	return rel[0] == '[' ? xstrndup(rel, rl) : xasprintf("/%.*s", (int)rl, rel);
}

/* The link DIR/.build-id/xx/rest as the name it was cached under; NULL when absent or a link
 * this user should not trust (owned by someone other than this user or root). */
static char *read_link(int xxfd, const char *rest, const char *hex)
{
	struct stat st;
	char target[PATH_MAX];
	if (fstatat(xxfd, rest, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0))
		return NULL;
	ssize_t len = readlinkat(xxfd, rest, target, sizeof(target) - 1);
	if (len <= 0)
		return NULL;
	target[len] = 0;
	return origin_of(target, hex);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct buildid_cache_entry *)a)->hex, ((const struct buildid_cache_entry *)b)->hex);
}

int buildid_cache_list(struct buildid_cache_entry **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	struct stat st;
	if (stat(buildid_cache_dir(), &st) < 0 && errno == ENOENT)
		return 0;
	int root = open_root(false);
	if (root < 0)
		return -1;
	int bfd = walk(root, ".build-id", false);
	close(root);
	if (bfd < 0)
		return 0;
	DIR *d = fdopendir(bfd);
	if (!d) {
		close(bfd);
		return err_set("build-id cache: %s", strerror(errno));
	}
	size_t cap = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (strlen(de->d_name) != 2 || !is_hex_name(de->d_name))
			continue;
		int xx = walk(dirfd(d), de->d_name, false);
		DIR *d2 = xx >= 0 ? fdopendir(xx) : NULL;
		if (!d2) {
			if (xx >= 0)
				close(xx);
			continue;
		}
		for (struct dirent *e2; (e2 = readdir(d2));) {
			char hex[BUILDID_HEX + 2];
			if (snprintf(hex, sizeof(hex), "%s%s", de->d_name, e2->d_name) >= BUILDID_HEX || !is_hex_name(hex))
				continue;
			char *name = read_link(dirfd(d2), e2->d_name, hex);
			if (!name)
				continue;
			ALLOC_GROW(*out, *n + 1, cap);
			memcpy((*out)[*n].hex, hex, BUILDID_HEX);
			(*out)[(*n)++].name = name;
		}
		closedir(d2);
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_entry);
	return 0;
}

void buildid_cache_list_free(struct buildid_cache_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int buildid_cache_path(const uint8_t *id, size_t n, char **file)
{
	char hex[BUILDID_HEX];
	buildid_hex(id, n, hex);
	*file = NULL;
	int root = open_root(false);
	if (root < 0)
		return -1;
	char sub[3] = { hex[0], hex[1], 0 };
	int ld = walk(root, ".build-id", false);
	int xx = ld >= 0 ? walk(ld, sub, false) : -1;
	char *name = xx >= 0 ? read_link(xx, hex + 2, hex) : NULL;
	if (ld >= 0)
		close(ld);
	if (xx >= 0)
		close(xx);
	close(root);
	if (!name)
		return err_set("build-id %s is not in the build-id cache %s", hex, buildid_cache_dir());
	struct entry_name e;
	int r = entry_name(name, &e);
	free(name);
	if (r < 0)
		return -1;
	char rel[PATH_MAX + BUILDID_HEX + 1];
	snprintf(rel, sizeof(rel), "%s/%s", e.rel, hex);
	root = open_root(false);
	int dir = root >= 0 ? walk(root, rel, false) : -1;
	struct stat st;
	bool ok = dir >= 0 && fstatat(dir, e.file, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (dir >= 0)
		close(dir);
	if (root >= 0)
		close(root);
	if (!ok)
		return err_set("build-id cache: %s/%s/%s is not a regular file", buildid_cache_dir(), rel, e.file);
	*file = xasprintf("%s/%s/%s", buildid_cache_dir(), rel, e.file);
	return 0;
}

int buildid_cache_locate(const char *path, const uint8_t *id, size_t n, char **file)
{
	uint8_t have[BUILDID_SIZE];
	size_t hn = 0;
	*file = NULL;
	if (path[0] == '/' && (!n || ((hn = buildid_of_file(path, have)) == n && !memcmp(have, id, n)))) {
		*file = xstrdup(path);
		return 0;
	}
	if (buildid_cache_path(id, n, file) == 0)
		return 1;
	char want[BUILDID_HEX], got[BUILDID_HEX];
	buildid_hex(id, n, want);
	buildid_hex(have, hn, got);
	if (path[0] != '/')
		return err_set("%s: build-id %s is not in the build-id cache %s", path, want, buildid_cache_dir());
	if (!hn)
		return err_set("%s: the recording's build-id %s is not in the build-id cache %s, and the file %s",
			       path, want, buildid_cache_dir(), access(path, F_OK) ? "is gone" : "has no build-id");
	return err_set("%s has build-id %s, the recording's is %s (rebuilt since?), and the build-id cache %s has "
		       "no copy", path, got, want, buildid_cache_dir());
}
