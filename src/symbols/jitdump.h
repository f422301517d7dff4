/* JIT dump files (jit-PID.dump, tools/perf/Documentation/jitdump-specification.txt): a header,
 * then records describing the code a JIT produced over time: CODE_LOAD (name, address, bytes),
 * CODE_MOVE, CODE_DEBUG_INFO (source lines), CODE_UNWINDING_INFO (.eh_frame), CODE_CLOSE.
 *
 * Read natively, without perf's inject step: each load covers its bytes from its timestamp until
 * a later load or move takes the address, so lookups take (address, time) and resolve reused
 * addresses (time 0: the latest code placed there). Timestamps are CLOCK_MONOTONIC nanoseconds
 * unless the header says JITDUMP_FLAGS_ARCH_TIMESTAMP (TSC), which lperf cannot relate to sample
 * times: such dumps resolve by address only.
 *
 * What real writers do and what is accepted: CPython 3.13.0 writes elf_mach 0 and garbage in
 * pad1, V8 0xdeadbeef in pad1 (both ignored); both put .eh_frame before .eh_frame_hdr in the
 * unwinding data (as perf's genelf reads it; the spec text says the opposite, which is
 * recognised too). A byte-swapped file (another machine's) is read with every field swapped.
 * DEBUG_INFO and UNWINDING_INFO apply to the next CODE_LOAD, as in perf. Unknown record types are
 * skipped by their size. A truncated or damaged file keeps what was read before the damage, with
 * an error naming the offset. */
#ifndef LPERF_SYMBOLS_JITDUMP_H
#define LPERF_SYMBOLS_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/notes.h"

#define JITDUMP_MAGIC 0x4A695444u          /* "JiTD" */
#define JITDUMP_FLAGS_ARCH_TIMESTAMP 1ull

enum jitdump_record {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
	JIT_CODE_UNWINDING_INFO = 4,
};

struct jitdump_line {
	uint64_t addr;           /* absolute code address where the line starts */
	int32_t line, discrim;
	const char *file;        /* "\xff" entries (same file as before) already resolved */
};

/* Unwinding data for one load. Offsets inside .eh_frame and .eh_frame_hdr are relative to where
 * perf's synthetic ELF puts them: .eh_frame at eh_frame_vaddr, the header right after it. */
struct jitdump_unwind {
	const uint8_t *data;     /* the record's unwinding_size bytes, as written */
	uint64_t size, hdr_size, mapped_size;
	const uint8_t *eh_frame, *eh_frame_hdr;
	size_t eh_frame_size, eh_frame_hdr_size;
	bool hdr_first;          /* written header-first (the spec's order), not genelf's */
};

struct jitdump_code {
	uint64_t time;           /* the CODE_LOAD record's timestamp */
	uint32_t pid, tid;
	uint64_t vma, addr, size, index;
	const char *name;
	const uint8_t *code;     /* size bytes */
	const struct jitdump_line *lines; /* sorted by addr */
	size_t nlines;
	const struct jitdump_unwind *unwind; /* NULL: none */
	uint64_t offset;         /* file offset of the CODE_LOAD record */
	size_t idx;              /* position in jd->codes */
};

struct jitdump_stats {
	size_t records, loads, moves, debug_info, unwinding_info, closes, unknown;
	size_t bad;              /* known records with impossible contents, skipped */
	size_t resumed;          /* damaged stretches skipped to the next whole record */
};

struct jitdump_index;

struct jitdump {
	/* The header. */
	uint32_t version, elf_mach, pid;
	uint64_t timestamp, flags, header_size;
	bool swapped;            /* written on a machine of the other byte order */
	bool have_header;
	/* Code in file order; pointers from jitdump_find stay valid until jitdump_free. */
	struct jitdump_code **codes;
	size_t ncodes;
	struct jitdump_stats stats;
	char *error;             /* why parsing stopped early (truncation, damage), or NULL */
	struct notes bad;        /* the first skipped record (later ones are only counted) */
	uint64_t consumed;       /* file bytes parsed: the next feed starts here */
	bool closed;             /* a CODE_CLOSE was seen */
	struct jitdump_index *ix;/* private */
};

/* Parses a whole file from memory. NULL with err_set() when the header is unusable (not a jitdump,
 * an unsupported version or flags); otherwise the dump, with jd->error set when the file ends in
 * the middle of a record or is damaged. */
struct jitdump *jitdump_parse(const void *data, size_t len);
/* Reads a dump from disk under the rules of perfmap_read_file (owner, no symbolic links).
 * Returns 1 with *out, 0 when the file does not exist, -1 with err_set(). */
int jitdump_load(const char *path, bool force, struct jitdump **out);

/* Incremental use (a dump a live process is still writing): jitdump_new, then jitdump_feed with
 * the file's bytes from jd->consumed on. Complete records are taken; an incomplete tail waits
 * for the next feed unless final. Returns -1 with err_set() for an unusable header. */
struct jitdump *jitdump_new(void);
int jitdump_feed(struct jitdump *jd, const void *data, size_t len, bool final);
void jitdump_free(struct jitdump *jd);

/* The code at addr at time (ns, the records' clock; 0: the latest code placed at addr). When no
 * code was live at that time, the one nearest in time is taken (samples on a clock that is not
 * quite the dump's still resolve). NULL when no load ever covered addr. *start (may be NULL)
 * gets where the code was at that time: its load address, or where a CODE_MOVE put it. */
const struct jitdump_code *jitdump_find(struct jitdump *jd, uint64_t addr, uint64_t time, uint64_t *start);
/* The source line of addr inside c (from its DEBUG_INFO); false when it has none. */
bool jitdump_srcline(const struct jitdump_code *c, uint64_t addr, const char **file, int *line);
/* Where .eh_frame of c's unwinding data belongs: right after the code, 8-byte aligned (the
 * layout the writers computed their pc-relative offsets for). */
uint64_t jitdump_eh_frame_vaddr(const struct jitdump_code *c);

/* True for the name of a dump's marker mapping: a basename "jit-<digits>.dump". *pid gets the
 * digits (may be NULL). */
bool jitdump_is_marker(const char *filename, int *pid);

#endif
