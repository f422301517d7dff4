/* perfdata_reader.read_walk: the data section read with pread into a buffer of the walk's own,
 * in the file's order, each record delivered from there as the mapped walk delivers it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/perfdata_int.h"
#include "util/error.h"
#include "util/xalloc.h"

/* perfdata_reader.read_walk: the buffer's size, and the largest record read into it. */
#define READ_WALK_BUF (256u << 10)
#define READ_WALK_MAX (128u << 10)

/* Makes [off, off + need) of the file present in buf (which holds [*boff, *boff + *blen)),
 * reading on as far as the buffer and the data section allow; the buffer starts at an 8-aligned
 * offset, so records keep the mapping's alignment. */
static int fill(struct perfdata_reader *r, uint8_t *buf, uint64_t *boff, size_t *blen, uint64_t off, size_t need,
		uint64_t end)
{
	if (off + need <= *boff + *blen)
		return 0;
	uint64_t from = off & ~(uint64_t)7;
	size_t keep = *boff + *blen > from ? (size_t)(*boff + *blen - from) : 0;
	if (keep)
		memmove(buf, buf + (from - *boff), keep);
	*boff = from;
	*blen = keep;
	size_t want = end - from < READ_WALK_BUF ? (size_t)(end - from) : READ_WALK_BUF;
	while (*blen < want) {
		ssize_t n = pread(r->fd, buf + *blen, want - *blen, (off_t)(from + *blen));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return err_set("%s: cannot read at offset 0x%" PRIx64 ": %s", r->path, from + *blen,
				       n < 0 ? strerror(errno) : "the file is shorter than when it was opened");
		*blen += (size_t)n;
	}
	return 0;
}

int perfdata_walk_read(struct perfdata_reader *r, record_cb cb, void *arg, const struct perfdata_walk_ops *ops)
{
	uint64_t off = r->data_offset, end = r->data_offset + r->data_size, boff = off;
	size_t blen = 0;
	uint8_t *buf = xmalloc(READ_WALK_BUF);
	int ret = 0;
	while (off < end && !ret) {
		struct perf_event_header nh;
		if (end - off < sizeof(nh)) {
			ret = err_set("%s: record at offset 0x%" PRIx64 ": the %" PRIu64 " bytes left in the data "
				      "section cannot hold a record header", r->path, off, end - off);
			break;
		}
		if ((ret = fill(r, buf, &boff, &blen, off, sizeof(nh), end)) != 0)
			break;
		memcpy(&nh, buf + (off - boff), sizeof(nh));
		size_t total;
		if ((ret = ops->check(r, off, end, &nh, &total)) != 0)
			break;
		if (total > READ_WALK_MAX) {
			ret = ops->deliver(r, (const struct perf_event_header *)(r->map + off), total, off, cb, arg);
		} else if ((ret = fill(r, buf, &boff, &blen, off, total, end)) == 0) {
			ret = ops->deliver(r, (const struct perf_event_header *)(buf + (off - boff)), total, off, cb, arg);
		}
		off += total;
	}
	free(buf);
	return ret;
}

