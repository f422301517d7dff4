/* Small-file helpers, mostly for /proc and /sys. */
#ifndef LPERF_UTIL_FILEIO_H
#define LPERF_UTIL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* Reads a whole file (at most max bytes) into a NUL-terminated string; NULL with err_set() on
 * failure, also when path is not a regular file (a FIFO is refused without waiting). *len may
 * be NULL. */
char *file_read(const char *path, size_t max, size_t *len);
/* Reads a file and parses one integer from it (decimal or 0x hex), ignoring trailing space. */
int file_read_u64(const char *path, uint64_t *v);
int file_read_int(const char *path, long *v);

/* The thread group of thread tid (Tgid of /proc/TID/status), 0 when unknown (gone, unreadable). */
pid_t proc_tgid(pid_t tid);
/* The parent of process pid (/proc/PID/stat's ppid, after the command's closing parenthesis), 0
 * when unknown. */
pid_t proc_ppid(pid_t pid);

/* This process's mapping that contains addr, from /proc/self/maps: its bounds, permissions
 * ("r-xp") and the inode of the file it maps (0: anonymous). false when none does. */
struct self_mapping {
	uint64_t start, end, inode;
	char perms[5];
};
bool proc_self_mapping(uintptr_t addr, struct self_mapping *m);

/* The sysfs root: $LPERF_SYSFS_ROOT, else "/sys". Fixture trees replace /sys in tests. */
const char *sysfs_root(void);
/* Reads "<sysfs_root>/<rel>" as a string; NULL when absent. */
char *sysfs_read(const char *rel);
/* A tracefs under the sysfs root (kernel/tracing, then kernel/debug/tracing) that is mounted but
 * that this user may not search (perf's "No permissions to read"; mounted mode 0700 and lperf not
 * root): its directory, in a static buffer; NULL when each is readable or absent. Under /sys a
 * denied path counts only where MOUNTS (/proc/self/mounts) has a tracefs mounted: a debugfs of
 * mode 0700 denies kernel/debug/tracing whether or not a tracefs is there. */
const char *tracefs_denied(void);
/* Whether the mounts table at path (the /proc/self/mounts format) has a TYPE mounted at dir;
 * true when it cannot be read (nothing known against it). */
bool mounts_has(const char *path, const char *dir, const char *type);

/* The names of dir's entries, dot files left out, that pass keep (NULL: all), at most max, sorted
 * by cmp over char ** elements (NULL: strcmp order); NULL (n = 0) when dir cannot be read. */
char **dir_list(const char *dir, bool (*keep)(const char *name), size_t max,
		int (*cmp)(const void *, const void *), size_t *n);
void strv_free(char **v, size_t n);

#endif
