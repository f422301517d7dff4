/* Helpers shared by the JIT symbol tests: finding real interpreters and running them. */
#ifndef LPERF_TESTS_JIT_TEST_H
#define LPERF_TESTS_JIT_TEST_H

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/xalloc.h"

/* pyenv's python3 of a version ("3.12"), or NULL. */
static inline char *jit_test_find_python(const char *version)
{
	const char *homes[] = { getenv("HOME"), "/root" };
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++) {
		if (!homes[i] || !*homes[i])
			continue;
		char *pat = xasprintf("%s/.pyenv/versions/%s*/bin/python3", homes[i], version);
		glob_t g;
		int r = glob(pat, 0, NULL, &g);
		free(pat);
		char *found = NULL;
		if (r == 0 && g.gl_pathc)
			found = xstrdup(g.gl_pathv[g.gl_pathc - 1]);
		globfree(&g);
		if (found)
			return found;
	}
	return NULL;
}

/* A program in $PATH, or NULL. */
static inline char *jit_test_find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = xstrdup(path), *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, name);
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

/* Runs argv in dir (NULL: here) with stdout to /dev/null; returns its exit status (-1 when it
 * could not run) and its pid in *pid. */
static inline int jit_test_run(const char *dir, char *const argv[], pid_t *pid)
{
	fflush(NULL);
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		if (dir && chdir(dir) < 0)
			_exit(126);
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	*pid = p;
	int st;
	if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* V8 leaves isolate-*-v8.log in its working directory (with --perf-prof and --perf-basic-prof). */
static inline void jit_test_rm_v8_logs(const char *dir)
{
	char *pat = xasprintf("%s/isolate-*-v8.log", dir);
	glob_t g;
	if (glob(pat, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
	globfree(&g);
	free(pat);
}

#endif
