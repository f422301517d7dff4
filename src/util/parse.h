/* Parsers for command-line values: durations, integers (CPU lists: util/cpuset.h). Each returns 0 or -1 with
 * err_set() saying what was wrong with the text. */
#ifndef LPERF_UTIL_PARSE_H
#define LPERF_UTIL_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* s without its leading and trailing white space, in place (a pointer into s). */
char *parse_trim(char *s);

/* "2.5s", "100ms", "3m", "1h", "1d", or a bare number (seconds). */
int parse_duration(const char *s, double *seconds);

/* Decimal, 0x hex or 0 octal, the whole string, no sign. */
/* The value of one hex digit, -1 when c is none. */
int hex_digit(char c);
int parse_u64(const char *s, uint64_t *v);
int parse_int(const char *s, int *v);

#endif
