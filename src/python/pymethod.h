/* Which way `--python` gets a given interpreter's Python stacks, decided here once for record,
 * sample and `lperf test`: CPython's own perf support (3.12+ -X perf, 3.13+ -X perf_jit), lperf's
 * frame reader (CPython 3.8-3.13 without flags: the BPF walker, or process_vm_readv where BPF
 * cannot be loaded), or nothing (native frames only). */
#ifndef LPERF_PYTHON_PYMETHOD_H
#define LPERF_PYTHON_PYMETHOD_H

#include <stdbool.h>
#include <stddef.h>

#include "sysinfo/python.h"

enum pymethod {
	PYMETHOD_NONE,           /* no Python frames: native frames only */
	PYMETHOD_FRAMES,         /* read from the interpreter (python/pyrec.h) */
	PYMETHOD_PERF_JIT,       /* 3.13+: a jitdump with unwinding information */
	PYMETHOD_TRAMPOLINE,     /* 3.12+: perf-map trampolines */
};

struct pymethod_choice {
	enum pymethod method;
	bool frame_pointers;     /* frame pointers walk through this build; else DWARF unwinding */
	const char *env;         /* the variable that turns the method on in the interpreter ("1") */
};

/* The method for py; want_frames: --python-frames (or attaching), frames read whatever the build. */
void pymethod_choose(const struct pyinfo *py, bool want_frames, struct pymethod_choice *c);
/* The interpreter's frames can be read (a layout lperf knows). */
bool pymethod_frames_known(const struct pyinfo *py);
/* Writes the description into buf and returns it. Whether BPF loads is tried once per process
 * (root or CAP_BPF + CAP_PERFMON, BTF, ring buffers). */
const char *pymethod_describe(const struct pyinfo *py, char *buf, size_t size);

#endif
