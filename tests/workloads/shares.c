/* Known-answer workload: three functions doing the same loop body for 50%, 30% and 20% of the
 * iterations, so each takes that share of CPU time. Each is reached through its own caller
 * (main -> run_X -> work_X) so call graphs have a known shape.
 *   shares [SCALE]   about SCALE * 0.2 s of CPU */
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	unsigned long unit = 2000000UL * (scale ? scale : 1);
	/* Interleave in slices so every share is spread over the whole run. */
	for (int slice = 0; slice < 100; slice++) {
		run_a(unit * 5 / 100 * 10 / 10);
		run_b(unit * 3 / 100);
		run_c(unit * 2 / 100);
	}
	return 0;
}
