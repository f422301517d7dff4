#include "python/pygil.h"

#include "python/pyread.h"

uint64_t pygil_holder(const struct py_proc *p)
{
	const struct py_layout *l = &p->layout;
	uint64_t gil = p->gil, interp = 0, holder = 0;
	if (!p->gil_known)
		return 0;
	if (l->interp_gil >= 0) {
		/* 3.12+: the interpreter's ceval.gil points to its GIL's state */
		if (pyread_mem(p->pid, p->runtime + (uint64_t)l->runtime_interp_head, &interp, 8) < 0 || !interp ||
		    pyread_mem(p->pid, interp + (uint64_t)l->interp_gil, &gil, 8) < 0)
			return 0;
	}
	if (!gil)
		return 0;
	if (l->gil_locked >= 0) {
		int32_t locked = 0;
		if (pyread_mem(p->pid, gil + (uint64_t)l->gil_locked, &locked, 4) < 0 || locked != 1)
			return 0;
	}
	if (pyread_mem(p->pid, gil + (uint64_t)l->gil_holder, &holder, 8) < 0)
		return 0;
	return holder;
}
