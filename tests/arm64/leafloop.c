/* The call shape perf's test_arm_callgraph_fp.sh checks, as a program of lperf's own: leaf()
 * keeps no frame record (GCC's aarch64 default for leaf functions), so a frame-pointer chain
 * sampled in it lacks parent() unless the link register supplies it. Built -O0 -fno-inline
 * -fno-omit-frame-pointer (no tail calls, frame records everywhere else). */
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) long leaf(long b)
{
	return b + sink;
}

__attribute__((noinline)) long parent(long b)
{
	long r = leaf(b);
	return r + 1;
}

__attribute__((noinline)) void leafloop(long n)
{
	for (long i = 0; i < n; i++)
		sink = parent(i);
}

int main(int argc, char **argv)
{
	leafloop(argc > 1 ? atol(argv[1]) : 20000000);
	return 0;
}
