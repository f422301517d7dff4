/* Source lines that outlive a run (see srcline_store.h). Layout, native byte order:
 *
 *   header (struct sls_hdr, 96 bytes)
 *   n entries (struct sls_ent, 24 bytes): address, file name offset (0: no line), line (~0, with
 *     file 0: not looked up), and its inline chain's first level and count (count ~0: not kept)
 *   nlev inline levels (struct sls_lev, 32 bytes): function, file, line (~0, with file 0: the
 *     entry's levels' lines not looked up; all of its levels or none), linkage, DIE, low
 *   string table (strsize bytes: offset 0 is the empty string, then NUL-terminated strings)
 *
 * The CRC-32 covers the whole file, its own field taken as 0. */
#include "symbols/srcline_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symbols/buildid_cache.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

#define SLS_DIR ".lperf/lines"
#define SLS_MAX (256u << 20)
#define NO_INL UINT32_MAX
#define NO_LINE UINT32_MAX
#define MAX_LEVELS 64

static const char sls_magic[8] = { 'L', 'P', 'L', 'I', 'N', 'E', 'S', '\n' };

struct sls_hdr {
	char magic[8];
	uint32_t version;
	uint32_t build_id_size;
	uint8_t build_id[20];
	uint32_t crc;
	uint32_t dwarf_path;   /* string offset of the DWARF's file */
	uint32_t zero;
	uint64_t n, nlev, strsize, total;
	uint64_t dwarf_size;   /* the DWARF file's size and modification time when it was read */
	int64_t dwarf_mtime;   /* (ns): a file stripped or replaced since has other lines */
};

struct sls_ent {
	uint64_t addr;
	uint32_t file, line;   /* file: string offset, 0 when no line */
	uint32_t lev, nlev;    /* its inline chain: levels [lev, lev + nlev); nlev NO_INL: not kept */
};

struct sls_lev {
	uint32_t func, file, line, linkage; /* func, file: string offsets, 0 for none */
	uint64_t die, low;
};

_Static_assert(sizeof(struct sls_hdr) == 96, "srcline store header layout");
_Static_assert(sizeof(struct sls_ent) == 24, "srcline store entry layout");
_Static_assert(sizeof(struct sls_lev) == 32, "srcline store level layout");

/* The string table being built: each string once (files and functions repeat). */
struct strtab {
	char *str;
	size_t off;
	struct hashmap seen;
};

static uint32_t add_str(struct strtab *t, const char *s)
{
	if (!s)
		return 0;
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(&t->seen, s, &found);
	if (found)
		return (uint32_t)(uintptr_t)e->value;
	uint32_t at = (uint32_t)t->off;
	size_t len = strlen(s) + 1;
	memcpy(t->str + at, s, len);
	t->off += len;
	e->value = (void *)(uintptr_t)at;
	return at;
}

static size_t str_room(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

void *slstore_build(const uint8_t *id, size_t idn, const struct slstore_dwarf *dw, const struct slstore_ent *v,
		    size_t n, size_t *len)
{
	size_t strsize = 1 + str_room(dw->path), nlev = 0; /* at most: repeats are stored once */
	for (size_t i = 0; i < n; i++) {
		strsize += str_room(v[i].file);
		if (v[i].has_inl)
			for (size_t j = 0; j < v[i].ninl; j++, nlev++)
				strsize += str_room(v[i].inl[j].func) + str_room(v[i].inl[j].file);
	}
	size_t body = n * sizeof(struct sls_ent) + nlev * sizeof(struct sls_lev);
	char *buf = xcalloc(1, sizeof(struct sls_hdr) + body + strsize);
	struct sls_ent *ents = (struct sls_ent *)(buf + sizeof(struct sls_hdr));
	struct sls_lev *levs = (struct sls_lev *)(ents + n);
	struct strtab t = { (char *)(levs + nlev), 1, HASHMAP_INIT(HASHMAP_STR) };
	struct sls_hdr h = { 0 };
	h.dwarf_path = add_str(&t, dw->path);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		ents[i] = (struct sls_ent){ v[i].addr, add_str(&t, v[i].file), v[i].line, (uint32_t)k, NO_INL };
		if (v[i].no_line)
			ents[i].file = 0, ents[i].line = NO_LINE;
		if (!v[i].has_inl)
			continue;
		ents[i].nlev = (uint32_t)v[i].ninl;
		for (size_t j = 0; j < v[i].ninl; j++, k++) {
			const struct srcline_inline *l = &v[i].inl[j];
			levs[k] = (struct sls_lev){ add_str(&t, l->func), add_str(&t, l->file), l->line, l->linkage,
						    l->die, l->low };
			if (v[i].no_inl_lines)
				levs[k].file = 0, levs[k].line = NO_LINE;
		}
	}
	hashmap_free(&t.seen);
	memcpy(h.magic, sls_magic, sizeof(h.magic));
	h.version = SLSTORE_VERSION;
	h.build_id_size = (uint32_t)idn;
	memcpy(h.build_id, id, idn);
	h.n = n;
	h.nlev = nlev;
	h.dwarf_size = dw->size;
	h.dwarf_mtime = dw->mtime;
	h.strsize = t.off;
	h.total = sizeof(h) + body + t.off;
	memcpy(buf, &h, sizeof(h));
	h.crc = buildid_cache_crc(buf, h.total, offsetof(struct sls_hdr, crc));
	memcpy(buf, &h, sizeof(h));
	*len = h.total;
	return buf;
}

static int check_header(const struct sls_hdr *h, size_t len, const uint8_t *id, size_t idn)
{
	if (buildid_cache_check_head(h, sls_magic, SLSTORE_VERSION, id, idn) < 0)
		return -1;
	if (h->total != len)
		return err_set("offset 72: size %llu, the file has %zu bytes", (unsigned long long)h->total, len);
	size_t body = len - sizeof(*h);
	if (h->n > body / sizeof(struct sls_ent) || h->nlev > body / sizeof(struct sls_lev) ||
	    h->n * sizeof(struct sls_ent) + h->nlev * sizeof(struct sls_lev) > body ||
	    h->strsize != body - h->n * sizeof(struct sls_ent) - h->nlev * sizeof(struct sls_lev) ||
	    h->strsize < 2 || h->strsize > UINT32_MAX)
		return err_set("offset 48: %llu entries, %llu levels and %llu string bytes do not fill %zu bytes",
			       (unsigned long long)h->n, (unsigned long long)h->nlev, (unsigned long long)h->strsize,
			       len);
	return 0;
}

/* A string offset: 0 (none) or the start of a non-empty string in the table. */
static bool str_ok(const struct sls_hdr *h, const char *str, uint32_t off)
{
	return off < h->strsize && (!off || str[off]);
}

static int check_entries(const struct sls_hdr *h, const struct sls_ent *e, const struct sls_lev *l, const char *str)
{
	if (str[0] || str[h->strsize - 1])
		return err_set("offset %zu: string table not terminated",
			       (size_t)(sizeof(*h) + h->n * sizeof(*e) + h->nlev * sizeof(*l)));
	if (!h->dwarf_path || !str_ok(h, str, h->dwarf_path))
		return err_set("offset 40: the DWARF file's name is outside the string table");
	for (size_t i = 0; i < h->n; i++) {
		size_t off = sizeof(*h) + i * sizeof(*e);
		if (!str_ok(h, str, e[i].file) || (e[i].line == NO_LINE && e[i].file))
			return err_set("offset %zu: entry %zu's file is outside the string table", off, i);
		if (i + 1 < h->n && e[i + 1].addr <= e[i].addr)
			return err_set("offset %zu: entry %zu is out of order", off, i);
		if (e[i].nlev != NO_INL && (e[i].nlev > MAX_LEVELS || e[i].lev > h->nlev || e[i].nlev > h->nlev - e[i].lev))
			return err_set("offset %zu: entry %zu's inline levels are outside the table", off + 16, i);
		for (uint32_t j = 1; e[i].nlev != NO_INL && j < e[i].nlev; j++)
			if ((l[e[i].lev + j].line == NO_LINE) != (l[e[i].lev].line == NO_LINE))
				return err_set("offset %zu: entry %zu's inline levels are partly looked up", off + 16, i);
	}
	for (size_t i = 0; i < h->nlev; i++)
		if (!str_ok(h, str, l[i].func) || !str_ok(h, str, l[i].file) || l[i].linkage > 1 ||
		    (l[i].line == NO_LINE && l[i].file))
			return err_set("offset %zu: inline level %zu: bad name, file or flag",
				       sizeof(*h) + h->n * sizeof(*e) + i * sizeof(*l), i);
	return 0;
}

static const char *str_at(const char *str, uint32_t off)
{
	return off ? str + off : NULL;
}

int slstore_parse(const void *buf, size_t len, const uint8_t *id, size_t idn, struct slstore *s)
{
	memset(s, 0, sizeof(*s));
	struct sls_hdr h;
	if (len < sizeof(h))
		return err_set("offset 0: truncated header (%zu bytes)", len);
	memcpy(&h, buf, sizeof(h));
	if (check_header(&h, len, id, idn) < 0)
		return -1;
	if (buildid_cache_crc(buf, len, offsetof(struct sls_hdr, crc)) != h.crc)
		return err_set("offset 36: checksum mismatch (damaged)");
	const struct sls_ent *e = (const struct sls_ent *)((const char *)buf + sizeof(h));
	if ((uintptr_t)e % _Alignof(struct sls_lev))
		return err_set("offset 96: misaligned entries");
	const struct sls_lev *l = (const struct sls_lev *)(e + h.n);
	const char *str = (const char *)(l + h.nlev);
	if (check_entries(&h, e, l, str) < 0)
		return -1;
	s->v = xcalloc(h.n ? h.n : 1, sizeof(*s->v));
	s->levels = xcalloc(h.nlev ? h.nlev : 1, sizeof(*s->levels));
	for (size_t i = 0; i < h.nlev; i++)
		s->levels[i] = (struct srcline_inline){ str_at(str, l[i].func), str_at(str, l[i].file),
							l[i].line == NO_LINE ? 0 : l[i].line, l[i].linkage, l[i].die,
							l[i].low };
	for (size_t i = 0; i < h.n; i++) {
		s->v[i] = (struct slstore_ent){ e[i].addr, str_at(str, e[i].file), e[i].line, e[i].nlev != NO_INL, NULL, 0 };
		if (e[i].line == NO_LINE)
			s->v[i].no_line = true, s->v[i].line = 0;
		if (s->v[i].has_inl) {
			s->v[i].inl = s->levels + e[i].lev;
			s->v[i].ninl = e[i].nlev;
			s->v[i].no_inl_lines = e[i].nlev && l[e[i].lev].line == NO_LINE;
		}
	}
	s->n = h.n;
	s->dwarf.path = str + h.dwarf_path;
	s->dwarf.size = h.dwarf_size;
	s->dwarf.mtime = h.dwarf_mtime;
	return 0;
}

static int addr_cmp(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = ((const struct slstore_ent *)elem)->addr;
	return a < b ? -1 : a > b;
}

const struct slstore_ent *slstore_find(const struct slstore *s, uint64_t addr)
{
	return s->n ? bsearch(&addr, s->v, s->n, sizeof(*s->v), addr_cmp) : NULL;
}

static void hex_name(const uint8_t *id, size_t idn, char hex[BUILDID_HEX])
{
	buildid_hex(id, idn, hex);
}

bool slstore_dwarf_now(const char *path, struct slstore_dwarf *dw)
{
	dw->path = path;
	return buildid_cache_file_now(path, &dw->size, &dw->mtime);
}

struct slstore *slstore_load(const uint8_t *id, size_t idn)
{
	if (!idn || idn > BUILDID_SIZE)
		return NULL;
	char hex[BUILDID_HEX];
	hex_name(id, idn, hex);
	size_t len = 0;
	void *map = buildid_cache_map(SLS_DIR, hex, SLS_MAX, &len);
	if (!map) {
		err_clear();
		return NULL;
	}
	struct slstore *s = xcalloc(1, sizeof(*s));
	struct slstore_dwarf now;
	if (slstore_parse(map, len, id, idn, s) < 0 || !slstore_dwarf_now(s->dwarf.path, &now) ||
	    now.size != s->dwarf.size || now.mtime != s->dwarf.mtime) {
		err_clear();
		free(s->v);
		free(s->levels);
		free(s);
		munmap(map, len);
		return NULL;
	}
	s->map = map;
	s->len = len;
	return s;
}

void slstore_save(const uint8_t *id, size_t idn, const char *dwarf_path, const struct slstore_ent *v, size_t n)
{
	if (!idn || idn > BUILDID_SIZE || !dwarf_path || !*dwarf_path)
		return;
	int err = errno;
	char hex[BUILDID_HEX];
	hex_name(id, idn, hex);
	struct slstore_dwarf dw;
	if (!slstore_dwarf_now(dwarf_path, &dw))
		return;
	size_t len;
	void *buf = slstore_build(id, idn, &dw, v, n, &len);
	buildid_cache_store(SLS_DIR, hex, buf, len, 0644);
	free(buf);
	err_clear();
	errno = err;
}

void slstore_free(struct slstore *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->levels);
	if (s->map)
		munmap(s->map, s->len);
	free(s);
}
