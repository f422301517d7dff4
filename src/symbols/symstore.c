/* Symbol tables that outlive a run (see symstore.h). Layout, native byte order:
 *
 *   header (struct sys_hdr, 120 bytes)
 *   nloads load segments (struct symtab_seg, 32 bytes)
 *   nsyms symbols (struct sys_ent, 24 bytes): start, size, name and mangled name offsets
 *   string table (strsize bytes: offset 0 is the empty string, then NUL-terminated strings)
 *
 * The CRC-32 covers the whole file, its own field taken as 0. */
#include "symbols/symstore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symbols/buildid_cache.h"
#include "util/error.h"
#include "util/xalloc.h"

#define SYS_DIR ".lperf/syms"
#define SYS_MAX (512u << 20)
#define SYS_EXEC 1u

static const char sys_magic[8] = { 'L', 'P', 'S', 'Y', 'M', 'S', '\n', '\0' };

struct sys_hdr {
	char magic[8];
	uint32_t version;
	uint32_t build_id_size;
	uint8_t build_id[20];
	uint32_t crc;
	uint32_t flags;          /* SYS_EXEC: ET_EXEC, addresses are absolute */
	uint32_t file, debug;    /* string offsets of the files read (debug 0: none) */
	uint32_t zero;
	uint64_t nsyms, nloads, strsize, total;
	uint64_t file_size;      /* the files' sizes and modification times (ns) when read */
	int64_t file_mtime;
	uint64_t debug_size;
	int64_t debug_mtime;
};

struct sys_ent {
	uint64_t start, size;
	uint32_t name, mangled;  /* string offsets; mangled 0: the same as name */
};

_Static_assert(sizeof(struct sys_hdr) == 120, "symbol store header layout");
_Static_assert(sizeof(struct sys_ent) == 24, "symbol store entry layout");
_Static_assert(sizeof(struct symtab_seg) == 32, "symbol store segment layout");

static uint32_t put_str(char *tab, size_t *off, const char *s)
{
	if (!s || !*s)
		return 0;
	uint32_t at = (uint32_t)*off;
	size_t len = strlen(s) + 1;
	memcpy(tab + at, s, len);
	*off += len;
	return at;
}

static size_t str_room(const char *s)
{
	return s && *s ? strlen(s) + 1 : 0;
}

void *symstore_build(const uint8_t *id, size_t idn, const struct symstore_src *file, const struct symstore_src *debug,
		     const struct symtab_load *r, size_t *len)
{
	size_t strsize = 1 + str_room(file->path) + str_room(debug->path);
	for (size_t i = 0; i < r->nsyms; i++)
		strsize += str_room(r->syms[i].name) + str_room(r->syms[i].mangled);
	size_t body = r->nloads * sizeof(struct symtab_seg) + r->nsyms * sizeof(struct sys_ent);
	char *buf = xcalloc(1, sizeof(struct sys_hdr) + body + strsize);
	struct symtab_seg *loads = (struct symtab_seg *)(buf + sizeof(struct sys_hdr));
	struct sys_ent *ents = (struct sys_ent *)(loads + r->nloads);
	char *str = (char *)(ents + r->nsyms);
	size_t off = 1;
	struct sys_hdr h = { 0 };
	h.file = put_str(str, &off, file->path);
	h.debug = put_str(str, &off, debug->path);
	if (r->nloads)
		memcpy(loads, r->loads, r->nloads * sizeof(*loads));
	for (size_t i = 0; i < r->nsyms; i++) {
		const struct symbol *s = &r->syms[i];
		ents[i] = (struct sys_ent){ s->start, s->size, put_str(str, &off, s->name), put_str(str, &off, s->mangled) };
	}
	memcpy(h.magic, sys_magic, sizeof(h.magic));
	h.version = SYMSTORE_VERSION;
	h.build_id_size = (uint32_t)idn;
	memcpy(h.build_id, id, idn);
	h.flags = r->is_exec ? SYS_EXEC : 0;
	h.nsyms = r->nsyms;
	h.nloads = r->nloads;
	h.strsize = off;
	h.total = sizeof(h) + body + off;
	h.file_size = file->size;
	h.file_mtime = file->mtime;
	h.debug_size = debug->path ? debug->size : 0;
	h.debug_mtime = debug->path ? debug->mtime : 0;
	memcpy(buf, &h, sizeof(h));
	h.crc = buildid_cache_crc(buf, h.total, offsetof(struct sys_hdr, crc));
	memcpy(buf, &h, sizeof(h));
	*len = h.total;
	return buf;
}

static int check_header(const struct sys_hdr *h, size_t len, const uint8_t *id, size_t idn)
{
	if (buildid_cache_check_head(h, sys_magic, SYMSTORE_VERSION, id, idn) < 0)
		return -1;
	if (h->flags & ~SYS_EXEC)
		return err_set("offset 40: unknown flags 0x%x", h->flags);
	if (h->total != len)
		return err_set("offset 80: size %llu, the file has %zu bytes", (unsigned long long)h->total, len);
	size_t body = len - sizeof(*h);
	if (h->nloads > body / sizeof(struct symtab_seg) || h->nsyms > body / sizeof(struct sys_ent) ||
	    h->nloads * sizeof(struct symtab_seg) + h->nsyms * sizeof(struct sys_ent) > body ||
	    h->strsize != body - h->nloads * sizeof(struct symtab_seg) - h->nsyms * sizeof(struct sys_ent) ||
	    h->strsize < 2 || h->strsize > UINT32_MAX)
		return err_set("offset 56: %llu symbols, %llu segments and %llu string bytes do not fill %zu bytes",
			       (unsigned long long)h->nsyms, (unsigned long long)h->nloads,
			       (unsigned long long)h->strsize, len);
	return 0;
}

/* A string offset: 0 (none) or the start of a non-empty string in the table. */
static bool str_ok(const struct sys_hdr *h, const char *str, uint32_t off)
{
	return off < h->strsize && (!off || str[off]);
}

static int check_entries(const struct sys_hdr *h, const struct sys_ent *e, const char *str, size_t str_at)
{
	if (str[0] || str[h->strsize - 1])
		return err_set("offset %zu: string table not terminated", str_at);
	if (!h->file || !str_ok(h, str, h->file) || !str_ok(h, str, h->debug))
		return err_set("offset 44: a file's name is outside the string table");
	size_t base = sizeof(*h) + h->nloads * sizeof(struct symtab_seg);
	for (size_t i = 0; i < h->nsyms; i++) {
		size_t off = base + i * sizeof(*e);
		if (!e[i].name || !str_ok(h, str, e[i].name) || !str_ok(h, str, e[i].mangled))
			return err_set("offset %zu: symbol %zu's name is outside the string table", off + 16, i);
		if (e[i].start + e[i].size < e[i].start)
			return err_set("offset %zu: symbol %zu wraps around the address space", off, i);
		/* symtab_finish's order: by start, one per address, a size never past the next start */
		if (i + 1 < h->nsyms && (e[i + 1].start <= e[i].start || e[i].start + e[i].size > e[i + 1].start))
			return err_set("offset %zu: symbol %zu is out of order or overlaps the next", off, i);
	}
	return 0;
}

int symstore_parse(const void *buf, size_t len, const uint8_t *id, size_t idn, struct symstore *s)
{
	memset(s, 0, sizeof(*s));
	struct sys_hdr h;
	if (len < sizeof(h))
		return err_set("offset 0: truncated header (%zu bytes)", len);
	memcpy(&h, buf, sizeof(h));
	if (check_header(&h, len, id, idn) < 0)
		return -1;
	if (buildid_cache_crc(buf, len, offsetof(struct sys_hdr, crc)) != h.crc)
		return err_set("offset 36: checksum mismatch (damaged)");
	if ((uintptr_t)buf % _Alignof(struct sys_ent))
		return err_set("offset 0: misaligned buffer");
	const struct symtab_seg *loads = (const struct symtab_seg *)((const char *)buf + sizeof(h));
	const struct sys_ent *e = (const struct sys_ent *)(loads + h.nloads);
	const char *str = (const char *)(e + h.nsyms);
	if (check_entries(&h, e, str, (size_t)(str - (const char *)buf)) < 0)
		return -1;
	s->syms = xcalloc(h.nsyms ? h.nsyms : 1, sizeof(*s->syms));
	for (size_t i = 0; i < h.nsyms; i++)
		s->syms[i] = (struct symbol){ e[i].start, e[i].size, (char *)str + e[i].name,
					      e[i].mangled ? (char *)str + e[i].mangled : NULL };
	s->nsyms = h.nsyms;
	if (h.nloads) {
		s->loads = xmalloc(h.nloads * sizeof(*s->loads));
		memcpy(s->loads, loads, h.nloads * sizeof(*s->loads));
	}
	s->nloads = h.nloads;
	s->is_exec = h.flags & SYS_EXEC;
	s->file = (struct symstore_src){ str + h.file, h.file_size, h.file_mtime };
	if (h.debug)
		s->debug = (struct symstore_src){ str + h.debug, h.debug_size, h.debug_mtime };
	return 0;
}

void symstore_release(struct symstore *s)
{
	free(s->syms);
	free(s->loads);
	memset(s, 0, sizeof(*s));
}

bool symstore_src_now(const char *path, struct symstore_src *src)
{
	src->path = path;
	return buildid_cache_file_now(path, &src->size, &src->mtime);
}

static bool unchanged(const struct symstore_src *then)
{
	struct symstore_src now;
	return symstore_src_now(then->path, &now) && now.size == then->size && now.mtime == then->mtime;
}

struct symstore *symstore_load(const uint8_t *id, size_t idn, const char *file)
{
	if (!idn || idn > BUILDID_SIZE || !file)
		return NULL;
	char hex[BUILDID_HEX];
	buildid_hex(id, idn, hex);
	size_t len = 0;
	void *map = buildid_cache_map(SYS_DIR, hex, SYS_MAX, &len);
	if (!map) {
		err_clear();
		return NULL;
	}
	struct symstore *s = xcalloc(1, sizeof(*s));
	if (symstore_parse(map, len, id, idn, s) < 0 || strcmp(s->file.path, file) || !unchanged(&s->file) ||
	    (s->debug.path && !unchanged(&s->debug))) {
		err_clear();
		symstore_release(s);
		free(s);
		munmap(map, len);
		return NULL;
	}
	s->map = map;
	s->len = len;
	return s;
}

void symstore_save(const uint8_t *id, size_t idn, const char *file, const struct symtab_load *r)
{
	if (!idn || idn > BUILDID_SIZE || !file)
		return;
	int err = errno;
	struct symstore_src f, dbg = { 0 };
	if (symstore_src_now(file, &f) && (!r->debug_path || symstore_src_now(r->debug_path, &dbg))) {
		char hex[BUILDID_HEX];
		buildid_hex(id, idn, hex);
		size_t len;
		void *buf = symstore_build(id, idn, &f, &dbg, r, &len);
		buildid_cache_store(SYS_DIR, hex, buf, len, 0644);
		free(buf);
	}
	err_clear();
	errno = err;
}

void symstore_free(struct symstore *s)
{
	if (!s)
		return;
	void *map = s->map;
	size_t len = s->len;
	symstore_release(s);
	if (map)
		munmap(map, len);
	free(s);
}
