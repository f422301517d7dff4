/* The kernel symbol snapshot (see ksnap.h). Layout, native byte order:
 *
 *   header (struct ksnap_hdr, 120 bytes)
 *   nsyms entries (struct ksnap_ent, 24 bytes): start, size, name and mangled-name offsets
 *   string table (strsize bytes, NUL-terminated names, ending with a NUL)
 *
 * The CRC-32 covers the whole file, its own field taken as 0. */
#include "symbols/ksnap.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/buildid_cache.h"
#include "symbols/kallsyms.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

#define KSNAP_DIR ".lperf/ksyms"
#define KSNAP_MAX (256u << 20)
#define NO_NAME UINT32_MAX

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

_Static_assert(sizeof(struct ksnap_hdr) == 120, "ksnap header layout");
_Static_assert(sizeof(struct ksnap_ent) == 24, "ksnap entry layout");

uint32_t ksnap_crc(const void *buf, size_t len)
{
	return buildid_cache_crc(buf, len, offsetof(struct ksnap_hdr, crc));
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
	size_t total = sizeof(struct ksnap_hdr) + nsyms * sizeof(struct ksnap_ent) + strsize;
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
	struct ksnap_ent *ents = (struct ksnap_ent *)(buf + sizeof(h));
	char *str = (char *)(ents + nsyms);
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
	h.crc = ksnap_crc(buf, total);
	memcpy(buf, &h, sizeof(h));
	*len = total;
	return buf;
}

static int check_header(const struct ksnap_hdr *h, size_t len, const struct ksnap_key *k)
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
	size_t body = len - sizeof(*h);
	if (h->nsyms == 0 || h->nsyms > body / sizeof(struct ksnap_ent) ||
	    h->strsize != body - h->nsyms * sizeof(struct ksnap_ent) || h->strsize > NO_NAME)
		return err_set("offset 80: %llu symbols and %llu string bytes do not fill %zu bytes",
			       (unsigned long long)h->nsyms, (unsigned long long)h->strsize, len);
	if (h->core_lo > h->core_hi)
		return err_set("offset 96: core range ends before it starts");
	return 0;
}

/* Hands a read-only file mapping's pages back to the page cache behind a moving point, a step
 * at a time, so that checking a 6 MB snapshot does not hold all of it (a page read again later is
 * faulted back in). Off (base NULL) for a caller's buffer. */
#define BEHIND_STEP (1u << 20)

struct behind {
	const char *base;
	uintptr_t done;
};

static void hand_back(struct behind *b, const void *upto)
{
	if (!b->base)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)upto & ~(page - 1);
	if (!b->done)
		b->done = (uintptr_t)b->base & ~(page - 1);
	if (at > b->done && at - b->done >= BEHIND_STEP) {
		madvise((void *)b->done, at - b->done, MADV_DONTNEED);
		b->done = at;
	}
}

/* Checks the entries and, when syms is not NULL, fills it (names pointing into str). */
static int check_entries(const struct ksnap_hdr *h, const struct ksnap_ent *e, const char *str, struct symbol *syms,
			 bool file_map)
{
	if (str[h->strsize - 1])
		return err_set("offset %zu: string table not terminated",
			       (size_t)(sizeof(*h) + h->nsyms * sizeof(*e) + h->strsize - 1));
	struct behind ents = { file_map ? (const char *)e : NULL, 0 }, names = { file_map ? str : NULL, 0 };
	for (size_t i = 0; i < h->nsyms; i++) {
		size_t off = sizeof(*h) + i * sizeof(*e);
		if (!(i % 4096)) {
			hand_back(&ents, e + i);
			if (e[i].name < h->strsize)
				hand_back(&names, str + e[i].name);
		}
		if (e[i].name >= h->strsize || (e[i].mangled != NO_NAME && e[i].mangled >= h->strsize) ||
		    !str[e[i].name])
			return err_set("offset %zu: symbol %zu's name is outside the string table", off, i);
		if (e[i].start + e[i].size < e[i].start ||
		    (i + 1 < h->nsyms && (e[i + 1].start <= e[i].start || e[i].start + e[i].size > e[i + 1].start)))
			return err_set("offset %zu: symbol %zu is out of order or overlaps the next", off, i);
		/* Inside the core range only core symbols: what ksnap_covers relies on. */
		if (e[i].start >= h->core_lo && e[i].start <= h->core_hi && tagged(str + e[i].name))
			return err_set("offset %zu: a module symbol inside the core kernel's range", off);
		if (syms)
			syms[i] = (struct symbol){ e[i].start, e[i].size, (char *)str + e[i].name,
						   e[i].mangled == NO_NAME ? NULL : (char *)str + e[i].mangled };
	}
	return 0;
}

/* ksnap_parse; file_map: buf is a read-only mapping of the file, whose pages are handed back as
 * the checks pass them (only the names a report prints come back). */
static int parse(const void *buf, size_t len, const struct ksnap_key *k, struct ksnap *s, bool file_map)
{
	memset(s, 0, sizeof(*s));
	struct ksnap_hdr h;
	if (len < sizeof(h))
		return err_set("offset 0: truncated header (%zu bytes)", len);
	memcpy(&h, buf, sizeof(h));
	if (check_header(&h, len, k) < 0)
		return -1;
	const char *body = (const char *)buf + sizeof(h);
	uint32_t crc = file_map ? buildid_cache_crc_mapped(buf, len, offsetof(struct ksnap_hdr, crc)) : ksnap_crc(buf, len);
	if (crc != h.crc)
		return err_set("offset 76: checksum mismatch (damaged)");
	if ((uintptr_t)body % _Alignof(struct ksnap_ent))
		return err_set("offset 120: misaligned entries");
	const struct ksnap_ent *e = (const struct ksnap_ent *)body;
	const char *str = (const char *)(e + h.nsyms);
	s->syms = xcalloc(h.nsyms, sizeof(*s->syms));
	if (check_entries(&h, e, str, s->syms, file_map) < 0) {
		free(s->syms);
		s->syms = NULL;
		return -1;
	}
	s->nsyms = h.nsyms;
	s->core_lo = h.core_lo;
	s->core_hi = h.core_hi;
	return 0;
}

int ksnap_parse(const void *buf, size_t len, const struct ksnap_key *k, struct ksnap *s)
{
	return parse(buf, len, k, s, false);
}

void ksnap_release(struct ksnap *s)
{
	free(s->syms);
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

static struct ksnap *load_for(const struct ksnap_key *k, const char *hex)
{
	size_t len = 0;
	void *map = buildid_cache_map(KSNAP_DIR, hex, KSNAP_MAX, &len);
	if (!map)
		return NULL;
	struct ksnap *s = xcalloc(1, sizeof(*s));
	if (parse(map, len, k, s, true) < 0) {
		munmap(map, len);
		free(s);
		return NULL;
	}
	s->map = map;
	s->len = len;
	/* Checked: its pages go back to the page cache, and only the names a report prints come
	 * back (its read-only file mapping refaults them). */
	madvise(map, len, MADV_DONTNEED);
	return s;
}

struct ksnap *ksnap_load(void)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	return usable(&k, hex) ? load_for(&k, hex) : NULL;
}

static bool same_syms(const struct symbol *a, const struct symbol *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].start != b[i].start || a[i].size != b[i].size || strcmp(a[i].name, b[i].name) ||
		    !a[i].mangled != !b[i].mangled || (a[i].mangled && strcmp(a[i].mangled, b[i].mangled)))
			return false;
	return true;
}

void ksnap_save(const struct symbol *syms, size_t nsyms, const struct ksnap *old)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	if (!nsyms || !usable(&k, hex))
		return;
	if (old && old->nsyms == nsyms && same_syms(old->syms, syms, nsyms))
		return;
	int err = errno;
	size_t len;
	void *buf = ksnap_build(&k, syms, nsyms, &len);
	buildid_cache_store(KSNAP_DIR, hex, buf, len, 0600);
	free(buf);
	err_clear();
	errno = err;
}

int ksnap_refresh(void)
{
	struct ksnap_key k;
	char hex[BUILDID_HEX];
	if (getenv("LPERF_KALLSYMS") || !usable(&k, hex))
		return 0;
	struct ksnap *old = load_for(&k, hex);
	if (old) { /* checked whole: this kernel, this boot, undamaged */
		ksnap_free(old);
		return 0;
	}
	struct symtab_load r = { 0 };
	kallsyms_load("/proc/kallsyms", &r);
	int written = 0;
	if (r.nsyms) {
		int err = errno;
		size_t len;
		void *buf = ksnap_build(&k, r.syms, r.nsyms, &len);
		written = buildid_cache_store(KSNAP_DIR, hex, buf, len, 0600) == 0;
		free(buf);
		err_clear();
		errno = err;
	}
	symtab_free(r.syms, r.nsyms);
	notes_clear(&r.notes);
	return written;
}
