/* Load workload: THREADS threads (default 200), each forking short-lived children as fast as it
 * can for SECONDS seconds (default 5); every child touches a little memory, renames itself and
 * exits. A flood of FORK, COMM, MMAP and EXIT records next to samples, to push a recording's ring
 * buffers past their limits. Prints the number of children made. Usage: forkstorm [SECONDS
 * [THREADS]]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds = 5;
static unsigned long children[1024];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	size_t i = (size_t)arg;
	double end = now() + seconds;
	while (now() < end) {
		pid_t p = fork();
		if (p == 0) {
			prctl(PR_SET_NAME, "storm-child", 0, 0, 0);
			volatile char buf[8192];
			memset((char *)buf, 1, sizeof(buf));
			_exit(0);
		}
		if (p > 0) {
			waitpid(p, NULL, 0);
			children[i]++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = 200;
	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2)
		n = atoi(argv[2]);
	if (n < 1 || n > 1024)
		n = 200;
	pthread_t t[1024];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(size_t)i);
	unsigned long total = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += children[i];
	}
	printf("%lu children\n", total);
	return 0;
}
