/* Joining a sample's native stack with the Python stack taken for it (python/pystore.h): each
 * call of the interpreter's eval loop (_PyEval_EvalFrameDefault; 2.7: PyEval_EvalFrameEx) in the
 * native stack is replaced by the Python frames it was running, innermost first, so that a stack
 * reads kernel frames,
 * native frames (C extensions, libc), the Python frames, then the native frames that started
 * the interpreter. Python frames the native unwinder did not reach (no eval frame found, or
 * fewer than the Python stack has calls) go at the outer end of the stack, unless the native
 * stack is whole (it reaches the thread's start) and has no eval loop: the thread was not
 * running Python then and the thread state's frame pointer is stale. */
#ifndef LPERF_PYTHON_PYMERGE_H
#define LPERF_PYTHON_PYMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "python/pystore.h"
#include "resolve/resolve.h"
#include "symbols/dso.h"

/* Rewrites the n frames in *frames (capacity *cap, grown as needed); returns the new count.
 * Stacks that already carry py:: frames (CPython's own perf support) keep them; where the
 * unwinder cut such a stack (its [truncated] marker last), the Python stack's frames beyond
 * them are added when its innermost ones are the same functions. A process whose stacks were
 * read at batches and that names its frames itself (PYSTORE_OWN) gets no other frames. */
size_t pymerge_stack(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time, struct frame **frames,
		     size_t *cap, size_t n);

/* record --wall: the sample's thread held the GIL; its stack gets the pseudo-frame [GIL] as its
 * outermost frame (the root of a flame graph's tower), where every view shows it. Returns the
 * new count. */
size_t pymerge_gil_mark(struct frame **frames, size_t *cap, size_t n);

#endif
