/* What this lperf is: its version ("0.1.0", from the Makefile) and the git revision it was built
 * from ("unknown" outside a git checkout). One source for every place that prints or stores them
 * (lperf version and test, wperf --version, perf.data's VERSION feature, speedscope files). */
#ifndef LPERF_SYSINFO_BUILDINFO_H
#define LPERF_SYSINFO_BUILDINFO_H

const char *sysinfo_version(void);
const char *sysinfo_gitrev(void);

#endif
