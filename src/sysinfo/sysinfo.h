/* What this machine offers a profiler: kernel, CPU, perf_event knobs, privileges, PMUs (sysfs
 * and libpfm4), whether a hardware counter really opens, Arm SPE, and the Pythons it could
 * profile. Collected once for `lperf test`; the parsers are exposed for unit tests. */
#ifndef LPERF_SYSINFO_SYSINFO_H
#define LPERF_SYSINFO_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysinfo/python.h"
#include "util/notes.h"

/* The CPU, from /proc/cpuinfo and (Arm) the MIDR_EL1 register as sysfs shows it. */
struct sysinfo_cpu {
	char *model;           /* "AMD EPYC", "Arm Neoverse N1"; NULL when unknown */
	bool have_midr;        /* Arm identification found */
	uint64_t midr;         /* MIDR_EL1 value (composed from cpuinfo fields without sysfs) */
	unsigned implementer;  /* MIDR[31:24], 0x41 = Arm */
	unsigned variant;      /* MIDR[23:20] */
	unsigned part;         /* MIDR[15:4], 0xd0c = Neoverse N1 */
	unsigned revision;     /* MIDR[3:0] */
	const char *vendor;    /* "Arm", "Ampere"...; NULL when the implementer is unknown */
	const char *product;   /* WindowsPerf's product names: "neoverse-n1"; NULL when unknown */
	const char *midr_source; /* "sysfs midr_el1" or "/proc/cpuinfo" */
	bool have_dfr0;        /* ID_AA64DFR0_EL1 read (Arm64, the kernel emulating MRS: HWCAP_CPUID) */
	uint64_t dfr0;         /* its value as the kernel shows it to user space */
};

/* A /proc/sys/kernel value; known is false when the file is missing or unreadable. */
struct sysinfo_knob {
	long value;
	bool known;
};

/* One PMU in <sysfs>/bus/event_source/devices. */
struct sysinfo_pmu {
	char *name;
	long type;             /* perf_event_attr.type; -1 when the type file is missing or bad */
	bool core;             /* serves the CPU's own counters (cpu, cpu_core, armv8_pmuv3_0...) */
	size_t nevents;        /* entries in events/ */
	char **caps;           /* "name=value" for each file in caps/, sorted */
	size_t ncaps;
	char **formats;        /* names of the format/ terms (SPE filters, event fields), sorted */
	size_t nformats;
};

/* One PMU libpfm4 reports present. */
struct sysinfo_pfm_pmu {
	char *name, *desc;
	int num_cntrs;         /* generic counters */
	int num_fixed_cntrs;
	int nevents;
	bool core;             /* PFM_PMU_TYPE_CORE */
};

/* Whether one perf_event_open() of an event on this process worked. */
struct sysinfo_probe {
	bool ok;
	int err;               /* errno when !ok */
};

struct sysinfo {
	char *kernel_release, *kernel_version, *machine;
	struct sysinfo_cpu cpu;
	long cpus_online;      /* -1 when unknown */
	struct sysinfo_knob paranoid, kptr_restrict, mlock_kb, max_sample_rate, max_stack;
	bool root, cap_perfmon, cap_sys_admin;

	struct sysinfo_pmu *pmus;
	size_t npmus;
	const struct sysinfo_pmu *spe; /* an arm_spe_* PMU, or NULL */

	bool pfm_ok;           /* pfm_initialize() succeeded */
	char *pfm_error;
	struct sysinfo_pfm_pmu *pfm;
	size_t npfm;

	struct sysinfo_probe hw_cycles;  /* PERF_TYPE_HARDWARE cycles, user space only */
	struct sysinfo_probe sw_clock;   /* PERF_TYPE_SOFTWARE cpu-clock */

	int gpc_num;           /* general-purpose counters of the core PMU; -1 when unknown */
	char *gpc_source;      /* where gpc_num came from: "libpfm4 amd64_fam19h" */

	char *tracefs;         /* directory holding tracepoint events/, NULL when none */
	char *tracefs_denied;  /* when tracefs is NULL: a tracefs mounted that this user may not read */

	struct pyinfo *py;     /* the Pythons found (SYSINFO_PYTHONS) */
	size_t npy;

	struct notes notes;    /* odd inputs met while collecting: "file: problem" */
};

enum {
	SYSINFO_PYTHONS = 1,   /* also find and interrogate every Python (spawns them) */
};

/* Collects everything; never fails as a whole: what cannot be read is left unknown and odd
 * inputs are described in si->notes. */
void sysinfo_collect(struct sysinfo *si, unsigned flags);
void sysinfo_free(struct sysinfo *si);

/* This machine's CPU: /proc/cpuinfo, then (Arm) <sysfs>/devices/system/cpu/cpu0/regs/
 * identification/midr_el1, which wins over the cpuinfo fields. The one reader of the CPU's
 * identity (lperf test, wperf stat and man). Never fails: what cannot be read stays unknown and
 * odd inputs are added to notes (may be NULL). Free with sysinfo_cpu_free. */
void sysinfo_read_cpu(struct sysinfo_cpu *cpu, struct notes *notes);
/* Parses /proc/cpuinfo text into cpu (model, and the Arm CPU implementer/variant/part/revision
 * fields); the first processor's values win. 0, or -1 with err_set() naming a bad field (what
 * could be parsed is kept). */
int sysinfo_parse_cpuinfo(const char *text, struct sysinfo_cpu *cpu);
/* Fills the MIDR fields, vendor and product of cpu from a MIDR_EL1 value. */
void sysinfo_midr_decode(uint64_t midr, struct sysinfo_cpu *cpu);
/* "neoverse-n1" for (0x41, 0xd0c); NULL for parts we do not know. */
const char *sysinfo_arm_part_name(unsigned implementer, unsigned part);
/* Whether name is the product name of a part we know ("neoverse-v3"). */
bool sysinfo_arm_product_known(const char *name);
/* "Arm" for 0x41; NULL for implementers we do not know. */
const char *sysinfo_arm_implementer_name(unsigned implementer);
void sysinfo_cpu_free(struct sysinfo_cpu *cpu);

/* Plain-language reason why an event failed to open with errno err, for this machine. */
const char *sysinfo_open_reason(const struct sysinfo *si, int err);
/* What perf_event_paranoid = value means, in a few words. */
const char *sysinfo_paranoid_meaning(long value);
/* The sysfs PMU called name, or NULL. */
/* The core PMU's counters, measured by opening ever larger groups of hardware events
 * (counters.c); -1 when hardware events do not open. */
int sysinfo_probe_counters(void);

const struct sysinfo_pmu *sysinfo_find_pmu(const struct sysinfo *si, const char *name);

/* lperf and the libraries built in (version.c): lperf's row first. Fills at most
 * SYSINFO_MAX_COMPONENTS entries; returns how many. */
#define SYSINFO_MAX_COMPONENTS 8
struct sysinfo_component {
	const char *name;
	char version[32];
	const char *gitver;
	const char *features;
};
size_t sysinfo_components(struct sysinfo_component *c);
/* perf version --build-options: perf's feature rows with lperf's answer for each (static). */
struct sysinfo_build_option {
	const char *name;
	bool on;
	const char *macro;
};
size_t sysinfo_build_options(const struct sysinfo_build_option **out);

#endif
