#include "python/pydump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python/pygil.h"
#include "python/pylayout.h"
#include "python/pynative.h"
#include "python/pypause.h"
#include "python/pyread.h"
#include "python/pythname.h"
#include "util/error.h"
#include "util/xalloc.h"

#define MAX_THREADS 4096

/* The first len-1 bytes of /proc/PID/<what> (NUL bytes become spaces, the trailing newline
 * dropped); -1 with errno when it cannot be read. */
static ssize_t proc_read(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	errno = e;
	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == 0))
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	return n;
}

/* Is the process there and may we read it? 0, or -1 with the message a user needs. */
static int check_access(pid_t pid)
{
	char path[64], b[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (pid <= 0 || stat(path, &st) < 0)
		return err_set("no process with pid %d", (int)pid);
	if (proc_read(pid, "maps", b, sizeof(b)) >= 0)
		return 0;
	if (errno == EACCES || errno == EPERM) {
		if (st.st_uid != geteuid())
			return err_set("pid %d belongs to user %u, not to you (user %u): permission denied "
				       "reading its memory; run lperf as that user or as root (CAP_SYS_PTRACE)",
				       (int)pid, (unsigned)st.st_uid, (unsigned)geteuid());
		return err_set("pid %d: permission denied reading its memory (it is not dumpable, or "
			       "another security module forbids it); run lperf as root", (int)pid);
	}
	if (errno == ESRCH || errno == ENOENT)
		return err_set("no process with pid %d (it has exited)", (int)pid);
	return err_set("/proc/%d/maps: %s", (int)pid, strerror(errno));
}

static int find_python(pid_t pid, struct py_proc *proc)
{
	int rc = pylayout_find(pid, proc);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return 0;
	char comm[64] = "?";
	proc_read(pid, "comm", comm, sizeof(comm));
	return err_set("pid %d (%s) is not a Python process lperf can read: no CPython 2.7 or "
		       "3.6-3.13 (libpythonX.Y or a pythonX.Y executable) is mapped in it, or its "
		       "interpreter has not started yet", (int)pid, comm);
}

/* Is the thread busy (not blocked in a system call)? /proc/PID/task/TID/syscall gives the number
 * of the system call a blocked or stopped thread is in, a negative number for one stopped
 * outside any (an interrupt's), "running" for one on a CPU or runnable. Unreadable: idle. */
static bool thread_active(pid_t pid, int32_t tid)
{
	char what[64], b[256];
	snprintf(what, sizeof(what), "task/%d/syscall", (int)tid);
	if (proc_read(pid, what, b, sizeof(b)) < 0)
		return false;
	return !strncmp(b, "running", 7) || b[0] == '-';
}

static void thread_name(pid_t pid, int32_t tid, char *name, size_t len)
{
	char what[64];
	snprintf(what, sizeof(what), "task/%d/comm", (int)tid);
	if (proc_read(pid, what, name, len) < 0)
		name[0] = 0;
}

/* One thread's frames, cooked one by one (shims and unreadable code objects are dropped): names
 * and lines from the code objects (read once, cached), and with PYDUMP_LOCALS the locals from
 * each frame. */
static void read_thread(struct pyread *r, struct pylocals *pl, const struct py_thread *th, unsigned depth,
			unsigned flags, struct py_rawframe *raw, struct pydump_thread *out, uint64_t holder)
{
	out->thread_id = th->pthread;
	out->gil = holder && th->tstate == holder;
	out->tid = pyread_tid(r, th);
	size_t n = pyread_stack(r, th->tstate, raw, depth, &out->truncated);
	out->frames = xcalloc(n ? n : 1, sizeof(*out->frames));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct py_frame cooked;
		if (!pyread_cook(r, &raw[i], 1, &cooked, 1)) {
			/* 3.12+: the C stack's shim closes one call of the eval loop */
			if (k && r->proc.layout.frame_owner >= 0 && r->proc.layout.frame_is_entry < 0 && raw[i].aux == 3)
				out->frames[k - 1].entry = true;
			continue;
		}
		const struct py_code *c = r->codes[cooked.code];
		struct pydump_frame *f = &out->frames[k++];
		f->func = xstrdup(c->name);
		f->file = xstrdup(c->filename);
		f->line = cooked.line;
		f->entry = cooked.entry;
		if (flags & PYDUMP_LOCALS)
			f->nlocals = pylocals_read(pl, raw[i].frame, raw[i].code, &f->locals);
	}
	out->nframes = k;
}

/* --native: the thread's native frames with each call of the eval loop replaced by the Python
 * frames it runs (innermost first: up to and including the next entry frame); Python frames no
 * eval call was found for stay at the outer end. */
static void merge_native(struct pydump_thread *t, struct pynative_frame *nf, size_t nn)
{
	struct pydump_frame *m = xcalloc(t->nframes + nn + 1, sizeof(*m));
	size_t k = 0, p = 0;
	for (size_t i = 0; i < nn; i++) {
		if (nf[i].eval) {
			while (p < t->nframes) {
				m[k++] = t->frames[p++];
				if (m[k - 1].entry)
					break;
			}
			continue;
		}
		char hex[32];
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)nf[i].pc);
		m[k].func = xstrdup(nf[i].func ? nf[i].func : hex);
		m[k].file = xstrdup(nf[i].module ? nf[i].module : "?");
		m[k].line = -1;
		m[k++].native = true;
	}
	while (p < t->nframes)
		m[k++] = t->frames[p++];
	free(t->frames);
	t->frames = m;
	t->nframes = k;
}

/* The threads of the interpreter and their stacks, as they are now (paused or not). */
static int read_all(struct pyread *r, unsigned depth, unsigned flags, struct pydump *d)
{
	struct py_thread *th = xcalloc(MAX_THREADS, sizeof(*th));
	int nt = pyread_threads(r, th, MAX_THREADS);
	if (nt < 0) {
		free(th);
		return err_wrap("pid %d: reading the interpreter's threads", (int)d->pid);
	}
	uint64_t holder = pygil_holder(&r->proc);
	d->gil_known = r->proc.gil_known;
	struct py_rawframe *raw = xcalloc(depth, sizeof(*raw));
	struct pylocals pl;
	pylocals_init(&pl, r);
	struct pynative *nat = NULL;
	struct pynative_frame *nf = NULL;
	if (flags & PYDUMP_NATIVE) {
		if (!(nat = pynative_open(d->pid))) {
			free(raw);
			free(th);
			return -1;
		}
		nf = xcalloc(PYNATIVE_MAX, sizeof(*nf));
	}
	d->threads = xcalloc(nt ? (size_t)nt : 1, sizeof(*d->threads));
	for (int i = 0; i < nt; i++) {
		read_thread(r, &pl, &th[i], depth, flags, raw, &d->threads[i], holder);
		if (nat && d->threads[i].tid) {
			size_t nn = pynative_stack(nat, d->threads[i].tid, nf, PYNATIVE_MAX);
			merge_native(&d->threads[i], nf, nn);
			pynative_frames_free(nf, nn);
		}
	}
	d->nthreads = (size_t)nt;
	free(nf);
	pynative_close(nat);
	free(raw);
	/* the threads' Python names, by their idents (pthread_t: the thread states' thread_id) */
	struct pythname *names = xcalloc(MAX_THREADS, sizeof(*names));
	size_t nn = pythname_read(r, names, MAX_THREADS);
	for (size_t i = 0; i < d->nthreads; i++)
		for (size_t k = 0; k < nn; k++)
			if (names[k].ident == d->threads[i].thread_id)
				snprintf(d->threads[i].pyname, sizeof(d->threads[i].pyname), "%s", names[k].name);
	free(names);
	free(th);
	return 0;
}

int pydump_take(pid_t pid, bool pause, unsigned depth, unsigned flags, struct pydump *d)
{
	memset(d, 0, sizeof(*d));
	d->pid = pid;
	if (!depth)
		depth = 1024;
	struct py_proc proc;
	if (check_access(pid) < 0 || find_python(pid, &proc) < 0)
		return -1;
	char cmd[4096];
	d->cmdline = xstrdup(proc_read(pid, "cmdline", cmd, sizeof(cmd)) >= 0 ? cmd : "");
	d->major = proc.layout.major;
	d->minor = proc.layout.minor;
	snprintf(d->lib, sizeof(d->lib), "%s", proc.lib);

	/* Each task's state is taken before the pause, which turns every one into a stop. */
	struct pypause pp = { 0 };
	struct pyread r;
	pyread_init(&r, &proc);
	int rc = pause ? pypause_stop(pid, &pp) : 0;
	if (rc == 0)
		rc = read_all(&r, depth, flags, d);
	for (size_t i = 0; rc == 0 && i < d->nthreads; i++)
		if (d->threads[i].tid)
			d->threads[i].active = thread_active(pid, d->threads[i].tid);
	if (pause)
		pypause_resume(&pp);
	d->paused = pause;
	d->locals = (flags & PYDUMP_LOCALS) != 0;
	d->native = (flags & PYDUMP_NATIVE) != 0;
	pyread_free(&r);
	if (rc < 0) {
		pydump_free(d);
		return -1;
	}
	for (size_t i = 0; i < d->nthreads; i++) {
		struct pydump_thread *t = &d->threads[i];
		if (t->tid)
			thread_name(pid, t->tid, t->name, sizeof(t->name));
	}
	return 0;
}

static void free_thread(struct pydump_thread *t)
{
	for (size_t k = 0; k < t->nframes; k++) {
		free(t->frames[k].func);
		free(t->frames[k].file);
		pylocals_free(t->frames[k].locals, t->frames[k].nlocals);
	}
	free(t->frames);
}

void pydump_keep_gil(struct pydump *d)
{
	size_t k = 0;
	for (size_t i = 0; i < d->nthreads; i++) {
		if (d->threads[i].gil)
			d->threads[k++] = d->threads[i];
		else
			free_thread(&d->threads[i]);
	}
	d->nthreads = k;
	d->gil_only = true;
}

void pydump_free(struct pydump *d)
{
	for (size_t i = 0; i < d->nthreads; i++)
		free_thread(&d->threads[i]);
	free(d->threads);
	free(d->cmdline);
	memset(d, 0, sizeof(*d));
}
