/* perf's built-in workloads (see workload.h). */
#include "workload/workload.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t wl_done;

static void wl_stop(int sig)
{
	(void)sig;
	wl_done = 1;
}

static int seconds(int argc, char **argv)
{
	int sec = argc > 0 ? atoi(argv[0]) : 1;
	return sec > 0 ? sec : 1;
}

static void arm(int sec)
{
	signal(SIGINT, wl_stop);
	signal(SIGALRM, wl_stop);
	alarm((unsigned)sec);
}

static int noploop(int argc, char **argv)
{
	arm(seconds(argc, argv));
	while (!wl_done)
		continue;
	return 0;
}

__attribute__((noinline)) static void test_loop(void)
{
	while (!wl_done)
		continue;
}

static void *thfunc(void *arg)
{
	(void)arg;
	test_loop();
	return NULL;
}

static int thloop(int argc, char **argv)
{
	pthread_t th;
	arm(seconds(argc, argv));
	if (pthread_create(&th, NULL, thfunc, NULL) != 0)
		return 1;
	test_loop();
	pthread_join(th, NULL);
	return 0;
}

static int sqrt_loop(int sec)
{
	arm(sec);
	volatile double sink = 0;
	while (!wl_done)
		sink += sqrt((double)rand());
	return sink < 0; /* sink read: clang's -Wunused-but-set-variable (make fuzz) */
}

static int sqrtloop(int argc, char **argv)
{
	int sec = seconds(argc, argv);
	pid_t pid = fork();
	if (pid == 0)
		_exit(sqrt_loop(sec));
	if (pid < 0)
		return 1;
	int r = sqrt_loop(sec);
	waitpid(pid, NULL, 0);
	return r;
}

static volatile int brstack_cnt;

__attribute__((noinline)) static void brstack_bar(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void brstack_foo(void)
{
	brstack_bar();
}

__attribute__((noinline)) static void brstack_bench(void)
{
	void (*volatile foo_ind)(void) = brstack_foo;
	if ((brstack_cnt++) % 3) /* a conditional branch */
		brstack_foo();    /* a call */
	brstack_bar();
	foo_ind();                /* an indirect call */
}

static int brstack(int argc, char **argv)
{
	int loops = argc > 0 ? atoi(argv[0]) : 999999;
	while (brstack_cnt++ <= loops)
		brstack_bench();
	return 0;
}

/* Two fields 56 bytes apart in one cache line, as perf's data-symbol test expects. */
struct datasym_buf {
	char data1;
	char reserved[55];
	char data2;
} __attribute__((aligned(64)));
static volatile struct datasym_buf buf1 = { .data1 = 'a', .reserved = { 'b' }, .data2 = 'c' };

static int datasym(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (;;) {
		buf1.data1++;
		buf1.data2 += buf1.data1;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} workloads[] = {
	{ "noploop", noploop }, { "thloop", thloop },   { "leafloop", workload_leafloop },
	{ "sqrtloop", sqrtloop }, { "brstack", brstack }, { "datasym", datasym },
};

int workload_run(const char *name, int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (!strcmp(workloads[i].name, name))
			return workloads[i].fn(argc, argv);
	return -1;
}

size_t workload_names(const char *const **names)
{
	static const char *const v[] = { "noploop", "thloop", "leafloop", "sqrtloop", "brstack", "datasym" };
	*names = v;
	return sizeof(v) / sizeof(v[0]);
}
