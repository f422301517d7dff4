/* lperf dump's output: py-spy dump's text (a header naming the process and its Python, then
 * each thread and its frames, innermost first, as "func (file.py:LINE)") or one JSON document
 * (docs/schemas/dump.schema.json). */
#ifndef LPERF_OUTPUT_PYDUMP_OUT_H
#define LPERF_OUTPUT_PYDUMP_OUT_H

#include <stdio.h>

#include "python/pydump.h"

void pydump_print_text(FILE *f, const struct pydump *d);
void pydump_print_json(FILE *f, const struct pydump *d);

#endif
