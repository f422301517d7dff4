#include "sysinfo/python.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

extern char **environ;

/* A cold start of a Python from a slow disk takes about a second; all of them start together,
 * so this bounds the whole search, not each interpreter. */
#define PROBE_TIMEOUT_MS 10000
#define PYENV_TIMEOUT_MS 3000
#define MAX_OUTPUT (64 * 1024)
#define MAX_VALUE 256

/* Python 2.7 must be able to run this too: no f-strings, no print function. */
const char pyinfo_probe_script[] =
	"import sys, sysconfig, platform\n"
	"g = sysconfig.get_config_var\n"
	"f = ' '.join([str(g(k) or '') for k in ('CFLAGS', 'CONFIG_ARGS', 'PY_CFLAGS',\n"
	"    'PY_CFLAGS_NODIST', 'PY_CORE_CFLAGS', 'OPT')])\n"
	"w = sys.stdout.write\n"
	"w('version=%s\\n' % platform.python_version())\n"
	"w('implementation=%s\\n' % platform.python_implementation())\n"
	"w('machine=%s\\n' % platform.machine())\n"
	"w('system=%s\\n' % platform.system())\n"
	"w('perf_trampoline_config=%s\\n' % g('PY_HAVE_PERF_TRAMPOLINE'))\n"
	"w('activate_stack_trampoline=%d\\n' % hasattr(sys, 'activate_stack_trampoline'))\n"
	"w('fno_omit_frame_pointer=%d\\n' % ('-fno-omit-frame-pointer' in f))\n"
	"w('mno_omit_leaf_frame_pointer=%d\\n' % ('-mno-omit-leaf-frame-pointer' in f))\n";

/* ---- running a child and reading its stdout, with a deadline ---- */

struct child {
	pid_t pid;
	int fd;                /* read end of its stdout, -1 once at EOF */
	struct strbuf out;
	int status;            /* wait status, valid when reaped */
	bool reaped, timed_out;
	int spawn_err;         /* errno of a failed spawn, 0 otherwise */
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Starts argv with stdin and stderr on /dev/null and stdout on a pipe; no shell is involved. */
static void child_start(struct child *c, char *const argv[])
{
	int p[2];
	posix_spawn_file_actions_t fa;
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->pid = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		c->spawn_err = errno;
		return;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	int r = posix_spawnp(&c->pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r) {
		c->spawn_err = r;
		c->pid = -1;
		close(p[0]);
		return;
	}
	c->fd = p[0];
}

static void child_read(struct child *c)
{
	char buf[4096];
	ssize_t r = read(c->fd, buf, sizeof(buf));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		close(c->fd);
		c->fd = -1;
		return;
	}
	/* Keep draining past the cap so the child never blocks on a full pipe. */
	if (c->out.len < MAX_OUTPUT)
		sb_add(&c->out, buf, (size_t)r > MAX_OUTPUT - c->out.len ? MAX_OUTPUT - c->out.len
									    : (size_t)r);
}

/* Reads every child's output until EOF or the deadline, then reaps them all; children that
 * outlive the deadline are killed. */
static void children_collect(struct child *c, size_t n, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	struct pollfd *pfd = xcalloc(n ? n : 1, sizeof(*pfd));
	for (;;) {
		size_t np = 0;
		for (size_t i = 0; i < n; i++)
			if (c[i].fd >= 0) {
				pfd[np].fd = c[i].fd;
				pfd[np].events = POLLIN;
				np++;
			}
		long left = deadline - now_ms();
		if (!np || left <= 0)
			break;
		int r = poll(pfd, np, (int)left);
		if (r < 0 && errno != EINTR)
			break;
		for (size_t i = 0, k = 0; r > 0 && i < n; i++) {
			if (c[i].fd < 0)
				continue;
			if (pfd[k].revents)
				child_read(&c[i]);
			k++;
		}
	}
	free(pfd);
	for (size_t i = 0; i < n; i++) {
		if (c[i].pid <= 0)
			continue;
		if (c[i].fd >= 0) {
			close(c[i].fd);
			c[i].fd = -1;
		}
		/* Output closed does not mean exited: give it until the deadline, then kill. */
		while (waitpid(c[i].pid, &c[i].status, WNOHANG) == 0) {
			if (now_ms() >= deadline) {
				kill(c[i].pid, SIGKILL);
				c[i].timed_out = true;
				waitpid(c[i].pid, &c[i].status, 0);
				break;
			}
			struct timespec ts = { 0, 5 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		c[i].reaped = true;
	}
}

/* Why a child gave no usable answer, or NULL when it exited 0. */
static char *child_problem(const struct child *c, int timeout_ms)
{
	if (c->spawn_err)
		return xasprintf("cannot run: %s", strerror(c->spawn_err));
	if (c->timed_out)
		return xasprintf("no answer within %d s", timeout_ms / 1000);
	if (WIFSIGNALED(c->status))
		return xasprintf("killed by signal %d", WTERMSIG(c->status));
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status))
		return xasprintf("exited with status %d", WEXITSTATUS(c->status));
	return NULL;
}

/* ---- parsing the facts ---- */

/* Keeps printable ASCII only, so a strange interpreter cannot put control bytes or invalid
 * UTF-8 into our tables and JSON. */
static char *clean(const char *s, size_t n)
{
	if (n > MAX_VALUE)
		n = MAX_VALUE;
	char *r = xstrndup(s, n);
	for (char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return r;
}

static void set_str(char **dst, const char *v, size_t n)
{
	free(*dst);
	*dst = clean(v, n);
}

static bool is_one(const char *v, size_t n)
{
	return n == 1 && v[0] == '1';
}

static void parse_version(struct pyinfo *py)
{
	const char *s = py->version;
	char *end;
	py->major = py->minor = -1;
	if (!s || !isdigit((unsigned char)*s))
		return;
	long maj = strtol(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return;
	long min = strtol(end + 1, &end, 10);
	if (maj > 99 || min > 999)
		return;
	py->major = (int)maj;
	py->minor = (int)min;
}

static bool version_at_least(const struct pyinfo *py, int maj, int min)
{
	return py->major > maj || (py->major == maj && py->minor >= min);
}

int pyinfo_parse_facts(const char *text, struct pyinfo *py)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		if (eq) {
			size_t kl = (size_t)(eq - p), vl = len - kl - 1;
			const char *v = eq + 1;
#define KEY(k) (kl == sizeof(k) - 1 && !memcmp(p, k, kl))
			if (KEY("version"))
				set_str(&py->version, v, vl);
			else if (KEY("implementation"))
				set_str(&py->implementation, v, vl);
			else if (KEY("machine"))
				set_str(&py->machine, v, vl);
			else if (KEY("system"))
				set_str(&py->system, v, vl);
			else if (KEY("perf_trampoline_config"))
				py->config_trampoline = is_one(v, vl);
			else if (KEY("activate_stack_trampoline"))
				py->has_activate = is_one(v, vl);
			else if (KEY("fno_omit_frame_pointer"))
				py->fno_omit_fp = is_one(v, vl);
			else if (KEY("mno_omit_leaf_frame_pointer"))
				py->mno_omit_leaf_fp = is_one(v, vl);
#undef KEY
		}
		p += len;
		if (*p)
			p++;
	}
	parse_version(py);
	bool cpython = py->implementation && !strcmp(py->implementation, "CPython");
	bool arch = py->machine && (!strcmp(py->machine, "x86_64") || !strcmp(py->machine, "aarch64") ||
				    !strcmp(py->machine, "arm64"));
	bool linux_ = py->system && !strcmp(py->system, "Linux");
	py->perf_trampoline = cpython && arch && linux_ && version_at_least(py, 3, 12) &&
			      py->config_trampoline;
	py->perf_jit = py->perf_trampoline && version_at_least(py, 3, 13);
	py->frame_pointers = py->fno_omit_fp;
	if (!py->version)
		return err_set("the Python probe printed no version");
	return 0;
}

/* ---- finding candidates ---- */

struct cands {
	struct pyinfo *py;
	size_t n, cap;
};

static bool executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static void cand_add(struct cands *c, const char *path, const char *source)
{
	char real[PATH_MAX];
	if (!executable_file(path) || !realpath(path, real))
		return;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->py[i].realpath, real))
			return;
	ALLOC_GROW(c->py, c->n + 1, c->cap);
	struct pyinfo *py = &c->py[c->n++];
	memset(py, 0, sizeof(*py));
	py->path = xstrdup(path);
	py->realpath = xstrdup(real);
	py->source = source;
	py->major = py->minor = -1;
}

/* python, python2, python3, python2.7, python3.12: not python3-config or python3.12-gdb.py. */
static bool python_name(const char *s)
{
	if (strncmp(s, "python", 6))
		return false;
	s += 6;
	if (!*s)
		return true;
	if (*s != '2' && *s != '3')
		return false;
	s++;
	if (!*s)
		return true;
	if (*s++ != '.' || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int cmp_ver(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static bool under(const char *path, const char *root)
{
	size_t n = strlen(root);
	return root[0] && !strncmp(path, root, n) && (path[n] == '/' || !path[n]);
}

/* PATH directories in order. pyenv's shim directories are skipped: a shim is a shell script
 * that runs whichever version is selected, which the pyenv search below finds directly. */
static void find_on_path(struct cands *c, const char *pyenv_root)
{
	const char *path = getenv("PATH");
	if (!path)
		return;
	char *copy = xstrdup(path), *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/' || (pyenv_root && under(dir, pyenv_root)))
			continue;
		size_t n;
		char **names = dir_list(dir, python_name, SIZE_MAX, cmp_ver, &n);
		for (size_t i = 0; i < n; i++) {
			char *p = xasprintf("%s/%s", dir, names[i]);
			cand_add(c, p, "PATH");
			free(p);
		}
		strv_free(names, n);
	}
	free(copy);
}

static void find_in_pyenv(struct cands *c, const char *root)
{
	char *vdir = xasprintf("%s/versions", root);
	size_t n;
	char **names = dir_list(vdir, NULL, SIZE_MAX, cmp_ver, &n);
	for (size_t i = 0; i < n; i++) {
		/* a 2.x install has no python3: its python2 */
		char *p = xasprintf("%s/%s/bin/python3", vdir, names[i]);
		if (!executable_file(p)) {
			free(p);
			p = xasprintf("%s/%s/bin/python2", vdir, names[i]);
		}
		cand_add(c, p, "pyenv");
		free(p);
	}
	strv_free(names, n);
	free(vdir);
}

/* The first executable called name in PATH, or NULL. */
static char *which(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = xstrdup(path), *save = NULL, *found = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/')
			continue;
		char *p = xasprintf("%s/%s", dir, name);
		if (executable_file(p))
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

char *pyinfo_shebang(const char *cmd)
{
	char *path = strchr(cmd, '/') ? xstrdup(cmd) : which(cmd);
	if (!path)
		return NULL;
	FILE *f = fopen(path, "re");
	free(path);
	if (!f)
		return NULL;
	char line[256];
	bool ok = fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2) && strchr(line, '\n');
	fclose(f);
	if (!ok)
		return NULL;
	char *save = NULL, *interp = strtok_r(line + 2, " \t\r\n", &save);
	if (!interp)
		return NULL;
	const char *base = strrchr(interp, '/');
	if (strcmp(base ? base + 1 : interp, "env"))
		return xstrdup(interp);
	char *name = strtok_r(NULL, " \t\r\n", &save);
	if (name && !strcmp(name, "-S"))
		name = strtok_r(NULL, " \t\r\n", &save);
	if (!name || name[0] == '-' || strchr(name, '='))
		return NULL;
	return strchr(name, '/') ? xstrdup(name) : which(name);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *pyinfo_pyenv_root(void)
{
	const char *env = getenv("PYENV_ROOT");
	char *root = NULL;
	if (env && env[0] == '/') {
		root = xstrdup(env);
	} else {
		char *pyenv = which("pyenv");
		if (pyenv) {
			struct child ch;
			char *argv[] = { pyenv, (char *)"root", NULL };
			child_start(&ch, argv);
			children_collect(&ch, 1, PYENV_TIMEOUT_MS);
			char *problem = child_problem(&ch, PYENV_TIMEOUT_MS);
			const char *out = sb_str(&ch.out);
			size_t len = strcspn(out, "\n");
			if (!problem && len && out[0] == '/')
				root = xstrndup(out, len);
			free(problem);
			sb_release(&ch.out);
			free(pyenv);
		}
		const char *home = getenv("HOME");
		if (!root && home && home[0] == '/')
			root = xasprintf("%s/.pyenv", home);
	}
	if (root && !is_dir(root)) {
		free(root);
		root = NULL;
	}
	return root;
}

size_t pyinfo_find(struct pyinfo **out)
{
	struct cands c = { NULL, 0, 0 };
	char *root = pyinfo_pyenv_root();
	find_on_path(&c, root);
	if (root)
		find_in_pyenv(&c, root);
	free(root);

	struct child *ch = xcalloc(c.n ? c.n : 1, sizeof(*ch));
	for (size_t i = 0; i < c.n; i++) {
		char *argv[] = { c.py[i].path, (char *)"-E", (char *)"-S", (char *)"-c",
				 (char *)pyinfo_probe_script, NULL };
		child_start(&ch[i], argv);
	}
	children_collect(ch, c.n, PROBE_TIMEOUT_MS);
	for (size_t i = 0; i < c.n; i++) {
		struct pyinfo *py = &c.py[i];
		py->error = child_problem(&ch[i], PROBE_TIMEOUT_MS);
		if (!py->error && pyinfo_parse_facts(sb_str(&ch[i].out), py) < 0)
			py->error = xstrdup(err_msg());
		sb_release(&ch[i].out);
	}
	free(ch);
	*out = c.py;
	return c.n;
}

int pyinfo_probe(const char *path, struct pyinfo *py)
{
	memset(py, 0, sizeof(*py));
	py->path = xstrdup(path);
	py->major = py->minor = -1;
	struct child ch;
	char *argv[] = { (char *)path, (char *)"-E", (char *)"-S", (char *)"-c", (char *)pyinfo_probe_script, NULL };
	child_start(&ch, argv);
	children_collect(&ch, 1, PROBE_TIMEOUT_MS);
	py->error = child_problem(&ch, PROBE_TIMEOUT_MS);
	int r = 0;
	if (py->error)
		r = err_set("%s: %s", path, py->error);
	else if (pyinfo_parse_facts(sb_str(&ch.out), py) < 0)
		r = err_wrap("%s", path);
	sb_release(&ch.out);
	return r;
}

void pyinfo_free(struct pyinfo *py)
{
	free(py->path);
	free(py->realpath);
	free(py->error);
	free(py->version);
	free(py->implementation);
	free(py->machine);
	free(py->system);
	memset(py, 0, sizeof(*py));
}

void pyinfo_free_all(struct pyinfo *py, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pyinfo_free(&py[i]);
	free(py);
}
