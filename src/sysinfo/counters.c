/* How many hardware counters the core PMU has, measured by opening one group of hardware events
 * (cycles, then instructions) of the calling thread until the kernel refuses the group: Arm's
 * PMUv3 driver publishes its count only in the boot log ("7 counters available"), and a group
 * that cannot fit is refused at open by the driver's validate_group, on Arm as on x86. Nothing
 * is enabled or read. The cycle counter counts: the result is the driver's count. On a machine
 * without a hardware PMU the first event fails and nothing is claimed. */
#include "sysinfo/sysinfo.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROBE_MAX 64

int sysinfo_probe_counters(void)
{
	int fds[PROBE_MAX];
	int n = 0;
	for (; n < PROBE_MAX; n++) {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = n == 0 ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_HW_INSTRUCTIONS;
		/* Only the leader is disabled: the Arm driver leaves disabled siblings out of its
		 * check, and enabled siblings of a disabled leader count nothing either. */
		attr.disabled = n == 0;
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		long fd = syscall(SYS_perf_event_open, &attr, 0, -1, n ? fds[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			break;
		fds[n] = (int)fd;
	}
	int saved = errno;
	for (int i = n - 1; i >= 0; i--)
		close(fds[i]);
	/* Only a refused group (not a refused first event, nor running out of room) gives a count. */
	if (n == 0 || n == PROBE_MAX || (saved != EINVAL && saved != ENOSPC))
		return -1;
	return n;
}
