/* The event module's internal resolution steps, shared by the -e parser (evlist.c). */
#ifndef LPERF_EVENTS_LOOKUP_H
#define LPERF_EVENTS_LOOKUP_H

#include "events/evlist.h"
#include "events/pmu.h"

/* Resolves name (no modifiers) into ev, which it clears first. 1 resolved; 0 no source knows
 * the name (no error set); -1 a source knows it but the spelling is wrong (err_set: bad term,
 * value too wide, unknown tracepoint of a known subsystem...). x collects name=/period= terms
 * of pmu/.../ spellings; x->name is the caller's to free. */
int ev_lookup_quiet(const char *name, struct ev *ev, struct pmu_extra *x);
/* Records "unknown event 'name'; did you mean ...?" and returns -1. */
int ev_unknown(const char *name);

#endif
