/* The recording order memo (see order_memo.h). Layout, native byte order:
 *
 *   magic (8) | version (4) | CRC-32 of the whole, its own field taken as 0 (4) |
 *   device, inode, size, data offset, data size, mtime and ctime in ns (8 each) | pulls (8) |
 *   each pull: at, rec (8 each) */
#include "session/order_memo.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "symbols/buildid_cache.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

#define MEMO_DIR ".lperf/order"
#define MEMO_VERSION 1
#define MEMO_MAX_PULLS 1024

static const char memo_magic[8] = { 'L', 'P', 'O', 'R', 'D', 'E', 'R', '\n' };

struct memo_hdr {
	char magic[8];
	uint32_t version, crc;
	struct order_memo_key k;
	uint64_t npulls;
};

_Static_assert(sizeof(struct memo_hdr) == 80, "order memo layout");
_Static_assert(sizeof(struct ordered_pull) == 16, "order memo pull layout");

bool order_memo_key_of(int fd, uint64_t data_offset, uint64_t data_size, struct order_memo_key *k)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	memset(k, 0, sizeof(*k));
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->size = (uint64_t)st.st_size;
	k->data_offset = data_offset;
	k->data_size = data_size;
	k->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	k->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	return true;
}

/* The memo's file name: a hash of the key, so that each file has its own. */
static void memo_name(const struct order_memo_key *k, char name[17])
{
	uint64_t w[sizeof(*k) / 8], h = 0x6c70657266ull;
	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / 8; i++)
		h = hashmap_hash_u64(h ^ w[i]);
	snprintf(name, 17, "%016llx", (unsigned long long)h);
}

void *order_memo_build(const struct order_memo_key *k, const struct ordered_pull *pulls, size_t n, size_t *len)
{
	struct memo_hdr h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, memo_magic, sizeof(h.magic));
	h.version = MEMO_VERSION;
	h.k = *k;
	h.npulls = n;
	*len = sizeof(h) + n * sizeof(*pulls);
	uint8_t *buf = xmalloc(*len);
	memcpy(buf, &h, sizeof(h));
	if (n)
		memcpy(buf + sizeof(h), pulls, n * sizeof(*pulls));
	h.crc = buildid_cache_crc(buf, *len, offsetof(struct memo_hdr, crc));
	memcpy(buf, &h, sizeof(h));
	return buf;
}

int order_memo_parse(const void *buf, size_t len, const struct order_memo_key *k, struct ordered_pull **pulls,
		     size_t *n)
{
	struct memo_hdr h;
	if (len < sizeof(h))
		return err_set("offset 0: %zu bytes, shorter than the header", len);
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, memo_magic, sizeof(h.magic)))
		return err_set("offset 0: bad magic");
	if (h.version != MEMO_VERSION)
		return err_set("offset 8: version %u, not %d", h.version, MEMO_VERSION);
	if (h.npulls > MEMO_MAX_PULLS || len != sizeof(h) + h.npulls * sizeof(struct ordered_pull))
		return err_set("offset 72: %llu pulls do not fill %zu bytes", (unsigned long long)h.npulls, len);
	if (buildid_cache_crc(buf, len, offsetof(struct memo_hdr, crc)) != h.crc)
		return err_set("offset 12: checksum mismatch (damaged)");
	if (memcmp(&h.k, k, sizeof(*k)))
		return err_set("offset 16: another file's memo, or this file changed");
	struct ordered_pull *p = xmalloc((h.npulls ? h.npulls : 1) * sizeof(*p));
	memcpy(p, (const uint8_t *)buf + sizeof(h), h.npulls * sizeof(*p));
	uint64_t lo = k->data_offset, hi = k->data_offset + k->data_size;
	for (size_t i = 0; i < h.npulls; i++) {
		/* each record pulled from further on, the places in the file's order, inside the data */
		if (p[i].at < lo || p[i].rec >= hi || p[i].at >= p[i].rec || (i && p[i].at < p[i - 1].at)) {
			free(p);
			return err_set("offset %zu: pull %zu is out of order or outside the data section",
				       sizeof(h) + i * sizeof(*p), i);
		}
	}
	*pulls = p;
	*n = h.npulls;
	return 0;
}

bool order_memo_load(const struct order_memo_key *k, struct ordered_pull **pulls, size_t *n)
{
	char name[17];
	memo_name(k, name);
	int err = errno;
	size_t len = 0;
	void *map = buildid_cache_map(MEMO_DIR, name, sizeof(struct memo_hdr) + MEMO_MAX_PULLS * 16, &len);
	bool ok = map && order_memo_parse(map, len, k, pulls, n) == 0;
	if (map)
		munmap(map, len);
	err_clear();
	errno = err;
	return ok;
}

void order_memo_save(const struct order_memo_key *k, const struct ordered_pull *pulls, size_t n)
{
	if (n > MEMO_MAX_PULLS)
		return;
	char name[17];
	memo_name(k, name);
	size_t len;
	void *buf = order_memo_build(k, pulls, n, &len);
	int err = errno;
	buildid_cache_store(MEMO_DIR, name, buf, len, 0644);
	free(buf);
	err_clear();
	errno = err;
}
