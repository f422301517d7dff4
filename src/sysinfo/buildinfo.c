/* lperf's version and git revision, and the libraries it is built with (lperf version, wperf
 * --version, lperf test). The only object compiled with LPERF_VERSION/LPERF_GITREV (the Makefile
 * passes them to it alone), so a new HEAD rebuilds one file. */
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <zlib.h>

#include "sysinfo/buildinfo.h"
#include "sysinfo/sysinfo.h"

#ifndef LPERF_VERSION
#define LPERF_VERSION "unknown"
#endif
#ifndef LPERF_GITREV
#define LPERF_GITREV "unknown"
#endif

const char *sysinfo_version(void)
{
	return LPERF_VERSION;
}

const char *sysinfo_gitrev(void)
{
	return LPERF_GITREV;
}

/* Each library row names the feature flag it provides; lperf's own row lists them all. */
#define FEATURES "+pfm +dw +capstone +zlib"

size_t sysinfo_components(struct sysinfo_component *c)
{
	int maj = 0, min = 0;
	unsigned pfm = (unsigned)pfm_get_version();
	const char *dw = dwfl_version(NULL);
	size_t n = 0;

	c[n] = (struct sysinfo_component){ "lperf", "", sysinfo_gitrev(), FEATURES };
	snprintf(c[n++].version, sizeof(c->version), "%s", sysinfo_version());
	c[n] = (struct sysinfo_component){ "libpfm4", "", "", "+pfm" };
	snprintf(c[n++].version, sizeof(c->version), "%u.%u", PFM_MAJ_VERSION(pfm),
		 PFM_MIN_VERSION(pfm));
	c[n] = (struct sysinfo_component){ "elfutils", "", "", "+dw" };
	snprintf(c[n++].version, sizeof(c->version), "%s", dw ? dw : "unknown");
	cs_version(&maj, &min);
	c[n] = (struct sysinfo_component){ "capstone", "", "", "+capstone" };
	snprintf(c[n++].version, sizeof(c->version), "%d.%d", maj, min);
	c[n] = (struct sysinfo_component){ "zlib", "", "", "+zlib" };
	snprintf(c[n++].version, sizeof(c->version), "%s", zlibVersion());
	return n;
}
