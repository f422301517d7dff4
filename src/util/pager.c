/* The pager and colour decisions (util/pager.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/opt.h"
#include "util/pager.h"

static bool pager_off;
static pid_t pager_pid = -1;

void pager_disable(void)
{
	pager_off = true;
}

bool pager_in_use(void)
{
	return pager_pid > 0;
}

/* At exit: the output ends (the pager sees end of file) and the pager is waited for, so the
 * shell prompt comes back after it. */
static void pager_wait(void)
{
	if (pager_pid <= 0)
		return;
	fflush(stdout);
	fflush(stderr);
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}

/* A signal while paging: the pager keeps the terminal until it is done. */
static void pager_signal(int sig)
{
	pager_wait();
	signal(sig, SIG_DFL);
	raise(sig);
}

static const char *pager_command(void)
{
	const char *p = getenv("LPERF_PAGER");
	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = "less";
	/* git's rule: an empty pager or cat means none. */
	if (!*p || !strcmp(p, "cat"))
		return NULL;
	return p;
}

void pager_start(void)
{
	if (pager_off || pager_pid > 0 || !isatty(STDOUT_FILENO))
		return;
	const char *cmd = pager_command();
	if (!cmd)
		return;
	int fds[2];
	if (pipe(fds) < 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("LESS", getenv("LESS") ? getenv("LESS") : "FRSX", 1);
		if (!getenv("LV"))
			setenv("LV", "-c", 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	bool err_too = isatty(STDERR_FILENO);
	dup2(fds[1], STDOUT_FILENO);
	if (err_too)
		dup2(fds[1], STDERR_FILENO);
	close(fds[0]);
	close(fds[1]);
	pager_pid = pid;
	atexit(pager_wait);
	signal(SIGINT, pager_signal);
	signal(SIGTERM, pager_signal);
	signal(SIGHUP, pager_signal);
	signal(SIGQUIT, pager_signal);
	signal(SIGPIPE, pager_signal);
}

int colour_parse(const char *s, enum colour_mode *m)
{
	if (!strcmp(s, "auto"))
		*m = COLOUR_AUTO;
	else if (!strcmp(s, "always") || !strcmp(s, "true"))
		*m = COLOUR_ALWAYS;
	else if (!strcmp(s, "never") || !strcmp(s, "false"))
		*m = COLOUR_NEVER;
	else
		return err_set("'%s' is not a colour setting (auto, always or never)", s);
	return 0;
}

int colour_opt(const struct option *o, const char *a)
{
	return colour_parse(a ? a : "always", o->value);
}

bool colour_on(enum colour_mode m)
{
	if (m != COLOUR_AUTO)
		return m == COLOUR_ALWAYS;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	const char *term = getenv("TERM");
	if (term && !strcmp(term, "dumb"))
		return false;
	return pager_in_use() || isatty(STDOUT_FILENO);
}
