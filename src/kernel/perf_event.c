#include "kernel/perf_event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events/evlist.h"
#include "util/error.h"
#include "util/fileio.h"

int pe_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	attr->size = sizeof(*attr);
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC);
}

int pe_paranoid(void)
{
	long v;
	if (file_read_int("/proc/sys/kernel/perf_event_paranoid", &v) < 0)
		return 2;
	return (int)v;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set, from /proc/self/status. */
static bool has_perf_caps(void)
{
	if (geteuid() == 0)
		return true;
	char *s = file_read("/proc/self/status", 1 << 16, NULL);
	if (!s)
		return false;
	bool ok = false;
	char *p = strstr(s, "\nCapEff:");
	unsigned long long caps;
	if (p && sscanf(p + 8, "%llx", &caps) == 1)
		ok = (caps >> 38 & 1) || (caps >> 21 & 1);
	free(s);
	return ok;
}

bool pe_kernel_allowed(void)
{
	return has_perf_caps() || pe_paranoid() < 2;
}

bool pe_cpu_wide_allowed(void)
{
	return has_perf_caps() || pe_paranoid() < 1;
}

int pe_explain_error(const struct ev *ev, int e, pid_t pid, int cpu)
{
	const char *name = ev->name;
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->needs_hw && !ev_have_hw_pmu())
			return err_set("cannot open event '%s': this machine exposes no hardware PMU "
				       "(virtual machine?); software events such as 'cpu-clock' still work",
				       name);
		if (ev->source == EV_SRC_TRACEPOINT)
			return err_set("cannot open tracepoint '%s': %s (is tracefs mounted?)", name,
				       strerror(e));
		return err_set("cannot open event '%s': the %s PMU does not support it here (%s)", name,
			       ev->pmu ? ev->pmu : "kernel", strerror(e));
	case EACCES:
	case EPERM: {
		/* Another user's process: its owner is what stops it, whatever the paranoid level. */
		char proc[32];
		struct stat st;
		snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
		if (pid > 0 && geteuid() != 0 && stat(proc, &st) == 0 && st.st_uid != geteuid())
			return err_set("cannot open event '%s' on process %d: it belongs to another user (uid %u); "
				       "profile your own processes, or run as root / with CAP_PERFMON and "
				       "CAP_SYS_PTRACE", name, (int)pid, (unsigned)st.st_uid);
		if (cpu >= 0 && pid == -1)
			return err_set("cannot open event '%s' on CPU %d: CPU-wide counting needs root or "
				       "CAP_PERFMON, or kernel.perf_event_paranoid <= 0 (it is %d)",
				       name, cpu, pe_paranoid());
		if (!ev->attr.exclude_kernel)
			return err_set("cannot open event '%s': kernel-mode counting is not permitted "
				       "(kernel.perf_event_paranoid is %d); count user mode only ('%s:u'), "
				       "or run as root / with CAP_PERFMON", name, pe_paranoid(), ev->base);
		return err_set("cannot open event '%s': permission denied (kernel.perf_event_paranoid "
			       "is %d); run as root or with CAP_PERFMON", name, pe_paranoid());
	}
	case ESRCH:
		return err_set("cannot open event '%s': process %d does not exist", name, (int)pid);
	case EMFILE:
		return err_set("cannot open event '%s': too many open files; raise the limit with "
			       "'ulimit -n' or count fewer events/CPUs", name);
	case EBUSY:
		return err_set("cannot open event '%s': the PMU is busy (another tool holds its "
			       "counters)", name);
	case EINVAL:
		if (ev->needs_hw && !ev_have_hw_pmu())
			return err_set("cannot open event '%s': this machine exposes no hardware PMU "
				       "(virtual machine?); software events such as 'cpu-clock' still work",
				       name);
		return err_set("cannot open event '%s': the kernel rejected its encoding (%s); check "
			       "'lperf stat --dry-run -e %s'", name, ev->encoding ? ev->encoding : "?", name);
	default:
		return err_set("cannot open event '%s': %s", name, strerror(e));
	}
}
