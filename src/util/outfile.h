/* The one way lperf writes an output file (recordings, pictures, CSV, JSON, stat and test
 * outputs). A temporary file is created next to the destination with O_EXCL|O_NOFOLLOW under an
 * unpredictable name (PATH.tmp.PID.RANDOM), written, fsync'ed and renamed over the destination, so:
 *  - nothing is ever written through a symbolic link or into a file another user planted
 *    (the temporary is always a new file of this user's);
 *  - an interrupted or failed write leaves the previous file as it was;
 *  - a destination that is a symbolic link, or a file owned by another user, is refused unless
 *    outfile_force is set (the commands' -f).
 * An existing FIFO or character device (/dev/null, /dev/stdout, a pipe) is written in place:
 * renaming over it would replace the node; a FIFO another user owns is refused as a file is. */
#ifndef LPERF_UTIL_OUTFILE_H
#define LPERF_UTIL_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile {
	char *path;   /* the destination, as given */
	char *name;   /* its last component */
	char *tmp;    /* the temporary's name in the same directory (NULL: written in place) */
	int dirfd;    /* the destination's directory, opened once */
	int fd;       /* the temporary (or the device/FIFO) */
	FILE *f;      /* outfile_stdio's stream over fd, if asked for */
};

/* Replace symbolic links and other users' files at the destination (-f). Process-wide: set by
 * the command layer from its options. */
extern bool outfile_force;

/* Opens a temporary for path with the given mode (umask applies). -1 with err_set when the
 * directory cannot be written, or the destination is a directory, a symlink or another user's
 * file (and not forced). */
int outfile_open(struct outfile *o, const char *path, mode_t mode);
/* A stdio stream over the temporary (closed by commit/abort). NULL with err_set. */
FILE *outfile_stdio(struct outfile *o);
/* outfile_open (mode 0644, as fopen makes files) and outfile_stdio in one; NULL with err_set. */
FILE *outfile_fopen(struct outfile *o, const char *path);
/* Opens path to append in place (stat --append): created if missing, never through a symbolic
 * link, refused when it is not this user's regular file (unless forced). Commit closes it. */
FILE *outfile_fappend(struct outfile *o, const char *path);
/* True when the destination is a device or FIFO written in place (no rename). */
bool outfile_in_place(const struct outfile *o);
/* Flushes, fsyncs and renames the temporary over the destination; with keep_old an existing
 * destination becomes PATH.old first (perf record's habit). Frees o. -1 with err_set naming the
 * path and errno; the temporary is removed then and the destination untouched. */
int outfile_commit(struct outfile *o, bool keep_old);
/* Drops the temporary, leaving the destination untouched; frees o. */
void outfile_abort(struct outfile *o);
/* outfile_open + write len bytes + commit. */
int outfile_write(const char *path, const void *data, size_t len, mode_t mode);

/* A new private directory for temporary files (mkdtemp under $TMPDIR, else /tmp: mode 0700, so
 * no other user can plant or read anything in it). Its path (free it); NULL with err_set. Until
 * outfile_private_dir_remove, an error exit (err_exit) removes it too. */
char *outfile_private_dir(void);
/* Removes such a directory and the files in it. */
void outfile_private_dir_remove(const char *dir);

#endif
