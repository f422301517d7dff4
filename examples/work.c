/* lperf's demo workload: a few functions with different kinds of work, so counting shows an
 * instruction mix and sampling (later) shows known shares of time.
 *   work [SCALE]   SCALE multiplies the amount of work (default 1)
 * It touches 64 MiB of fresh memory once, so page-fault counts are deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_BYTES (64u << 20)

__attribute__((noinline)) static unsigned long integer_work(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) static double float_work(unsigned long n)
{
	double x = 0.5;
	for (unsigned long i = 0; i < n; i++)
		x = x * 1.0000001 + 0.0000001;
	return x;
}

__attribute__((noinline)) static unsigned long memory_work(unsigned char *buf, size_t len, int passes)
{
	unsigned long sum = 0;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < len; i += 64)
			sum += buf[i]++;
	return sum;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	if (scale < 1)
		scale = 1;
	unsigned char *buf = malloc(MEM_BYTES);
	if (!buf)
		return 1;
	memset(buf, 1, MEM_BYTES); /* one fault per page, every run */
	unsigned long a = integer_work(50000000UL * (unsigned long)scale);
	double b = float_work(20000000UL * (unsigned long)scale);
	unsigned long c = memory_work(buf, MEM_BYTES, 4 * scale);
	printf("work: %lu %.3f %lu\n", a & 0xff, b, c & 0xff);
	free(buf);
	return 0;
}
