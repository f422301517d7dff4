/* Hand-written SPE packet streams (Arm ARM packet tables) shared by the SPE unit tests and the
 * perf.data generator: one record of each kind perf and lperf both decode. */
#ifndef LPERF_TESTS_SPE_STREAM_H
#define LPERF_TESTS_SPE_STREAM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct sb8 {
	uint8_t b[8192];
	size_t n;
};

static inline void sput(struct sb8 *s, int count, ...)
{
	va_list ap;
	va_start(ap, count);
	for (int i = 0; i < count; i++)
		s->b[s->n++] = (uint8_t)va_arg(ap, int);
	va_end(ap);
}

static inline void sput_le(struct sb8 *s, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		s->b[s->n++] = (uint8_t)(v >> (8 * i));
}

static inline void saddr(struct sb8 *s, unsigned idx, uint64_t payload)
{
	sput(s, 1, 0xb0 | idx);
	sput_le(s, payload, 8);
}

static inline void scounter(struct sb8 *s, unsigned idx, uint16_t v)
{
	sput(s, 1, 0x98 | idx);
	sput_le(s, v, 2);
}

/* The fields a generated record carries (what both decoders must agree on). */
struct spe_gen {
	uint64_t pc;           /* EL0, NS */
	uint8_t op_hdr, op;    /* 0x48|class, payload */
	uint16_t events;
	uint16_t lat_total, lat_issue, lat_xlat;
	uint64_t va, pa;       /* 0: none */
	int ds;                /* -1: none */
	uint64_t br_target;    /* 0: none */
	uint32_t context;
};

/* Writes one record in the order Neoverse cores emit them, ended by End. */
static inline void spe_gen_record(struct sb8 *s, const struct spe_gen *g)
{
	saddr(s, 0, g->pc | (1ULL << 63));
	scounter(s, 1, g->lat_issue);
	scounter(s, 0, g->lat_total);
	sput(s, 3, 0x52, g->events & 0xff, g->events >> 8);
	sput(s, 2, g->op_hdr, g->op);
	if (g->va)
		saddr(s, 2, g->va);
	if (g->br_target)
		saddr(s, 1, g->br_target | (1ULL << 63));
	if (g->va)
		scounter(s, 2, g->lat_xlat);
	if (g->pa)
		saddr(s, 3, g->pa | (1ULL << 63));
	if (g->ds >= 0)
		sput(s, 3, 0x53, g->ds & 0xff, 0);
	sput(s, 5, 0x64, g->context & 0xff, (g->context >> 8) & 0xff, (g->context >> 16) & 0xff,
	     g->context >> 24);
	sput(s, 1, 0x01);
}

#endif
