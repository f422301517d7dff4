/* Fixed-seed damage for the readers of lperf's cache files (test_ksnap.c, test_srcline_store.c):
 * the same inputs every run, copied to buffers of their exact size so that ASan sees any read past
 * the end. parse(buf, len) returns 0 (accepted) or -1 (refused). */
#ifndef LPERF_TESTS_DAMAGE_TEST_H
#define LPERF_TESTS_DAMAGE_TEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/buildid_cache.h"
#include "util/xalloc.h"

static uint64_t damage_rng = 0x9e3779b97f4a7c15ull;

static inline uint64_t damage_rand(void)
{
	damage_rng ^= damage_rng << 13;
	damage_rng ^= damage_rng >> 7;
	damage_rng ^= damage_rng << 17;
	return damage_rng;
}

/* Every truncation, the file with bytes appended, every bit flipped, and `rounds` random damages
 * of 1 to 4 bytes: each refused (a checksum covers the whole file). */
static inline void damage_refused(const char *buf, size_t len, int (*parse)(const char *, size_t), int rounds)
{
	for (size_t n = 0; n < len; n++)
		assert_int_equal(parse(buf, n), -1);
	char *c = xcalloc(1, len + 8);
	memcpy(c, buf, len);
	assert_int_equal(parse(c, len + 8), -1);
	for (size_t i = 0; i < len; i++)
		for (int b = 0; b < 8; b++) {
			memcpy(c, buf, len);
			c[i] ^= (char)(1 << b);
			assert_int_equal(parse(c, len), -1);
		}
	for (int r = 0; r < rounds; r++) {
		memcpy(c, buf, len);
		for (int j = 0, k = 1 + (int)(damage_rand() % 4); j < k; j++)
			c[damage_rand() % len] ^= (char)(1 + damage_rand() % 255);
		assert_int_equal(parse(c, len), -1);
	}
	free(c);
}

/* Writes v (width 8, 4 or 1 bytes, native order) at off: a crafted field. */
static inline void damage_put(char *buf, size_t off, uint64_t v, int width)
{
	if (width == 8) {
		memcpy(buf + off, &v, 8);
	} else if (width == 4) {
		uint32_t w = (uint32_t)v;
		memcpy(buf + off, &w, 4);
	} else {
		buf[off] = (char)v;
	}
}

/* Stores the checksum a crafted file needs (the CRC-32 field at crc_off). */
static inline void damage_recrc(char *buf, size_t len, size_t crc_off)
{
	uint32_t crc = buildid_cache_crc(buf, len, crc_off);
	memcpy(buf + crc_off, &crc, 4);
}

/* `rounds` random damages of 1 to 3 bytes past the header with the checksum made right: parse
 * may accept or refuse, but reads nothing outside the buffer. */
static inline void damage_hostile(const char *buf, size_t len, size_t hdr, size_t crc_off,
				  int (*parse)(const char *, size_t), int rounds)
{
	char *c = xmalloc(len);
	for (int r = 0; r < rounds; r++) {
		memcpy(c, buf, len);
		for (int j = 0, k = 1 + (int)(damage_rand() % 3); j < k; j++)
			c[hdr + damage_rand() % (len - hdr)] ^= (char)(1 + damage_rand() % 255);
		damage_recrc(c, len, crc_off);
		(void)parse(c, len);
	}
	free(c);
}

#endif
