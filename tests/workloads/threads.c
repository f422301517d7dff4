/* Multi-threaded and forking workload: two named threads and a child process with its own
 * name, each spinning about 150 ms of CPU. */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void spin(double seconds)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	volatile unsigned long x = 0;
	do {
		for (int i = 0; i < 200000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < seconds);
}

static void *worker(void *name)
{
	prctl(PR_SET_NAME, name);
	spin(0.15);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, worker, "worker-one");
	pthread_create(&t2, NULL, worker, "worker-two");
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, "child-proc");
		spin(0.15);
		_exit(0);
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	waitpid(pid, NULL, 0);
	printf("%d\n", (int)pid);
	return 0;
}
