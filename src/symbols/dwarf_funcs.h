/* An index of one compilation unit's functions by address: its DW_TAG_subprogram and
 * DW_TAG_inlined_subroutine DIEs, each with its address ranges and the function DIE around it,
 * built in one walk of the unit's DIE tree. It answers "which functions, inlined ones included,
 * contain this address" with a binary search, where libdw's dwarf_getscopes walks the unit's
 * tree from its root on every query (a large unit such as CPython's ceval.c costs milliseconds a
 * query, and a report asks once per distinct address). srcline.c keeps one per unit, built at
 * the unit's fifth query: before, a walk pruned to the DIEs around the address answers (a
 * Python report's units mostly get one to five). */
#ifndef LPERF_SYMBOLS_DWARF_FUNCS_H
#define LPERF_SYMBOLS_DWARF_FUNCS_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

struct dwarf_funcs;

/* Indexes the unit whose DIE is cu. Never fails: a unit without functions gives an empty index. */
struct dwarf_funcs *dwarf_funcs_build(Dwarf_Die *cu);
void dwarf_funcs_free(struct dwarf_funcs *f);

/* The offsets of the function DIEs containing addr (a DWARF address in the unit), innermost
 * first: inlined subroutines, then the subprogram they are in (the chain stops there). Returns
 * how many were written to out (at most max); 0 when no function contains addr. */
size_t dwarf_funcs_chain(const struct dwarf_funcs *f, Dwarf_Addr addr, Dwarf_Off *out, size_t max);

/* The chain at addr in the unit whose DIE is cu, by f (*f NULL: a new one, freed by
 * dwarf_funcs_free): the first DWARF_FUNCS_PRUNED queries of a unit take pruned walks
 * (dwarf_funcs_chain_at), the next builds the index (*built) and the rest use it: most units a
 * report asks about get a few queries, for which walking the whole unit costs more. */
#define DWARF_FUNCS_PRUNED 4
size_t dwarf_funcs_find(struct dwarf_funcs **f, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Off *out, size_t max,
			bool *built);

/* The same chain without an index: a walk from the unit's root into the DIEs around addr only
 * (as libdw's dwarf_getscopes prunes), for a unit asked about few addresses. */
size_t dwarf_funcs_chain_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Off *out, size_t max);

#endif
