/* Which thread of a running CPython holds the GIL, read from outside with process_vm_readv
 * (python/pylayout.h says where: _PyThreadState_Current on 2.7 and 3.6, the GIL's locked and
 * last_holder on 3.7+). The BPF walker (bpf/pystack.bpf.c) reads the same at each sample. */
#ifndef LPERF_PYTHON_PYGIL_H
#define LPERF_PYTHON_PYGIL_H

#include <stdint.h>

#include "python/pylayout.h"

/* The thread state (PyThreadState address) holding p's GIL now; 0 when none does, or when it
 * cannot be read (p->gil_known false, memory unreadable). */
uint64_t pygil_holder(const struct py_proc *p);

#endif
