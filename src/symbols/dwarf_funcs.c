/* A compilation unit's functions by address (see dwarf_funcs.h). */
#include "symbols/dwarf_funcs.h"

#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define NONE UINT32_MAX

struct df_die {
	Dwarf_Off off;
	uint32_t parent;      /* the function DIE around this one; NONE at the unit's top */
	bool subprogram;      /* else an inlined subroutine */
	uint32_t first, n;    /* its ranges: own[first .. first + n) */
};

struct df_range {
	Dwarf_Addr low, high; /* [low, high) */
	uint32_t die;
};

struct dwarf_funcs {
	struct df_die *dies;
	size_t ndies, dcap;
	struct df_range *own;    /* each DIE's ranges together, in walk order */
	struct df_range *ranges; /* the same by low, then by high descending (an outer range first) */
	size_t nranges, rcap;
	bool built;
	unsigned asked;          /* queries answered by pruned walks before the index was built */
};

/* Adds die if it has address ranges; returns its index, or NONE. */
static uint32_t add_die(struct dwarf_funcs *f, Dwarf_Die *die, uint32_t parent, bool subprogram)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	uint32_t idx = NONE;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		if (idx == NONE) {
			if (f->ndies >= NONE - 1 || f->nranges >= NONE - 1)
				return NONE;
			ALLOC_GROW(f->dies, f->ndies + 1, f->dcap);
			idx = (uint32_t)f->ndies++;
			f->dies[idx] = (struct df_die){ dwarf_dieoffset(die), parent, subprogram,
							(uint32_t)f->nranges, 0 };
		}
		ALLOC_GROW(f->own, f->nranges + 1, f->rcap);
		f->own[f->nranges++] = (struct df_range){ start, end, idx };
		f->dies[idx].n++;
	}
	return idx;
}

struct walk_item {
	Dwarf_Die die;
	uint32_t fn;          /* the function DIE around it */
};

/* Whether the index's walk goes into the children of a DIE of this tag: the DIEs libdw's scope
 * walk (dwarf_getscopes) goes into, those that can hold a function DIE with code. Not a C
 * unit's structures: only C++'s may hold functions, and a C unit's members are most of its DIEs
 * (libpython's: 478,000 of 1.2 million), each visit three lookups in libdw. */
static bool holds_code(int tag, bool c_unit)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_entry_point:
	case DW_TAG_namespace:
	case DW_TAG_module:
		return true;
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return !c_unit;
	default:
		return false;
	}
}

static bool is_c(int lang)
{
	return lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 || lang == DW_LANG_C11;
}

/* One depth-first walk of the unit's tree, with an explicit stack (DWARF nests deeply). The
 * walk visits DIEs in the order they are stored, so their offsets grow: a DW_AT_sibling that
 * points back (damaged or hostile DWARF) would loop, and ends the walk instead. */
static void walk(struct dwarf_funcs *f, Dwarf_Die *cu)
{
	bool c_unit = is_c(dwarf_srclang(cu));
	Dwarf_Off last = dwarf_dieoffset(cu);
	struct walk_item *stack = NULL;
	size_t n = 0, cap = 0;
	ALLOC_GROW(stack, 1, cap);
	if (dwarf_child(cu, &stack[0].die) != 0) {
		free(stack);
		return;
	}
	stack[0].fn = NONE;
	n = 1;
	while (n) {
		struct walk_item it = stack[--n];
		Dwarf_Off off = dwarf_dieoffset(&it.die);
		if (off <= last)
			break;
		last = off;
		ALLOC_GROW(stack, n + 2, cap);
		if (dwarf_siblingof(&it.die, &stack[n].die) == 0)
			stack[n++].fn = it.fn;
		int tag = dwarf_tag(&it.die);
		uint32_t inner = it.fn;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			uint32_t idx = add_die(f, &it.die, it.fn, tag == DW_TAG_subprogram);
			if (idx != NONE)
				inner = idx;
		}
		if (holds_code(tag, c_unit) && dwarf_haschildren(&it.die) > 0 && dwarf_child(&it.die, &stack[n].die) == 0)
			stack[n++].fn = inner;
	}
	free(stack);
}

/* Whether die has address ranges: 1 when one contains addr (*low, *high: the last such), 0 when
 * none does, -1 when it has none. */
static int die_has(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Addr *low, Dwarf_Addr *high)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int r = -1;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		if (r < 0)
			r = 0;
		if (start <= addr && addr < end)
			r = 1, *low = start, *high = end;
	}
	return r;
}

/* A function DIE around addr met by the pruned walk, and the one around it (NONE: none). */
struct df_cand {
	Dwarf_Off off;
	Dwarf_Addr low, high;
	uint32_t parent;
	bool subprogram;
};

/* Whether the pruned walk goes into a DIE of this tag that has no ranges (has < 0) or ranges
 * around addr (has > 0): the scopes libdw's dwarf_getscopes goes into. */
static bool descends(int tag, int has)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
		return has > 0;
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_namespace:
	case DW_TAG_module:
		return has != 0;
	default:
		return false;
	}
}

size_t dwarf_funcs_chain_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Off *out, size_t max)
{
	struct df_cand cand[64];
	struct walk_item stack[64];
	size_t nc = 0, n = 0;
	if (dwarf_child(cu, &stack[0].die) != 0)
		return 0;
	stack[0].fn = NONE;
	n = 1;
	Dwarf_Off last = dwarf_dieoffset(cu);
	while (n) {
		struct walk_item it = stack[--n];
		Dwarf_Off off = dwarf_dieoffset(&it.die);
		if (off <= last || n + 2 > 64)
			break;
		last = off;
		if (dwarf_siblingof(&it.die, &stack[n].die) == 0)
			stack[n++].fn = it.fn;
		int tag = dwarf_tag(&it.die), has = 0;
		Dwarf_Addr low = 0, high = 0;
		if (descends(tag, -1) || descends(tag, 1))
			has = die_has(&it.die, addr, &low, &high);
		uint32_t inner = it.fn;
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) && has > 0 && nc < 64) {
			cand[nc] = (struct df_cand){ off, low, high, it.fn, tag == DW_TAG_subprogram };
			inner = (uint32_t)nc++;
		}
		if (descends(tag, has) && dwarf_haschildren(&it.die) > 0 && dwarf_child(&it.die, &stack[n].die) == 0)
			stack[n++].fn = inner;
	}
	/* The innermost as the index finds it: the greatest start, then the smallest end, then the
	 * last in the unit. */
	uint32_t best = NONE;
	for (uint32_t c = 0; c < nc; c++)
		if (best == NONE || cand[c].low > cand[best].low ||
		    (cand[c].low == cand[best].low && cand[c].high <= cand[best].high))
			best = c;
	size_t k = 0;
	for (uint32_t c = best; c != NONE && k < max; c = cand[c].parent) {
		out[k++] = cand[c].off;
		if (cand[c].subprogram)
			break;
	}
	return k;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct df_range *a = pa, *b = pb;
	if (a->low != b->low)
		return a->low < b->low ? -1 : 1;
	if (a->high != b->high)
		return a->high > b->high ? -1 : 1;
	return a->die < b->die ? -1 : a->die > b->die;
}

static void build(struct dwarf_funcs *f, Dwarf_Die *cu)
{
	f->built = true;
	walk(f, cu);
	/* Kept for the run: the arrays shrink to their size (they grew by doubling). */
	if (f->ndies)
		f->dies = xrealloc(f->dies, (f->dcap = f->ndies) * sizeof(*f->dies));
	if (f->nranges) {
		f->own = xrealloc(f->own, (f->rcap = f->nranges) * sizeof(*f->own));
		f->ranges = xmalloc(f->nranges * sizeof(*f->ranges));
		memcpy(f->ranges, f->own, f->nranges * sizeof(*f->ranges));
		qsort(f->ranges, f->nranges, sizeof(*f->ranges), range_cmp);
	}
}

struct dwarf_funcs *dwarf_funcs_build(Dwarf_Die *cu)
{
	struct dwarf_funcs *f = xcalloc(1, sizeof(*f));
	build(f, cu);
	return f;
}

size_t dwarf_funcs_find(struct dwarf_funcs **f, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Off *out, size_t max,
			bool *built)
{
	*built = false;
	if (!*f)
		*f = xcalloc(1, sizeof(**f));
	if (!(*f)->built && (*f)->asked < DWARF_FUNCS_PRUNED) {
		(*f)->asked++;
		return dwarf_funcs_chain_at(cu, addr, out, max);
	}
	if (!(*f)->built) {
		build(*f, cu);
		*built = true;
	}
	return dwarf_funcs_chain(*f, addr, out, max);
}

void dwarf_funcs_free(struct dwarf_funcs *f)
{
	if (!f)
		return;
	free(f->dies);
	free(f->own);
	free(f->ranges);
	free(f);
}

static bool die_contains(const struct dwarf_funcs *f, uint32_t die, Dwarf_Addr addr)
{
	const struct df_die *d = &f->dies[die];
	for (uint32_t i = d->first; i < d->first + d->n; i++)
		if (f->own[i].low <= addr && addr < f->own[i].high)
			return true;
	return false;
}

/* The innermost DIE containing addr: the last range starting at or before addr, or, when it ends
 * before addr, the nearest function around it that contains addr (ranges nest). */
static uint32_t innermost(const struct dwarf_funcs *f, Dwarf_Addr addr)
{
	size_t lo = 0, hi = f->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->ranges[mid].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NONE;
	size_t at = lo - 1;
	const struct df_range *r = &f->ranges[at];
	if (addr < r->high)
		return r->die;
	for (uint32_t d = f->dies[r->die].parent; d != NONE; d = f->dies[d].parent)
		if (die_contains(f, d, addr))
			return d;
	/* Ranges that do not nest (unusual producers): the nearest earlier range around addr. */
	for (size_t i = at, steps = 0; i-- > 0 && steps < 256; steps++)
		if (f->ranges[i].low <= addr && addr < f->ranges[i].high)
			return f->ranges[i].die;
	return NONE;
}

size_t dwarf_funcs_chain(const struct dwarf_funcs *f, Dwarf_Addr addr, Dwarf_Off *out, size_t max)
{
	size_t n = 0;
	for (uint32_t d = innermost(f, addr); d != NONE && n < max; d = f->dies[d].parent) {
		out[n++] = f->dies[d].off;
		if (f->dies[d].subprogram)
			break;
	}
	return n;
}
