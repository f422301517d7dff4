/* DWARF unwinding of perf's user stack snapshots (`--call-graph dwarf`: PERF_SAMPLE_REGS_USER
 * + PERF_SAMPLE_STACK_USER) with libdwfl: CFI from .eh_frame and .debug_frame (also of
 * separate debug files), libdwfl's frame-pointer fallback where a frame has no CFI, and JIT
 * code stepped over by jitstep.h: jitdump code by its own CFI (CPython 3.13 -X perf_jit), and
 * CPython 3.12's perf-map trampolines by their template's rule, so Python stacks stay whole in
 * interpreters built without frame pointers. JIT code is looked up at the sample's time.
 *
 * Memory the unwinder reads comes from the sample's stack copy, else from the files mapped at
 * that address (read-only); nothing is read from a live process. Files are opened once per
 * DSO; a Dwfl (libdwfl's view of one address space) is built once per process address space
 * and rebuilt only when that process's file mappings change. */
#ifndef LPERF_UNWIND_UNWIND_H
#define LPERF_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/machine.h"
#include "record/record.h"

struct unwinder;
struct jitdump_code;

/* How the unwinder looks up JIT code, which only the resolve stage above it knows: resolve names
 * an address (as resolve_addr), jit_code finds the jitdump code at one (as resolve_jit_code). */
struct unwind_lookup {
	bool (*resolve)(struct machine *m, struct thread *t, uint8_t cpumode, uint64_t ip, uint64_t time,
			struct addr_loc *out);
	const struct jitdump_code *(*jit_code)(struct machine *m, struct thread *t, uint64_t ip, uint64_t time);
	/* Optional (NULL: one thread of lperf unwinds): held around what the unwinder changes or
	 * reads lazily in state it shares with other threads' unwinders (a DSO opened for the first
	 * time, its cfi_refused flag); resolve and jit_code then take it themselves. */
	void (*lock)(void);
	void (*unlock)(void);
};

/* An unwinder for the threads of m (which, like lookup, must outlive it). Never fails. One
 * unwinder serves one thread of lperf at a time; several unwinders may run at once over a model
 * nobody changes meanwhile when lookup has a lock (each opens its own files and keeps its own
 * rows and Dwfls). */
struct unwinder *unwind_new(struct machine *m, const struct unwind_lookup *lookup);
void unwind_free(struct unwinder *u);

/* Unwinds the user part of a dwarf sample: calls add(ip, activation, arg) for each user frame,
 * leaf first (the first is the sampled user IP from the registers, an activation; the others
 * are return addresses, as in kernel callchains, unless a signal frame interrupted them), and
 * returns the number of frames: >= 1 when the sample has user
 * registers, 0 when it has none (a kernel thread) or its architecture is unknown here.
 * *truncated (may be NULL) is set when the unwind stopped before the outermost frame for a
 * reason the user should know: the stack snapshot ended, a frame had no CFI and the
 * frame-pointer fallback failed, a read fell outside the snapshot and every mapped file, the
 * stack did not move outwards, JIT code's rule could not be applied (a pc inside one of its
 * instructions), or the frame limit was hit. It is false when the unwind ended
 * normally (return address 0, or an outermost frame such as _start whose return address is
 * undefined). t is the sample's thread (its maps are the address space). */
int unwind_user(struct unwinder *u, struct thread *t, const struct perf_sample *s,
		void (*add)(uint64_t ip, bool activation, void *arg), void *arg, bool *truncated);

/* Counters for a summary line: samples unwound (with user registers), samples truncated,
 * frames delivered. */
struct unwind_stats {
	uint64_t samples, truncated, frames;
};
void unwind_get_stats(const struct unwinder *u, struct unwind_stats *st);

/* ---- Register maps (regs.c): perf's sample_regs_user numbering to DWARF numbering. ---- */

#define UNWIND_MAX_DWARF_REGS 32

struct unwind_reg_pair {
	uint8_t perf, dwarf;
};

struct unwind_arch {
	const char *name;
	unsigned e_machine;          /* EM_X86_64, EM_AARCH64 */
	unsigned ndwarf;             /* DWARF registers 0..ndwarf-1 are handed to libdwfl */
	unsigned dwarf_sp;           /* the stack pointer's DWARF number */
	unsigned dwarf_fp;           /* the frame pointer's (0 in it marks the outermost frame) */
	unsigned perf_pc, perf_sp;   /* bits of sample_regs_user */
	const struct unwind_reg_pair *map; /* perf register -> DWARF register */
	size_t nmap;
};

/* A sample's registers in DWARF numbering. */
struct unwind_regs {
	uint64_t dwarf[UNWIND_MAX_DWARF_REGS];
	uint32_t present;            /* bit i: dwarf[i] was sampled */
	uint64_t pc, sp;
	bool has_pc, has_sp;
};

/* The map for an ELF machine (EM_*), or NULL when lperf cannot unwind it. */
const struct unwind_arch *unwind_arch_by_machine(unsigned e_machine);
/* The map of the architecture lperf runs on, or NULL. */
const struct unwind_arch *unwind_arch_host(void);
/* Converts perf's register block (vals: n values, one per set bit of mask, lowest bit first)
 * into DWARF numbering. Registers the block lacks (or that n is too short to hold) stay
 * absent. Returns false when the PC or the stack pointer is missing. */
/* v without an AArch64 pointer-authentication code (user addresses); v itself elsewhere. */
uint64_t unwind_strip_pac(const struct unwind_arch *a, uint64_t v);

bool unwind_regs_convert(const struct unwind_arch *a, uint64_t mask, const uint64_t *vals, size_t n,
			 struct unwind_regs *out);

#endif
