/* Synthetic jitdumps for the jitelf and jitinject tests: CPython 3.13-style trampolines with
 * their unwinding data, in genelf's order or the spec's. */
#ifndef LPERF_TESTS_JITELF_TEST_H
#define LPERF_TESTS_JITELF_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "symbols/jitdump.h"
#include "symbols/jitelf.h"
#include "util/xalloc.h"

static const uint8_t jt_trampoline[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3 };

struct jt_buf {
	uint8_t *b;
	size_t len, cap, rec;
};

static inline void jt_put(struct jt_buf *w, const void *p, size_t n)
{
	ALLOC_GROW(w->b, w->len + n, w->cap);
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static inline void jt_put32(struct jt_buf *w, uint32_t v) { jt_put(w, &v, 4); }
static inline void jt_put64(struct jt_buf *w, uint64_t v) { jt_put(w, &v, 8); }

static inline void jt_st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void jt_begin(struct jt_buf *w, uint32_t id, uint64_t t)
{
	w->rec = w->len;
	jt_put32(w, id);
	jt_put32(w, 0);
	jt_put64(w, t);
}

/* pad: to 8 bytes (a CODE_LOAD ends with its code instead: perf takes the code from the end). */
static inline void jt_end(struct jt_buf *w, bool pad)
{
	while (pad && (w->len - w->rec) % 8)
		jt_put(w, "", 1);
	jt_st32(w->b + w->rec + 4, (uint32_t)(w->len - w->rec));
}

/* CPython 3.13.0's header: elf_mach 0, garbage in pad1. */
static inline void jt_header(struct jt_buf *w, uint32_t pid)
{
	jt_put32(w, JITDUMP_MAGIC);
	jt_put32(w, 1);
	jt_put32(w, 40);
	jt_put32(w, 0);
	jt_put32(w, 0x1a1a1a1a);
	jt_put32(w, pid);
	jt_put64(w, 1);
	jt_put64(w, 0);
}

/* CPython 3.13's unwinding data for a trampoline of csize bytes, its pc-relative offsets
 * computed for .eh_frame at eh and the header at hdr (.text at JITELF_TEXT_OFFSET). */
static inline void jt_make_unwind(uint64_t csize, uint64_t eh, uint64_t hdr, uint8_t frame[48], uint8_t h[20])
{
	static const uint8_t cie[24] = { 0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b,
					 0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0 };
	static const uint8_t fde[24] = { 0x14, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0x44, 0x0e, 0x10, 0x46, 0x0e, 0x08, 0 };
	static const uint8_t hdr0[4] = { 1, 0x1b, 0x03, 0x3b };
	uint64_t text = JITELF_TEXT_OFFSET;
	memcpy(frame, cie, 24);
	memcpy(frame + 24, fde, 24);
	jt_st32(frame + 32, (uint32_t)(text - (eh + 32)));
	jt_st32(frame + 36, (uint32_t)csize);
	memcpy(h, hdr0, 4);
	jt_st32(h + 4, (uint32_t)(eh - (hdr + 4)));
	jt_st32(h + 8, 1);
	jt_st32(h + 12, (uint32_t)(text - hdr));
	jt_st32(h + 16, (uint32_t)(eh + 24 - hdr));
}

/* An UNWINDING_INFO record for the trampoline: genelf's order (.eh_frame first, as CPython and
 * V8 write it) or the spec's (header first). */
static inline void jt_unwind(struct jt_buf *w, uint64_t t, bool hdr_first)
{
	uint64_t csize = sizeof(jt_trampoline), base = (JITELF_TEXT_OFFSET + csize + 7) & ~7ull;
	uint8_t frame[48], h[20];
	if (hdr_first)
		jt_make_unwind(csize, base + 20, base, frame, h);
	else
		jt_make_unwind(csize, base, base + 48, frame, h);
	jt_begin(w, JIT_CODE_UNWINDING_INFO, t);
	jt_put64(w, 68);
	jt_put64(w, 20);
	jt_put64(w, 80);
	jt_put(w, hdr_first ? (void *)h : (void *)frame, hdr_first ? 20 : 48);
	jt_put(w, hdr_first ? (void *)frame : (void *)h, hdr_first ? 48 : 20);
	jt_end(w, true);
}

/* A CODE_LOAD of the trampoline. */
static inline void jt_load(struct jt_buf *w, uint64_t t, uint32_t pid, uint64_t addr, uint64_t index,
			   const char *name)
{
	jt_begin(w, JIT_CODE_LOAD, t);
	jt_put32(w, pid);
	jt_put32(w, pid + 1);
	jt_put64(w, addr);
	jt_put64(w, addr);
	jt_put64(w, sizeof(jt_trampoline));
	jt_put64(w, index);
	jt_put(w, name, strlen(name) + 1);
	jt_put(w, jt_trampoline, sizeof(jt_trampoline));
	jt_end(w, false);
}

#endif
