/* Inline frames for DWARF-unwound stacks (see resolve.h): the expansion itself is
 * srcline_inline_frames (symbols/srcline.c); this only splices its frames into the stack. */
#include "resolve/resolve.h"

#include "symbols/srcline.h"
#include "util/xalloc.h"

void resolve_expand_inline(struct frame **buf, size_t *cap, size_t *n, size_t at, bool lines)
{
	const struct symbol *syms[32];
	const char *levels[32];
	bool inl[32];
	struct frame f = (*buf)[at];
	size_t k = srcline_inline_frames(f.loc.dso, f.loc.sym, f.loc.addr, syms, inl, lines ? levels : NULL, 32);
	if (k == 0) {
		/* perf's addr2line still answers "??:0" for a named function without DWARF. */
		if (f.loc.sym)
			(*buf)[at].srcline = srcline_intern("??:0");
		return;
	}
	ALLOC_GROW(*buf, at + k, *cap);
	for (size_t i = 0; i < k; i++) {
		(*buf)[at + i] = f;
		(*buf)[at + i].loc.sym = syms[i];
		(*buf)[at + i].inlined = inl[i];
		(*buf)[at + i].srcline = lines ? levels[i] : NULL;
	}
	*n = at + k;
}
