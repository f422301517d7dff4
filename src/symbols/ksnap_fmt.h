/* The kernel symbol snapshot's file format (the layout in ksnap.c's top comment), shared by its
 * reader and writers: ksnap.c, and kstream.c, which writes it as /proc/kallsyms is read. */
#ifndef LPERF_SYMBOLS_KSNAP_FMT_H
#define LPERF_SYMBOLS_KSNAP_FMT_H

#include <stddef.h>
#include <stdint.h>

#define NO_NAME UINT32_MAX
#define GROUP_SYMS 2048u          /* entries per group: 48 KB, a lookup checks one */
#define CHUNK_BYTES (64u << 10)   /* string table bytes per chunk */

static const char ksnap_magic[8] = { 'L', 'P', 'K', 'S', 'Y', 'M', 'S', '\n' };

struct ksnap_hdr {
	char magic[8];
	uint32_t version;
	uint32_t build_id_size;
	uint8_t build_id[20];
	char boot[40];
	uint32_t crc;
	uint64_t nsyms, strsize, core_lo, core_hi, total;
};

struct ksnap_ent {
	uint64_t start, size;
	uint32_t name, mangled;
};

struct ksnap_group {
	uint64_t first;           /* the group's first entry's start */
	uint32_t crc, pad;
};

_Static_assert(sizeof(struct ksnap_hdr) == 120, "ksnap header layout");
_Static_assert(sizeof(struct ksnap_ent) == 24, "ksnap entry layout");
_Static_assert(sizeof(struct ksnap_group) == 16, "ksnap group layout");

/* Where each part of a snapshot of nsyms entries and strsize string bytes lies. */
struct ksnap_layout {
	size_t ngroups, nchunks, chunks_off, ents_off, str_off, total;
};

static inline size_t ksnap_groups_of(uint64_t nsyms)
{
	return (size_t)((nsyms + GROUP_SYMS - 1) / GROUP_SYMS);
}

static inline size_t ksnap_chunks_of(uint64_t strsize)
{
	return (size_t)((strsize + CHUNK_BYTES - 1) / CHUNK_BYTES);
}

static inline void ksnap_layout_for(size_t nsyms, size_t strsize, struct ksnap_layout *l)
{
	l->ngroups = ksnap_groups_of(nsyms);
	l->nchunks = ksnap_chunks_of(strsize);
	l->chunks_off = sizeof(struct ksnap_hdr) + l->ngroups * sizeof(struct ksnap_group);
	l->ents_off = l->chunks_off + (l->nchunks * 4 + 7) / 8 * 8;
	l->str_off = l->ents_off + (size_t)nsyms * sizeof(struct ksnap_ent);
	l->total = l->str_off + (size_t)strsize;
}

#endif
