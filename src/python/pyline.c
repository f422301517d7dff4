/* CPython's line tables, decoded as PyCode_Addr2Line does in each version. Every table comes
 * from the profiled process: reads are bounded by its length and a damaged table ends the walk. */
#include "python/pyread.h"

/* 3.6-3.9 co_lnotab: (address increment, signed line increment) pairs; the line is the one in
 * force at the last increment whose address is not beyond off. 2.7's increments are unsigned. */
static int lnotab(const uint8_t *t, size_t len, int line, uint64_t off, bool sign)
{
	uint64_t addr = 0;
	for (size_t i = 0; i + 1 < len; i += 2) {
		addr += t[i];
		if (addr > off)
			break;
		line += sign ? (int8_t)t[i + 1] : t[i + 1];
	}
	return line;
}

/* 3.10 co_linetable: (byte length, signed line delta) pairs describing consecutive ranges; a
 * delta of -128 means "no line" for that range. */
static int linetable310(const uint8_t *t, size_t len, int line, uint64_t off)
{
	uint64_t start = 0;
	int computed = line;
	for (size_t i = 0; i + 1 < len; i += 2) {
		uint64_t end = start + t[i];
		int8_t d = (int8_t)t[i + 1];
		int this_line = -1;
		if (d != -128) {
			computed += d;
			this_line = computed;
		}
		if (off >= start && off < end)
			return this_line;
		start = end;
	}
	return computed;
}

/* 3.11+ location table (Objects/locations.md): entries of (code, length in code units), then
 * per code a line delta (and columns, skipped). */
static int varint(const uint8_t *t, size_t len, size_t *i, uint32_t *out)
{
	uint32_t v = 0;
	int shift = 0;
	while (*i < len && shift < 32) {
		uint8_t b = t[(*i)++];
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

static int svarint(const uint8_t *t, size_t len, size_t *i, int32_t *out)
{
	uint32_t v;
	if (varint(t, len, i, &v) < 0)
		return -1;
	*out = (v & 1) ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
	return 0;
}

static int locations(const uint8_t *t, size_t len, int line, uint64_t off)
{
	uint64_t addr = 0; /* in bytes */
	size_t i = 0;
	while (i < len) {
		uint8_t first = t[i++];
		if (!(first & 0x80))
			return line; /* out of step: a damaged table */
		int code = (first >> 3) & 15;
		uint64_t end = addr + 2 * (uint64_t)((first & 7) + 1);
		int this_line = line;
		int32_t d = 0;
		uint32_t skip;
		switch (code) {
		case 15:
			this_line = -1;
			break;
		case 14:
			if (svarint(t, len, &i, &d) < 0 || varint(t, len, &i, &skip) < 0 ||
			    varint(t, len, &i, &skip) < 0 || varint(t, len, &i, &skip) < 0)
				return line;
			line += d;
			this_line = line;
			break;
		case 13:
			if (svarint(t, len, &i, &d) < 0)
				return line;
			line += d;
			this_line = line;
			break;
		case 10: case 11: case 12:
			line += code - 10;
			this_line = line;
			i += 2;
			break;
		default:
			i += 1;
			break;
		}
		if (off >= addr && off < end)
			return this_line;
		addr = end;
	}
	return line;
}

int pyline_lookup(enum py_linetable kind, const uint8_t *tab, size_t len, int firstline, uint64_t off)
{
	if (!tab)
		return firstline;
	switch (kind) {
	case PY_LNOTAB: return lnotab(tab, len, firstline, off, true);
	case PY_LNOTAB27: return lnotab(tab, len, firstline, off, false);
	case PY_LINETABLE310: return linetable310(tab, len, firstline, off);
	case PY_LOCATIONS: return locations(tab, len, firstline, off);
	}
	return firstline;
}
