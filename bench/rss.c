/* Runs a command and prints "MAXRSS_KIB WALL_SECONDS EXIT". A small launcher, because a
 * child's peak RSS starts from its parent's at fork: measuring from Python would report
 * Python's size for both tools.
 *   rss [-o FILE] COMMAND [ARGS]
 * -o sends the command's stdout to FILE (e.g. /dev/null), so a report or script of hundreds
 * of megabytes is neither piped through the harness nor mixed with this line. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *out = NULL;
	int first = 1;
	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = argv[2];
		first = 3;
	}
	if (argc <= first)
		return 2;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid < 0) {
		perror("rss: fork");
		return 2;
	}
	if (pid == 0) {
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || dup2(fd, 1) < 0) {
				perror(out);
				_exit(126);
			}
			if (fd != 1)
				close(fd);
		}
		execvp(argv[first], argv + first);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("rss: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%ld %.6f %d\n", ru.ru_maxrss, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
