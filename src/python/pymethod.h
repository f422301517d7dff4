/* Which way `--python` gets a given interpreter's Python stacks, in words for `lperf test`:
 * CPython's own perf support (3.12+ -X perf, 3.13+ -X perf_jit), lperf's BPF frame walker
 * (CPython 3.8-3.13 without flags), or the process_vm_readv reader where BPF cannot be loaded. */
#ifndef LPERF_PYTHON_PYMETHOD_H
#define LPERF_PYTHON_PYMETHOD_H

#include <stddef.h>

#include "sysinfo/python.h"

/* Writes the description into buf and returns it. Whether BPF loads is tried once per process
 * (root or CAP_BPF + CAP_PERFMON, BTF, ring buffers). */
const char *pymethod_describe(const struct pyinfo *py, char *buf, size_t size);

#endif
