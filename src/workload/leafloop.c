/* perf's leafloop workload: leaf() called from parent() called from leafloop(), each a real
 * frame. The Makefile builds this file with -O0 -fno-inline -fno-omit-frame-pointer so that the
 * three stay separate functions with frame records, as in perf; the symbol names are perf's, since
 * test_arm_callgraph_fp.sh looks for "leaf parent leafloop" in the call chains. */
#include <signal.h>
#include <stdlib.h>

#include "workload/workload.h"

static volatile sig_atomic_t leaf_done;
static volatile unsigned leaf_sum; /* unsigned: wraps, where perf's int overflows */

static void leaf_stop(int sig)
{
	(void)sig;
	leaf_done = 1;
}

__attribute__((noinline)) void leaf(volatile int b);
__attribute__((noinline)) void parent(volatile int b);
__attribute__((noinline)) int leafloop(int sec);

__attribute__((noinline)) void leaf(volatile int b)
{
	while (!leaf_done)
		leaf_sum += (unsigned)b;
}

__attribute__((noinline)) void parent(volatile int b)
{
	leaf(b);
}

__attribute__((noinline)) int leafloop(int sec)
{
	signal(SIGINT, leaf_stop);
	signal(SIGALRM, leaf_stop);
	alarm((unsigned)sec);
	parent(sec);
	return 0;
}

int workload_leafloop(int argc, char **argv)
{
	int sec = argc > 0 ? atoi(argv[0]) : 1;
	return leafloop(sec > 0 ? sec : 1);
}
