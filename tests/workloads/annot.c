/* Known-answer workload for annotate and source lines: a hot loop over several source lines, a
 * static function the compiler inlines into its caller, and calls into libc.
 *   annot [SCALE]   about SCALE * 0.3 s of CPU */
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static inline unsigned long mix(unsigned long x, unsigned long i)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15UL;
	return x + i;
}

__attribute__((noinline)) unsigned long hot_loop(unsigned long n)
{
	unsigned long x = 1, y = 7;
	for (unsigned long i = 0; i < n; i++) {
		x = mix(x, i);
		if (x & 1)
			y += x >> 3;
		else
			y ^= x << 1;
	}
	return x + y;
}

static int cmp(const void *a, const void *b)
{
	unsigned a1 = *(const unsigned *)a, b1 = *(const unsigned *)b;
	return a1 < b1 ? -1 : a1 > b1;
}

__attribute__((noinline)) unsigned long sort_work(unsigned n)
{
	unsigned *v = malloc(n * sizeof(*v));
	if (!v)
		return 0;
	for (unsigned i = 0; i < n; i++)
		v[i] = (unsigned)mix(i, i);
	qsort(v, n, sizeof(*v), cmp);
	unsigned long r = v[n / 2];
	free(v);
	return r;
}

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	for (unsigned long k = 0; k < (scale ? scale : 1); k++) {
		sink += hot_loop(60000000UL);
		sink += sort_work(400000);
	}
	return 0;
}
