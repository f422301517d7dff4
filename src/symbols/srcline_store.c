/* Source lines that outlive a run (see srcline_store.h). Layout, native byte order:
 *
 *   header (struct sls_hdr, 88 bytes)
 *   n entries (struct sls_ent, 16 bytes): address, file name offset (0: no line), line
 *   string table (strsize bytes: offset 0 is the empty string, then NUL-terminated strings)
 *
 * The CRC-32 covers the whole file, its own field taken as 0. */
#include "symbols/srcline_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "symbols/buildid_cache.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

#define SLS_DIR ".lperf/lines"
#define SLS_MAX (64u << 20)

static const char sls_magic[8] = { 'L', 'P', 'L', 'I', 'N', 'E', 'S', '\n' };

struct sls_hdr {
	char magic[8];
	uint32_t version;
	uint32_t build_id_size;
	uint8_t build_id[20];
	uint32_t crc;
	uint32_t dwarf_path;   /* string offset of the DWARF's file */
	uint32_t zero;
	uint64_t n, strsize, total;
	uint64_t dwarf_size;   /* the DWARF file's size and modification time when it was read */
	int64_t dwarf_mtime;   /* (ns): a file stripped or replaced since has other lines */
};

struct sls_ent {
	uint64_t addr;
	uint32_t file, line;
};

_Static_assert(sizeof(struct sls_hdr) == 88, "srcline store header layout");
_Static_assert(sizeof(struct sls_ent) == 16, "srcline store entry layout");

/* Appends s to the string table once (files repeat across addresses); its offset. */
static uint32_t add_str(char *str, size_t *off, struct hashmap *seen, const char *s)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(seen, s, &found);
	if (found)
		return (uint32_t)(uintptr_t)e->value;
	uint32_t at = (uint32_t)*off;
	size_t len = strlen(s) + 1;
	memcpy(str + at, s, len);
	*off += len;
	e->value = (void *)(uintptr_t)at;
	return at;
}

void *slstore_build(const uint8_t *id, size_t idn, const struct slstore_dwarf *dw, const struct slstore_ent *v,
		    size_t n, size_t *len)
{
	const char *dwarf_path = dw->path;
	size_t strsize = 1 + strlen(dwarf_path) + 1;
	for (size_t i = 0; i < n; i++)
		strsize += v[i].file ? strlen(v[i].file) + 1 : 0; /* at most; repeats are stored once */
	char *buf = xcalloc(1, sizeof(struct sls_hdr) + n * sizeof(struct sls_ent) + strsize);
	struct sls_ent *ents = (struct sls_ent *)(buf + sizeof(struct sls_hdr));
	char *str = (char *)(ents + n);
	struct hashmap seen;
	hashmap_init(&seen, HASHMAP_STR);
	size_t off = 1;
	struct sls_hdr h = { 0 };
	h.dwarf_path = add_str(str, &off, &seen, dwarf_path);
	for (size_t i = 0; i < n; i++) {
		ents[i].addr = v[i].addr;
		ents[i].file = v[i].file ? add_str(str, &off, &seen, v[i].file) : 0;
		ents[i].line = v[i].line;
	}
	hashmap_free(&seen);
	memcpy(h.magic, sls_magic, sizeof(h.magic));
	h.version = SLSTORE_VERSION;
	h.build_id_size = (uint32_t)idn;
	memcpy(h.build_id, id, idn);
	h.n = n;
	h.dwarf_size = dw->size;
	h.dwarf_mtime = dw->mtime;
	h.strsize = off;
	h.total = sizeof(h) + n * sizeof(struct sls_ent) + off;
	memcpy(buf, &h, sizeof(h));
	h.crc = buildid_cache_crc(buf, h.total, offsetof(struct sls_hdr, crc));
	memcpy(buf, &h, sizeof(h));
	*len = h.total;
	return buf;
}

static int check_header(const struct sls_hdr *h, size_t len, const uint8_t *id, size_t idn)
{
	if (memcmp(h->magic, sls_magic, sizeof(h->magic)))
		return err_set("offset 0: bad magic");
	if (h->version != SLSTORE_VERSION)
		return err_set("offset 8: version %u, not %d", h->version, SLSTORE_VERSION);
	if (h->build_id_size != idn || idn > sizeof(h->build_id) || memcmp(h->build_id, id, idn))
		return err_set("offset 12: another file's build-id");
	if (h->total != len)
		return err_set("offset 64: size %llu, the file has %zu bytes", (unsigned long long)h->total, len);
	size_t body = len - sizeof(*h);
	if (h->n > body / sizeof(struct sls_ent) || h->strsize != body - h->n * sizeof(struct sls_ent) ||
	    h->strsize < 2 || h->strsize > UINT32_MAX)
		return err_set("offset 48: %llu entries and %llu string bytes do not fill %zu bytes",
			       (unsigned long long)h->n, (unsigned long long)h->strsize, len);
	return 0;
}

static int check_entries(const struct sls_hdr *h, const struct sls_ent *e, const char *str)
{
	if (str[0] || str[h->strsize - 1])
		return err_set("offset %zu: string table not terminated", sizeof(*h) + h->n * sizeof(*e));
	if (!h->dwarf_path || h->dwarf_path >= h->strsize || !str[h->dwarf_path])
		return err_set("offset 40: the DWARF file's name is outside the string table");
	for (size_t i = 0; i < h->n; i++) {
		size_t off = sizeof(*h) + i * sizeof(*e);
		if (e[i].file >= h->strsize || (e[i].file && !str[e[i].file]))
			return err_set("offset %zu: entry %zu's file is outside the string table", off, i);
		if (i + 1 < h->n && e[i + 1].addr <= e[i].addr)
			return err_set("offset %zu: entry %zu is out of order", off, i);
	}
	return 0;
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
	if ((uintptr_t)e % _Alignof(struct sls_ent))
		return err_set("offset 88: misaligned entries");
	const char *str = (const char *)(e + h.n);
	if (check_entries(&h, e, str) < 0)
		return -1;
	s->v = xcalloc(h.n ? h.n : 1, sizeof(*s->v));
	for (size_t i = 0; i < h.n; i++) {
		s->v[i].addr = e[i].addr;
		s->v[i].file = e[i].file ? str + e[i].file : NULL;
		s->v[i].line = e[i].line;
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

bool slstore_find(const struct slstore *s, uint64_t addr, const char **file, unsigned *line)
{
	const struct slstore_ent *e = s->n ? bsearch(&addr, s->v, s->n, sizeof(*s->v), addr_cmp) : NULL;
	if (!e)
		return false;
	*file = e->file;
	*line = e->line;
	return true;
}

static void hex_name(const uint8_t *id, size_t idn, char hex[BUILDID_HEX])
{
	buildid_hex(id, idn, hex);
}

bool slstore_dwarf_now(const char *path, struct slstore_dwarf *dw)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	dw->path = path;
	dw->size = (uint64_t)st.st_size;
	dw->mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return true;
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
	if (s->map)
		munmap(s->map, s->len);
	free(s);
}
