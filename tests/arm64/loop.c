/* Known-answer workload for the Arm suite: a loop whose body is exactly K = 4 instructions
 * (inline asm, so no compiler can change it), run N times, so that with the emulator's -icount
 * the count of instructions:u is 4 * N + c, c being the program's fixed start-up and exit cost.
 *   loop N */
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	unsigned long acc = 0;
	if (n == 0)
		return 0;
	/* add, add, subs, b.ne: four instructions per iteration. */
	__asm__ volatile("1:\n\t"
			 "add %0, %0, #1\n\t"
			 "add %0, %0, #2\n\t"
			 "subs %1, %1, #1\n\t"
			 "b.ne 1b\n\t"
			 : "+r"(acc), "+r"(n)
			 :
			 : "cc");
	return acc == 0;
}
