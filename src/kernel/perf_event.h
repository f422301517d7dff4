/* perf_event_open(2) and the kernel's perf settings, with errors explained in a user's terms. */
#ifndef LPERF_KERNEL_PERF_EVENT_H
#define LPERF_KERNEL_PERF_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/types.h>

struct ev;

int pe_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags);

/* /proc/sys/kernel/perf_event_paranoid (2 when unreadable: the kernel's default). */
int pe_paranoid(void);
/* True when this process may count kernel mode: root, CAP_PERFMON/CAP_SYS_ADMIN, or paranoid < 2. */
bool pe_kernel_allowed(void);
/* True when CPU-wide (-a, -C) counting is allowed: privileged, or paranoid < 1. */
bool pe_cpu_wide_allowed(void);

/* Records (err_set) why opening `ev` failed with errno `e`, in a user's terms:
 * "cannot open event 'cycles': this machine exposes no hardware PMU (virtual machine?); ..." */
int pe_explain_error(const struct ev *ev, int e, pid_t pid, int cpu);

#endif
