/* Which way `--python` gets a given interpreter's Python stacks, decided here once for record,
 * sample and `lperf test`: CPython's own perf support (3.12+ -X perf, 3.13+ -X perf_jit), lperf's
 * frame reader (CPython 2.7, 3.6-3.13 without flags: the BPF walker, or process_vm_readv where BPF
 * cannot be loaded), or nothing (native frames only). */
#ifndef LPERF_PYTHON_PYMETHOD_H
#define LPERF_PYTHON_PYMETHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* The method for py; want_frames: --python-frames (or attaching), frames read whatever the build;
 * exact_frames: the frames can be read at each sample (BPF loads, or without it the threads are
 * paused at each sample, python/pysampler.h), and then they are read on 3.12+ too, in place of
 * CPython's own perf support. */
void pymethod_choose(const struct pyinfo *py, bool want_frames, bool exact_frames, struct pymethod_choice *c);
/* The interpreter's frames can be read (a layout lperf knows). */
bool pymethod_frames_known(const struct pyinfo *py);
/* The call graph of a sampling run as --python sees it (live/live.h's three kinds). */
enum pymethod_unwind { PYMETHOD_UNWIND_NONE, PYMETHOD_UNWIND_FP, PYMETHOD_UNWIND_DWARF };

/* --python for a command that starts an interpreter: what was asked in, what the run needs out. */
struct pymethod_setup {
	bool frames;                  /* in: --python-frames (or attaching); out: frames are read
				       * from the interpreter (python/pyrec.h) */
	enum pymethod_unwind unwind;  /* in: the call graph asked for; out: the one to sample with
				       * (chosen here only when none was asked) */
	uint32_t stack_size;          /* DWARF stack bytes: 16384 when the unwinding is chosen here */
	bool pausable;                /* in: without BPF the recording would pause the threads at
				       * each sample (one cpu-clock or task-clock event, DWARF
				       * unwinding, not --nonblocking): then 3.12+ is read exactly
				       * so, in place of its own perf support, where Yama lets lperf
				       * trace its child */
	bool own;                     /* in: the command asks CPython for its own perf support
				       * (pymethod_asks_own): kept, its frames only extended */
};

/* Applies --python to the command cmd0: probes the interpreter; where its frames cannot be read
 * exactly (neither BPF nor s->pausable) sets the environment that makes CPython 3.12+ name its
 * functions for perf (PYTHON_PERF_JIT_SUPPORT=1 on 3.13+, PYTHONPERFSUPPORT=1 on 3.12); picks
 * the unwinding that works with that build when none was asked for. What it decided goes to said: a note naming the method and the unwinding, or a
 * warning for a Python older than 3.12 (native frames only). A command that is no Python is
 * taken as a wrapper with s->frames (its Pythons are found as they exec). -1 with err_set()
 * when cmd0 cannot be run, or is no Python without s->frames. */
struct notes;
int pymethod_setup(const char *cmd0, struct pymethod_setup *s, struct notes *said);

/* Whether the command argv (a NULL-ended Python command line) asks CPython for its own perf
 * support: -X perf or -X perf_jit among the interpreter's options, or PYTHONPERFSUPPORT=1 or
 * PYTHON_PERF_JIT_SUPPORT=1 in lperf's environment, which the command inherits. */
bool pymethod_asks_own(char *const *argv);

/* Writes the description into buf and returns it. Whether BPF loads is tried once per process
 * (root or CAP_BPF + CAP_PERFMON, BTF, ring buffers). */
const char *pymethod_describe(const struct pyinfo *py, char *buf, size_t size);

/* Whether the running process pid names its Python frames itself (CPython 3.12+'s -X perf or
 * -X perf_jit, by the option or the environment, read from /proc/PID/environ and cmdline). */
bool pymethod_names_its_frames(pid_t pid);

#endif
