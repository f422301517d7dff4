/* Output files written safely as root: see outfile.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/outfile.h"
#include "util/xalloc.h"

bool outfile_force;

static void outfile_free(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o->name);
	free(o->tmp);
	*o = (struct outfile){ .fd = -1, .dirfd = -1 };
}

/* Refuses a destination this user should not replace or write through. */
static int check_target(struct outfile *o, struct stat *st, bool *exists)
{
	*exists = fstatat(o->dirfd, o->name, st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!*exists)
		return errno == ENOENT ? 0 : err_set("cannot write '%s': %s", o->path, strerror(errno));
	if (S_ISDIR(st->st_mode))
		return err_set("cannot write '%s': it is a directory", o->path);
	if (outfile_force)
		return 0;
	if (S_ISLNK(st->st_mode))
		return err_set("not writing '%s': it is a symbolic link (-f replaces the link)", o->path);
	if ((S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode)) && st->st_uid != geteuid())
		return err_set("not writing '%s': it belongs to another user (uid %u; -f replaces it)",
			       o->path, (unsigned)st->st_uid);
	return 0;
}

static void random_suffix(char *out, size_t n)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[16];
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		unsigned long x = (unsigned long)ts.tv_nsec * 2654435761u ^ (unsigned long)getpid();
		for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005ul + 1)
			r[i] = (unsigned char)(x >> 33);
	}
	for (size_t i = 0; i + 1 < n && i < sizeof(r); i++)
		out[i] = chars[r[i] % (sizeof(chars) - 1)];
	out[n - 1] = 0;
}

static int open_temporary(struct outfile *o, mode_t mode)
{
	size_t len = strlen(o->name);
	for (int tries = 0; tries < 64; tries++) {
		/* NAME.tmp.PID.RANDOM: the pid tells report whose unfinished file it is, the random
		 * part makes the name one no other user can plant in advance. */
		char sfx[9];
		random_suffix(sfx, sizeof(sfx));
		free(o->tmp);
		o->tmp = len + 24 <= NAME_MAX ? xasprintf("%s.tmp.%d.%s", o->name, (int)getpid(), sfx)
					     : xasprintf("lperf.tmp.%d.%s", (int)getpid(), sfx);
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (o->fd >= 0)
			return 0;
		if (errno != EEXIST)
			return err_set("cannot create a file next to '%s': %s", o->path, strerror(errno));
	}
	return err_set("cannot create a file next to '%s': every temporary name is taken", o->path);
}

int outfile_open(struct outfile *o, const char *path, mode_t mode)
{
	*o = (struct outfile){ .fd = -1, .dirfd = -1 };
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return err_set("cannot write '%s': it is a directory", path);
	o->path = xstrdup(path);
	o->name = xstrdup(name);
	char *dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path))) : xstrdup(".");
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int e = errno;
	free(dir);
	if (o->dirfd < 0) {
		err_set("cannot write '%s': %s", path, strerror(e));
		outfile_free(o);
		return -1;
	}
	struct stat st;
	bool exists;
	if (check_target(o, &st, &exists) < 0) {
		outfile_free(o);
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		/* A device or FIFO: written in place, as perf writes /dev/null. */
		o->fd = openat(o->dirfd, o->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (o->fd < 0) {
			err_set("cannot write '%s': %s", path, strerror(errno));
			outfile_free(o);
			return -1;
		}
		return 0;
	}
	if (open_temporary(o, mode) < 0) {
		outfile_free(o);
		return -1;
	}
	return 0;
}

FILE *outfile_fopen(struct outfile *o, const char *path)
{
	if (outfile_open(o, path, 0644) < 0)
		return NULL;
	FILE *f = outfile_stdio(o);
	if (!f)
		outfile_abort(o);
	return f;
}

FILE *outfile_fappend(struct outfile *o, const char *path)
{
	*o = (struct outfile){ .fd = -1, .dirfd = -1 };
	o->path = xstrdup(path);
	struct stat st;
	bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
	o->fd = link ? -1 : open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (link || (o->fd < 0 && errno == ELOOP))
		err_set("not writing '%s': it is a symbolic link", path);
	else if (o->fd < 0)
		err_set("cannot write '%s': %s", path, strerror(errno));
	else if (fstat(o->fd, &st) < 0 || (!outfile_force && S_ISREG(st.st_mode) && st.st_uid != geteuid()))
		err_set("not writing '%s': it belongs to another user (uid %u; -f appends to it)", path,
			(unsigned)st.st_uid);
	else if (outfile_stdio(o))
		return o->f;
	outfile_free(o);
	return NULL;
}

bool outfile_in_place(const struct outfile *o)
{
	return !o->tmp;
}

FILE *outfile_stdio(struct outfile *o)
{
	if (!o->f && !(o->f = fdopen(o->fd, "w")))
		err_set("cannot write '%s': %s", o->path, strerror(errno));
	return o->f;
}

int outfile_commit(struct outfile *o, bool keep_old)
{
	int ret = 0;
	errno = 0;
	if (o->f && (fflush(o->f) != 0 || ferror(o->f)))
		ret = err_set("cannot write '%s': %s", o->path, strerror(errno ? errno : EIO));
	int fd = o->f ? fileno(o->f) : o->fd;
	if (!ret && o->tmp && fsync(fd) < 0 && errno != EINVAL)
		ret = err_set("cannot write '%s': %s", o->path, strerror(errno));
	int c = o->f ? fclose(o->f) : close(o->fd);
	if (c != 0 && !ret && o->tmp)
		ret = err_set("cannot write '%s': %s", o->path, strerror(errno));
	o->f = NULL;
	o->fd = -1;
	if (!ret && o->tmp) {
		char *old = xasprintf("%s.old", o->name);
		struct stat st;
		bool moved = false;
		if (keep_old && fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && !(moved = renameat(o->dirfd, o->name, o->dirfd, old) == 0))
			ret = err_set("cannot rename '%s' to '%s.old': %s", o->path, o->path, strerror(errno));
		else if (renameat(o->dirfd, o->tmp, o->dirfd, o->name) < 0) {
			ret = err_set("cannot write '%s': %s", o->path, strerror(errno));
			if (moved) /* put the previous file back */
				renameat(o->dirfd, old, o->dirfd, o->name);
		}
		free(old);
	}
	if (ret && o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	outfile_free(o);
	return ret;
}

void outfile_abort(struct outfile *o)
{
	if (o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	outfile_free(o);
}

int outfile_write(const char *path, const void *data, size_t len, mode_t mode)
{
	struct outfile o;
	if (outfile_open(&o, path, mode) < 0)
		return -1;
	const char *p = data;
	while (len) {
		ssize_t w = write(o.fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err_set("cannot write '%s': %s", path, strerror(w < 0 ? errno : EIO));
			outfile_abort(&o);
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return outfile_commit(&o, false);
}

static void private_dir_cleanup(void *dir)
{
	outfile_private_dir_remove(dir);
}

char *outfile_private_dir(void)
{
	const char *t = getenv("TMPDIR");
	char *dir = xasprintf("%s/lperf-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		err_set("cannot create a private directory in %s: %s", t && *t ? t : "/tmp", strerror(errno));
		free(dir);
		return NULL;
	}
	err_at_exit(private_dir_cleanup, dir);
	return dir;
}

void outfile_private_dir_remove(const char *dir)
{
	err_at_exit(NULL, NULL);
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}
