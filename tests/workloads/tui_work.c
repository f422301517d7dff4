/* Workload for the interactive tests (t77-t79): three threads with distinct call chains
 * (main -> outer_* -> hot_*), built with frame pointers.
 *   tui_work SECONDS         three threads, each for SECONDS of its own CPU time (a loaded
 *                            machine takes longer, the recording keeps its samples)
 *   tui_work shift SECONDS   one thread whose hot function moves from hot_alpha to hot_beta and
 *                            back every 3 seconds (lperf top's refresh test)
 *   tui_work calls SECONDS   busy_caller for SECONDS of CPU time: work of its own and a call to
 *                            hot_alpha (the annotate view's Enter on a call) */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The calling thread's CPU time. */
static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether the calling thread has less than SECS of CPU time, asked of the clock every 64th call
 * only (*N counts them): the thread CPU clock is a system call, which would put a kernel path in
 * every chain. */
static int below(double secs, unsigned *n)
{
	return (++*n & 63) || cpu() < secs;
}

static volatile unsigned long sink;

__attribute__((noinline)) static void hot_alpha(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i * 3;
}

__attribute__((noinline)) static void hot_beta(void)
{
	for (int i = 0; i < 100000; i++)
		sink ^= (unsigned long)i * 7;
}

__attribute__((noinline)) static void hot_gamma(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i >> 1;
}

__attribute__((noinline)) static void outer_one(double secs)
{
	unsigned n = 0;
	while (below(secs, &n))
		hot_alpha();
}

__attribute__((noinline)) static void outer_two(double secs)
{
	unsigned n = 0;
	while (below(secs, &n)) {
		hot_beta();
		hot_alpha();
	}
}

__attribute__((noinline)) static void outer_three(double secs)
{
	unsigned n = 0;
	while (below(secs, &n))
		hot_gamma();
}

/* Its own loop as hot as the call in it. */
__attribute__((noinline)) static void busy_caller(double secs)
{
	unsigned n = 0;
	while (below(secs, &n)) {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 5;
		hot_alpha();
	}
}

static double cpu_secs;

static void *thread_two(void *arg)
{
	prctl(PR_SET_NAME, "tui-two");
	outer_two(cpu_secs);
	return arg;
}

static void *thread_three(void *arg)
{
	prctl(PR_SET_NAME, "tui-three");
	outer_three(cpu_secs);
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "shift")) {
		double end = now() + atof(argv[2]);
		for (int phase = 0; now() < end; phase++) {
			double stop = now() + 3.0;
			while (now() < stop && now() < end)
				(phase % 2 ? hot_beta : hot_alpha)();
		}
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "calls")) {
		busy_caller(atof(argv[2]));
		return 0;
	}
	cpu_secs = argc > 1 ? atof(argv[1]) : 1.0;
	pthread_t t2, t3;
	pthread_create(&t2, NULL, thread_two, NULL);
	pthread_create(&t3, NULL, thread_three, NULL);
	outer_one(cpu_secs);
	pthread_join(t2, NULL);
	pthread_join(t3, NULL);
	return 0;
}
