/* Demangling with libiberty (Debian's libiberty-dev, the demangler of binutils and gdb): C++
 * (Itanium ABI), Rust legacy (the trailing ::h<16 hex> hash dropped) and Rust v0 (_R). It is
 * plain C, so lperf needs no C++ runtime. */
#include "symbols/demangle.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* libiberty recurses on nested names; its default recursion limit guards against hostile
 * names, so DMGL_NO_RECURSE_LIMIT is deliberately not passed. */
#define DEMANGLE_OPTS (DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO)

/* perf 6.1 prints C++ names without parameters, return type or clone suffix unless -v. */
static int demangle_opts = DMGL_AUTO;

void symbol_demangle_params(bool params)
{
	demangle_opts = params ? DEMANGLE_OPTS : DMGL_AUTO;
}

char *symbol_demangle(const char *name)
{
	if (!name || name[0] != '_')
		return NULL;
	/* Only the two mangling schemes lperf meets in ELF files; auto-detection of the others
	 * (Java, D, GNAT) would "demangle" plain C names such as _start. */
	if (name[1] != 'Z' && name[1] != 'R')
		return NULL;
	char *d = cplus_demangle(name, demangle_opts);
	if (d && !*d) {
		free(d);
		return NULL;
	}
	return d;
}
