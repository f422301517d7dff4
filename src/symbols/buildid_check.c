/* The checks lperf's own stores in the build-id cache share (symbols/buildid_cache.h): a
 * store's head, its CRC-32, and the size and time of the file it was made from; and build-ids as
 * text (buildid_hex, buildid_parse). */
#include "symbols/buildid_cache.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/crc.h"
#include "util/error.h"
#include "util/parse.h"

void buildid_hex(const uint8_t *id, size_t n, char hex[BUILDID_HEX])
{
	static const char digits[] = "0123456789abcdef";
	if (n > BUILDID_SIZE)
		n = BUILDID_SIZE;
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * n] = 0;
}

int buildid_parse(const char *hex, uint8_t id[BUILDID_SIZE])
{
	size_t len = strlen(hex);
	if (len < 2 || len > 2 * BUILDID_SIZE || len % 2)
		return err_set("'%s' is not a build-id (2 to 40 hex digits)", hex);
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return err_set("'%s' is not a build-id (2 to 40 hex digits)", hex);
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(len / 2);
}

int buildid_cache_check_head(const void *buf, const char magic[8], uint32_t version, const uint8_t *id, size_t idn)
{
	const uint8_t *b = buf;
	uint32_t v, n;
	memcpy(&v, b + 8, 4);
	memcpy(&n, b + 12, 4);
	if (memcmp(b, magic, 8))
		return err_set("offset 0: bad magic");
	if (v != version)
		return err_set("offset 8: version %u, not %u", v, version);
	if (n != idn || idn > BUILDID_SIZE || memcmp(b + 16, id, idn))
		return err_set("offset 12: another file's build-id");
	return 0;
}

bool buildid_cache_file_now(const char *path, uint64_t *size, int64_t *mtime)
{
	struct stat st;
	if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	*size = (uint64_t)st.st_size;
	*mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return true;
}

uint32_t buildid_cache_crc(const void *buf, size_t len, size_t crc_off)
{
	static const uint8_t zero[4];
	uint32_t c = crc_update(0, buf, crc_off);
	c = crc_update(c, zero, sizeof(zero));
	return crc_update(c, (const uint8_t *)buf + crc_off + 4, len - crc_off - 4);
}

#define CRC_STEP (1u << 20)

uint32_t buildid_cache_crc_mapped(const void *map, size_t len, size_t crc_off)
{
	static const uint8_t zero[4];
	const uint8_t *b = map;
	uint32_t c = crc_update(0, b, crc_off);
	c = crc_update(c, zero, sizeof(zero));
	size_t page = (size_t)sysconf(_SC_PAGESIZE), done = 0;
	for (size_t off = crc_off + 4; off < len;) {
		size_t n = len - off < CRC_STEP ? len - off : CRC_STEP;
		c = crc_update(c, b + off, n);
		off += n;
		size_t upto = off / page * page;
		if (upto > done) {
			madvise((void *)(b + done), upto - done, MADV_DONTNEED);
			done = upto;
		}
	}
	return (uint32_t)c;
}
