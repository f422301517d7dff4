/* python/pyclock.c: a thread's CPU-time alarm for the paused sampler, and how its signal is told
 * from any other (a socket's SIGURG, kill's). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "python/pyclock.h"

static siginfo_t info(int signo, int code, int fd)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = signo;
	si.si_code = code;
	si.si_fd = fd;
	return si;
}

static void test_is_ours(void **state)
{
	(void)state;
	siginfo_t si = info(PYCLOCK_SIG, POLL_IN, 7);
	assert_true(pyclock_is(&si, 7));
	si = info(PYCLOCK_SIG, POLL_HUP, 7);
	assert_true(pyclock_is(&si, 7));
	si = info(PYCLOCK_SIG, POLL_IN, 8);   /* another fd's */
	assert_false(pyclock_is(&si, 7));
	si = info(PYCLOCK_SIG, SI_KERNEL, 7); /* a socket's out-of-band data */
	assert_false(pyclock_is(&si, 7));
	si = info(PYCLOCK_SIG, SI_USER, 7);   /* kill */
	assert_false(pyclock_is(&si, 7));
	si = info(SIGIO, POLL_IN, 7);
	assert_false(pyclock_is(&si, 7));
	si = info(PYCLOCK_SIG, POLL_IN, -1);  /* no alarm */
	assert_false(pyclock_is(&si, -1));
}

static volatile sig_atomic_t fired, fired_fd, fired_code;

static void on_alarm(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	fired++;
	fired_fd = si->si_fd;
	fired_code = si->si_code;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This thread's own alarm: every 2 ms of its CPU time, its signal with the fd (here handled,
 * where a traced thread stops); 30 ms of CPU give about 15 (at least 5: the kernel's timer may
 * fire in kernel time, left out with perf_event_paranoid 2). */
static void test_alarm_fires(void **state)
{
	(void)state;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_alarm;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(PYCLOCK_SIG, &sa, &old), 0);
	bool user_only = false;
	int fd = pyclock_open((pid_t)syscall(SYS_gettid), 2000000, &user_only);
	if (fd < 0) {
		sigaction(PYCLOCK_SIG, &old, NULL);
		skip(); /* perf_event_paranoid 3, or no perf_event_open here */
	}
	fired = 0;
	uint64_t t0 = thread_cpu_ns();
	volatile uint64_t x = 0;
	while (thread_cpu_ns() - t0 < 30000000ull)
		x++;
	int n = fired;
	assert_int_equal(pyclock_set(fd, 1000000), 0);
	close(fd);
	sigaction(PYCLOCK_SIG, &old, NULL);
	assert_in_range(n, 5, 20);
	assert_int_equal(fired_fd, fd);
	assert_true(fired_code == POLL_IN || fired_code == POLL_HUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_ours),
		cmocka_unit_test(test_alarm_fires),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
