/* A set of CPU numbers: parsed from "0,3-5" (-C, -c, sysfs cpus and online files) or read from
 * the kernel's list of online CPUs. */
#ifndef LPERF_UTIL_CPUSET_H
#define LPERF_UTIL_CPUSET_H

#include <stdbool.h>
#include <stddef.h>

struct cpuset {
	int *cpu;              /* sorted, no repeats */
	size_t n;
};

/* "0,3-5" (CPUs 0..4095); 0, or -1 with err_set() quoting s. */
int cpuset_parse(const char *s, struct cpuset *set);
void cpuset_free(struct cpuset *set);
/* The CPUs the kernel says are online (/sys/devices/system/cpu/online, under LPERF_SYSFS_ROOT;
 * without it, 0..the configured count - 1). */
int cpuset_online(struct cpuset *set);
bool cpuset_has(const struct cpuset *set, int cpu);
/* Threads worth running now, for work that can use them all: the online CPUs (online) less those
 * the machine's load keeps busy (load: its 1-minute average, rounded down), at least 1, at most
 * max. On a loaded machine another thread only adds handing work over and switching. */
unsigned cpuset_spare(long online, double load, unsigned max);
/* The same for this machine now (without a load figure: all its online CPUs). */
unsigned cpuset_spare_now(unsigned max);

#endif
