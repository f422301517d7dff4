/* Runs a command and prints "MAXRSS_KIB WALL_SECONDS EXIT". A small launcher, because a
 * child's peak RSS starts from its parent's at fork: measuring from Python would report
 * Python's size for both tools. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	int st;
	struct rusage ru;
	wait4(pid, &st, 0, &ru);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%ld %.6f %d\n", ru.ru_maxrss, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
