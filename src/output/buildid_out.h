/* Lines of buildid-list and buildid-cache (output/buildid_out.c): perf's "BUILDID NAME". */
#ifndef LPERF_OUTPUT_BUILDID_OUT_H
#define LPERF_OUTPUT_BUILDID_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbols/buildid_cache.h"

/* "hex name" (name NULL: the hex alone, as buildid-list -k prints it). */
void buildid_print(FILE *f, const uint8_t *id, size_t n, const char *name);
void buildid_print_cache(FILE *f, const struct buildid_cache_entry *v, size_t n);
/* buildid-cache -v: "Adding HEX NAME: Ok" / "Removing ...: FAIL". */
void buildid_print_action(FILE *f, const char *verb, const uint8_t *id, size_t n, const char *name, int ok);

#endif
