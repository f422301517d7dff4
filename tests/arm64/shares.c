/* Known-answer workload for the Arm suite: three functions retire 60%, 30% and 10% of the
 * program's user instructions (each loop body is inline asm, 4 instructions an iteration), each
 * reached through its own caller (main -> run_X -> work_X) so that call graphs have a known
 * shape. Interleaved in slices so that every share spreads over the whole run.
 * A slice is 161,804 instructions (plus a few dozen of calls): 0.618 periods of 100,000, a
 * ratio far from any small fraction, so that samples taken every 100,000 instructions fall at
 * evenly spread points of the slices instead of at the same few (the emulator is deterministic).
 * With 620 slices, 1,000 samples at -c 100000 give each share within 0.35 points (simulated).
 *   shares [SLICES]    (default 620: about 100 million instructions) */
#include <stdlib.h>

static volatile unsigned long sink;

#define BODY(n)                                                                        \
	do {                                                                           \
		unsigned long c = (n), a = 0;                                          \
		__asm__ volatile("1:\n\tadd %0, %0, #1\n\tadd %0, %0, #3\n\t"           \
				 "subs %1, %1, #1\n\tb.ne 1b\n\t"                       \
				 : "+r"(a), "+r"(c) : : "cc");                          \
		sink += a;                                                             \
	} while (0)

__attribute__((noinline)) void work_a(unsigned long n) { BODY(n); }
__attribute__((noinline)) void work_b(unsigned long n) { BODY(n); }
__attribute__((noinline)) void work_c(unsigned long n) { BODY(n); }
__attribute__((noinline)) void run_a(unsigned long n) { work_a(n); sink++; }
__attribute__((noinline)) void run_b(unsigned long n) { work_b(n); sink++; }
__attribute__((noinline)) void run_c(unsigned long n) { work_c(n); sink++; }

int main(int argc, char **argv)
{
	unsigned long slices = argc > 1 ? strtoul(argv[1], NULL, 10) : 620;
	for (unsigned long slice = 0; slice < slices; slice++) {
		run_a(24271);   /* 60% of 40,451 iterations */
		run_b(12135);   /* 30% */
		run_c(4045);    /* 10% */
	}
	return 0;
}
