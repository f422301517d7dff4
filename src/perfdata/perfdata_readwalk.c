/* perfdata_reader.read_walk: the data section read with pread into buffers of the walk's own,
 * in the file's order, each record delivered from there as the mapped walk delivers it. A caller
 * may keep a delivered record past its cb (perfdata_walk_hold): its buffer is then set aside and
 * the walk reads on into another one, so records reach report's workers without a copy. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/perfdata_int.h"
#include "util/error.h"
#include "util/xalloc.h"

/* perfdata_reader.read_walk: a buffer's size, and the largest record read into one. */
#define READ_WALK_BUF (256u << 10)
#define READ_WALK_MAX (128u << 10)

/* A read buffer: [boff, boff + blen) of the file in buf. refs: holds not yet released; a held
 * buffer is not written again until they are all released (bytes past blen may still be read
 * into while it is the current one). */
struct perfdata_rbuf {
	struct perfdata_rring *ring;
	struct perfdata_rbuf *next; /* in the free list */
	uint8_t *buf;
	uint64_t boff;
	size_t blen;
	unsigned refs;
};

/* The reader's buffers: the one the walk reads into, and the released ones kept for reuse
 * (during a walk; freed after it). Held ones are reachable only from their holders. */
struct perfdata_rring {
	struct perfdata_rbuf *cur, *free;
	bool walking;
};

static struct perfdata_rbuf *take(struct perfdata_rring *ring)
{
	struct perfdata_rbuf *b = ring->free;
	if (b) {
		ring->free = b->next;
	} else {
		b = xcalloc(1, sizeof(*b));
		b->ring = ring;
		b->buf = xmalloc(READ_WALK_BUF);
	}
	b->next = NULL;
	b->refs = 0;
	b->blen = 0;
	return b;
}

static void rbuf_free(struct perfdata_rbuf *b)
{
	free(b->buf);
	free(b);
}

static void free_list(struct perfdata_rring *ring)
{
	while (ring->free) {
		struct perfdata_rbuf *b = ring->free;
		ring->free = b->next;
		rbuf_free(b);
	}
}

/* Makes [off, off + need) of the file present in the current buffer, reading on as far as the
 * buffer and the data section (ending at end) allow. A buffer starts at an 8-aligned offset, so
 * records keep the mapping's alignment. The bytes kept from the old contents move to its start,
 * or, when the buffer is held, to a buffer taken for the rest of the walk. */
static int fill(struct perfdata_reader *r, struct perfdata_rring *ring, uint64_t off, size_t need, uint64_t end)
{
	struct perfdata_rbuf *b = ring->cur;
	if (off + need <= b->boff + b->blen)
		return 0;
	uint64_t from = off & ~(uint64_t)7;
	/* only bytes the buffer holds: a data section starting off an 8-byte boundary (the file's
	 * header says where) has bytes before it that were never read */
	size_t keep = from >= b->boff && b->boff + b->blen > from ? (size_t)(b->boff + b->blen - from) : 0;
	if (b->refs) {
		struct perfdata_rbuf *nb = take(ring);
		if (keep)
			memcpy(nb->buf, b->buf + (from - b->boff), keep);
		ring->cur = b = nb;
	} else if (keep) {
		memmove(b->buf, b->buf + (from - b->boff), keep);
	}
	b->boff = from;
	b->blen = keep;
	size_t want = end - from < READ_WALK_BUF ? (size_t)(end - from) : READ_WALK_BUF;
	while (b->blen < want) {
		ssize_t n = pread(r->fd, b->buf + b->blen, want - b->blen, (off_t)(from + b->blen));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return err_set("%s: cannot read at offset 0x%" PRIx64 ": %s", r->path, from + b->blen,
				       n < 0 ? strerror(errno) : "the file is shorter than when it was opened");
		b->blen += (size_t)n;
	}
	return 0;
}

struct perfdata_rbuf *perfdata_walk_hold(const struct perfdata_reader *r, const void *h, size_t len)
{
	struct perfdata_rring *ring = r->ring;
	if (!ring || !ring->walking)
		return NULL;
	struct perfdata_rbuf *b = ring->cur;
	uintptr_t p = (uintptr_t)h, lo = (uintptr_t)b->buf;
	if (p < lo || p - lo > b->blen || b->blen - (p - lo) < len)
		return NULL;
	b->refs++;
	return b;
}

void perfdata_walk_release(struct perfdata_rbuf *b)
{
	if (!b || --b->refs)
		return;
	struct perfdata_rring *ring = b->ring;
	if (b == ring->cur)
		return;
	if (!ring->walking) {
		rbuf_free(b);
		return;
	}
	b->next = ring->free;
	ring->free = b;
}

void perfdata_ring_free(struct perfdata_reader *r)
{
	if (!r->ring)
		return;
	free_list(r->ring);
	if (r->ring->cur)
		rbuf_free(r->ring->cur);
	free(r->ring);
	r->ring = NULL;
}

/* The walk is over: buffers nobody holds are freed; a held one goes when it is released. */
static void walk_end(struct perfdata_rring *ring)
{
	ring->walking = false;
	free_list(ring);
	if (!ring->cur->refs)
		rbuf_free(ring->cur);
	ring->cur = NULL;
}

int perfdata_walk_read(struct perfdata_reader *r, record_cb cb, void *arg, const struct perfdata_walk_ops *ops)
{
	uint64_t off = r->data_offset, end = r->data_offset + r->data_size;
	if (!r->ring)
		r->ring = xcalloc(1, sizeof(*r->ring));
	struct perfdata_rring *ring = r->ring;
	if (!ring->cur)
		ring->cur = take(ring);
	ring->cur->boff = off & ~(uint64_t)7;
	ring->cur->blen = 0;
	ring->walking = true;
	int ret = 0;
	while (off < end && !ret) {
		struct perf_event_header nh;
		if (end - off < sizeof(nh)) {
			ret = err_set("%s: record at offset 0x%" PRIx64 ": the %" PRIu64 " bytes left in the data "
				      "section cannot hold a record header", r->path, off, end - off);
			break;
		}
		if ((ret = fill(r, ring, off, sizeof(nh), end)) != 0)
			break;
		struct perfdata_rbuf *b = ring->cur;
		memcpy(&nh, b->buf + (off - b->boff), sizeof(nh));
		size_t total;
		if ((ret = ops->check(r, off, end, &nh, &total)) != 0)
			break;
		if (total > READ_WALK_MAX) {
			ret = ops->deliver(r, (const struct perf_event_header *)(r->map + off), total, off, cb, arg);
		} else if ((ret = fill(r, ring, off, total, end)) == 0) {
			b = ring->cur;
			ret = ops->deliver(r, (const struct perf_event_header *)(b->buf + (off - b->boff)), total, off,
					   cb, arg);
		}
		off += total;
	}
	walk_end(ring);
	return ret;
}
