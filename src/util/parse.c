#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

int parse_u64(const char *s, uint64_t *v)
{
	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return err_set("'%s' is not a number", s ? s : "");
	errno = 0;
	char *end;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end)
		return err_set("'%s' is not a number%s", s, errno == ERANGE ? " (too large)" : "");
	*v = x;
	return 0;
}

int parse_int(const char *s, int *v)
{
	uint64_t x;
	if (parse_u64(s, &x) < 0)
		return -1;
	if (x > 0x7fffffff)
		return err_set("'%s' is too large", s);
	*v = (int)x;
	return 0;
}

int parse_duration(const char *s, double *seconds)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ms", 0.001 }, { "s", 1 }, { "m", 60 }, { "h", 3600 }, { "d", 86400 }, { "", 1 },
	};
	if (!s || !isdigit((unsigned char)*s))
		return err_set("invalid duration '%s': expected a number with an optional unit "
			       "ms, s, m, h or d (e.g. 2.5s, 100ms)", s ? s : "");
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || x < 0 || x > 1e9)
		return err_set("invalid duration '%s'", s);
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit)) {
			*seconds = x * units[i].mult;
			return 0;
		}
	}
	return err_set("invalid duration '%s': unknown unit '%s' (use ms, s, m, h or d)", s, end);
}

char *parse_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}
