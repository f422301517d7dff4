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
 * other tasks keep busy (busy: how many others are running or waiting to run), at least 1, at
 * most max. On a loaded machine another thread only adds handing work over and switching. */
unsigned cpuset_spare(long online, long busy, unsigned max);
/* The tasks running or waiting to run now in /proc/loadavg's text ("0.52 0.58 0.59 3/712 1234":
 * the first number of the fourth field; the reader counts itself), else -1. */
long cpuset_loadavg_running(const char *text);
/* How much of the last 10 seconds some task waited for a CPU, in percent: the "some avg10="
 * value of /proc/pressure/cpu's text (PSI: "some avg10=0.49 avg60=8.73 avg300=41.52
 * total=8554"), else -1. */
double cpuset_psi_some10(const char *text);
/* cpuset_spare for this machine now. Where the kernel reports CPU pressure and tasks waited for a
 * CPU under 10% of the last 10 seconds, no other work competes: all online CPUs (at most max).
 * Otherwise (or without the file) busy is /proc/loadavg's running tasks less this one. Neither
 * measure alone serves: a minute's load average lags (a machine that ran one job after another,
 * make bench's runs, had a load near 1.5 on 2 CPUs while the second CPU sat idle between jobs),
 * and the count of one instant also counts whoever just started this process (a shell or perf
 * stat on its way to waiting for it), so an idle machine got one thread one time in two. Two
 * reads of small files, about 20 us. */
unsigned cpuset_spare_now(unsigned max);

#endif
