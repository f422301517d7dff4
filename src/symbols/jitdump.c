/* JIT dump files: the record parser (every size checked against the record and the file), and the
 * (address, time) index over code loads and moves. */
#include "symbols/jitdump.h"

#include <byteswap.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/perfmap.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

#define HEADER_SIZE 40
#define PREFIX_SIZE 16
#define LOAD_FIXED 56            /* prefix + pid, tid, vma, code_addr, code_size, code_index */
#define MOVE_SIZE 64
#define DEBUG_FIXED 32           /* prefix + code_addr, nr_entry */
#define DEBUG_ENTRY_FIXED 16     /* addr, lineno, discrim */
#define UNWIND_FIXED 40          /* prefix + unwinding_size, eh_frame_hdr_size, mapped_size */

/* Where some code was from t_begin until t_end (a move away; UINT64_MAX: never). */
struct iv {
	uint64_t start, end, t_begin, t_end;
	size_t seq, code;
};

struct jitdump_index {
	struct iv *v;            /* in the order the records created them */
	size_t n, cap;
	struct iv *sorted;       /* by start, with the subtree maximum of end: an interval tree */
	uint64_t *maxend;
	size_t nsorted;
	size_t *cur;             /* per code: its latest interval */
	size_t curcap;
	struct hashmap by_index; /* code_index -> its latest struct jitdump_code */
	uint8_t **chunks;        /* the parsed bytes, kept for names, code and unwinding data */
	size_t nchunks, ccap;
	struct jitdump_line *pend_lines; /* DEBUG_INFO and UNWINDING_INFO wait for the next load */
	size_t pend_nlines;
	struct jitdump_unwind *pend_unwind;
	bool dead;               /* damage: nothing after it can be trusted */
	uint64_t last_t;         /* the last whole record's timestamp */
	size_t loose_load;       /* the code of the last record when it was a CODE_LOAD whose parts do
				  * not add up to its size exactly (SIZE_MAX otherwise): damage right
				  * after it means it ran into foreign bytes */
};

struct jitdump *jitdump_new(void)
{
	struct jitdump *jd = xcalloc(1, sizeof(*jd));
	jd->ix = xcalloc(1, sizeof(*jd->ix));
	jd->ix->loose_load = SIZE_MAX;
	hashmap_init(&jd->ix->by_index, HASHMAP_U64);
	return jd;
}

void jitdump_free(struct jitdump *jd)
{
	if (!jd)
		return;
	struct jitdump_index *ix = jd->ix;
	for (size_t i = 0; i < jd->ncodes; i++) {
		free((void *)jd->codes[i]->lines);
		free((void *)jd->codes[i]->unwind);
		free(jd->codes[i]);
	}
	free(jd->codes);
	for (size_t i = 0; i < ix->nchunks; i++)
		free(ix->chunks[i]);
	free(ix->chunks);
	free(ix->v);
	free(ix->sorted);
	free(ix->maxend);
	free(ix->cur);
	hashmap_free(&ix->by_index);
	free(ix->pend_lines);
	free(ix->pend_unwind);
	free(ix);
	free(jd->error);
	notes_clear(&jd->bad);
	free(jd);
}

/* ---- Reading fields ---- */

struct rd {
	const uint8_t *p;
	bool swap;
};

static uint32_t u32_at(struct rd r, size_t off)
{
	uint32_t v;
	memcpy(&v, r.p + off, 4);
	return r.swap ? bswap_32(v) : v;
}

static uint64_t u64_at(struct rd r, size_t off)
{
	uint64_t v;
	memcpy(&v, r.p + off, 8);
	return r.swap ? bswap_64(v) : v;
}

static const char *const record_names[] = { "CODE_LOAD", "CODE_MOVE", "CODE_DEBUG_INFO", "CODE_CLOSE",
					     "CODE_UNWINDING_INFO" };

static const char *record_name(uint32_t id)
{
	return id < sizeof(record_names) / sizeof(record_names[0]) ? record_names[id] : "unknown record";
}

/* A known record whose contents do not add up: skipped, and the first one remembered. */
static void bad_record(struct jitdump *jd, uint64_t off, uint32_t id, const char *why)
{
	jd->stats.bad++;
	if (!jd->bad.n)
		notes_add(&jd->bad, "%s record at offset %llu skipped: %s", record_name(id), (unsigned long long)off,
			  why);
}

static void stop(struct jitdump *jd, char *msg)
{
	free(jd->error);
	jd->error = msg;
}

/* ---- The (address, time) index ---- */

static uint64_t end_of(uint64_t start, uint64_t size)
{
	uint64_t s = size ? size : 1;
	return start + s < start ? UINT64_MAX : start + s;
}

static void add_interval(struct jitdump *jd, size_t code, uint64_t start, uint64_t size, uint64_t t)
{
	struct jitdump_index *ix = jd->ix;
	ALLOC_GROW(ix->v, ix->n + 1, ix->cap);
	ix->v[ix->n] = (struct iv){ start, end_of(start, size), t, UINT64_MAX, ix->n, code };
	ALLOC_GROW(ix->cur, code + 1, ix->curcap);
	ix->cur[code] = ix->n++;
}

/* The latest load of a code_index wins (moves name the code by it). */
static void hash_put(struct jitdump *jd, uint64_t key, size_t code)
{
	bool found;
	hashmap_insert_u64(&jd->ix->by_index, key, &found)->value = jd->codes[code];
}

static struct jitdump_code *hash_get(struct jitdump *jd, uint64_t key)
{
	struct hashmap_entry *e = hashmap_find_u64(&jd->ix->by_index, key);
	return e ? e->value : NULL;
}

static int iv_cmp(const void *pa, const void *pb)
{
	const struct iv *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static uint64_t build_tree(struct jitdump_index *ix, size_t lo, size_t hi)
{
	if (lo >= hi)
		return 0;
	size_t mid = lo + (hi - lo) / 2;
	uint64_t m = ix->sorted[mid].end, l = build_tree(ix, lo, mid), r = build_tree(ix, mid + 1, hi);
	if (l > m)
		m = l;
	if (r > m)
		m = r;
	ix->maxend[mid] = m;
	return m;
}

static void index_update(struct jitdump_index *ix)
{
	if (ix->nsorted == ix->n)
		return;
	free(ix->sorted);
	free(ix->maxend);
	ix->nsorted = ix->n;
	ix->sorted = xmalloc((ix->n ? ix->n : 1) * sizeof(*ix->sorted));
	ix->maxend = xmalloc((ix->n ? ix->n : 1) * sizeof(*ix->maxend));
	if (ix->n)
		memcpy(ix->sorted, ix->v, ix->n * sizeof(*ix->v));
	qsort(ix->sorted, ix->n, sizeof(*ix->sorted), iv_cmp);
	build_tree(ix, 0, ix->n);
}

struct pick {
	uint64_t time;
	bool any_time;           /* time 0, or timestamps on another clock */
	const struct iv *live;   /* live at time: the latest placed */
	const struct iv *near;   /* else the nearest in time */
	uint64_t dist;
};

static bool later(const struct iv *a, const struct iv *b)
{
	return a->t_begin != b->t_begin ? a->t_begin > b->t_begin : a->seq > b->seq;
}

static void consider(struct pick *p, const struct iv *v)
{
	if (p->any_time || (v->t_begin <= p->time && p->time < v->t_end)) {
		if (!p->live || later(v, p->live))
			p->live = v;
		return;
	}
	uint64_t d = p->time < v->t_begin ? v->t_begin - p->time : p->time - v->t_end + 1;
	if (!p->near || d < p->dist || (d == p->dist && v->seq > p->near->seq)) {
		p->near = v;
		p->dist = d;
	}
}

/* Every interval holding addr: the subtree [lo, hi) is rooted at its middle. */
static void stab(const struct jitdump_index *ix, size_t lo, size_t hi, uint64_t addr, struct pick *p)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->maxend[mid] <= addr)
			return;
		stab(ix, lo, mid, addr, p);
		const struct iv *v = &ix->sorted[mid];
		if (v->start > addr)
			return;
		if (addr < v->end)
			consider(p, v);
		lo = mid + 1;
	}
}

const struct jitdump_code *jitdump_find(struct jitdump *jd, uint64_t addr, uint64_t time, uint64_t *start)
{
	index_update(jd->ix);
	struct pick p = { time, !time || (jd->flags & JITDUMP_FLAGS_ARCH_TIMESTAMP), NULL, NULL, 0 };
	stab(jd->ix, 0, jd->ix->nsorted, addr, &p);
	const struct iv *v = p.live ? p.live : p.near;
	if (!v)
		return NULL;
	if (start)
		*start = v->start;
	return jd->codes[v->code];
}

/* ---- Records ---- */

static void code_load(struct jitdump *jd, struct rd r, uint64_t off, uint32_t size, uint64_t t)
{
	if (size < LOAD_FIXED + 1)
		return bad_record(jd, off, JIT_CODE_LOAD, "too short");
	const char *name = (const char *)r.p + LOAD_FIXED;
	size_t room = size - LOAD_FIXED, nlen = strnlen(name, room);
	if (nlen == room)
		return bad_record(jd, off, JIT_CODE_LOAD, "name not terminated");
	uint64_t csize = u64_at(r, 40);
	if (csize > room - nlen - 1)
		return bad_record(jd, off, JIT_CODE_LOAD, "code larger than the record");
	struct jitdump_index *ix = jd->ix;
	struct jitdump_code *c = xcalloc(1, sizeof(*c));
	c->time = t;
	c->pid = u32_at(r, 16);
	c->tid = u32_at(r, 20);
	c->vma = u64_at(r, 24);
	c->addr = u64_at(r, 32);
	c->size = csize;
	c->index = u64_at(r, 48);
	c->name = name;
	c->code = r.p + size - csize; /* from the end, as perf takes it */
	c->offset = off;
	c->lines = ix->pend_lines;
	c->nlines = ix->pend_nlines;
	c->unwind = ix->pend_unwind;
	ix->pend_lines = NULL;
	ix->pend_nlines = 0;
	ix->pend_unwind = NULL;
	c->idx = jd->ncodes;
	jd->codes = xrealloc(jd->codes, (jd->ncodes + 1) * sizeof(*jd->codes));
	jd->codes[jd->ncodes++] = c;
	add_interval(jd, c->idx, c->addr, c->size, t);
	hash_put(jd, c->index, c->idx);
	jd->stats.loads++;
	if (LOAD_FIXED + nlen + 1 + csize != size)
		ix->loose_load = c->idx;
}

static void code_move(struct jitdump *jd, struct rd r, uint64_t off, uint32_t size, uint64_t t)
{
	if (size < MOVE_SIZE)
		return bad_record(jd, off, JIT_CODE_MOVE, "too short");
	uint64_t to = u64_at(r, 40), csize = u64_at(r, 48), index = u64_at(r, 56);
	struct jitdump_code *c = hash_get(jd, index);
	if (!c)
		return bad_record(jd, off, JIT_CODE_MOVE, "moves code that was never loaded");
	struct iv *old = &jd->ix->v[jd->ix->cur[c->idx]];
	if (old->t_end == UINT64_MAX)
		old->t_end = t > old->t_begin ? t : old->t_begin + 1;
	add_interval(jd, c->idx, to, csize, t);
	jd->stats.moves++;
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct jitdump_line *a = pa, *b = pb;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static void debug_info(struct jitdump *jd, struct rd r, uint64_t off, uint32_t size)
{
	if (size < DEBUG_FIXED)
		return bad_record(jd, off, JIT_CODE_DEBUG_INFO, "too short");
	uint64_t nr = u64_at(r, 24);
	if (nr > (size - DEBUG_FIXED) / (DEBUG_ENTRY_FIXED + 1))
		return bad_record(jd, off, JIT_CODE_DEBUG_INFO, "more entries than fit in the record");
	struct jitdump_line *v = xcalloc(nr ? nr : 1, sizeof(*v));
	size_t p = DEBUG_FIXED;
	const char *prev = "";
	for (uint64_t i = 0; i < nr; i++) {
		if (size - p < DEBUG_ENTRY_FIXED + 1) {
			free(v);
			return bad_record(jd, off, JIT_CODE_DEBUG_INFO, "entries run past the record");
		}
		const char *file = (const char *)r.p + p + DEBUG_ENTRY_FIXED;
		size_t room = size - p - DEBUG_ENTRY_FIXED, n = strnlen(file, room);
		if (n == room) {
			free(v);
			return bad_record(jd, off, JIT_CODE_DEBUG_INFO, "file name not terminated");
		}
		v[i].addr = u64_at(r, p);
		v[i].line = (int32_t)u32_at(r, p + 8);
		v[i].discrim = (int32_t)u32_at(r, p + 12);
		/* "\xff" means the previous entry's file. */
		v[i].file = n == 1 && (unsigned char)file[0] == 0xff ? prev : file;
		prev = v[i].file;
		p += DEBUG_ENTRY_FIXED + n + 1;
	}
	/* Entries come in code order; a stable order for equal addresses is not needed. */
	qsort(v, nr, sizeof(*v), line_cmp);
	free(jd->ix->pend_lines);
	jd->ix->pend_lines = v;
	jd->ix->pend_nlines = nr;
	jd->stats.debug_info++;
}

static void unwinding_info(struct jitdump *jd, struct rd r, uint64_t off, uint32_t size)
{
	if (size < UNWIND_FIXED)
		return bad_record(jd, off, JIT_CODE_UNWINDING_INFO, "too short");
	uint64_t usize = u64_at(r, 16), hsize = u64_at(r, 24);
	if (usize > size - UNWIND_FIXED)
		return bad_record(jd, off, JIT_CODE_UNWINDING_INFO, "unwinding data larger than the record");
	if (hsize > usize)
		return bad_record(jd, off, JIT_CODE_UNWINDING_INFO, "eh_frame_hdr larger than the data");
	struct jitdump_unwind *u = xcalloc(1, sizeof(*u));
	u->data = r.p + UNWIND_FIXED;
	u->size = usize;
	u->hdr_size = hsize;
	u->mapped_size = u64_at(r, 32);
	/* An .eh_frame_hdr begins with version 1. genelf's order (.eh_frame, then the header) is
	 * what perf reads and what CPython and V8 write; the spec's (header first) is recognised
	 * by the version byte when genelf's position does not hold one. */
	size_t fsize = (size_t)(usize - hsize);
	u->hdr_first = hsize && u->data[fsize] != 1 && u->data[0] == 1;
	if (u->hdr_first) {
		u->eh_frame_hdr = u->data;
		u->eh_frame = u->data + hsize;
	} else {
		u->eh_frame = u->data;
		u->eh_frame_hdr = u->data + fsize;
	}
	u->eh_frame_size = fsize;
	u->eh_frame_hdr_size = (size_t)hsize;
	free(jd->ix->pend_unwind);
	jd->ix->pend_unwind = u;
	jd->stats.unwinding_info++;
}

/* Returns 1 with *skip (where the records begin), 0 when more bytes are needed, -1 when
 * unusable. */
static int parse_header(struct jitdump *jd, const uint8_t *p, size_t len, bool final, size_t *skip)
{
	if (len < HEADER_SIZE) {
		if (final)
			return err_set("not a jitdump: %zu bytes, shorter than its %d-byte header", len, HEADER_SIZE);
		return 0;
	}
	struct rd r = { p, false };
	uint32_t magic = u32_at(r, 0);
	if (magic == bswap_32(JITDUMP_MAGIC))
		r.swap = true;
	else if (magic != JITDUMP_MAGIC)
		return err_set("not a jitdump: magic 0x%08x, expected 0x%08x (\"JiTD\")", magic, JITDUMP_MAGIC);
	uint32_t version = u32_at(r, 4), hsize = u32_at(r, 8);
	uint64_t flags = u64_at(r, 32);
	if (version > 1)
		return err_set("jitdump version %u is not supported (lperf reads version 1)", version);
	if (flags & ~JITDUMP_FLAGS_ARCH_TIMESTAMP)
		return err_set("jitdump has unsupported flags 0x%llx", (unsigned long long)flags);
	/* The header may be longer than lperf knows (perf skips the rest too); never shorter. */
	*skip = hsize > HEADER_SIZE ? hsize : HEADER_SIZE;
	if (*skip > len) {
		if (final)
			return err_set("jitdump truncated in its header: it declares %u bytes, the file has %zu",
				       hsize, len);
		return 0;
	}
	jd->swapped = r.swap;
	jd->version = version;
	jd->header_size = hsize;
	jd->elf_mach = u32_at(r, 12);
	jd->pid = u32_at(r, 20);
	jd->timestamp = u64_at(r, 24);
	jd->flags = flags;
	jd->have_header = true;
	return 1;
}

/* ---- Damage: resuming at the next whole record ---- */

/* Could a record of this dump start at p (len bytes available)? A known type whose parts add
 * up to its size exactly, a load or move of the dump's process, stamped no earlier than the
 * last whole record and not a day later (so that code bytes and addresses do not pass). */
static bool whole_record(const struct jitdump *jd, struct rd r, size_t len)
{
	if (len < PREFIX_SIZE)
		return false;
	uint32_t id = u32_at(r, 0), size = u32_at(r, 4);
	uint64_t t = u64_at(r, 8), last = jd->ix->last_t;
	if (size < PREFIX_SIZE || size > len || t < last ||
	    (!(jd->flags & JITDUMP_FLAGS_ARCH_TIMESTAMP) && t - last > (1ull << 46)))
		return false;
	switch (id) {
	case JIT_CODE_LOAD: {
		if (size < LOAD_FIXED + 1 || u32_at(r, 16) != jd->pid)
			return false;
		size_t room = size - LOAD_FIXED, nlen = strnlen((const char *)r.p + LOAD_FIXED, room);
		return nlen < room && u64_at(r, 40) == room - nlen - 1;
	}
	case JIT_CODE_MOVE:
		return size == MOVE_SIZE && u32_at(r, 16) == jd->pid;
	case JIT_CODE_CLOSE:
		return size == PREFIX_SIZE;
	case JIT_CODE_UNWINDING_INFO: {
		if (size < UNWIND_FIXED)
			return false;
		uint64_t usize = u64_at(r, 16), room = size - UNWIND_FIXED;
		return usize <= room && room - usize < 8 && u64_at(r, 24) <= usize; /* padded to 8 */
	}
	case JIT_CODE_DEBUG_INFO: {
		if (size < DEBUG_FIXED)
			return false;
		size_t p = DEBUG_FIXED;
		for (uint64_t i = 0, nr = u64_at(r, 24); i < nr; i++) {
			if (size - p < DEBUG_ENTRY_FIXED + 1)
				return false;
			size_t room = size - p - DEBUG_ENTRY_FIXED;
			size_t n = strnlen((const char *)r.p + p + DEBUG_ENTRY_FIXED, room);
			if (n == room)
				return false;
			p += DEBUG_ENTRY_FIXED + n + 1;
		}
		return p == size;
	}
	default:
		return false;
	}
}

/* The first offset after from where two whole records follow each other, or one ends the data
 * exactly; 0 when there is none (yet). */
static size_t resume_at(const struct jitdump *jd, struct rd r, const uint8_t *chunk, size_t from, size_t len)
{
	for (size_t o = from; o + PREFIX_SIZE <= len; o++) {
		r.p = chunk + o;
		if (!whole_record(jd, r, len - o))
			continue;
		size_t next = o + u32_at(r, 4);
		r.p = chunk + next;
		if (next == len || whole_record(jd, r, len - next))
			return o;
	}
	return 0;
}

/* Damage at foff, resumed skip bytes later: said once, and a load the damage ran into is
 * dropped (its name or size may be foreign bytes). */
static void resumed(struct jitdump *jd, uint64_t foff, size_t skip)
{
	struct jitdump_index *ix = jd->ix;
	jd->stats.bad++;
	jd->stats.resumed++;
	if (!jd->bad.n)
		notes_add(&jd->bad, "damaged at offset %llu: %zu bytes skipped to the next whole record",
			  (unsigned long long)foff, skip);
	if (ix->loose_load != SIZE_MAX) {
		struct iv *v = &ix->v[ix->cur[ix->loose_load]];
		v->start = v->end = 0;
		ix->nsorted = (size_t)-1; /* rebuild the tree */
		ix->loose_load = SIZE_MAX;
	}
}

int jitdump_feed(struct jitdump *jd, const void *data, size_t len, bool final)
{
	struct jitdump_index *ix = jd->ix;
	const uint8_t *base = data;
	size_t off = 0;
	if (ix->dead)
		return 0;
	if (!jd->have_header) {
		int h = parse_header(jd, base, len, final, &off);
		if (h <= 0)
			return h;
	}
	size_t records_before = jd->stats.records;
	/* Records are parsed from a private copy: names, code and unwinding data point into it. */
	uint8_t *chunk = xmalloc(len ? len : 1);
	if (len)
		memcpy(chunk, base, len);
	struct rd r = { chunk, jd->swapped };
	while (len - off >= PREFIX_SIZE) {
		r.p = chunk + off;
		uint32_t id = u32_at(r, 0), size = u32_at(r, 4);
		uint64_t t = u64_at(r, 8), foff = jd->consumed + off;
		/* Damage (CPython 3.13's dump after a fork loses bytes mid-record): resumed at the
		 * next whole record; an incomplete last record is taken for one at the end. */
		bool junk = size < PREFIX_SIZE || id >= 1024; /* a type from the future stays skippable */
		if (junk || (final && size > len - off)) {
			size_t o = resume_at(jd, r, chunk, off + 1, len);
			if (o) {
				resumed(jd, foff, o - off);
				off = o;
				continue;
			}
		}
		if (junk && !final)
			break; /* the next whole record may not be written yet */
		if (junk) {
			stop(jd, size < PREFIX_SIZE
				 ? xasprintf("jitdump damaged at offset %llu: a record of %u bytes, less than its "
					     "%d-byte prefix", (unsigned long long)foff, size, PREFIX_SIZE)
				 : xasprintf("jitdump damaged at offset %llu: record type %u", (unsigned long long)foff, id));
			ix->dead = true;
			break;
		}
		if (size > len - off)
			break;
		jd->stats.records++;
		ix->loose_load = SIZE_MAX;
		if (t > ix->last_t)
			ix->last_t = t;
		switch (id) {
		case JIT_CODE_LOAD: code_load(jd, r, foff, size, t); break;
		case JIT_CODE_MOVE: code_move(jd, r, foff, size, t); break;
		case JIT_CODE_DEBUG_INFO: debug_info(jd, r, foff, size); break;
		case JIT_CODE_CLOSE: jd->stats.closes++; jd->closed = true; break;
		case JIT_CODE_UNWINDING_INFO: unwinding_info(jd, r, foff, size); break;
		default: jd->stats.unknown++; break;
		}
		off += size;
	}
	if (final && !ix->dead && off < len) {
		r.p = chunk + off;
		uint64_t foff = jd->consumed + off;
		if (len - off >= PREFIX_SIZE)
			stop(jd, xasprintf("jitdump truncated at offset %llu: a %s record of %u bytes, the file "
					   "ends %zu bytes later", (unsigned long long)foff,
					   record_name(u32_at(r, 0)), u32_at(r, 4), len - off));
		else
			stop(jd, xasprintf("jitdump truncated at offset %llu: %zu bytes of a record prefix",
					   (unsigned long long)foff, len - off));
	}
	jd->consumed += off;
	if (jd->stats.records == records_before) {
		free(chunk); /* nothing points into it */
		return 0;
	}
	ALLOC_GROW(ix->chunks, ix->nchunks + 1, ix->ccap);
	ix->chunks[ix->nchunks++] = chunk;
	return 0;
}

struct jitdump *jitdump_parse(const void *data, size_t len)
{
	struct jitdump *jd = jitdump_new();
	if (jitdump_feed(jd, data, len, true) < 0) {
		jitdump_free(jd);
		return NULL;
	}
	return jd;
}

int jitdump_load(const char *path, bool force, struct jitdump **out)
{
	*out = NULL;
	char *buf;
	size_t len;
	int r = perfmap_read_file(path, force, &buf, &len);
	if (r <= 0)
		return r;
	*out = jitdump_parse(buf, len);
	free(buf);
	if (!*out)
		return err_wrap("%s", path);
	return 1;
}

bool jitdump_srcline(const struct jitdump_code *c, uint64_t addr, const char **file, int *line)
{
	size_t lo = 0, hi = c->nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*file = c->lines[lo - 1].file;
	*line = c->lines[lo - 1].line;
	return true;
}

uint64_t jitdump_eh_frame_vaddr(const struct jitdump_code *c)
{
	return c->addr + ((c->size + 7) & ~7ull);
}

bool jitdump_is_marker(const char *filename, int *pid)
{
	const char *base = strrchr(filename, '/');
	base = base ? base + 1 : filename;
	if (strncmp(base, "jit-", 4))
		return false;
	const char *p = base + 4;
	long v = 0;
	int digits = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (++digits > 9)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (!digits || strcmp(p, ".dump"))
		return false;
	if (pid)
		*pid = (int)v;
	return true;
}
