/* Symbol demangling (demangle.c, with libiberty). */
#ifndef LPERF_SYMBOLS_DEMANGLE_H
#define LPERF_SYMBOLS_DEMANGLE_H

#include <stdbool.h>

/* Demangles a C++ (_Z...) or Rust (_R..., legacy _ZN...17h<hash>E) name; NULL when not mangled.
 * The caller frees the result. */
char *symbol_demangle(const char *name);

/* Demangled names with parameters (perf's -v) or without (perf's default, and lperf's); applies
 * to symbols loaded afterwards. */
void symbol_demangle_params(bool params);

#endif
