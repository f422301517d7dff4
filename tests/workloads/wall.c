/* record --wall's known-answer program (t69-wall, docs/record.md): a loop of work_b computing
 * 3 ms and wait_a sleeping 7 ms for $1 seconds (argv[1]); it writes
 * "WAIT_NS WORK_NS", the wall time it spent in each, to $2 (argv[2]). wait_a makes the nanosleep system
 * call itself: glibc's wrapper has no frame pointer, and a frame-pointer stack taken inside it
 * (the kernel's, or the BPF program's) skips its caller; with a third argument it calls glibc's
 * nanosleep (for --call-graph dwarf).
 * x86-64 only (the inline system call). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}
static volatile unsigned long sink;
static long long wait_ns, work_ns;
static int libc;
__attribute__((noinline)) void work_b(long long ns)
{
	long long t0 = now_ns(), t;
	unsigned long x = sink;
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
		t = now_ns();
	} while (t - t0 < ns);
	sink = x;
	work_ns += t - t0;
}
__attribute__((noinline)) void wait_a(long long ns)
{
	long long t0 = now_ns();
	struct timespec ts = { 0, ns };
	long ret;
	if (libc)
		nanosleep(&ts, NULL);
	else
		__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
				 : "rcx", "r11", "memory");
	wait_ns += now_ns() - t0;
}
int main(int argc, char **argv)
{
	long long total = atof(argv[1]) * 1e9, start = now_ns();
	libc = argc > 3;
	while (now_ns() - start < total) {
		work_b(3000000);
		wait_a(7000000);
	}
	FILE *f = fopen(argv[2], "w");
	fprintf(f, "%lld %lld\n", wait_ns, work_ns);
	return fclose(f) != 0;
}
