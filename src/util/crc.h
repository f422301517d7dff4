/* CRC-32 with the polynomial and conventions of zlib's crc32() (and gzip's, and the GNU
 * .gnu_debuglink CRC's): crc_update(0, p, n) over a buffer, or chained over its parts, gives
 * zlib's value exactly, so files written with either check with the other. Computed by
 * libdeflate, whose carry-less-multiply code is about ten times zlib 1.2.13's here: a first
 * report checksums the 5 MB of kernel symbol names it stores (7 ms of CPU with zlib), and every
 * report checks its caches whole (symbols/buildid_check.c). */
#ifndef LPERF_UTIL_CRC_H
#define LPERF_UTIL_CRC_H

#include <stddef.h>
#include <stdint.h>

#include <libdeflate.h>

static inline uint32_t crc_update(uint32_t crc, const void *p, size_t n)
{
	return libdeflate_crc32(crc, p, n);
}

#endif
