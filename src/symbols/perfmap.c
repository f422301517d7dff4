/* Perf map files: parsing, the later-line-wins index, and safe reading from /tmp. (The DSO side,
 * lazy loading and the growth of a live process's map, is dso.c's.) */
#include "symbols/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* Symbols live in fixed blocks so that pointers handed out stay valid while a live process's map
 * grows. */
#define PM_BLOCK 1024
/* Java agents write maps of tens of megabytes; far larger is not a perf map. */
#define PM_FILE_MAX ((size_t)1 << 30)

struct pm_seg {
	uint64_t start, end;     /* [start, end) */
	const struct symbol *sym;
};

struct perfmap {
	struct symbol **blocks;
	size_t nblocks, bcap;
	size_t lines;            /* lines seen, for line numbers in notes */
	struct pm_seg *segs;     /* disjoint, sorted: who owns each byte */
	size_t nsegs, scap;
	size_t painted;          /* entries the segments account for */
	struct perfmap_stats st;
};

struct perfmap *perfmap_new(void)
{
	return xcalloc(1, sizeof(struct perfmap));
}

static struct symbol *entry_at(const struct perfmap *pm, size_t i)
{
	return &pm->blocks[i / PM_BLOCK][i % PM_BLOCK];
}

const struct symbol *perfmap_entry(const struct perfmap *pm, size_t i)
{
	return i < pm->st.entries ? entry_at(pm, i) : NULL;
}

static struct symbol *new_entry(struct perfmap *pm)
{
	size_t i = pm->st.entries;
	if (i / PM_BLOCK >= pm->nblocks) {
		ALLOC_GROW(pm->blocks, pm->nblocks + 1, pm->bcap);
		pm->blocks[pm->nblocks++] = xcalloc(PM_BLOCK, sizeof(struct symbol));
	}
	pm->st.entries++;
	return entry_at(pm, i);
}

/* A hex number with an optional 0x, as perf's strtoull(.., 16) takes it; NULL when absent or
 * wider than 64 bits. */
static const char *parse_hex(const char *p, const char *end, uint64_t *v)
{
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hex_digit(p[2]) >= 0)
		p += 2;
	uint64_t x = 0;
	int digits = 0, h;
	while (p < end && (h = hex_digit(*p)) >= 0) {
		if (x >> 60)
			return NULL;
		x = x << 4 | (uint64_t)h;
		digits++;
		p++;
	}
	*v = x;
	return digits ? p : NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* "START SIZE name": one separator after START (more are skipped, as strtoull does), exactly
 * one after SIZE, and the name is the rest of the line, whatever it holds. */
static bool parse_line(struct perfmap *pm, const char *p, const char *end)
{
	uint64_t start, size;
	if (end > p && end[-1] == '\r')
		end--;
	p = parse_hex(p, end, &start);
	if (!p || p == end || !is_blank(*p))
		return false;
	while (p < end && is_blank(*p))
		p++;
	p = parse_hex(p, end, &size);
	if (!p || p == end || !is_blank(*p))
		return false;
	p++;
	size_t n = strnlen(p, (size_t)(end - p));
	if (!n)
		return false;
	struct symbol *s = new_entry(pm);
	s->start = start;
	s->size = size;
	s->name = xstrndup(p, n);
	s->mangled = NULL;
	return true;
}

size_t perfmap_add(struct perfmap *pm, const char *text, size_t len, bool final)
{
	size_t off = 0;
	while (off < len) {
		const char *line = text + off;
		const char *nl = memchr(line, '\n', len - off);
		if (!nl && !final)
			break;
		const char *end = nl ? nl : text + len;
		pm->lines++;
		/* Blank lines are not worth a complaint. */
		if (end > line && !parse_line(pm, line, end)) {
			if (!pm->st.malformed++)
				pm->st.first_malformed = pm->lines;
		}
		off = (size_t)(end - text) + (nl ? 1 : 0);
	}
	return off;
}

struct perfmap *perfmap_parse(const char *text, size_t len)
{
	struct perfmap *pm = perfmap_new();
	perfmap_add(pm, text, len, true);
	return pm;
}

void perfmap_free(struct perfmap *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->st.entries; i++)
		free(entry_at(pm, i)->name);
	for (size_t i = 0; i < pm->nblocks; i++)
		free(pm->blocks[i]);
	free(pm->blocks);
	free(pm->segs);
	free(pm);
}

/* ---- The index: which line owns each byte ---- */

struct ev {
	uint64_t addr;
	uint64_t end;            /* starts only: to find exact duplicates */
	size_t seq;
};

static int ev_cmp(const void *pa, const void *pb)
{
	const struct ev *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static uint64_t entry_end(const struct symbol *s)
{
	/* Size 0 covers its start only, as in perf; ranges past the top are cut there. */
	uint64_t size = s->size ? s->size : 1;
	return s->start + size < s->start ? UINT64_MAX : s->start + size;
}

/* A max-heap of line numbers: the live line with the highest number owns the bytes. */
struct heap {
	size_t *v;
	size_t n;
};

static void heap_push(struct heap *h, size_t x)
{
	size_t i = h->n++;
	while (i && h->v[(i - 1) / 2] < x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static void heap_pop(struct heap *h)
{
	size_t x = h->v[--h->n], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] > h->v[c])
			c++;
		if (h->v[c] <= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
}

static void emit(struct perfmap *pm, uint64_t start, uint64_t end, const struct symbol *sym)
{
	if (start >= end)
		return;
	struct pm_seg *last = pm->nsegs ? &pm->segs[pm->nsegs - 1] : NULL;
	if (last && last->sym == sym && last->end == start) {
		last->end = end;
		return;
	}
	ALLOC_GROW(pm->segs, pm->nsegs + 1, pm->scap);
	pm->segs[pm->nsegs++] = (struct pm_seg){ start, end, sym };
}

/* A sweep over all line boundaries with the live lines in a heap: O(n log n), and each byte
 * goes to the latest line covering it. */
static void paint(struct perfmap *pm)
{
	size_t n = pm->st.entries;
	pm->painted = n;
	pm->nsegs = 0;
	pm->st.duplicates = pm->st.overlaps = 0;
	if (!n)
		return;
	struct ev *starts = xmalloc(n * sizeof(*starts)), *ends = xmalloc(n * sizeof(*ends));
	for (size_t i = 0; i < n; i++) {
		const struct symbol *s = entry_at(pm, i);
		starts[i] = (struct ev){ s->start, entry_end(s), i };
		ends[i] = (struct ev){ entry_end(s), 0, i };
	}
	qsort(starts, n, sizeof(*starts), ev_cmp);
	qsort(ends, n, sizeof(*ends), ev_cmp);
	bool *ended = xcalloc(n, sizeof(*ended)), *dup = xcalloc(n, sizeof(*dup));
	for (size_t i = 1; i < n; i++)
		if (starts[i].addr == starts[i - 1].addr && starts[i].end == starts[i - 1].end) {
			dup[starts[i].seq] = true;
			pm->st.duplicates++;
		}
	struct heap h = { xmalloc(n * sizeof(size_t)), 0 };
	size_t i = 0, j = 0;
	while (i < n) {
		uint64_t x = starts[i].addr;
		if (j < n && ends[j].addr < x)
			x = ends[j].addr;
		for (; j < n && ends[j].addr == x; j++)
			ended[ends[j].seq] = true;
		while (h.n && ended[h.v[0]])
			heap_pop(&h);
		for (; i < n && starts[i].addr == x; i++) {
			size_t seq = starts[i].seq;
			if (starts[i].end <= x)
				continue; /* empty: a zero-size line at the very top */
			if (h.n && !dup[seq])
				pm->st.overlaps++;
			heap_push(&h, seq);
		}
		/* Lines that started here may end before the next boundary; handle ends first. */
		uint64_t next = i < n ? starts[i].addr : UINT64_MAX;
		while (h.n) {
			uint64_t e = j < n ? ends[j].addr : UINT64_MAX;
			uint64_t stop = e < next ? e : next;
			emit(pm, x, stop, entry_at(pm, h.v[0]));
			if (stop == next)
				break;
			x = stop;
			for (; j < n && ends[j].addr == x; j++)
				ended[ends[j].seq] = true;
			while (h.n && ended[h.v[0]])
				heap_pop(&h);
		}
	}
	free(h.v);
	free(ended);
	free(dup);
	free(starts);
	free(ends);
}

static void index_update(struct perfmap *pm)
{
	if (pm->painted != pm->st.entries)
		paint(pm);
}

const struct symbol *perfmap_find(struct perfmap *pm, uint64_t addr)
{
	index_update(pm);
	size_t lo = 0, hi = pm->nsegs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pm->segs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= pm->segs[lo - 1].end)
		return NULL;
	return pm->segs[lo - 1].sym;
}

const struct perfmap_stats *perfmap_stats(struct perfmap *pm)
{
	index_update(pm);
	return &pm->st;
}

size_t perfmap_entries(const struct perfmap *pm)
{
	return pm->st.entries;
}

void perfmap_notes(struct perfmap *pm, struct notes *ns)
{
	const struct perfmap_stats *st = perfmap_stats(pm);
	struct strbuf sb = STRBUF_INIT;
	if (st->malformed)
		sb_addf(&sb, "%zu malformed line%s skipped (first: line %zu)", st->malformed,
			st->malformed == 1 ? "" : "s", st->first_malformed);
	if (st->duplicates || st->overlaps) {
		if (sb.len)
			sb_adds(&sb, "; ");
		if (st->duplicates)
			sb_addf(&sb, "%zu duplicate%s", st->duplicates, st->overlaps ? " and " : "");
		if (st->overlaps)
			sb_addf(&sb, "%zu overlapping", st->overlaps);
		sb_adds(&sb, " entries (the later line wins)");
	}
	notes_take(ns, sb.len ? sb_detach(&sb) : NULL);
}

/* ---- Files ---- */

char *perfmap_path(pid_t pid)
{
	return xasprintf("/tmp/perf-%d.map", (int)pid);
}

int perfmap_read_file(const char *path, bool force, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	struct stat lst, st;
	if (lstat(path, &lst) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return err_set("cannot look at %s: %s", path, strerror(errno));
	}
	if (S_ISLNK(lst.st_mode))
		return err_set("%s is a symbolic link: not followed (a JIT symbol file must be a regular "
			       "file)", path);
	if (!S_ISREG(lst.st_mode))
		return err_set("%s is not a regular file: ignored", path);
	uid_t me = geteuid();
	if (!force && lst.st_uid != 0 && lst.st_uid != me)
		return err_set("%s is owned by uid %u, not by root or the current user (uid %u): ignored "
			       "(use --force to trust it)", path, (unsigned)lst.st_uid, (unsigned)me);
	/* O_NOFOLLOW and the inode check close the window between lstat and open. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : err_set("cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_dev != lst.st_dev || st.st_ino != lst.st_ino || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set("%s changed while being opened: ignored", path);
	}
	if ((uint64_t)st.st_size > PM_FILE_MAX) {
		close(fd);
		return err_set("%s is %lld bytes, more than a JIT symbol file should be: ignored", path,
			       (long long)st.st_size);
	}
	/* Read what is there now; a live writer may add more, which a later read picks up. */
	size_t want = (size_t)st.st_size, n = 0;
	char *b = xmalloc(want + 1);
	while (n < want) {
		ssize_t r = read(fd, b + n, want - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			close(fd);
			return err_set("cannot read %s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 1;
}

int perfmap_read_pid(pid_t pid, bool force, char **buf, size_t *len)
{
	char *path = perfmap_path(pid);
	int r = perfmap_read_file(path, force, buf, len);
	free(path);
	return r;
}

static bool starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

bool perfmap_covers_mapping(const char *filename, uint32_t prot)
{
	if (!(prot & PROT_EXEC))
		return false;
	if (!filename || !*filename)
		return true;
	return !strcmp(filename, "//anon") || starts_with(filename, "/dev/zero") ||
	       starts_with(filename, "/anon_hugepage") || starts_with(filename, "[anon:") ||
	       starts_with(filename, "/memfd:") || !strcmp(filename, "[heap]") ||
	       starts_with(filename, "[stack") || starts_with(filename, "/SYSV");
}
