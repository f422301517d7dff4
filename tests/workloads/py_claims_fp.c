/* A CPython that says it was built with frame pointers (tests/e2e/t133-python-paused-fp.sh): it
 * runs the interpreter REAL (-DREAL="path"), but where it is run as lperf probes interpreters
 * (-E -S -c SCRIPT) the line fno_omit_frame_pointer=0 of the probe's answer is turned into =1.
 * No CPython here is built with frame pointers; this one, unwound by them, would give broken
 * native stacks, so a test can tell which unwinding lperf chose. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef REAL
#error "build with -DREAL='\"/path/to/python3\"'"
#endif

int main(int argc, char **argv)
{
	argv[0] = (char *)REAL;
	if (argc < 4 || strcmp(argv[1], "-E") || strcmp(argv[2], "-S") || strcmp(argv[3], "-c")) {
		execv(REAL, argv);
		perror(REAL);
		return 127;
	}
	int fd[2];
	if (pipe(fd) < 0)
		return 1;
	pid_t p = fork();
	if (p == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execv(REAL, argv);
		_exit(127);
	}
	close(fd[1]);
	FILE *f = fdopen(fd[0], "r");
	char line[4096];
	while (f && fgets(line, sizeof(line), f))
		fputs(strcmp(line, "fno_omit_frame_pointer=0\n") ? line : "fno_omit_frame_pointer=1\n", stdout);
	int st = 0;
	if (p < 0 || waitpid(p, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
