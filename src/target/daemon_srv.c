/* lperf daemon's server: the lock, the sessions (record processes), config changes and the
 * control socket (target/daemon.h). */
#include "target/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define SESSION_ARGS_MAX 256
#define KILL_WAIT_MS 5000

static void dlog(struct daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dlog(struct daemon *d, const char *fmt, ...)
{
	if (!d->log)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) >= 0) {
		d->log(d->log_arg, msg);
		free(msg);
	}
	va_end(ap);
}

int daemon_lock(struct daemon *d, pid_t *owner)
{
	*owner = 0;
	char *path = xasprintf("%s/lock", d->base);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
		/* Another user's file planted at the lock's name: not ours to write (issue 28). */
		close(fd);
		fd = -1;
		errno = EPERM;
	}
	if (fd < 0) {
		err_set("cannot open '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char buf[32] = "";
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = 0;
		*owner = (pid_t)atoi(buf);
		close(fd);
		return err_set("another lperf daemon (pid %d) owns %s", (int)*owner, d->base);
	}
	d->lock_fd = fd;
	daemon_lock_pid(d);
	return 0;
}

void daemon_lock_pid(struct daemon *d)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(d->lock_fd, 0) < 0 || pwrite(d->lock_fd, buf, (size_t)n, 0) < 0) {
		/* the lock holds without the pid; a second daemon says pid 0 */
	}
}

static int make_fifo(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	int rc = 0;
	if (lstat(path, &st) == 0 && !S_ISFIFO(st.st_mode))
		rc = err_set("'%s' exists and is not a FIFO", path);
	else if (rc == 0 && lstat(path, &st) < 0 && mkfifo(path, 0600) < 0)
		rc = err_set("cannot make the FIFO '%s': %s", path, strerror(errno));
	free(path);
	return rc;
}

/* The record process of a session: in its directory, output to its output file. */
static void session_exec(struct daemon *d, struct daemon_session *s, const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
	if (chdir(s->base) < 0)
		_exit(127);
	/* Never into a file another user planted there (O_NOFOLLOW already refuses a link). */
	int out = open("output", O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
	struct stat st;
	if (out >= 0 && (fstat(out, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
			 ftruncate(out, 0) < 0))
		_exit(127);
	int in = open("/dev/null", O_RDONLY);
	if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(127);
	char *argv[SESSION_ARGS_MAX + 5];
	int argc = 0;
	argv[argc++] = d->argv0;
	argv[argc++] = "record";
	argv[argc++] = "--control=fifo:control,ack";
	argv[argc++] = xasprintf("--service=%s", s->name); /* --pprof-dir's label; run may override it */
	char *run = xstrdup(s->run);
	for (char *p = run, *w; (w = strsep(&p, " \t")) != NULL && argc < SESSION_ARGS_MAX + 4;)
		if (*w)
			argv[argc++] = w;
	argv[argc] = NULL;
	execv(d->self, argv);
	dprintf(2, "cannot run %s: %s\n", d->self, strerror(errno)); /* into the session's output file */
	_exit(127);
}

static int session_start(struct daemon *d, struct daemon_session *s, const sigset_t *old)
{
	if (mkdir(s->base, 0755) < 0 && errno != EEXIST)
		return err_set("cannot make '%s': %s", s->base, strerror(errno));
	if (make_fifo(s->base, "control") < 0 || make_fifo(s->base, "ack") < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return err_set("fork: %s", strerror(errno));
	if (pid == 0)
		session_exec(d, s, old);
	s->pid = pid;
	s->start = time(NULL);
	dlog(d, "session '%s' started (pid %d): %s", s->name, (int)pid, s->run);
	return 0;
}

static void session_free(struct daemon_session *s)
{
	free(s->name);
	free(s->run);
	free(s->base);
}

static void session_drop(struct daemon *d, size_t i)
{
	session_free(&d->s[i]);
	memmove(&d->s[i], &d->s[i + 1], (d->n - i - 1) * sizeof(*d->s));
	d->n--;
}

static void reaped(struct daemon *d, pid_t pid, int status)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->s[i].pid != pid)
			continue;
		if (WIFEXITED(status))
			dlog(d, "session '%s' exited, status=%d", d->s[i].name, WEXITSTATUS(status));
		else
			dlog(d, "session '%s' killed by signal %d", d->s[i].name, WTERMSIG(status));
		session_drop(d, i);
		return;
	}
}

static void reap_all(struct daemon *d)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		reaped(d, pid, status);
}

/* Stops the sessions whose keep is false: SIGTERM (record completes its file), then SIGKILL for
 * those still there after KILL_WAIT_MS. */
static void sessions_stop(struct daemon *d)
{
	size_t left = 0;
	for (size_t i = 0; i < d->n; i++)
		if (!d->s[i].keep && d->s[i].pid > 0 && kill(d->s[i].pid, SIGTERM) == 0)
			left++;
	for (int ms = 0; left && ms < KILL_WAIT_MS + 1000; ms += 10) {
		if (ms == KILL_WAIT_MS)
			for (size_t i = 0; i < d->n; i++)
				if (!d->s[i].keep && d->s[i].pid > 0)
					kill(d->s[i].pid, SIGKILL);
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		if (pid > 0) {
			reaped(d, pid, status);
			continue;
		}
		left = 0;
		for (size_t i = 0; i < d->n; i++)
			left += !d->s[i].keep;
		if (left)
			usleep(10000);
	}
	for (size_t i = d->n; i-- > 0;)
		if (!d->s[i].keep)
			session_drop(d, i);
}

static bool config_changed(struct daemon *d)
{
	struct stat st;
	if (stat(d->config, &st) < 0)
		return false;
	bool changed = st.st_mtim.tv_sec != d->cfg_mtime.tv_sec || st.st_mtim.tv_nsec != d->cfg_mtime.tv_nsec ||
		       st.st_size != d->cfg_size || st.st_ino != d->cfg_ino;
	d->cfg_mtime = st.st_mtim;
	d->cfg_size = st.st_size;
	d->cfg_ino = st.st_ino;
	return changed;
}

/* (Re)reads the config: changed and removed sessions stop, new and changed ones start. */
static void reconfig(struct daemon *d, const sigset_t *old)
{
	struct daemon_config c;
	if (daemon_config_read(d->config, &c) < 0) {
		dlog(d, "config not read, sessions unchanged: %s", err_msg());
		return;
	}
	if (c.base && !d->fixed_base && strcmp(c.base, d->base))
		dlog(d, "the base cannot change while running (still %s)", d->base);
	for (size_t i = 0; i < d->n; i++) {
		d->s[i].keep = false;
		for (size_t k = 0; k < c.n; k++)
			if (!strcmp(c.s[k].name, d->s[i].name) && !strcmp(c.s[k].run, d->s[i].run))
				d->s[i].keep = true;
		if (!d->s[i].keep)
			dlog(d, "reconfig: stopping session '%s' [%d]", d->s[i].name, (int)d->s[i].pid);
	}
	sessions_stop(d);
	for (size_t k = 0; k < c.n; k++) {
		bool running = false;
		for (size_t i = 0; i < d->n; i++)
			running |= !strcmp(d->s[i].name, c.s[k].name);
		if (running)
			continue;
		d->s = xrealloc(d->s, (d->n + 1) * sizeof(*d->s));
		struct daemon_session *s = &d->s[d->n];
		*s = (struct daemon_session){ xstrdup(c.s[k].name), xstrdup(c.s[k].run),
					      xasprintf("%s/session-%s", d->base, c.s[k].name), -1, 0, true };
		if (session_start(d, s, old) < 0) {
			dlog(d, "session '%s' not started: %s", s->name, err_msg());
			session_free(s);
		} else {
			d->n++;
		}
	}
	daemon_config_free(&c);
}

/* Pings a session through its control FIFO: true when record answered within a second. */
static bool session_ping(const struct daemon_session *s)
{
	char *ctl = xasprintf("%s/control", s->base), *ackp = xasprintf("%s/ack", s->base);
	int cfd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC); /* ENXIO: record has not opened it yet */
	int afd = cfd < 0 ? -1 : open(ackp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	free(ctl);
	free(ackp);
	bool ok = false;
	char buf[64];
	if (afd >= 0) {
		while (read(afd, buf, sizeof(buf)) > 0) /* a late answer to an earlier ping */
			;
		if (write(cfd, "ping\n", 5) == 5) {
			struct pollfd p = { afd, POLLIN, 0 };
			for (int ms = 0; !ok && ms < 1000; ms += 50)
				if (poll(&p, 1, 50) > 0 && read(afd, buf, sizeof(buf)) > 0)
					ok = !strncmp(buf, "ack", 3);
		}
	}
	if (cfd >= 0)
		close(cfd);
	if (afd >= 0)
		close(afd);
	return ok;
}

/* One request; the answer in sb. Returns true for stop. */
static bool handle(struct daemon *d, char *req, struct strbuf *sb)
{
	req[strcspn(req, "\r\n")] = 0;
	char *arg = strchr(req, ' ');
	if (arg)
		*arg++ = 0;
	if (arg && !*arg)
		arg = NULL;
	if (!strcmp(req, "list")) {
		sb_addf(sb, "D\t%d\t%s\t%lld\n", (int)getpid(), d->base, (long long)d->start);
		for (size_t i = 0; i < d->n; i++)
			sb_addf(sb, "S\t%d\t%s\t%s\t%s\t%lld\n", (int)d->s[i].pid, d->s[i].name, d->s[i].run,
				d->s[i].base, (long long)d->s[i].start);
	} else if (!strcmp(req, "ping") || !strcmp(req, "signal")) {
		bool found = false, ping = req[0] == 'p';
		for (size_t i = 0; i < d->n; i++) {
			if (arg && strcmp(arg, d->s[i].name))
				continue;
			found = true;
			if (ping)
				sb_addf(sb, "P\t%s\t%s\n", d->s[i].name, session_ping(&d->s[i]) ? "OK" : "FAIL");
			else if (kill(d->s[i].pid, SIGUSR2) == 0)
				sb_addf(sb, "G\t%s\t%d\n", d->s[i].name, (int)d->s[i].pid);
		}
		if (arg && !found)
			sb_addf(sb, "%c\t%s\tNOTFOUND\n", ping ? 'P' : 'G', arg);
	} else if (!strcmp(req, "stop")) {
		sb_adds(sb, "OK\n");
		return true;
	} else {
		sb_addf(sb, "E\tunknown request '%s'\n", req);
	}
	return false;
}

/* Serves one client: reads its line (up to a second), answers, closes. */
static bool serve(struct daemon *d)
{
	int c = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return false;
	char req[512];
	size_t n = 0;
	struct pollfd p = { c, POLLIN, 0 };
	while (n < sizeof(req) - 1 && !memchr(req, '\n', n) && poll(&p, 1, 1000) > 0) {
		ssize_t r = read(c, req + n, sizeof(req) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	req[n] = 0;
	struct strbuf sb = STRBUF_INIT;
	bool stop = handle(d, req, &sb);
	const char *s = sb_str(&sb);
	for (size_t len = strlen(s), off = 0; off < len;) {
		ssize_t w = send(c, s + off, len - off, MSG_NOSIGNAL);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	sb_release(&sb);
	close(c);
	return stop;
}

static int listen_on(struct daemon *d)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/control", d->base) >= sizeof(a.sun_path))
		return err_set("the base '%s' is too long for a socket path", d->base);
	unlink(a.sun_path); /* ours: the lock is held */
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0) {
		err_set("cannot listen on '%s': %s", a.sun_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	d->listen_fd = fd;
	return 0;
}

int daemon_run(struct daemon *d)
{
	sigset_t mask, old;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0 || listen_on(d) < 0) {
		if (sfd < 0)
			err_set("signalfd: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	d->start = time(NULL);
	dlog(d, "daemon started (pid %d)", (int)getpid());
	config_changed(d);
	reconfig(d, &old);
	for (bool stop = false; !stop;) {
		struct pollfd p[2] = { { sfd, POLLIN, 0 }, { d->listen_fd, POLLIN, 0 } };
		if (poll(p, 2, 200) < 0 && errno != EINTR)
			break;
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD) {
				dlog(d, "signal %u received, stopping", si.ssi_signo);
				stop = true;
			}
		reap_all(d);
		if (!stop && (p[1].revents & POLLIN))
			stop = serve(d);
		if (!stop && config_changed(d))
			reconfig(d, &old);
	}
	for (size_t i = 0; i < d->n; i++)
		d->s[i].keep = false;
	sessions_stop(d);
	free(d->s);
	d->s = NULL;
	char *sock = xasprintf("%s/control", d->base);
	unlink(sock);
	free(sock);
	close(d->listen_fd);
	close(sfd);
	dlog(d, "daemon exited");
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

char *daemon_request(const char *base, const char *request)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/control", base) >= sizeof(a.sun_path)) {
		err_set("the base '%s' is too long for a socket path", base);
		return NULL;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		err_set("no daemon answers at '%s': %s", a.sun_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	char *line = xasprintf("%s\n", request);
	bool ok = send(fd, line, strlen(line), MSG_NOSIGNAL) == (ssize_t)strlen(line);
	free(line);
	char buf[4096];
	ssize_t n;
	/* the daemon may be stopping sessions (reconfig) before it answers: wait up to 30 s */
	struct pollfd p = { fd, POLLIN, 0 };
	while (ok && poll(&p, 1, 30000) > 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)n);
	close(fd);
	if (!ok) {
		sb_release(&sb);
		err_set("cannot talk to the daemon at '%s'", a.sun_path);
		return NULL;
	}
	return sb_detach(&sb);
}
