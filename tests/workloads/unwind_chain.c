/* Known call chains for DWARF unwinding tests; built with -fomit-frame-pointer so that only CFI
 * can unwind it. MS is CPU time (of each thread), so a busy machine gives as many samples.
 *   unwind_chain chain MS    main -> level1 -> level2 -> level3, spinning in level3
 *   unwind_chain qsort MS    main -> qsort (libc) -> cmp, with a slow comparator
 *   unwind_chain threads MS  the chain in main, in a thread (start_thread -> thread_main ->
 *                            level1 ...) and in a forked child process, all at once
 * Every call is followed by work on its result so that no call becomes a tail call. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

__attribute__((noinline)) unsigned long level3(long ms)
{
	struct timespec t0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	unsigned long x = 1;
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
	} while (elapsed_ms(&t0) < ms);
	return x;
}

__attribute__((noinline)) unsigned long level2(long ms)
{
	unsigned long r = level3(ms);
	sink += r;
	return r ^ sink;
}

__attribute__((noinline)) unsigned long level1(long ms)
{
	unsigned long r = level2(ms);
	sink += r;
	return r + sink;
}

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	for (int i = 0; i < 2000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	sink += x;
	unsigned long ua = *(const unsigned long *)a, ub = *(const unsigned long *)b;
	return (ua > ub) - (ua < ub);
}

static void sort_for(long ms)
{
	enum { N = 2000 };
	static unsigned long v[N];
	struct timespec t0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	unsigned long seed = 1;
	do {
		for (int i = 0; i < N; i++)
			v[i] = seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		qsort(v, N, sizeof(v[0]), cmp);
		sink += v[0];
	} while (elapsed_ms(&t0) < ms);
}

__attribute__((noinline)) static void *thread_main(void *arg)
{
	unsigned long r = level1((long)(intptr_t)arg);
	sink += r;
	return (void *)(uintptr_t)(r & 1);
}

static int threads(long ms)
{
	pthread_t t;
	if (pthread_create(&t, NULL, thread_main, (void *)(intptr_t)ms))
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		sink += level1(ms);
		_exit(0);
	}
	sink += level1(ms);
	pthread_join(t, NULL);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid < 0;
}

int main(int argc, char **argv)
{
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 300;
	if (argc > 1 && !strcmp(argv[1], "qsort"))
		sort_for(ms);
	else if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads(ms);
	else
		sink += level1(ms);
	return 0;
}
