/* A snapshot of the running kernel's symbols (symbols/ksnap.c): /proc/kallsyms parsed once,
 * sorted and sized, written to the build-id cache directory as
 *
 *   DIR/.lperf/ksyms/BUILDID      (BUILDID: the running kernel's, from /sys/kernel/notes)
 *
 * and mapped by later reports instead of reading /proc/kallsyms (5 MB of text the kernel formats
 * on every read). The file is checked before use: magic, version, the kernel's build-id, the
 * boot it was taken in (/proc/sys/kernel/random/boot_id: KASLR moves the kernel at every boot),
 * its size against its counts, a CRC-32 of its contents, and every entry (sorted, no overlap,
 * names inside the string table). A report checks the header and the tables of per-part
 * checksums when it maps the file, and each part (2,048 entries, 64 KB of names) the first time
 * a lookup reads it: it names a few hundred of 120,000 symbols. A file that fails is ignored and
 * rewritten, and a lookup that meets a damaged part makes the caller read /proc/kallsyms (as for
 * an address outside the core range) and rewrite the snapshot.
 *
 * Within one boot only the core kernel's symbols are certain not to have changed: modules, BPF
 * programs and trampolines come and go. So the snapshot answers for addresses inside the core
 * kernel's range only; any other kernel address makes the caller read /proc/kallsyms afresh
 * (ksnap_covers), which also rewrites the snapshot. Reports read the same symbols either way.
 *
 * Used only when this user sees kernel addresses as root does (kptr_restrict), and only a file
 * owned by this user, not writable by others. Two reports at once are safe: the file is written
 * to an O_EXCL temporary in the same directory and renamed over the old one, and a mapping keeps
 * the file it was made of. */
#ifndef LPERF_SYMBOLS_KSNAP_H
#define LPERF_SYMBOLS_KSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtab.h"

/* Raise it whenever the format or what kallsyms.c and symtab.c make of kallsyms (which symbols,
 * their sizes and names) changes: snapshots of other versions are ignored and rewritten.
 * symbols/kstream.c writes the same snapshot by the same rules (tests/unit/test_kstream.c). */
#define KSNAP_VERSION 2

struct ksnap_ent;

/* What a snapshot is for: a kernel (build-id) in one boot. */
struct ksnap_key {
	uint8_t build_id[20];
	size_t build_id_size;
	char boot[40];        /* boot_id's text, NUL-terminated */
};

/* A snapshot whose header and tables are checked: its symbols (names point into the mapping or
 * buffer it was read from), each filled and checked when first looked up (ksnap_find), all of
 * them by ksnap_parse. */
struct ksnap {
	struct symbol *syms;  /* by index, sorted by start; ksnap owns the array, not the names; an
			       * entry not looked up yet has no name */
	size_t nsyms;
	uint64_t core_lo, core_hi; /* addresses the core kernel's symbols alone decide */
	void *map;            /* the mapping (NULL when parsed from a caller's buffer) */
	size_t len;
	/* the parts, and which are checked */
	const uint8_t *groups, *chunks;
	const struct ksnap_ent *ents;
	const char *str;
	size_t ents_off, str_off, strsize, ngroups, nchunks, syms_len;
	uint8_t *group_ok, *chunk_ok;
};

/* The running kernel's key; -1 with err_set() when its build-id or boot is unknown. */
int ksnap_key_now(struct ksnap_key *k);
/* Serialises sorted symbols (symtab_finish's) for key; the buffer (free it) and its length. */
void *ksnap_build(const struct ksnap_key *k, const struct symbol *syms, size_t nsyms, size_t *len);
/* The CRC-32 a snapshot of len (>= its 120-byte header) bytes carries at offset 76: of its header
 * and tables. */
uint32_t ksnap_crc(const void *buf, size_t len);
/* Recomputes every checksum of a snapshot in buf (the tables' where its counts fit len, then the
 * header's): for ksnap_build, and for tests that craft files. */
void ksnap_seal(void *buf, size_t len);
/* Checks buf (len bytes) as a snapshot for key and fills s with names pointing into buf. 0, or -1
 * with err_set() naming the offset and field that failed. */
int ksnap_parse(const void *buf, size_t len, const struct ksnap_key *k, struct ksnap *s);
/* As ksnap_parse, checking only the header and the tables: each part is checked when ksnap_find
 * first reads it. */
int ksnap_open(const void *buf, size_t len, const struct ksnap_key *k, struct ksnap *s);
void ksnap_release(struct ksnap *s);
/* True when the snapshot alone decides which symbol holds addr (the core kernel's range). */
bool ksnap_covers(const struct ksnap *s, uint64_t addr);

/* Keeps, in place and in order, the symbols of syms (symtab_finish's of the kallsyms s was made
 * of) that can hold an address s does not decide (ksnap_covers false), frees the others' names;
 * the count kept. symtab_find over those answers any such address as over all of syms: the symbol
 * holding it is among them, and the others kept end before it. */
size_t ksnap_keep_outside(const struct ksnap *s, struct symbol *syms, size_t n);

/* The symbol holding addr (NULL: none), as symtab_find over all of them; the parts it reads are
 * checked first. -1 with err_set() naming the offset when one is damaged: the snapshot is not to
 * be used further. Not thread-safe (fills s). */
int ksnap_find(struct ksnap *s, uint64_t addr, const struct symbol **out);

/* The symbol s handed out (ksnap_find) that is `like` (the same start, size and names), else
 * NULL: a report that reads /proc/kallsyms afresh part way keeps one symbol per function. */
const struct symbol *ksnap_seen(const struct ksnap *s, const struct symbol *like);

/* The running kernel's symbols from its snapshot, when one is usable (header and tables
 * checked): a new ksnap (free with ksnap_free), else NULL (no snapshot, damaged, another boot's,
 * addresses hidden: the caller reads kallsyms and calls ksnap_save). */
struct ksnap *ksnap_load(void);
/* Writes the snapshot of syms (just read from /proc/kallsyms) unless old, the one in the cache,
 * has the same bytes; failures are silent (a report does not fail for want of a cache). */
void ksnap_save(const struct symbol *syms, size_t nsyms, const struct ksnap *old);
/* ksnap_save without an old snapshot, then the file written, mapped as ksnap_load maps it (NULL
 * when it was not written or does not map): a first report answers from it as a second one does,
 * and frees the symbols it read (about 9 MB of a first report's peak, kept to the end). */
struct ksnap *ksnap_save_load(const struct symbol *syms, size_t nsyms);
/* ksnap_save_load, then, when it answers, *syms (symtab_finish's) shrunk to the symbols it does
 * not decide (ksnap_keep_outside): lookups outside the core range answer from them rather than
 * reading kallsyms again. NULL (*syms untouched) when the snapshot was not written or not mapped. */
struct ksnap *ksnap_save_rest(struct symbol **syms, size_t *nsyms);
/* The symbols of s that can hold an address it does not decide (ksnap_covers false), as
 * ksnap_keep_outside keeps them of the symbols s was made of, with names of their own (free with
 * symtab_free): 0, or -1 with err_set() when a part they are in is damaged. */
int ksnap_rest(struct ksnap *s, struct symbol **out, size_t *n);
/* As ksnap_save_rest, the snapshot written as kallsyms is read (symbols/kstream.h: a few MB of
 * memory instead of the symbols' and the file's), mapped, and rest->syms the symbols outside its
 * range (ksnap_rest). NULL (rest untouched) when it was not written or does not answer: the
 * caller reads kallsyms (kallsyms_load). */
struct ksnap *ksnap_stream_rest(struct symtab_load *rest);
void ksnap_free(struct ksnap *s);
/* For `lperf record`, as perf record stores kallsyms in its build-id cache: makes sure the cache
 * holds a usable snapshot of the running kernel (this build-id and boot, checked whole as
 * ksnap_load checks it), writing one from /proc/kallsyms when it is missing, another boot's,
 * another version's or damaged, so that the first report after a record does not read
 * /proc/kallsyms. Nothing when $LPERF_KALLSYMS is set or kernel addresses are hidden from this
 * user. 1 when it wrote a snapshot, else 0; failures are silent, as ksnap_save's. */
int ksnap_refresh(void);

#endif
