/* CPU sets: "0,3-5" lists and the CPUs online. */
#include "util/cpuset.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

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

int cpuset_parse(const char *s, struct cpuset *set)
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
		return cpuset_parse(buf, set);
	}
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	int r = cpuset_parse(text, set);
	free(text);
	return r;
}

unsigned cpuset_spare(long online, long busy, unsigned max)
{
	if (busy < 0)
		busy = 0;
	long n = online > busy ? online - busy : 1;
	return n > (long)max ? max : (unsigned)n;
}

long cpuset_loadavg_running(const char *text)
{
	const char *p = text;
	for (int field = 0; field < 3; field++) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			return -1;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	char *end;
	errno = 0;
	long running = strtol(p, &end, 10);
	if (errno || *end != '/' || !isdigit((unsigned char)end[1]))
		return -1;
	return running;
}

double cpuset_psi_some10(const char *text)
{
	static const char key[] = "some avg10=";
	const char *p = strstr(text, key);
	if (!p || (p != text && p[-1] != '\n'))
		return -1;
	p += sizeof(key) - 1;
	if (!isdigit((unsigned char)*p))
		return -1;
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (errno || (*end != ' ' && *end != '\n' && *end) || !(v >= 0 && v <= 100))
		return -1;
	return v;
}

/* The CPU pressure of the last 10 seconds (cpuset_psi_some10), -1 without it. */
static double psi_now(void)
{
	size_t len;
	char *text = file_read("/proc/pressure/cpu", 512, &len);
	double v = text ? cpuset_psi_some10(text) : -1;
	free(text);
	return v;
}

unsigned cpuset_spare_now(unsigned max)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	double psi = psi_now();
	if (psi >= 0 && psi < 10)
		return cpuset_spare(online, 0, max);
	size_t len;
	char *text = file_read("/proc/loadavg", 256, &len);
	long running = text ? cpuset_loadavg_running(text) : -1;
	free(text);
	return cpuset_spare(online, running > 0 ? running - 1 : 0, max);
}
