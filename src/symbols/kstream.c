/* The kernel symbol snapshot written as kallsyms is read (see kstream.h). */
#include "symbols/kstream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "symbols/buildid_cache.h"
#include "symbols/kallsyms.h"
#include "symbols/ksnap_fmt.h"
#include "symbols/symtab.h"
#include "util/crc.h"
#include "util/error.h"
#include "util/xalloc.h"

#define PIECE (256u << 10)        /* kallsyms read, and names written, this much at a time */
#define TEXT_MAX (512u << 20)     /* kallsyms_read's bound: anything larger is not kallsyms */
#define NAME_MANGLED (1u << 31)   /* the name's spelling follows it in the string table */
#define NAME_TAGGED (1u << 30)    /* the name has a space (a module's, BPF's): ksnap.c's tagged */
#define NAME_OFF (NAME_TAGGED - 1)

/* A text symbol as read, its names in the string table already. */
struct kent {
	uint64_t start;
	uint32_t name;            /* string table offset | NAME_* */
	uint32_t seq;             /* the order read: of the names at one address the last wins */
};

_Static_assert(sizeof(struct kent) == 16, "kstream entry");

struct conv {
	const char *path;
	struct kent *v;           /* mmap'd, so that it goes back to the kernel whole */
	size_t n, cap;
	uint32_t (*mang)[2];      /* name offset, mangled offset: of NAME_MANGLED names, in order */
	size_t nmang, mang_cap;
	int sfd;                  /* the string table (a memfd) */
	char *wbuf;               /* PIECE bytes, mmap'd: names on their way to sfd, then entries */
	size_t wlen;
	uint64_t strsize;         /* string table bytes so far */
	uint32_t crc;             /* the current chunk's CRC-32 */
	uint32_t *crcs;           /* the complete chunks' */
	size_t ncrcs, crcs_cap;
	uint64_t last;            /* the highest text symbol's address (kallsyms_parse_text's last) */
	bool failed;
};

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void flush(struct conv *c)
{
	for (size_t done = 0; done < c->wlen && !c->failed;) {
		ssize_t w = write(c->sfd, c->wbuf + done, c->wlen - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			c->failed = true;
		else
			done += (size_t)w;
	}
	c->wlen = 0;
}

/* Appends n bytes to the string table, summing its chunks as they fill. */
static void put(struct conv *c, const char *p, size_t n)
{
	while (n && !c->failed) {
		size_t room = CHUNK_BYTES - c->strsize % CHUNK_BYTES, k = n < room ? n : room;
		if (k > PIECE - c->wlen)
			k = PIECE - c->wlen;
		c->crc = crc_update(c->crc, p, k);
		memcpy(c->wbuf + c->wlen, p, k);
		c->wlen += k;
		c->strsize += k;
		p += k;
		n -= k;
		if (c->wlen == PIECE)
			flush(c);
		if (c->strsize % CHUNK_BYTES == 0) {
			ALLOC_GROW(c->crcs, c->ncrcs + 1, c->crcs_cap);
			c->crcs[c->ncrcs++] = c->crc;
			c->crc = 0;
		}
	}
}

/* One text symbol: its name (and spelling) as symtab_finish would name it, into the table. */
static void add(struct conv *c, uint64_t addr, const char *name, const char *mod, size_t modlen)
{
	size_t len = strlen(name);
	if (!len) /* symtab_add's rule */
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap * 2;
		void *v = mremap(c->v, c->cap * sizeof(*c->v), cap * sizeof(*c->v), MREMAP_MAYMOVE);
		if (v == MAP_FAILED) {
			c->failed = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	uint64_t off = c->strsize;
	uint32_t flags = 0;
	if (!mod && !(name[0] == '_' && (name[1] == 'Z' || name[1] == 'R'))) {
		put(c, name, len + 1); /* most kernel names: as they are, without a space */
	} else {
		char *suffix = mod ? xasprintf(" %.*s", (int)modlen, mod) : NULL;
		char *fin = symtab_final_name(name, suffix);
		put(c, fin, strlen(fin) + 1);
		if (strchr(fin, ' '))
			flags |= NAME_TAGGED;
		if (strncmp(fin, name, len)) {
			flags |= NAME_MANGLED;
			ALLOC_GROW(c->mang, c->nmang + 1, c->mang_cap);
			c->mang[c->nmang][0] = (uint32_t)off;
			c->mang[c->nmang++][1] = (uint32_t)c->strsize;
			put(c, name, len);
			put(c, suffix ? suffix : "", suffix ? strlen(suffix) + 1 : 1);
		}
		free(fin);
		free(suffix);
	}
	if (c->strsize > NAME_OFF)
		c->failed = true;
	c->v[c->n] = (struct kent){ addr, (uint32_t)off | flags, (uint32_t)c->n };
	c->n++;
}

static void line(struct conv *c, char *p, char *end)
{
	uint64_t addr;
	char type, *name, *mod;
	size_t modlen;
	if (!kallsyms_parse_line(p, end, &addr, &type, &name, &mod, &modlen) || !addr ||
	    !(type == 'T' || type == 't' || type == 'W' || type == 'w'))
		return;
	if (addr > c->last)
		c->last = addr;
	add(c, addr, name, mod, modlen);
}

/* Reads the file in pieces, each complete line parsed as it comes (kallsyms_parse_text's lines). */
static int read_text(struct conv *c, int fd)
{
	size_t cap = PIECE, have = 0;
	uint64_t total = 0;
	char *buf = map_anon(cap);
	if (!buf)
		return err_set("%s: no memory", c->path);
	int rc = 0;
	while (!c->failed) {
		ssize_t r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (total += (uint64_t)r) > TEXT_MAX) {
			rc = err_set("%s: %s", c->path, r < 0 ? strerror(errno) : "too large for kallsyms");
			break;
		}
		char *p = buf, *end = buf + have + r, *nl;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			line(c, p, nl);
			p = nl + 1;
		}
		if (r == 0) {
			if (p < end)
				line(c, p, end);
			break;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
		if (have == cap) { /* a line longer than a piece */
			void *b = mremap(buf, cap, cap * 2, MREMAP_MAYMOVE);
			if (b == MAP_FAILED) {
				rc = err_set("%s: no memory", c->path);
				break;
			}
			buf = b;
			cap *= 2;
		}
	}
	munmap(buf, cap);
	return rc;
}

static int kent_cmp(const void *pa, const void *pb)
{
	const struct kent *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorted (kallsyms lists the core kernel in order: usually nothing to do), one per address: the
 * last listed. The count kept. */
static size_t settle(struct conv *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (c->v[i].start < c->v[i - 1].start) {
			qsort(c->v, c->n, sizeof(*c->v), kent_cmp);
			break;
		}
	size_t m = 0;
	for (size_t i = 0; i < c->n; i++)
		if (i + 1 == c->n || c->v[i + 1].start != c->v[i].start)
			c->v[m++] = c->v[i];
	return m;
}

static uint32_t mangled_of(const struct conv *c, uint32_t name)
{
	size_t lo = 0, hi = c->nmang;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->mang[mid][0] < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nmang && c->mang[lo][0] == name ? c->mang[lo][1] : NO_NAME;
}

/* Symbol i of m as the file holds it: sized as symtab_finish sizes kallsyms' symbols. */
static struct ksnap_ent ent_of(const struct conv *c, size_t i, size_t m)
{
	const struct kent *e = &c->v[i];
	struct ksnap_ent o = { e->start, 0, e->name & NAME_OFF, NO_NAME };
	/* symtab_finish's rules, to the letter: UINT64_MAX is no next symbol; the last runs to the
	 * rest of its page and one more, as perf does. */
	uint64_t next = i + 1 < m ? c->v[i + 1].start : UINT64_MAX, end = next;
	uint64_t limit = e->start == c->last ? (c->last | 4095) + 1 + 4096 : 0;
	if (next == UINT64_MAX && limit > e->start)
		end = limit;
	o.size = end == UINT64_MAX ? 0 : end - e->start;
	if (e->name & NAME_MANGLED)
		o.mangled = mangled_of(c, e->name & NAME_OFF);
	return o;
}

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = pwrite(fd, (const char *)p + done, n - done, (off_t)(off + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return err_set("kernel symbol snapshot: %s", w < 0 ? strerror(errno) : "short write");
		done += (size_t)w;
	}
	return 0;
}

/* The entries (m of them) at l's place, their groups' table filled into tables. */
static int write_ents(struct conv *c, size_t m, const struct ksnap_layout *l, int fd, uint8_t *tables)
{
	struct ksnap_ent *buf = (struct ksnap_ent *)(void *)c->wbuf;
	_Static_assert(GROUP_SYMS * sizeof(struct ksnap_ent) <= PIECE, "a group fits the write buffer");
	for (size_t g = 0; g < l->ngroups; g++) {
		size_t first = g * GROUP_SYMS, n = m - first < GROUP_SYMS ? m - first : GROUP_SYMS;
		for (size_t i = 0; i < n; i++)
			buf[i] = ent_of(c, first + i, m);
		struct ksnap_group gr = { buf[0].start, crc_update(0, buf, n * sizeof(*buf)), 0 };
		memcpy(tables + sizeof(struct ksnap_hdr) + g * sizeof(gr), &gr, sizeof(gr));
		if (pwrite_all(fd, buf, n * sizeof(*buf), l->ents_off + first * sizeof(*buf)) < 0)
			return -1;
	}
	return 0;
}

/* The string table from the memfd to its place in fd: in the kernel, else through the buffer. */
static int copy_strings(struct conv *c, int fd, uint64_t at)
{
	off_t in = 0;
	if (lseek(fd, (off_t)at, SEEK_SET) == (off_t)at)
		while ((uint64_t)in < c->strsize && sendfile(fd, c->sfd, &in, (size_t)(c->strsize - (uint64_t)in)) > 0)
			;
	while ((uint64_t)in < c->strsize) {
		size_t n = c->strsize - (uint64_t)in < PIECE ? (size_t)(c->strsize - (uint64_t)in) : PIECE;
		ssize_t r = pread(c->sfd, c->wbuf, n, in);
		if (r <= 0 || pwrite_all(fd, c->wbuf, (size_t)r, at + (uint64_t)in) < 0)
			return err_set("kernel symbol snapshot: cannot copy its names");
		in += r;
	}
	return 0;
}

/* The core range as ksnap_build's: from the first untagged symbol to the last of its run. */
static void core_range(const struct conv *c, size_t m, uint64_t *lo, uint64_t *hi)
{
	size_t i = 0;
	while (i < m && (c->v[i].name & NAME_TAGGED))
		i++;
	*lo = *hi = 0;
	if (i == m)
		return;
	size_t last = i;
	while (last + 1 < m && !(c->v[last + 1].name & NAME_TAGGED))
		last++;
	*lo = c->v[i].start;
	*hi = c->v[last].start;
}

/* The file from what was read: entries, strings, then the header and tables, summed. */
static int write_file(struct conv *c, const struct ksnap_key *k, int fd)
{
	size_t m = settle(c);
	struct ksnap_layout l;
	ksnap_layout_for(m, (size_t)c->strsize, &l);
	if (l.nchunks != c->ncrcs)
		return err_set("kernel symbol snapshot: string table chunks miscounted");
	uint8_t *tables = xcalloc(1, l.ents_off);
	struct ksnap_hdr h = { .version = KSNAP_VERSION, .build_id_size = (uint32_t)k->build_id_size };
	memcpy(h.magic, ksnap_magic, sizeof(h.magic));
	memcpy(h.build_id, k->build_id, sizeof(h.build_id));
	memcpy(h.boot, k->boot, sizeof(h.boot));
	h.nsyms = m;
	h.strsize = c->strsize;
	h.total = l.total;
	core_range(c, m, &h.core_lo, &h.core_hi);
	memcpy(tables, &h, sizeof(h));
	memcpy(tables + l.chunks_off, c->crcs, c->ncrcs * 4);
	int rc = write_ents(c, m, &l, fd, tables);
	if (!rc)
		rc = copy_strings(c, fd, l.str_off);
	if (!rc) {
		uint32_t crc = buildid_cache_crc(tables, l.ents_off, offsetof(struct ksnap_hdr, crc));
		memcpy(tables + offsetof(struct ksnap_hdr, crc), &crc, 4);
		rc = pwrite_all(fd, tables, l.ents_off, 0);
	}
	free(tables);
	return rc;
}

int kstream_write(const char *path, const struct ksnap_key *k, int fd)
{
	struct conv c = { .path = path, .cap = 1u << 16, .sfd = -1 };
	int in = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	if (in < 0)
		return err_set("%s: %s", path, strerror(errno));
	c.v = map_anon(c.cap * sizeof(*c.v));
	c.wbuf = map_anon(PIECE);
	c.sfd = memfd_create("lperf-ksyms", MFD_CLOEXEC);
	if (!c.v || !c.wbuf || c.sfd < 0) {
		err_set("kernel symbol snapshot: no memory");
	} else {
		put(&c, "", 1); /* offset 0: the empty string */
		rc = read_text(&c, in);
		flush(&c);
		if (c.strsize % CHUNK_BYTES) {
			ALLOC_GROW(c.crcs, c.ncrcs + 1, c.crcs_cap);
			c.crcs[c.ncrcs++] = c.crc;
		}
		if (!rc && c.failed)
			rc = err_set("kernel symbol snapshot: cannot hold the names of '%s'", path);
		else if (!rc && !c.n)
			rc = err_set("no kernel text symbols in '%s'", path);
		if (!rc)
			rc = write_file(&c, k, fd);
	}
	close(in);
	if (c.sfd >= 0)
		close(c.sfd);
	if (c.v)
		munmap(c.v, c.cap * sizeof(*c.v));
	if (c.wbuf)
		munmap(c.wbuf, PIECE);
	free(c.mang);
	free(c.crcs);
	return rc;
}
