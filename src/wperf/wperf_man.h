/* What `wperf man` and `lperf man` show (wperf_man.c): an event, metric or metric group looked
 * up by name for this machine or for a named Arm CPU, as WindowsPerf's field/value rows. */
#ifndef LPERF_WPERF_WPERF_MAN_H
#define LPERF_WPERF_WPERF_MAN_H

#include <stddef.h>

struct wperf_man {
	const char *field[6];  /* "CPU", "NAME", "EVENTS", "DESCRIPTION", "FORMULA", "UNIT"... */
	char *value[6];        /* "" when the source has none */
	size_t n;
};

enum wperf_man_result {
	WPERF_MAN_FOUND,
	WPERF_MAN_NOT_FOUND,   /* err_set: "NAME" not found (wperf says so as a warning, exit 1) */
	WPERF_MAN_BAD_CPU,     /* err_set: the CPU/ prefix names no known CPU (a warning, exit 2) */
	WPERF_MAN_BAD_FILE,    /* err_set: the -C metric file cannot be loaded (an error, exit 2) */
	WPERF_MAN_NO_DATA,     /* err_set: Arm's data is missing or damaged (an error, exit 1) */
};

/* Looks arg up ("NAME", "CPU/NAME"; the first of a comma-separated list), with the metrics of
 * metric_file (NULL: the built-in ones only). out is filled only when found. */
enum wperf_man_result wperf_man_lookup(const char *arg, const char *metric_file, struct wperf_man *out);
void wperf_man_free(struct wperf_man *m);

#endif
