#include "python/pyclock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_event(pid_t tid, uint64_t period, bool user_only)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.exclude_hv = 1;
	a.exclude_kernel = user_only;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int pyclock_open(pid_t tid, uint64_t period, bool *user_only)
{
	int fd = open_event(tid, period, *user_only);
	if (fd < 0 && errno == EACCES && !*user_only) {
		fd = open_event(tid, period, true);
		if (fd >= 0)
			*user_only = true;
	}
	if (fd < 0)
		return -1;
	struct f_owner_ex owner = { F_OWNER_TID, tid };
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0 || fcntl(fd, F_SETSIG, PYCLOCK_SIG) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int pyclock_set(int fd, uint64_t period)
{
	return ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
}

bool pyclock_is(const siginfo_t *si, int fd)
{
	/* F_SETSIG's siginfo: the fd and a POLL_ code (a socket's SIGURG is SI_KERNEL, kill's SI_USER) */
	return fd >= 0 && si->si_signo == PYCLOCK_SIG && (si->si_code == POLL_IN || si->si_code == POLL_HUP) &&
	       si->si_fd == fd;
}

int pyclock_stop(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

bool pyclock_queued(pid_t tid, int fd)
{
	/* the thread's own queue (the alarm is sent to the thread): a standard signal is queued once */
	siginfo_t si[8];
	for (int off = 0; off < 64; off += 8) {
		struct __ptrace_peeksiginfo_args a = { .off = (uint64_t)off, .flags = 0, .nr = 8 };
		long n = ptrace(PTRACE_PEEKSIGINFO, tid, &a, si);
		for (long i = 0; i < n; i++)
			if (pyclock_is(&si[i], fd))
				return true;
		if (n < 8)
			return false;
	}
	return false;
}
