/* A known answer for lock contention: two threads write to one file descriptor, which the kernel
 * serialises on the open file's position mutex (f_pos_lock, taken in fdget_pos). Thread lw_big
 * writes 8 MB at a time, over and over; thread lw_small writes one byte ITERS times (1 ms apart)
 * and times each call, whose time is almost all spent waiting for that mutex. Prints lw_small's
 * total time in write() in microseconds: "small_wait_us N".
 *   lockwait [ITERS [FILE]]   (defaults: 100, ./lockwait.tmp; the file is removed at the end) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int fd;
static volatile int stop;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *big(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "lw_big");
	size_t n = 8 << 20;
	char *b = malloc(n);
	if (!b)
		return NULL;
	memset(b, 'x', n);
	while (!stop) {
		if (write(fd, b, n) < 0)
			break;
		lseek(fd, 0, SEEK_SET);
	}
	free(b);
	return NULL;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	const char *path = argc > 2 ? argv[2] : "lockwait.tmp";
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	prctl(PR_SET_NAME, "lw_small");
	pthread_t t;
	if (pthread_create(&t, NULL, big, NULL))
		return 1;
	usleep(10000);
	double total = 0;
	for (int i = 0; i < iters; i++) {
		double t0 = now();
		if (write(fd, "y", 1) != 1)
			return 1;
		total += now() - t0;
		usleep(1000);
	}
	stop = 1;
	pthread_join(t, NULL);
	unlink(path);
	printf("small_wait_us %.0f\n", total * 1e6);
	return 0;
}
