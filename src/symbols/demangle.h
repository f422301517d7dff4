/* Symbol demangling (demangle.c, with libiberty). */
#ifndef LPERF_SYMBOLS_DEMANGLE_H
#define LPERF_SYMBOLS_DEMANGLE_H

/* Demangles a C++ (_Z...) or Rust (_R..., legacy _ZN...17h<hash>E) name; NULL when not mangled.
 * The caller frees the result. */
char *symbol_demangle(const char *name);

#endif
