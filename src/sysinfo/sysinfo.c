#include "sysinfo/sysinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#include <unistd.h>

#include "util/cpuset.h"
#include "util/dynlib.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* Bounds for hostile or broken sysfs trees: nothing real comes close. */
#define MAX_PMUS 4096
#define MAX_CAPS 256
#define MAX_VALUE 256

/* ---- Arm CPU identification (MIDR_EL1) ---- */

struct arm_part {
	unsigned implementer, part;
	const char *product; /* WindowsPerf / Arm Telemetry Solution spelling */
	const char *pretty;
};

static const struct arm_part arm_parts[] = {
	{ 0x41, 0xd03, "cortex-a53", "Cortex-A53" },
	{ 0x41, 0xd04, "cortex-a35", "Cortex-A35" },
	{ 0x41, 0xd05, "cortex-a55", "Cortex-A55" },
	{ 0x41, 0xd07, "cortex-a57", "Cortex-A57" },
	{ 0x41, 0xd08, "cortex-a72", "Cortex-A72" },
	{ 0x41, 0xd09, "cortex-a73", "Cortex-A73" },
	{ 0x41, 0xd0a, "cortex-a75", "Cortex-A75" },
	{ 0x41, 0xd0b, "cortex-a76", "Cortex-A76" },
	{ 0x41, 0xd0c, "neoverse-n1", "Neoverse N1" },
	{ 0x41, 0xd0d, "cortex-a77", "Cortex-A77" },
	{ 0x41, 0xd40, "neoverse-v1", "Neoverse V1" },
	{ 0x41, 0xd41, "cortex-a78", "Cortex-A78" },
	{ 0x41, 0xd44, "cortex-x1", "Cortex-X1" },
	{ 0x41, 0xd46, "cortex-a510", "Cortex-A510" },
	{ 0x41, 0xd47, "cortex-a710", "Cortex-A710" },
	{ 0x41, 0xd48, "cortex-x2", "Cortex-X2" },
	{ 0x41, 0xd49, "neoverse-n2", "Neoverse N2" },
	{ 0x41, 0xd4a, "neoverse-e1", "Neoverse E1" },
	{ 0x41, 0xd4b, "cortex-a78c", "Cortex-A78C" },
	{ 0x41, 0xd4d, "cortex-a715", "Cortex-A715" },
	{ 0x41, 0xd4e, "cortex-x3", "Cortex-X3" },
	{ 0x41, 0xd4f, "neoverse-v2", "Neoverse V2" },
	{ 0x41, 0xd80, "cortex-a520", "Cortex-A520" },
	{ 0x41, 0xd81, "cortex-a720", "Cortex-A720" },
	{ 0x41, 0xd82, "cortex-x4", "Cortex-X4" },
	{ 0x41, 0xd84, "neoverse-v3", "Neoverse V3" },
	{ 0x41, 0xd8e, "neoverse-n3", "Neoverse N3" },
	{ 0x43, 0x0af, "thunderx2", "ThunderX2" },
	{ 0x46, 0x001, "a64fx", "A64FX" },
	{ 0x48, 0xd01, "tsv110", "TaiShan v110 (Kunpeng 920)" },
	{ 0x4e, 0x004, "carmel", "Carmel" },
	{ 0xc0, 0xac3, "ampere1", "AmpereOne" },
	{ 0xc0, 0xac4, "ampere1a", "AmpereOne A" },
	{ 0xc0, 0xac5, "ampere1b", "AmpereOne B" },
};

static const struct { unsigned id; const char *name; } arm_implementers[] = {
	{ 0x41, "Arm" },      { 0x42, "Broadcom" }, { 0x43, "Cavium" },   { 0x46, "Fujitsu" },
	{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },  { 0x50, "APM" },      { 0x51, "Qualcomm" },
	{ 0x61, "Apple" },    { 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

static const struct arm_part *find_part(unsigned implementer, unsigned part)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_parts); i++)
		if (arm_parts[i].implementer == implementer && arm_parts[i].part == part)
			return &arm_parts[i];
	return NULL;
}

const char *sysinfo_arm_part_name(unsigned implementer, unsigned part)
{
	const struct arm_part *p = find_part(implementer, part);
	return p ? p->product : NULL;
}

bool sysinfo_arm_product_known(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_parts); i++)
		if (!strcmp(arm_parts[i].product, name))
			return true;
	return false;
}

const char *sysinfo_arm_implementer_name(unsigned implementer)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_implementers); i++)
		if (arm_implementers[i].id == implementer)
			return arm_implementers[i].name;
	return NULL;
}

void sysinfo_midr_decode(uint64_t midr, struct sysinfo_cpu *cpu)
{
	cpu->have_midr = true;
	cpu->midr = midr;
	cpu->implementer = (unsigned)(midr >> 24) & 0xff;
	cpu->variant = (unsigned)(midr >> 20) & 0xf;
	cpu->part = (unsigned)(midr >> 4) & 0xfff;
	cpu->revision = (unsigned)midr & 0xf;
	cpu->vendor = sysinfo_arm_implementer_name(cpu->implementer);
	cpu->product = sysinfo_arm_part_name(cpu->implementer, cpu->part);
}

/* "Arm Neoverse N1", or the raw numbers for parts we do not know. */
static char *arm_model(const struct sysinfo_cpu *cpu)
{
	const struct arm_part *p = find_part(cpu->implementer, cpu->part);
	if (p)
		return xasprintf("%s %s", cpu->vendor ? cpu->vendor : "", p->pretty);
	if (cpu->vendor)
		return xasprintf("%s part 0x%03x", cpu->vendor, cpu->part);
	return xasprintf("implementer 0x%02x part 0x%03x", cpu->implementer, cpu->part);
}

/* ---- /proc/cpuinfo ---- */

static char *clean(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n > MAX_VALUE)
		n = MAX_VALUE;
	char *r = xstrndup(s, n);
	for (char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return r;
}

static int cpuinfo_number(const char *key, const char *val, unsigned max, unsigned *out,
			  bool *seen)
{
	uint64_t v;
	if (*seen)
		return 0;
	if (parse_u64(val, &v) < 0 || v > max)
		return err_set("/proc/cpuinfo: field '%s': '%s' is not a number up to 0x%x", key, val,
			       max);
	*out = (unsigned)v;
	*seen = true;
	return 0;
}

int sysinfo_parse_cpuinfo(const char *text, struct sysinfo_cpu *cpu)
{
	bool seen_impl = false, seen_part = false, seen_var = false, seen_rev = false;
	int ret = 0;
	const char *p = text;
	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *colon = memchr(p, ':', len);
		if (colon) {
			char *key = clean(p, (size_t)(colon - p));
			char *val = clean(colon + 1, len - (size_t)(colon - p) - 1);
			int r = 0;
			if (!strcmp(key, "model name") && !cpu->model && val[0])
				cpu->model = xstrdup(val);
			else if (!strcmp(key, "CPU implementer"))
				r = cpuinfo_number(key, val, 0xff, &cpu->implementer, &seen_impl);
			else if (!strcmp(key, "CPU part"))
				r = cpuinfo_number(key, val, 0xfff, &cpu->part, &seen_part);
			else if (!strcmp(key, "CPU variant"))
				r = cpuinfo_number(key, val, 0xf, &cpu->variant, &seen_var);
			else if (!strcmp(key, "CPU revision"))
				r = cpuinfo_number(key, val, 0xf, &cpu->revision, &seen_rev);
			if (r < 0)
				ret = -1;
			free(key);
			free(val);
		}
		p += len;
		if (*p)
			p++;
	}
	if (seen_impl && seen_part) {
		/* Architecture field 0xf: "defined by CPUID scheme", as on every ARMv8 core. */
		uint64_t midr = (uint64_t)cpu->implementer << 24 | (uint64_t)cpu->variant << 20 |
				0xfULL << 16 | (uint64_t)cpu->part << 4 | cpu->revision;
		sysinfo_midr_decode(midr, cpu);
		cpu->midr_source = "/proc/cpuinfo";
	}
	return ret;
}

void sysinfo_cpu_free(struct sysinfo_cpu *cpu)
{
	free(cpu->model);
	memset(cpu, 0, sizeof(*cpu));
}

/* ---- collection ---- */

static void note(struct sysinfo *si, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct sysinfo *si, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	notes_add(&si->notes, "%s", buf);
}

static void collect_uname(struct sysinfo *si)
{
	struct utsname u;
	if (uname(&u) < 0) {
		note(si, "uname: %s", strerror(errno));
		return;
	}
	si->kernel_release = clean(u.release, strlen(u.release));
	si->kernel_version = clean(u.version, strlen(u.version));
	si->machine = clean(u.machine, strlen(u.machine));
}

void sysinfo_read_cpu(struct sysinfo_cpu *cpu, struct notes *notes)
{
	memset(cpu, 0, sizeof(*cpu));
	/* The first processor's block is all we read; big machines have megabytes of cpuinfo. */
	char *text = file_read("/proc/cpuinfo", 256 * 1024, NULL);
	if ((!text || sysinfo_parse_cpuinfo(text, cpu) < 0) && notes)
		notes_add(notes, "%s", err_msg());
	free(text);

	char *path = xasprintf("%s/devices/system/cpu/cpu0/regs/identification/midr_el1",
			       sysfs_root());
	uint64_t midr;
	if (access(path, F_OK) == 0) {
		if (file_read_u64(path, &midr) < 0 || midr > 0xffffffffULL) {
			if (notes)
				notes_add(notes, "%s: not a 32-bit MIDR_EL1 value", path);
		} else {
			sysinfo_midr_decode(midr, cpu);
			cpu->midr_source = "sysfs midr_el1";
		}
	}
	free(path);
	if (!cpu->model && cpu->have_midr)
		cpu->model = arm_model(cpu);
#if defined(__aarch64__) && defined(HWCAP_CPUID)
	/* The kernel emulates reads of the ID registers where it sets HWCAP_CPUID (sanitised:
	 * fields it does not expose read as 0). Not under a fixture: it describes this CPU. */
	if ((getauxval(AT_HWCAP) & HWCAP_CPUID) && !strcmp(sysfs_root(), "/sys")) {
		uint64_t v;
		__asm__ volatile("mrs %0, ID_AA64DFR0_EL1" : "=r"(v));
		cpu->dfr0 = v;
		cpu->have_dfr0 = true;
	}
#endif
}

static void collect_cpu(struct sysinfo *si)
{
	sysinfo_read_cpu(&si->cpu, &si->notes);

	struct cpuset online;
	if (cpuset_online(&online) == 0) {
		si->cpus_online = (long)online.n;
		cpuset_free(&online);
	} else {
		note(si, "online CPUs: %s", err_msg());
		si->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	}
}

static void knob(struct sysinfo *si, const char *name, struct sysinfo_knob *k)
{
	char *path = xasprintf("/proc/sys/kernel/%s", name);
	k->known = file_read_int(path, &k->value) == 0;
	if (!k->known && access(path, F_OK) == 0)
		note(si, "%s", err_msg());
	free(path);
}

static void collect_privileges(struct sysinfo *si)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	si->root = geteuid() == 0;
	if (syscall(SYS_capget, &hdr, data) == 0) {
		si->cap_perfmon = data[CAP_PERFMON / 32].effective & (1u << (CAP_PERFMON % 32));
		si->cap_sys_admin = data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32));
	} else {
		note(si, "capget: %s", strerror(errno));
	}
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Sorted entry names of dir (no dot files), at most max, cleaned for display; NULL when absent. */
static char **dir_names(const char *dir, size_t max, size_t *n)
{
	char **names = dir_list(dir, NULL, max, NULL, n);
	for (size_t i = 0; i < *n; i++) {
		char *c = clean(names[i], strlen(names[i]));
		free(names[i]);
		names[i] = c;
	}
	return names;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static bool core_pmu_name(const char *name)
{
	static const char *const exact[] = { "cpu", "cpu_core", "cpu_atom", "riscv_pmu",
					     "cpum_cf" };
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (!strcmp(name, exact[i]))
			return true;
	return !strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6);
}

static void read_pmu(struct sysinfo *si, const char *dir, const char *name,
		     struct sysinfo_pmu *pmu)
{
	memset(pmu, 0, sizeof(*pmu));
	pmu->name = xstrdup(name);
	pmu->type = -1;
	char *path = xasprintf("%s/type", dir);
	long type;
	if (file_read_int(path, &type) < 0)
		note(si, "PMU '%s' has no usable type: %s", name, err_msg());
	else if (type < 0 || type > 0xffffffffL)
		note(si, "%s: PMU type %ld is out of range", path, type);
	else
		pmu->type = type;
	free(path);

	/* Hybrid x86 and big.LITTLE Arm core PMUs list their CPUs in "cpus"; SPE does not count. */
	path = xasprintf("%s/cpus", dir);
	pmu->core = core_pmu_name(name) ||
		    (access(path, F_OK) == 0 && strncmp(name, "arm_spe", 7) != 0);
	free(path);

	size_t n;
	path = xasprintf("%s/events", dir);
	char **ev = dir_names(path, 1u << 20, &n);
	for (size_t i = 0; i < n; i++)
		if (!has_suffix(ev[i], ".scale") && !has_suffix(ev[i], ".unit") &&
		    !has_suffix(ev[i], ".per-pkg") && !has_suffix(ev[i], ".snapshot"))
			pmu->nevents++;
	strv_free(ev, n);
	free(path);

	path = xasprintf("%s/format", dir);
	pmu->formats = dir_names(path, MAX_CAPS, &pmu->nformats);
	free(path);

	path = xasprintf("%s/caps", dir);
	char **caps = dir_names(path, MAX_CAPS, &n);
	if (n)
		pmu->caps = xcalloc(n, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		char *f = xasprintf("%s/%s", path, caps[i]);
		char *v = file_read(f, 4096, NULL);
		char *cv = v ? clean(v, strcspn(v, "\n")) : xstrdup("?");
		pmu->caps[pmu->ncaps++] = xasprintf("%s=%s", caps[i], cv);
		free(cv);
		free(v);
		free(f);
	}
	strv_free(caps, n);
	free(path);
}

static void collect_pmus(struct sysinfo *si)
{
	char *dir = xasprintf("%s/bus/event_source/devices", sysfs_root());
	size_t n;
	char **names = dir_names(dir, MAX_PMUS, &n);
	if (!names && !is_dir(dir))
		note(si, "%s: missing; the kernel exposes no PMUs (or sysfs is not mounted)", dir);
	si->pmus = n ? xcalloc(n, sizeof(*si->pmus)) : NULL;
	for (size_t i = 0; i < n; i++) {
		char *pdir = xasprintf("%s/%s", dir, names[i]);
		if (is_dir(pdir))
			read_pmu(si, pdir, names[i], &si->pmus[si->npmus++]);
		free(pdir);
	}
	strv_free(names, n);
	free(dir);
	for (size_t i = 0; i < si->npmus; i++)
		if (!strncmp(si->pmus[i].name, "arm_spe_", 8)) {
			si->spe = &si->pmus[i];
			break;
		}
}

static void collect_pfm(struct sysinfo *si)
{
	const struct dynlib_pfm *lp = dynlib_pfm();
	if (!lp) {
		si->pfm_error = xstrdup(err_msg());
		return;
	}
	int r = lp->initialize();
	if (r != PFM_SUCCESS) {
		si->pfm_error = xstrdup(lp->strerror(r));
		return;
	}
	si->pfm_ok = true;
	size_t cap = 0;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (lp->get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		ALLOC_GROW(si->pfm, si->npfm + 1, cap);
		struct sysinfo_pfm_pmu *m = &si->pfm[si->npfm++];
		m->name = info.name ? clean(info.name, strlen(info.name)) : xstrdup("?");
		m->desc = info.desc ? clean(info.desc, strlen(info.desc)) : xstrdup("");
		m->num_cntrs = info.num_cntrs;
		m->num_fixed_cntrs = info.num_fixed_cntrs;
		m->nevents = info.nevents;
		m->core = info.type == PFM_PMU_TYPE_CORE;
	}
}

static struct sysinfo_probe probe(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	struct sysinfo_probe pr = { false, 0 };
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	/* User space only, so the answer is about the PMU and not about perf_event_paranoid. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		pr.err = errno;
		return pr;
	}
	close((int)fd);
	pr.ok = true;
	return pr;
}

static void collect_gpc(struct sysinfo *si)
{
	si->gpc_num = -1;
	for (size_t i = 0; i < si->npfm; i++)
		if (si->pfm[i].core && si->pfm[i].num_cntrs > 0) {
			si->gpc_num = si->pfm[i].num_cntrs;
			si->gpc_source = xasprintf("libpfm4 %s", si->pfm[i].name);
			return;
		}
	/* Some kernels' core PMUs publish their counter count among caps/. */
	static const char *const keys[] = { "num_counters=", "counters=" };
	for (size_t i = 0; i < si->npmus; i++) {
		const struct sysinfo_pmu *pmu = &si->pmus[i];
		for (size_t c = 0; pmu->core && c < pmu->ncaps; c++)
			for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
				size_t kl = strlen(keys[k]);
				uint64_t v;
				if (!strncmp(pmu->caps[c], keys[k], kl) &&
				    parse_u64(pmu->caps[c] + kl, &v) == 0 && v < 1024) {
					si->gpc_num = (int)v;
					si->gpc_source = xasprintf("sysfs %s/caps/%.*s", pmu->name,
								   (int)(kl - 1), keys[k]);
					return;
				}
			}
	}
	/* Arm's PMUv3 publishes no count: measure it (only on the live system, not a fixture). */
	int n = strcmp(sysfs_root(), "/sys") ? -1 : sysinfo_probe_counters();
	if (n > 0) {
		si->gpc_num = n;
		si->gpc_source = xstrdup("perf_event_open: the largest group of hardware events");
	}
}

static void collect_tracefs(struct sysinfo *si)
{
	static const char *const rel[] = { "kernel/tracing", "kernel/debug/tracing" };
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		char *p = xasprintf("%s/%s/events", sysfs_root(), rel[i]);
		if (is_dir(p)) {
			p[strlen(p) - strlen("/events")] = 0;
			si->tracefs = p;
			return;
		}
		free(p);
	}
	const char *denied = tracefs_denied();
	si->tracefs_denied = denied ? xstrdup(denied) : NULL;
}

void sysinfo_collect(struct sysinfo *si, unsigned flags)
{
	memset(si, 0, sizeof(*si));
	si->cpus_online = -1;
	collect_uname(si);
	collect_cpu(si);
	knob(si, "perf_event_paranoid", &si->paranoid);
	knob(si, "kptr_restrict", &si->kptr_restrict);
	knob(si, "perf_event_mlock_kb", &si->mlock_kb);
	knob(si, "perf_event_max_sample_rate", &si->max_sample_rate);
	knob(si, "perf_event_max_stack", &si->max_stack);
	collect_privileges(si);
	collect_pmus(si);
	collect_pfm(si);
	si->hw_cycles = probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	si->sw_clock = probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	collect_gpc(si);
	collect_tracefs(si);
	if (flags & SYSINFO_PYTHONS)
		si->npy = pyinfo_find(&si->py);
}

void sysinfo_free(struct sysinfo *si)
{
	free(si->kernel_release);
	free(si->kernel_version);
	free(si->machine);
	sysinfo_cpu_free(&si->cpu);
	for (size_t i = 0; i < si->npmus; i++) {
		free(si->pmus[i].name);
		strv_free(si->pmus[i].caps, si->pmus[i].ncaps);
		strv_free(si->pmus[i].formats, si->pmus[i].nformats);
	}
	free(si->pmus);
	free(si->pfm_error);
	for (size_t i = 0; i < si->npfm; i++) {
		free(si->pfm[i].name);
		free(si->pfm[i].desc);
	}
	free(si->pfm);
	free(si->gpc_source);
	free(si->tracefs);
	free(si->tracefs_denied);
	pyinfo_free_all(si->py, si->npy);
	notes_clear(&si->notes);
	memset(si, 0, sizeof(*si));
}

/* ---- interpretation ---- */

const struct sysinfo_pmu *sysinfo_find_pmu(const struct sysinfo *si, const char *name)
{
	for (size_t i = 0; i < si->npmus; i++)
		if (!strcmp(si->pmus[i].name, name))
			return &si->pmus[i];
	return NULL;
}

static bool have_core_pmu(const struct sysinfo *si)
{
	for (size_t i = 0; i < si->npmus; i++)
		if (si->pmus[i].core)
			return true;
	return false;
}

const char *sysinfo_open_reason(const struct sysinfo *si, int err)
{
	static _Thread_local char buf[256];
	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (!have_core_pmu(si))
			return "no hardware PMU exposed (virtual machine?)";
		return "the PMU does not support this event";
	case EACCES:
	case EPERM:
		if (si->paranoid.known) {
			snprintf(buf, sizeof(buf), "permission denied (perf_event_paranoid is %ld); "
				 "run as root or grant CAP_PERFMON", si->paranoid.value);
			return buf;
		}
		return "permission denied; run as root or grant CAP_PERFMON";
	case EBUSY:
		return "the counters are in use (another profiler or the NMI watchdog)";
	case EMFILE:
		return "too many open files (raise ulimit -n)";
	case EINVAL:
		return "the kernel rejected the event's attributes";
	case E2BIG:
		return "the kernel is older than this perf_event_attr layout";
	case ENOSYS:
		return "perf_event_open is unavailable (kernel without CONFIG_PERF_EVENTS, or seccomp)";
	default:
		snprintf(buf, sizeof(buf), "%s", strerror(err));
		return buf;
	}
}

const char *sysinfo_paranoid_meaning(long v)
{
	if (v <= -1)
		return "no restrictions";
	switch (v) {
	case 0:
		return "unprivileged users: no raw tracepoint access";
	case 1:
		return "unprivileged users: no CPU-wide events";
	case 2:
		return "unprivileged users: own user-space code only";
	default:
		return "unprivileged users: no perf events at all";
	}
}
