/* lperf's version and git revision, and the libraries it is built with (lperf version, wperf
 * --version, lperf test). The only object compiled with LPERF_VERSION/LPERF_GITREV (the Makefile
 * passes them to it alone), so a new HEAD rebuilds one file. */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>
#ifdef LPERF_HAVE_BPF
#include <bpf/libbpf.h>
#endif

#include "sysinfo/buildinfo.h"
#include "sysinfo/sysinfo.h"
#include "util/dynlib.h"

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

/* Each library row names the feature flag it provides; lperf's own row lists them all. libbpf
 * decides whether --python's stacks are exact (BPF) or approximate (process_vm_readv). */
#ifdef LPERF_HAVE_BPF
#define FEATURES "+pfm +dw +capstone +zlib +zstd +bpf"
#else
#define FEATURES "+pfm +dw +capstone +zlib +zstd"
#endif

size_t sysinfo_components(struct sysinfo_component *c)
{
	int maj = 0, min = 0;
	const struct dynlib_pfm *lp = dynlib_pfm();
	const struct dynlib_cs *cs = dynlib_capstone();
	unsigned pfm = lp ? (unsigned)lp->get_version() : 0;
	const char *dw = dwfl_version(NULL);
	size_t n = 0;

	c[n] = (struct sysinfo_component){ "lperf", "", sysinfo_gitrev(), FEATURES };
	snprintf(c[n++].version, sizeof(c->version), "%s", sysinfo_version());
	c[n] = (struct sysinfo_component){ "libpfm4", "", "", "+pfm" };
	if (lp)
		snprintf(c[n].version, sizeof(c->version), "%u.%u", PFM_MAJ_VERSION(pfm), PFM_MIN_VERSION(pfm));
	else /* loaded on first use (util/dynlib.h), and not loadable now */
		snprintf(c[n].version, sizeof(c->version), "missing");
	n++;
	c[n] = (struct sysinfo_component){ "elfutils", "", "", "+dw" };
	snprintf(c[n++].version, sizeof(c->version), "%s", dw ? dw : "unknown");
	if (cs)
		cs->version(&maj, &min);
	c[n] = (struct sysinfo_component){ "capstone", "", "", "+capstone" };
	if (cs)
		snprintf(c[n].version, sizeof(c->version), "%d.%d", maj, min);
	else
		snprintf(c[n].version, sizeof(c->version), "missing");
	n++;
	c[n] = (struct sysinfo_component){ "zlib", "", "", "+zlib" };
	snprintf(c[n++].version, sizeof(c->version), "%s", zlibVersion());
	c[n] = (struct sysinfo_component){ "zstd", "", "", "+zstd" };
	snprintf(c[n++].version, sizeof(c->version), "%s", ZSTD_versionString());
#ifdef LPERF_HAVE_BPF
	c[n] = (struct sysinfo_component){ "libbpf", "", "", "+bpf" };
	snprintf(c[n++].version, sizeof(c->version), "%u.%u", libbpf_major_version(), libbpf_minor_version());
#endif
	return n;
}

/* perf version --build-options: perf 6.1's rows, on where lperf has the same ability (libdw for
 * DWARF and unwinding, libelf, zlib, zstd, libbpf when built with it, libpfm4), then lperf's own
 * libraries. */
size_t sysinfo_build_options(const struct sysinfo_build_option **out)
{
	static const struct sysinfo_build_option opts[] = {
		{ "dwarf", true, "HAVE_DWARF_SUPPORT" },
		{ "dwarf_getlocations", true, "HAVE_DWARF_GETLOCATIONS_SUPPORT" },
		{ "glibc", true, "HAVE_GLIBC_SUPPORT" },
		{ "syscall_table", false, "HAVE_SYSCALL_TABLE_SUPPORT" },
		{ "libbfd", false, "HAVE_LIBBFD_SUPPORT" },
		{ "debuginfod", false, "HAVE_DEBUGINFOD_SUPPORT" },
		{ "libelf", true, "HAVE_LIBELF_SUPPORT" },
		{ "libnuma", false, "HAVE_LIBNUMA_SUPPORT" },
		{ "numa_num_possible_cpus", false, "HAVE_LIBNUMA_SUPPORT" },
		{ "libperl", false, "HAVE_LIBPERL_SUPPORT" },
		{ "libpython", false, "HAVE_LIBPYTHON_SUPPORT" },
		{ "libslang", false, "HAVE_SLANG_SUPPORT" },
		{ "libcrypto", false, "HAVE_LIBCRYPTO_SUPPORT" },
		{ "libunwind", false, "HAVE_LIBUNWIND_SUPPORT" },
		{ "libdw-dwarf-unwind", true, "HAVE_DWARF_SUPPORT" },
		{ "zlib", true, "HAVE_ZLIB_SUPPORT" },
		{ "lzma", false, "HAVE_LZMA_SUPPORT" },
		{ "get_cpuid", true, "HAVE_AUXTRACE_SUPPORT" },
#ifdef LPERF_HAVE_BPF
		{ "bpf", true, "HAVE_LIBBPF_SUPPORT" },
#else
		{ "bpf", false, "HAVE_LIBBPF_SUPPORT" },
#endif
		{ "aio", false, "HAVE_AIO_SUPPORT" },
		{ "zstd", true, "HAVE_ZSTD_SUPPORT" },
		{ "libpfm4", true, "HAVE_LIBPFM" },
		{ "libcapstone", true, "HAVE_LIBCAPSTONE_SUPPORT" },
#ifdef LPERF_HAVE_TRACEEVENT
		{ "libtraceevent", true, "HAVE_LIBTRACEEVENT" },
#else
		{ "libtraceevent", false, "HAVE_LIBTRACEEVENT" },
#endif
	};
	*out = opts;
	return sizeof(opts) / sizeof(opts[0]);
}
