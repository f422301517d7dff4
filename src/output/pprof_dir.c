/* record --pprof-dir: a labelled pprof per completed recording (output/pprof_dir.h). */
#include "output/pprof_dir.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/stacks_load.h"
#include "output/pictures.h"
#include "util/error.h"
#include "util/xalloc.h"

int pprof_dir_init(struct pprof_dir *p, const char *dir, const char *service, char *const *cmd,
		      bool python, bool force, clockid_t clockid, int max_files)
{
	*p = (struct pprof_dir){ .dir = dir, .python = python, .force = force, .clockid = clockid,
				    .max_files = max_files };
	if (!dir)
		return 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_set("--pprof-dir '%s': %s", dir, strerror(errno));
	struct stat sb;
	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return err_set("--pprof-dir '%s': not a directory", dir);
	if (gethostname(p->host, sizeof(p->host) - 1) < 0)
		strcpy(p->host, "localhost");
	const char *name = service;
	if (!name && cmd && cmd[0]) {
		const char *slash = strrchr(cmd[0], '/');
		name = slash ? slash + 1 : cmd[0];
	}
	p->service = xstrdup(name && *name ? name : "lperf");
	return 0;
}

static uint64_t ns_of(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The child's work: path's stacks into out; the exit status. */
static int convert(const struct pprof_dir *p, const char *path, const char *out)
{
	struct stacks st;
	stacks_init(&st);
	st.python = p->python;
	st.python_nolineno = p->nolineno;
	st.lines = true; /* pprof carries each function's file and line */
	struct session_opts so = { .force = p->force };
	struct notes said = NOTES_INIT;
	int rc = stacks_load(&st, path, &so, NULL, &said) < 0 ? -1 : 0;
	if (rc == 0) {
		/* the period's start in wall-clock time, from its first sample's clock */
		uint64_t real = ns_of(CLOCK_REALTIME), clk = ns_of(p->clockid);
		struct pprof_labels l = { p->service, p->host, true, 0 };
		if (st.first_time && st.first_time <= clk && clk - st.first_time < real)
			l.time_ns = real - (clk - st.first_time);
		rc = pprof_write_labelled(out, &st, &l);
	}
	if (rc < 0)
		notes_add(&said, "--pprof-dir: %s", err_msg());
	err_print_notes(&said);
	notes_clear(&said);
	stacks_free(&st);
	return rc < 0 ? 1 : 0;
}

void pprof_dir_period(struct pprof_dir *p, const char *path)
{
	if (!p->dir || !path)
		return;
	const char *base = strrchr(path, '/');
	char *out = xasprintf("%s/%s.pb.gz", p->dir, base ? base + 1 : path);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(convert(p, path, out));
	if (pid < 0) {
		err_warn("--pprof-dir: cannot start the conversion of %s: %s", path, strerror(errno));
		free(out);
		return;
	}
	p->pending = xrealloc(p->pending, (p->npending + 1) * sizeof(*p->pending));
	p->pending[p->npending++] = (struct pprof_dir_child){ pid, p->periods++, xstrdup(out) };
	if (p->max_files <= 0) {
		free(out);
		return;
	}
	p->kept = xrealloc(p->kept, (p->nkept + 1) * sizeof(*p->kept));
	p->kept[p->nkept++] = out;
	while (p->nkept > (size_t)p->max_files) {
		unlink(p->kept[0]);
		free(p->kept[0]);
		memmove(p->kept, p->kept + 1, --p->nkept * sizeof(*p->kept));
	}
}

void pprof_dir_reap(struct pprof_dir *p, bool wait)
{
	for (size_t i = 0; i < p->npending;) {
		int status;
		struct pprof_dir_child *c = &p->pending[i];
		pid_t r = waitpid(c->pid, &status, wait ? 0 : WNOHANG);
		if (r == 0 || (r < 0 && errno == EINTR)) {
			i += r == 0;
			continue;
		}
		/* A profile already dropped from the kept ones (its conversion outlasted max_files
		 * periods) was written after its removal: it goes now. */
		if (p->max_files > 0 && c->seq + (size_t)p->max_files < p->periods)
			unlink(c->out);
		free(c->out);
		*c = p->pending[--p->npending];
	}
}

void pprof_dir_free(struct pprof_dir *p)
{
	pprof_dir_reap(p, true);
	for (size_t i = 0; i < p->nkept; i++)
		free(p->kept[i]);
	free(p->kept);
	free(p->pending);
	free(p->service);
}
