/* perf's build-id cache (symbols/buildid_cache.c): a copy of each binary a recording names, kept
 * by build-id so that a report of yesterday's recording resolves yesterday's binary after a
 * rebuild. The layout is perf 6.1's, so perf and lperf share one cache:
 *
 *   DIR/PATH/BUILDID/elf                      a copy of the file PATH ("kallsyms" for
 *                                             [kernel.kallsyms], "vdso" for [vdso])
 *   DIR/.build-id/xx/yyyy... -> ../../PATH/BUILDID   (xx: the first two hex digits)
 *
 * DIR is --buildid-dir, else $PERF_BUILDID_DIR, else $HOME/.debug. Writing is safe as root:
 * nothing below DIR is followed through a symlink (every component is opened O_NOFOLLOW), files
 * are written under an O_EXCL temporary name and renamed into place, names with "..", empty or
 * over-long components are refused, and only regular files up to BUILDID_CACHE_MAX_FILE are
 * copied, after their build-id was checked against the one asked for. */
#ifndef LPERF_SYMBOLS_BUILDID_CACHE_H
#define LPERF_SYMBOLS_BUILDID_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BUILDID_SIZE 20
#define BUILDID_HEX (2 * BUILDID_SIZE + 1)
#define BUILDID_CACHE_MAX_FILE (1ull << 31)

/* The cache directory. set_dir(NULL) goes back to the default. */
void buildid_cache_set_dir(const char *dir);
const char *buildid_cache_dir(void);

/* Hex spelling of a build-id of n bytes (n <= 20), as perf prints it. */
void buildid_hex(const uint8_t *id, size_t n, char hex[BUILDID_HEX]);
/* Parses 2..40 hex digits (an even count); the size, or -1 with err_set(). */
int buildid_parse(const char *hex, uint8_t id[BUILDID_SIZE]);
/* The GNU build-id in a block of ELF notes (the format of /sys/kernel/notes); 0 when none. */
size_t buildid_from_notes(const void *buf, size_t len, uint8_t id[BUILDID_SIZE]);
/* The running kernel's build-id (/sys/kernel/notes) and the vDSO's; 0 when unknown. */
size_t buildid_kernel(uint8_t id[BUILDID_SIZE]);
size_t buildid_vdso(uint8_t id[BUILDID_SIZE]);
/* The build-id of name: a file, "[kernel.kallsyms]" (running kernel) or "[vdso]"; 0 when none. */
size_t buildid_read(const char *name, uint8_t id[BUILDID_SIZE]);

/* Adds name (an absolute path, "[kernel.kallsyms]" or "[vdso]") under build-id id (n bytes; n
 * 0: read from the file) to the cache. 1 added, 0 it was there already, -1 with err_set() (also
 * when the file's build-id is not id: it was rebuilt since). *out_id (may be NULL) gets the id. */
int buildid_cache_add(const char *name, const uint8_t *id, size_t n, uint8_t out_id[BUILDID_SIZE],
		      size_t *out_n);
/* Removes name's entry for id (n 0: the file's current build-id): its link and its directory.
 * 1 removed, 0 there was none, -1 with err_set(). */
int buildid_cache_remove(const char *name, const uint8_t *id, size_t n);
/* Removes every build-id cached for name; the count removed, -1 with err_set(). */
int buildid_cache_purge(const char *name);

struct buildid_cache_entry {
	char hex[BUILDID_HEX];
	char *name;               /* "/usr/bin/x", "[kernel.kallsyms]" */
};
/* Every link under DIR/.build-id, sorted by build-id. 0, or -1 with err_set() when DIR cannot be
 * read (a missing cache is an empty list). */
int buildid_cache_list(struct buildid_cache_entry **out, size_t *n);
void buildid_cache_list_free(struct buildid_cache_entry *v, size_t n);
/* For the report side: the cached file of build-id id (its elf, kallsyms or vdso), as a string
 * the caller frees. -1 with err_set() when the cache has none (or only one that a link owned by
 * another user, a ".." in a link, or a non-regular file makes untrustworthy). */
int buildid_cache_path(const uint8_t *id, size_t n, char **file);

/* lperf's own caches below the cache directory (symbols/ksnap.c, symbols/srcline_store.c), in
 * DIR/REL ("a/b", no "." or ".." components), whose directories are opened one component at a
 * time without following a symlink and must be this user's (or root's).
 * buildid_cache_map: REL/NAME mapped read-only when it is this user's regular file (not a
 * symlink), not writable by others, 1..max bytes; NULL with err_set() otherwise. The directory
 * REL is opened once and kept (until buildid_cache_set_dir or buildid_cache_purge_own).
 * buildid_cache_store: REL (created 0755 as needed)/NAME written through an O_EXCL|O_NOFOLLOW
 * temporary in the same directory renamed into place, so readers see the old file or the whole
 * new one; 0, or -1 with err_set().
 * buildid_cache_crc: the CRC-32 of len bytes, the 4 at crc_off taken as 0 (the field that holds it). */
void *buildid_cache_map(const char *rel, const char *name, size_t max, size_t *len);
int buildid_cache_store(const char *rel, const char *name, const void *data, size_t len, mode_t mode);
/* buildid_cache_store_with: as buildid_cache_store, the file's contents written by fill into the
 * temporary's fd (opened for reading and writing, empty; fill returns 0, or -1 with err_set(): the
 * temporary is removed), for a file made as it is read (symbols/kstream.h's snapshot). */
int buildid_cache_store_with(const char *rel, const char *name, mode_t mode, int (*fill)(int fd, void *arg),
			     void *arg);
uint32_t buildid_cache_crc(const void *buf, size_t len, size_t crc_off);
/* The same CRC-32 over a read-only mapping of a file (page-aligned), its pages handed back to the
 * page cache as the sum passes them: checking a file does not make it resident. */
uint32_t buildid_cache_crc_mapped(const void *map, size_t len, size_t crc_off);
/* The head the per-build-id stores share (symbols/srcline_store.c, symbols/symstore.c): magic at
 * 0, version at 8, build-id size at 12, build-id at 16 (20 bytes), CRC-32 at 36.
 * buildid_cache_check_head: 0 when buf's head has this magic, version and build-id, else -1
 * with err_set() naming the field (len >= 40 bytes, checked by the caller).
 * buildid_cache_file_now: path's size and modification time (ns); false when it is not a
 * regular file (the stores keep those of the files they were made from). */
int buildid_cache_check_head(const void *buf, const char magic[8], uint32_t version, const uint8_t *id, size_t idn);
bool buildid_cache_file_now(const char *path, uint64_t *size, int64_t *mtime);
/* Removes lperf's own caches (DIR/.lperf: the kernel symbol snapshots, the source-line and symbol
 * stores). */
void buildid_cache_purge_own(void);

/* Which file to read for the DSO path that a recording names with build-id id (n 0: unknown):
 * path itself when it still carries id (0), else the cached copy (1), else -1 with err_set() in
 * one line naming both build-ids (the file was rebuilt and never cached, or is gone): the
 * report then names the DSO once and leaves its samples unresolved, never reading another
 * build's symbols. *file is the caller's to free. Names in brackets ([kernel.kallsyms], [vdso])
 * are looked up in the cache only. */
int buildid_cache_locate(const char *path, const uint8_t *id, size_t n, char **file);

#endif
