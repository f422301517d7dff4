/* A Python value read from a process (python/pylocals.h) as a short repr, as Python writes it
 * for the common types: None, True, 12345, -1.5e-07, 'text', b'\x00bytes'; the sizes of
 * containers, <list of 3>, <dict of 2>; anything else <TypeName at 0x7f...>. A str or bytes
 * longer than what was read ends in ... after its closing quote. */
#ifndef LPERF_OUTPUT_PYREPR_H
#define LPERF_OUTPUT_PYREPR_H

#include <stddef.h>

#include "python/pylocals.h"

#define PYREPR_MAX 1024  /* the longest repr written (PYVAL_STR_MAX characters, each escaped) */

/* Writes v's repr into buf (NUL-terminated, cut at len - 1 bytes); returns buf. */
char *pyrepr_format(const struct pyvalue *v, char *buf, size_t len);

#endif
