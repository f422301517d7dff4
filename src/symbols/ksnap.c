/* The kernel symbol snapshot (see ksnap.h). Layout, native byte order:
 *
 *   header (struct ksnap_hdr, 120 bytes)
 *   groups table: per GROUP_SYMS entries, the first one's start and the group's CRC-32 (16 bytes)
 *   chunks table: per CHUNK_BYTES of the string table, its CRC-32 (4 bytes), padded to 8
 *   nsyms entries (struct ksnap_ent, 24 bytes): start, size, name and mangled-name offsets
 *   string table (strsize bytes, NUL-terminated names, ending with a NUL)
 *
 * The header's CRC-32 covers the header (its own field taken as 0) and both tables; each group
 * and chunk has its own, checked the first time a lookup reads it: a report names a few hundred
 * kernel symbols of 120,000, and checking the whole 6 MB file was 4 ms of every run. */
#include "symbols/ksnap.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/buildid_cache.h"
#include "symbols/kallsyms.h"
#include "symbols/ksnap_fmt.h"
#include "symbols/kstream.h"
#include "util/crc.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

#define KSNAP_DIR ".lperf/ksyms"
#define KSNAP_MAX (256u << 20)

/* False when the counts cannot describe a file of at most len bytes (no overflow). */
static bool layout_of(uint64_t nsyms, uint64_t strsize, size_t len, struct ksnap_layout *l)
{
	if (nsyms > len / sizeof(struct ksnap_ent) || strsize > len)
		return false;
	ksnap_layout_for((size_t)nsyms, (size_t)strsize, l);
	return true;
}

uint32_t ksnap_crc(const void *buf, size_t len)
{
	struct ksnap_hdr h;
	struct ksnap_layout l;
	if (len < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	size_t upto = layout_of(h.nsyms, h.strsize, len, &l) && l.ents_off <= len ? l.ents_off : sizeof(h);
	return buildid_cache_crc(buf, upto, offsetof(struct ksnap_hdr, crc));
}

void ksnap_seal(void *buf, size_t len)
{
	struct ksnap_hdr h;
	struct ksnap_layout l;
	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	if (layout_of(h.nsyms, h.strsize, len, &l) && l.total <= len) {
		uint8_t *b = buf;
		for (size_t g = 0; g < l.ngroups; g++) {
			size_t first = g * GROUP_SYMS, n = h.nsyms - first < GROUP_SYMS ? h.nsyms - first : GROUP_SYMS;
			struct ksnap_group gr = { 0, 0, 0 };
			memcpy(&gr.first, b + l.ents_off + first * sizeof(struct ksnap_ent), 8);
			gr.crc = crc_update(0, b + l.ents_off + first * sizeof(struct ksnap_ent), n * sizeof(struct ksnap_ent));
			memcpy(b + sizeof(h) + g * sizeof(gr), &gr, sizeof(gr));
		}
		for (size_t c = 0; c < l.nchunks; c++) {
			size_t off = c * CHUNK_BYTES, n = h.strsize - off < CHUNK_BYTES ? h.strsize - off : CHUNK_BYTES;
			uint32_t crc = crc_update(0, b + l.str_off + off, n);
			memcpy(b + l.chunks_off + c * 4, &crc, 4);
		}
	}
	uint32_t crc = ksnap_crc(buf, len);
	memcpy((char *)buf + offsetof(struct ksnap_hdr, crc), &crc, 4);
}

int ksnap_key_now(struct ksnap_key *k)
{
	memset(k, 0, sizeof(*k));
	k->build_id_size = buildid_kernel(k->build_id);
	if (!k->build_id_size)
		return err_set("the running kernel's build-id is unknown");
	size_t len;
	char *b = file_read("/proc/sys/kernel/random/boot_id", 64, &len);
	if (!b)
		return -1;
	while (len && (b[len - 1] == '\n' || b[len - 1] == ' '))
		b[--len] = 0;
	if (!len || len >= sizeof(k->boot)) {
		free(b);
		return err_set("/proc/sys/kernel/random/boot_id: unexpected contents");
	}
	memcpy(k->boot, b, len);
	free(b);
	return 0;
}

/* Module, BPF and trampoline symbols are tagged ("name [mod]"); the core kernel's are not. */
static bool tagged(const char *name)
{
	return strchr(name, ' ') != NULL;
}

/* The core range: from the first untagged symbol up to the start of the last one, cut at the
 * first tagged symbol inside it. Past the last core symbol, its size depends on what follows. */
static void core_range(const struct symbol *syms, size_t n, uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	size_t i = 0;
	while (i < n && tagged(syms[i].name))
		i++;
	if (i == n)
		return;
	size_t last = i;
	for (size_t j = i + 1; j < n && !tagged(syms[j].name); j++)
		last = j;
	*lo = syms[i].start;
	*hi = syms[last].start;
}

void *ksnap_build(const struct ksnap_key *k, const struct symbol *syms, size_t nsyms, size_t *len)
{
	size_t strsize = 1;
	for (size_t i = 0; i < nsyms; i++)
		strsize += strlen(syms[i].name) + 1 + (syms[i].mangled ? strlen(syms[i].mangled) + 1 : 0);
	struct ksnap_layout l;
	ksnap_layout_for(nsyms, strsize, &l);
	size_t total = l.total;
	char *buf = xcalloc(1, total);
	struct ksnap_hdr h = { 0 };
	memcpy(h.magic, ksnap_magic, sizeof(h.magic));
	h.version = KSNAP_VERSION;
	h.build_id_size = (uint32_t)k->build_id_size;
	memcpy(h.build_id, k->build_id, sizeof(h.build_id));
	memcpy(h.boot, k->boot, sizeof(h.boot));
	h.nsyms = nsyms;
	h.strsize = strsize;
	h.total = total;
	core_range(syms, nsyms, &h.core_lo, &h.core_hi);
	struct ksnap_ent *ents = (struct ksnap_ent *)(buf + l.ents_off);
	char *str = buf + l.str_off;
	size_t off = 1; /* offset 0: the empty string */
	for (size_t i = 0; i < nsyms; i++) {
		ents[i].start = syms[i].start;
		ents[i].size = syms[i].size;
		ents[i].name = (uint32_t)off;
		off += (size_t)(stpcpy(str + off, syms[i].name) - (str + off)) + 1;
		ents[i].mangled = NO_NAME;
		if (syms[i].mangled) {
			ents[i].mangled = (uint32_t)off;
			off += (size_t)(stpcpy(str + off, syms[i].mangled) - (str + off)) + 1;
		}
	}
	memcpy(buf, &h, sizeof(h));
	ksnap_seal(buf, total);
	*len = total;
	return buf;
}

static int check_header(const struct ksnap_hdr *h, size_t len, const struct ksnap_key *k, struct ksnap_layout *l)
{
	if (memcmp(h->magic, ksnap_magic, sizeof(h->magic)))
		return err_set("offset 0: bad magic");
	if (h->version != KSNAP_VERSION)
		return err_set("offset 8: version %u, not %d", h->version, KSNAP_VERSION);
	if (h->build_id_size != k->build_id_size || memcmp(h->build_id, k->build_id, k->build_id_size))
		return err_set("offset 12: another kernel's build-id");
	if (memchr(h->boot, 0, sizeof(h->boot)) == NULL || strcmp(h->boot, k->boot))
		return err_set("offset 36: another boot's snapshot");
	if (h->total != len)
		return err_set("offset 112: size %llu, the file has %zu bytes", (unsigned long long)h->total, len);
	if (h->nsyms == 0 || h->strsize == 0 || h->strsize > NO_NAME || !layout_of(h->nsyms, h->strsize, len, l) ||
	    l->total != len)
		return err_set("offset 80: %llu symbols and %llu string bytes do not fill %zu bytes",
			       (unsigned long long)h->nsyms, (unsigned long long)h->strsize, len);
	if (h->core_lo > h->core_hi)
		return err_set("offset 96: core range ends before it starts");
	return 0;
}

/* Group g's entries, checked once: their CRC, each in order and not overlapping the next (the
 * next group's first by the table), names inside the string table. */
static int check_group(struct ksnap *s, size_t g)
{
	if (s->group_ok[g])
		return 0;
	struct ksnap_group gr;
	memcpy(&gr, s->groups + g * sizeof(gr), sizeof(gr));
	size_t first = g * GROUP_SYMS, n = s->nsyms - first < GROUP_SYMS ? s->nsyms - first : GROUP_SYMS;
	const struct ksnap_ent *e = s->ents + first;
	size_t off = s->ents_off + first * sizeof(*e);
	if (crc_update(0, e, n * sizeof(*e)) != gr.crc)
		return err_set("offset %zu: checksum mismatch in symbols %zu to %zu (damaged)", off, first, first + n - 1);
	if (e[0].start != gr.first)
		return err_set("offset %zu: symbol %zu's start is not the groups table's", off, first);
	for (size_t i = 0; i < n; i++, off += sizeof(*e)) {
		bool last = first + i + 1 == s->nsyms;
		uint64_t next = i + 1 < n ? e[i + 1].start : 0;
		if (!last && i + 1 == n)
			memcpy(&next, s->groups + (g + 1) * sizeof(gr), sizeof(next));
		if (e[i].name >= s->strsize || (e[i].mangled != NO_NAME && e[i].mangled >= s->strsize))
			return err_set("offset %zu: symbol %zu's name is outside the string table", off, first + i);
		if (e[i].start + e[i].size < e[i].start ||
		    (!last && (next <= e[i].start || e[i].start + e[i].size > next)))
			return err_set("offset %zu: symbol %zu is out of order or overlaps the next", off, first + i);
	}
	s->group_ok[g] = 1;
	return 0;
}

/* The string at offset off of the string table, its chunks checked: NULL when it does not end
 * inside the table (err_set). */
static const char *string_at(struct ksnap *s, uint32_t off)
{
	for (size_t c = off / CHUNK_BYTES; c < s->nchunks; c++) {
		size_t lo = c * CHUNK_BYTES, n = s->strsize - lo < CHUNK_BYTES ? s->strsize - lo : CHUNK_BYTES;
		if (!s->chunk_ok[c]) {
			uint32_t want;
			memcpy(&want, s->chunks + c * 4, 4);
			if (crc_update(0, s->str + lo, n) != want)
				return err_set("offset %zu: checksum mismatch in the string table (damaged)", s->str_off + lo),
				       NULL;
			s->chunk_ok[c] = 1;
		}
		if (memchr(s->str + (lo > off ? lo : off), 0, lo + n - (lo > off ? lo : off)))
			return s->str + off;
	}
	return err_set("offset %zu: string table not terminated", s->str_off + s->strsize - 1), NULL;
}

/* Entry i as a symbol (its group checked), filled on first use. */
static const struct symbol *symbol_at(struct ksnap *s, size_t i)
{
	if (s->syms[i].name)
		return &s->syms[i];
	const struct ksnap_ent *e = &s->ents[i];
	size_t off = s->ents_off + i * sizeof(*e);
	const char *name = string_at(s, e->name), *mangled = NULL;
	if (!name || (e->mangled != NO_NAME && !(mangled = string_at(s, e->mangled))))
		return NULL;
	if (!*name)
		return err_set("offset %zu: symbol %zu's name is empty", off, i), NULL;
	/* Inside the core range only core symbols: what ksnap_covers relies on. */
	if (e->start >= s->core_lo && e->start <= s->core_hi && tagged(name))
		return err_set("offset %zu: a module symbol inside the core kernel's range", off), NULL;
	s->syms[i] = (struct symbol){ e->start, e->size, (char *)name, (char *)mangled };
	return &s->syms[i];
}

int ksnap_open(const void *buf, size_t len, const struct ksnap_key *k, struct ksnap *s)
{
	memset(s, 0, sizeof(*s));
	struct ksnap_hdr h;
	struct ksnap_layout l = { 0 };
	if (len < sizeof(h))
		return err_set("offset 0: truncated header (%zu bytes)", len);
	memcpy(&h, buf, sizeof(h));
	if (check_header(&h, len, k, &l) < 0)
		return -1;
	if (ksnap_crc(buf, len) != h.crc)
		return err_set("offset 76: checksum mismatch (damaged)");
	if ((uintptr_t)buf % _Alignof(struct ksnap_ent))
		return err_set("offset 0: misaligned snapshot");
	const uint8_t *b = buf;
	s->nsyms = h.nsyms;
	s->strsize = h.strsize;
	s->core_lo = h.core_lo;
	s->core_hi = h.core_hi;
	s->groups = b + sizeof(h);
	s->chunks = b + l.chunks_off;
	s->ents = (const struct ksnap_ent *)(b + l.ents_off);
	s->ents_off = l.ents_off;
	s->str = (const char *)b + l.str_off;
	s->str_off = l.str_off;
	s->ngroups = l.ngroups;
	s->nchunks = l.nchunks;
	s->group_ok = xcalloc(l.ngroups + l.nchunks, 1);
	s->chunk_ok = s->group_ok + l.ngroups;
	/* Anonymous pages: only those of the symbols looked up are ever touched. */
	s->syms_len = s->nsyms * sizeof(struct symbol);
	s->syms = mmap(NULL, s->syms_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->syms == MAP_FAILED) {
		s->syms = NULL;
		free(s->group_ok);
		return err_set("kernel symbol snapshot: no memory for %zu symbols", s->nsyms);
	}
	return 0;
}

int ksnap_find(struct ksnap *s, uint64_t addr, const struct symbol **out)
{
	*out = NULL;
	size_t lo = 0, hi = s->ngroups;
	while (lo < hi) { /* the last group whose first start is at or below addr */
		size_t mid = lo + (hi - lo) / 2;
		uint64_t first;
		memcpy(&first, s->groups + mid * sizeof(struct ksnap_group), sizeof(first));
		if (first <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	size_t g = lo - 1;
	if (check_group(s, g) < 0)
		return -1;
	size_t first = g * GROUP_SYMS, end = s->nsyms - first < GROUP_SYMS ? s->nsyms : first + GROUP_SYMS;
	lo = first;
	hi = end;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct ksnap_ent *e = &s->ents[lo - 1];
	if (addr - e->start >= (e->size ? e->size : 1))
		return 0;
	*out = symbol_at(s, lo - 1);
	return *out ? 0 : -1;
}

const struct symbol *ksnap_seen(const struct ksnap *s, const struct symbol *like)
{
	size_t lo = 0, hi = s->ngroups;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t first;
		memcpy(&first, s->groups + mid * sizeof(struct ksnap_group), sizeof(first));
		if (first <= like->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !s->group_ok[lo - 1]) /* only checked entries are read */
		return NULL;
	size_t first = (lo - 1) * GROUP_SYMS, end = s->nsyms - first < GROUP_SYMS ? s->nsyms : first + GROUP_SYMS;
	for (lo = first, hi = end; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ents[mid].start < like->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct symbol *o = lo < end ? &s->syms[lo] : NULL;
	if (!o || !o->name || o->start != like->start || o->size != like->size || strcmp(o->name, like->name) ||
	    !o->mangled != !like->mangled || (o->mangled && strcmp(o->mangled, like->mangled)))
		return NULL;
	return o;
}

/* Every group and symbol checked and filled, as a lookup of each would. */
static int check_all(struct ksnap *s)
{
	if (s->str[s->strsize - 1])
		return err_set("offset %zu: string table not terminated", s->str_off + s->strsize - 1);
	for (size_t g = 0; g < s->ngroups; g++)
		if (check_group(s, g) < 0)
			return -1;
	for (size_t i = 0; i < s->nsyms; i++)
		if (!symbol_at(s, i))
			return -1;
	return 0;
}

int ksnap_parse(const void *buf, size_t len, const struct ksnap_key *k, struct ksnap *s)
{
	if (ksnap_open(buf, len, k, s) < 0)
		return -1;
	if (check_all(s) < 0) {
		ksnap_release(s);
		return -1;
	}
	return 0;
}

void ksnap_release(struct ksnap *s)
{
	if (s->syms)
		munmap(s->syms, s->syms_len);
	free(s->group_ok);
	if (s->map)
		munmap(s->map, s->len);
	memset(s, 0, sizeof(*s));
}

void ksnap_free(struct ksnap *s)
{
	if (!s)
		return;
	ksnap_release(s);
	free(s);
}

bool ksnap_covers(const struct ksnap *s, uint64_t addr)
{
	return addr >= s->core_lo && addr < s->core_hi;
}

size_t ksnap_keep_outside(const struct ksnap *s, struct symbol *syms, size_t n)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		struct symbol *y = &syms[i];
		uint64_t size = y->size ? y->size : 1; /* a zero size holds its start */
		if (y->start < s->core_lo || y->start >= s->core_hi || size > s->core_hi - y->start) {
			syms[kept++] = *y;
			continue;
		}
		free(y->name);
		free(y->mangled);
	}
	return kept;
}

/* Kernel addresses are shown to this process as to root: kptr_restrict 0, or 1 as root. */
static bool addresses_visible(void)
{
	long v;
	if (file_read_int("/proc/sys/kernel/kptr_restrict", &v) < 0)
		return false;
	return geteuid() == 0 && v <= 1;
}

static bool usable(struct ksnap_key *k, char hex[BUILDID_HEX])
{
	if (!addresses_visible() || ksnap_key_now(k) < 0)
		return false;
	buildid_hex(k->build_id, k->build_id_size, hex);
	return true;
}

/* The snapshot for k from the cache: its header and tables checked (the rest as lookups read
 * it), or, whole, every part. */
static struct ksnap *load_for(const struct ksnap_key *k, const char *hex, bool whole)
{
	size_t len = 0;
	void *map = buildid_cache_map(KSNAP_DIR, hex, KSNAP_MAX, &len);
	if (!map)
		return NULL;
	struct ksnap *s = xcalloc(1, sizeof(*s));
	if (ksnap_open(map, len, k, s) < 0 || (whole && check_all(s) < 0)) {
		ksnap_release(s);
		munmap(map, len);
		free(s);
		return NULL;
	}
	s->map = map;
	s->len = len;
	if (whole) /* its pages back to the page cache: a lookup refaults what it reads */
		madvise(map, len, MADV_DONTNEED);
	return s;
}

struct ksnap *ksnap_load(void)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	return usable(&k, hex) ? load_for(&k, hex, false) : NULL;
}

/* ksnap_save's work for k; true when the cache holds the snapshot of syms afterwards. */
static bool save_for(const struct ksnap_key *k, const char *hex, const struct symbol *syms, size_t nsyms,
		     const struct ksnap *old)
{
	int err = errno;
	size_t len;
	void *buf = ksnap_build(k, syms, nsyms, &len);
	/* the same bytes as the snapshot read: nothing to write */
	bool same = old && old->map && old->len == len && !memcmp(old->map, buf, len);
	bool stored = same || buildid_cache_store(KSNAP_DIR, hex, buf, len, 0600) == 0;
	free(buf);
	err_clear();
	errno = err;
	return stored;
}

void ksnap_save(const struct symbol *syms, size_t nsyms, const struct ksnap *old)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	if (nsyms && usable(&k, hex))
		save_for(&k, hex, syms, nsyms, old);
}

struct ksnap *ksnap_save_load(const struct symbol *syms, size_t nsyms)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	if (!nsyms || !usable(&k, hex) || !save_for(&k, hex, syms, nsyms, NULL))
		return NULL;
	struct ksnap *s = load_for(&k, hex, false);
	err_clear();
	return s;
}

struct ksnap *ksnap_save_rest(struct symbol **syms, size_t *nsyms)
{
	struct ksnap *s = ksnap_save_load(*syms, *nsyms);
	if (!s)
		return NULL;
	*nsyms = ksnap_keep_outside(s, *syms, *nsyms);
	if (*nsyms) /* else the array stays, empty, for its owner to free */
		*syms = xrealloc(*syms, *nsyms * sizeof(**syms));
	return s;
}

/* The first of s's entries from lo on that starts at or after addr. */
static size_t first_from(const struct ksnap *s, size_t lo, uint64_t addr)
{
	for (size_t hi = s->nsyms; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ents[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ksnap_rest(struct ksnap *s, struct symbol **out, size_t *nout)
{
	/* [a, b): the entries starting inside the core range */
	size_t a = first_from(s, 0, s->core_lo), b = first_from(s, a, s->core_hi);
	/* Checked entries do not overlap: of those inside, only the last can reach past core_hi. */
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < s->nsyms; i++) {
		if (i == a && b > a + 1)
			i = b - 1;
		const struct symbol *y = check_group(s, i / GROUP_SYMS) < 0 ? NULL : symbol_at(s, i);
		if (!y) {
			symtab_free(*out, n);
			return -1;
		}
		uint64_t size = y->size ? y->size : 1;
		if (y->start >= s->core_lo && y->start < s->core_hi && size <= s->core_hi - y->start)
			continue;
		ALLOC_GROW(*out, n + 1, cap);
		(*out)[n++] = (struct symbol){ y->start, y->size, xstrdup(y->name), y->mangled ? xstrdup(y->mangled) : NULL };
	}
	*nout = n;
	return 0;
}

/* kstream_write's file into the cache. */
static int stream_fill(int fd, void *arg)
{
	return kstream_write(kallsyms_path(), arg, fd);
}

struct ksnap *ksnap_stream_rest(struct symtab_load *rest)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	int err = errno;
	struct ksnap *s = NULL;
	if (usable(&k, hex) && buildid_cache_store_with(KSNAP_DIR, hex, 0600, stream_fill, &k) == 0 &&
	    (s = load_for(&k, hex, false)) && ksnap_rest(s, &rest->syms, &rest->nsyms) < 0) {
		ksnap_free(s);
		s = NULL;
	}
	err_clear();
	errno = err;
	return s;
}

int ksnap_refresh(void)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	if (getenv("LPERF_KALLSYMS") || !usable(&k, hex))
		return 0;
	struct ksnap *old = load_for(&k, hex, true);
	if (old) { /* checked whole: this kernel, this boot, undamaged */
		ksnap_free(old);
		return 0;
	}
	int err = errno;
	int written = buildid_cache_store_with(KSNAP_DIR, hex, 0600, stream_fill, &k) == 0;
	err_clear();
	errno = err;
	return written;
}
