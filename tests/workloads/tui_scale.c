/* Workload for the browser's scale tests (t79): many entries and deep call chains.
 *   tui_scale writes N       N write(2)s of 1..N bytes to /dev/null: N distinct tracepoint
 *                            entries with report -s trace
 *   tui_scale deep D MS      a recursion D calls deep spinning MS ms of CPU at its bottom */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static long cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

__attribute__((noinline)) static void spin(long ms)
{
	long end = cpu_ms() + ms;
	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
}

/* Work after the call keeps it from being a tail call. */
__attribute__((noinline)) static void rec(int depth, long ms)
{
	if (depth <= 0)
		spin(ms);
	else
		rec(depth - 1, ms);
	sink++;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "writes")) {
		static char buf[65536];
		int n = atoi(argv[2]), fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || n < 1 || n > (int)sizeof(buf))
			return 1;
		for (int i = 1; i <= n; i++)
			if (write(fd, buf, (size_t)i) < 0)
				return 1;
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "deep")) {
		rec(atoi(argv[2]), atol(argv[3]));
		return 0;
	}
	return 2;
}
