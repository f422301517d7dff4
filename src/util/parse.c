#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fileio.h"
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

static void cpuset_add(struct cpuset *set, int cpu, size_t *cap)
{
	if (cpuset_has(set, cpu))
		return;
	ALLOC_GROW(set->cpu, set->n + 1, *cap);
	set->cpu[set->n++] = cpu;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int parse_cpu_list(const char *s, struct cpuset *set)
{
	size_t cap = 0;
	set->cpu = NULL;
	set->n = 0;
	if (!s || !*s)
		return err_set("empty CPU list");
	const char *p = s;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			goto bad;
		long a = strtol(p, &end, 10), b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a > b || b > 4095)
			goto bad;
		for (long c = a; c <= b; c++)
			cpuset_add(set, (int)c, &cap);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	qsort(set->cpu, set->n, sizeof(int), cmp_int);
	return 0;
bad:
	cpuset_free(set);
	return err_set("invalid CPU list '%s': expected numbers and ranges such as 0,3-5 (0..4095)", s);
}

void cpuset_free(struct cpuset *set)
{
	free(set->cpu);
	set->cpu = NULL;
	set->n = 0;
}

bool cpuset_has(const struct cpuset *set, int cpu)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->cpu[i] == cpu)
			return true;
	return false;
}

int cpuset_online(struct cpuset *set)
{
	char *text = sysfs_read("devices/system/cpu/online");
	if (!text) {
		/* Without sysfs, fall back to the kernel's count of configured CPUs. */
		long n = sysconf(_SC_NPROCESSORS_CONF);
		char buf[32];
		snprintf(buf, sizeof(buf), "0-%ld", n > 0 ? n - 1 : 0);
		return parse_cpu_list(buf, set);
	}
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	int r = parse_cpu_list(text, set);
	free(text);
	return r;
}
