/* A perf_event_attr in perf 6.1's words (perf evlist -v, perf report --header's "# event :"
 * lines): only the fields that are set, in perf's order, bit sets by name ("IP|TID|TIME"). */
#ifndef LPERF_OUTPUT_ATTR_TEXT_H
#define LPERF_OUTPUT_ATTR_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* Calls each(name, value, arg) for every field set, in perf's order. */
typedef void (*attr_field_fn)(const char *name, const char *value, void *arg);
void attr_for_each_field(const struct perf_event_attr *a, attr_field_fn each, void *arg);

/* "sample_type" bits as perf names them, '|'-joined, into buf. */
void attr_sample_type_str(uint64_t v, char *buf, size_t size);

#endif
