/* Workload for the Arm suite's symbol tests: time spent in the vDSO and in PLT stubs.
 *   calls vdso N    N calls of clock_gettime (the vDSO's __kernel_clock_gettime)
 *   calls plt N     N calls of strlen through the PLT (strlen@plt), dynamically linked */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile size_t sink;

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000;
	const char *s = argc > 3 ? argv[3] : "x";
	if (argc > 1 && !strcmp(argv[1], "vdso")) {
		struct timespec ts;
		for (unsigned long i = 0; i < n; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += (size_t)ts.tv_nsec;
		}
	} else {
		size_t (*volatile len)(const char *) = strlen;
		(void)len;
		for (unsigned long i = 0; i < n; i++)
			sink += strlen(s + (i & 0));
	}
	return 0;
}
