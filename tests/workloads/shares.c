/* Known-answer workload: three functions doing the same loop body for 50%, 30% and 20% of the
 * iterations, so each takes that share of CPU time. Each is reached through its own caller
 * (main -> run_X -> work_X) so call graphs have a known shape.
 *   shares [SCALE]   about SCALE * 0.2 s of CPU
 * With SHARES_SPLIT=FILE, the CPU time each work_X took, as measured by the thread's own clock,
 * is written there ("work_a 49.8" per line, percent of the three): on a loaded VM the host's
 * preemptions make the planned 50/30/20 inexact, and a profile should match what was measured. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

#define BODY(n)                                                                        \
	do {                                                                           \
		unsigned long x = 1;                                                   \
		for (unsigned long i = 0; i < (n); i++)                                \
			x = x * 2862933555777941757UL + 3037000493UL;                  \
		sink += x;                                                             \
	} while (0)

__attribute__((noinline, aligned(64))) void work_a(unsigned long n) { BODY(n); }
__attribute__((noinline, aligned(64))) void work_b(unsigned long n) { BODY(n); }
__attribute__((noinline, aligned(64))) void work_c(unsigned long n) { BODY(n); }
__attribute__((noinline)) void run_a(unsigned long n) { work_a(n); sink++; }
__attribute__((noinline)) void run_b(unsigned long n) { work_b(n); sink++; }
__attribute__((noinline)) void run_c(unsigned long n) { work_c(n); sink++; }

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	unsigned long unit = 2000000UL * (scale ? scale : 1);
	double spent[3] = { 0, 0, 0 }, t;
	/* Interleave in slices so every share is spread over the whole run. */
	for (int slice = 0; slice < 100; slice++) {
		t = cpu_now();
		run_a(unit * 5 / 100 * 10 / 10);
		spent[0] += cpu_now() - t, t = cpu_now();
		run_b(unit * 3 / 100);
		spent[1] += cpu_now() - t, t = cpu_now();
		run_c(unit * 2 / 100);
		spent[2] += cpu_now() - t;
	}
	const char *path = getenv("SHARES_SPLIT");
	FILE *f = path ? fopen(path, "w") : NULL;
	double all = spent[0] + spent[1] + spent[2];
	for (int i = 0; f && i < 3 && all > 0; i++)
		fprintf(f, "work_%c %.2f\n", 'a' + i, 100 * spent[i] / all);
	if (f)
		fclose(f);
	return 0;
}
