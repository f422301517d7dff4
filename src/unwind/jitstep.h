/* One unwind step over a frame of JIT code, which libdwfl cannot step over: the code lives in
 * anonymous memory, in no file that a Dwfl module could describe.
 *
 *   jitdump code (CPython 3.13 -X perf_jit, V8 --perf-prof-unwinding-info): the code's own
 *     .eh_frame from its CODE_UNWINDING_INFO record. It is put in a small in-memory ELF (libelf)
 *     at the address its writer computed its pc-relative offsets for, and libdw evaluates it
 *     (dwarf_getcfi_elf, dwarf_cfi_addrframe); this module applies the row it gives.
 *   CPython 3.12 -X perf trampolines (perf map entries, no CFI anywhere): every entry is a copy
 *     of libpython's _Py_trampoline_func_start.._end. On x86-64 that is
 *     `sub $8,%rsp; call *%rcx; add $8,%rsp; ret`, whose unwind rule is fixed by its bytes. The
 *     rule is applied as CFI too: the .eh_frame CPython 3.13 writes for the same 11 bytes, so both
 *     versions unwind through one evaluator and one set of bytes (which tests check against a
 *     real 3.13 jitdump). Other templates (AArch64, a future CPython's) are left alone.
 *
 * Where a pc is a byte of the known trampoline, it must be an instruction boundary (0, 4, 6, 10)
 * and a return address must follow the call (6): anything else is garbage and stops the unwind. */
#ifndef LPERF_UNWIND_JITSTEP_H
#define LPERF_UNWIND_JITSTEP_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/jitdump.h"
#include "unwind/unwind.h"

enum jitstep_result {
	JITSTEP_NONE,            /* no rule for this pc here: leave the frame to libdwfl */
	JITSTEP_STEP,            /* *out holds the caller's registers and pc */
	JITSTEP_END,             /* the rule says this is the outermost frame (return address
				  * undefined or 0) */
	JITSTEP_FAIL,            /* a rule exists but cannot be applied: a register or a read is
				  * missing, the pc is inside an instruction, the stack would not
				  * move outwards */
};

/* Reads the 8-byte word at addr of the sampled process. */
typedef bool (*jitstep_read_fn)(uint64_t addr, uint64_t *val, void *arg);

/* The frame to step over. activation: pc is where the thread was executing (the sampled pc, or
 * a signal frame); otherwise it is a return address, and the rule at pc - 1 applies. */
struct jitstep_frame {
	const struct unwind_arch *arch;
	const struct unwind_regs *regs;
	bool activation;
	jitstep_read_fn read;
	void *arg;
	/* Optional (NULL: none): the stack copy of [stack_base, stack_base + stack_len), whose
	 * words read gives as they are there, so that a step may read them itself. */
	const uint8_t *stack;
	uint64_t stack_base, stack_len;
};

struct jitstep;

/* Caches the CFI built per jitdump code (keyed by the code's address in memory: codes must
 * outlive the jitstep) and the trampoline CFI. */
struct jitstep *jitstep_new(void);
void jitstep_free(struct jitstep *js);

/* A frame whose pc lies in jitdump code c: its unwinding data, else (none recorded) the CPython
 * trampoline rule when c's bytes are the trampoline. */
enum jitstep_result jitstep_code(struct jitstep *js, const struct jitdump_code *c, const struct jitstep_frame *f,
				 struct unwind_regs *out);
/* A frame whose pc lies in a copy of CPython's trampoline at start (the caller checked the
 * process's template with jitstep_py_template_known). */
enum jitstep_result jitstep_py_trampoline(struct jitstep *js, uint64_t start, const struct jitstep_frame *f,
					  struct unwind_regs *out);

/* The bytes of CPython's trampoline template in an ELF image (the python executable or
 * libpython): from symbol _Py_trampoline_func_start to _Py_trampoline_func_end, in .symtab or
 * .dynsym. Returns their number (0 when the image has no template or it exceeds cap). */
size_t jitstep_py_template(Elf *elf, uint8_t *out, size_t cap);
/* True when code is the template whose rule lperf knows (x86-64's 11 bytes). */
bool jitstep_py_template_known(const uint8_t *code, size_t len, unsigned e_machine);

#endif
