/* util/crc.h gives zlib's crc32() values: the caches, kernel snapshots and .gnu_debuglink CRCs
 * written or computed with either check with the other. Random buffers of every length up to
 * 4 KiB and some large ones, at every alignment within 16 bytes, whole and in pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <zlib.h>

#include "util/crc.h"

static uint32_t zlib_crc(uint32_t crc, const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(crc, p, (uInt)n);
}

static void test_lengths_alignments(void **state)
{
	(void)state;
	size_t cap = (1u << 20) + 64;
	uint8_t *buf = malloc(cap);
	assert_non_null(buf);
	srand(27);
	for (size_t i = 0; i < cap; i++)
		buf[i] = (uint8_t)rand();
	assert_int_equal(crc_update(0, buf, 0), 0);
	for (size_t n = 0; n <= 4096; n++) {
		size_t at = n % 16;
		assert_int_equal(crc_update(0, buf + at, n), zlib_crc(0, buf + at, n));
	}
	static const size_t big[] = { 65535, 65536, 65537, 1u << 20 };
	for (size_t i = 0; i < sizeof(big) / sizeof(*big); i++)
		for (size_t at = 0; at < 16; at += 5)
			assert_int_equal(crc_update(0, buf + at, big[i]), zlib_crc(0, buf + at, big[i]));
	free(buf);
}

/* chained over parts, as the snapshot writer sums names as they come */
static void test_chained(void **state)
{
	(void)state;
	uint8_t buf[10000];
	srand(5);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	uint32_t c = 0;
	size_t off = 0;
	while (off < sizeof(buf)) {
		size_t k = (size_t)rand() % 97;
		if (k > sizeof(buf) - off)
			k = sizeof(buf) - off;
		c = crc_update(c, buf + off, k);
		off += k;
	}
	assert_int_equal(c, zlib_crc(0, buf, sizeof(buf)));
	/* the check value of the CRC-32 catalogue */
	assert_int_equal(crc_update(0, "123456789", 9), 0xCBF43926u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths_alignments),
		cmocka_unit_test(test_chained),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
