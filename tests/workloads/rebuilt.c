/* The rebuilt-binary workload (tests/e2e/t86-rebuilt.sh): built once as is and once with
 * -DREBUILT, which renames every function and puts other code where the first build's hot
 * functions were, so that a recording of the first build resolved against the second names
 * other functions at the sampled addresses. Argument: the loop count (default 20000000). */
#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;

#ifdef REBUILT
#define rb_alpha rebuilt_alpha
#define rb_beta rebuilt_beta
#define rb_outer rebuilt_outer
__attribute__((noinline)) uint64_t rebuilt_pad(uint64_t n)
{
	uint64_t s = 3;
	for (uint64_t i = 0; i < n; i++)
		s = (s ^ (i << 7)) * 0x9e3779b97f4a7c15ull + (s >> 11) + (i * i) / (i | 1);
	return s;
}
#endif

__attribute__((noinline)) uint64_t rb_alpha(uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += i * 7 ^ (s >> 3);
	return s;
}

__attribute__((noinline)) uint64_t rb_beta(uint64_t n)
{
	uint64_t s = 1;
	for (uint64_t i = 0; i < n; i++)
		s = s * 31 + i;
	return s;
}

__attribute__((noinline)) void rb_outer(uint64_t n)
{
	sink += rb_alpha(n);
	sink += rb_beta(n);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
#ifdef REBUILT
	sink += rebuilt_pad(n);
#endif
	for (int k = 0; k < 2; k++)
		rb_outer(n);
	return 0;
}
