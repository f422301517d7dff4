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

/* The value of one hex digit, -1 when c is none. Inline: kallsyms' parse calls it for every
 * digit of 122,000 addresses. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
/* Decimal, 0x hex or 0 octal, the whole string, no sign. */
int parse_u64(const char *s, uint64_t *v);
int parse_int(const char *s, int *v);

#endif
