#include "python/pyrec.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "python/pybpf.h"
#include "python/pygil.h"
#include "python/pylayout.h"
#include "python/pymethod.h"
#include "python/pyread.h"
#include "python/pysampler.h"
#include "python/pystore.h"
#include "python/pythname.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

/* A watched process: unknown until its interpreter is found (looked for at each batch for 3 s
 * after the last exec, then once a second until 30 s: an interpreter that a loaded machine starts
 * slowly is still found), then read. */
enum { P_LOOKING, P_PYTHON, P_NONE };

/* Without BPF, a thread's CPU time (its schedstat, kept open) at the last tick: one that did not
 * run since keeps the stack read last. */
struct ran {
	int32_t tid;
	int fd;
	uint64_t cpu;
	bool seen;
};

struct rproc {
	pid_t pid;
	int state;
	uint64_t since;           /* when looking started (ns) */
	bool once;                /* a process already running: one look (its libraries are mapped);
				   * after an exec, looked for until libpython appears (30 s at most) */
	uint64_t last_look;       /* ns */
	pid_t ppid;               /* forked: the Python process it was forked from (its reader names
				   * the inherited code objects once the child is gone) */
	struct pyread rd;
	struct pystore_writer w;
	bool have_rd;
	struct ran *ran;
	size_t nran, rancap;
	uint64_t names_at;        /* threads' Python names last read (ns; pyrec_names) */
	size_t names_left, names_tries;
	bool unpaused;            /* the sampler could not pause it: read without pausing */
};

struct pyrec {
	struct pybpf *bpf;
	char *reason;
	struct rproc *p;
	size_t n, cap;
	uint64_t stacks;
	char *problem;
	/* BPF stacks of a process not known yet (the kernel registered a forked child whose fork
	 * event was lost): kept until its FORK record names the parent, PENDING_MAX at most. */
	struct pystack_event **pend;
	size_t npend, pcap;
	uint64_t unclaimed;       /* stacks of processes never known (dropped) */
	unsigned depth;           /* Python frames kept per stack (--python-depth) */
	uint32_t gil_flags;       /* PYSTORE_GIL_ONLY, PYSTORE_GIL_MARK for every blob (pyrec_gil) */
	struct py_rawframe *raw;  /* PYREC_MAX_FRAMES each: one stack being cooked */
	struct py_frame *cooked;
	/* The finder: a thread that looks for new interpreters every 2 ms, so that stacks start
	 * right after the interpreter is mapped rather than at the first drained batch (which
	 * would miss the imports of a short run). lock guards p, n and every rproc. */
	pthread_mutex_t lock;
	pthread_t finder;
	bool finder_started, stop;
	/* Without BPF: the threads paused at each tick (python/pysampler.h), unless --nonblocking */
	struct pysampler *sampler;
	uint64_t next_pause;      /* ns */
	bool stopped;             /* the sampler's wait ended on a thread's stop (finder thread's) */
	char method[96];
	char *pause_problem;      /* why a process could not be paused (the first) */
};

struct pyrec *pyrec_new(bool try_bpf)
{
	struct pyrec *r = xcalloc(1, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->depth = PYSTACK_MAX_FRAMES;
	r->raw = xcalloc(PYSTACK_MAX_FRAMES, sizeof(*r->raw));
	r->cooked = xcalloc(PYSTACK_MAX_FRAMES, sizeof(*r->cooked));
	if (try_bpf && getenv("LPERF_NO_BPF")) {
		r->reason = xstrdup("LPERF_NO_BPF is set");
	} else if (try_bpf) {
		r->bpf = pybpf_open();
		if (!r->bpf)
			r->reason = xstrdup(err_msg());
	} else {
		r->reason = xstrdup("BPF not requested");
	}
	return r;
}

void pyrec_attach(struct pyrec *r, const int *fds, size_t n)
{
	if (r->bpf && pybpf_attach(r->bpf, fds, n) < 0) {
		r->reason = xstrdup(err_msg());
		pybpf_close(r->bpf);
		r->bpf = NULL;
	}
}

const char *pyrec_fallback_reason(const struct pyrec *r)
{
	return r->bpf ? NULL : r->reason;
}

const char *pyrec_method(const struct pyrec *r)
{
	struct pysampler_stats ps = { 0 };
	if (r->sampler)
		pysampler_stats(r->sampler, &ps);
	if (r->bpf || ps.ticks)
		return r->bpf ? "BPF at each sample" : r->method;
	/* every Python named its frames itself (-X perf): the reads only extend those */
	size_t py = 0, own = 0;
	for (size_t i = 0; i < r->n; i++) {
		py += r->p[i].state == P_PYTHON;
		own += r->p[i].state == P_PYTHON && (r->p[i].w.flags & PYSTORE_OWN);
	}
	return py && own == py ? "CPython's own -X perf frames, extended by reads between the samples"
			       : "process_vm_readv every millisecond (approximate)";
}

static void ran_free(struct rproc *p)
{
	for (size_t i = 0; i < p->nran; i++)
		if (p->ran[i].fd >= 0)
			close(p->ran[i].fd);
	free(p->ran);
	p->ran = NULL;
	p->nran = p->rancap = 0;
}

static struct rproc *find(struct pyrec *r, pid_t pid)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->p[i].pid == pid)
			return &r->p[i];
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The process a thread belongs to (-p and -t give threads); pid itself when unknown. */
static pid_t tgid_of(pid_t pid)
{
	pid_t tg = proc_tgid(pid);
	return tg ? tg : pid;
}

static void *finder_main(void *arg);
static void note_problem(struct pyrec *r, const char *msg);

static void watch_locked(struct pyrec *r, pid_t pid, bool exec);

void pyrec_watch(struct pyrec *r, pid_t pid, bool exec)
{
	if (pid <= 0)
		return;
	if (!exec)
		pid = tgid_of(pid);
	pthread_mutex_lock(&r->lock);
	watch_locked(r, pid, exec);
	if (!r->finder_started && pthread_create(&r->finder, NULL, finder_main, r) == 0)
		r->finder_started = true;
	pthread_mutex_unlock(&r->lock);
}

/* Is the interpreter found for p still the one mapped (an exec record can arrive after the
 * finder already saw the new program)? */
/* Whether an exec record of a process found running Python is the exec that started that
 * Python (read late: the ring buffers are drained after the look found it) rather than a new
 * program. A process that is gone by then ran the interpreter found: its stacks are kept. */
/* Whether addr still lies in a mapping of lib in pid: no exec has replaced the image since
 * (an exec maps everything anew, elsewhere), or the process is gone (no maps: nothing else can
 * have started there either). */
static bool still_mapped(pid_t pid, const char *lib, uint64_t addr)
{
	char path[48];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return true;
	char line[4096];
	bool in = false, any = false, after_lib = false;
	while (!in && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		int off = 0;
		any = true;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2 || !off)
			continue;
		char *name = line + off;
		name[strcspn(name, "\n")] = 0;
		bool is_lib = !strcmp(name, lib);
		/* 2.7's and 3.6's interp_head is in .bss, whose tail is an unnamed mapping after the
		 * file's last one */
		in = addr >= lo && addr < hi && (is_lib || (!*name && after_lib));
		after_lib = is_lib || (!*name && after_lib);
	}
	fclose(f);
	return in || !any;
}

/* Whether an exec record of a process found running Python is the exec that started that
 * Python (read late: the ring buffers are drained after the look found it, often when the
 * program is finishing and its interpreter is already torn down) rather than a new program. */
static bool same_interpreter(const struct rproc *p)
{
	struct py_proc now;
	int f = pylayout_find(p->pid, &now);
	if (f != 0) {
		err_clear();
		return still_mapped(p->pid, p->rd.proc.lib, p->rd.proc.runtime);
	}
	return now.runtime == p->rd.proc.runtime && !strcmp(now.lib, p->rd.proc.lib);
}

static void watch_locked(struct pyrec *r, pid_t pid, bool exec)
{
	struct rproc *p = find(r, pid);
	if (p && !exec)
		return;
	if (p && p->state == P_PYTHON && p->ppid) {
		/* A forked child that execs (subprocess, multiprocessing's spawn): its stacks so far
		 * were its parent's code; the new program is looked for afresh. */
		if (r->bpf)
			pybpf_remove_proc(r->bpf, pid);
		pyread_free(&p->rd);
		pystore_writer_free(&p->w);
		ran_free(p);
		memset(p, 0, sizeof(*p));
		p->pid = pid;
	} else if (p && p->state == P_PYTHON && same_interpreter(p)) {
		/* the kernel forgets a process at its exec (the BPF program's tracepoint) */
		if (r->bpf)
			pybpf_add_proc(r->bpf, &p->rd.proc, r->depth);
		return;
	}
	if (!p) {
		ALLOC_GROW(r->p, r->n + 1, r->cap);
		p = &r->p[r->n++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
	} else if (p->state == P_PYTHON) {
		/* A Python that execs another program: the first interpreter of a pid is the one
		 * recorded (its code table belongs to that image). */
		if (r->bpf)
			pybpf_remove_proc(r->bpf, pid);
		p->state = P_NONE;
		return;
	}
	p->state = P_LOOKING;
	p->since = now_ns();
	p->once = !exec;
}

static void on_event(const struct pystack_event *e, void *arg);

/* The stacks kept for pid, now that it is known. */
static void replay_pending(struct pyrec *r, pid_t pid)
{
	size_t k = 0;
	for (size_t i = 0; i < r->npend; i++) {
		if ((pid_t)r->pend[i]->pid == pid) {
			on_event(r->pend[i], r);
			free(r->pend[i]);
		} else {
			r->pend[k++] = r->pend[i];
		}
	}
	r->npend = k;
}

/* A new process forked by the Python process ppid (as multiprocessing's fork start method
 * does): it runs the same image, so it is read with its parent's layout at once, with no look
 * at /proc (it may already be gone). false when ppid is no Python known here; true also when
 * pid is known already (the kernel's fork event and the FORK record both say it). */
static bool fork_from(struct pyrec *r, pid_t pid, pid_t ppid)
{
	struct rproc *pp = find(r, ppid);
	if (!pp || pp->state != P_PYTHON)
		return false;
	if (find(r, pid))
		return true;
	struct py_proc proc = pp->rd.proc;
	uint32_t flags = pp->w.flags;
	proc.pid = pid;
	ALLOC_GROW(r->p, r->n + 1, r->cap);
	struct rproc *p = &r->p[r->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	p->state = P_PYTHON;
	pyread_init(&p->rd, &proc);
	p->have_rd = true;
	p->w.flags = flags;
	/* the kernel registered it at the fork when the parent was registered by then */
	if (r->bpf && pybpf_add_proc(r->bpf, &proc, r->depth) < 0)
		note_problem(r, err_msg());
	replay_pending(r, pid);
	return true;
}

static void on_fork(pid_t pid, pid_t ppid, void *arg)
{
	fork_from(arg, pid, ppid);
}

void pyrec_fork(struct pyrec *r, pid_t pid, pid_t ppid)
{
	if (pid <= 0)
		return;
	pthread_mutex_lock(&r->lock);
	bool known = fork_from(r, pid, ppid);
	pthread_mutex_unlock(&r->lock);
	if (!known) /* a process forked by one that is not Python (yet): looked at once */
		pyrec_watch(r, pid, false);
}

static void note_problem(struct pyrec *r, const char *msg)
{
	if (!r->problem)
		r->problem = xstrdup(msg);
}

static void look(struct pyrec *r, struct rproc *p, uint64_t now)
{
	if (now - p->since > 3000000000ull && now - p->last_look < 1000000000ull)
		return;
	p->last_look = now;
	struct py_proc pp;
	int f = pylayout_find(p->pid, &pp);
	bool over = p->once || now - p->since > 30000000000ull;
	/* A command caught in its exec (its maps and memory change under the look) fails for a
	 * moment: only a failure that lasts to the end of the looking counts. */
	if (f < 0 && over) {
		note_problem(r, err_msg());
		p->state = P_NONE;
		return;
	}
	if (f != 0) {
		err_clear();
		if (over)
			p->state = P_NONE;
		return;
	}
	pyread_init(&p->rd, &pp);
	p->have_rd = true;
	p->state = P_PYTHON;
	/* (3.12+ only: an older Python started by one keeps the variable and has no such support) */
	bool v312 = pp.layout.major > 3 || (pp.layout.major == 3 && pp.layout.minor >= 12);
	p->w.flags = (r->bpf ? 0 : r->sampler ? PYSTORE_PAUSED : PYSTORE_APPROX) | (pp.gil_known ? PYSTORE_GIL_KNOWN : 0) |
		     (v312 && pymethod_names_its_frames(p->pid) ? PYSTORE_OWN : 0);
	if (r->bpf && pybpf_add_proc(r->bpf, &pp, r->depth) < 0)
		note_problem(r, err_msg());
	replay_pending(r, p->pid);
}

/* The reader of p's parent, for a forked child (NULL otherwise). */
static struct pyread *parent_reader(struct pyrec *r, const struct rproc *p)
{
	struct rproc *pp = p->ppid ? find(r, p->ppid) : NULL;
	return pp && pp->have_rd ? &pp->rd : NULL;
}

enum { PENDING_MAX = 512, PYREC_MAX_FRAMES = PYSTACK_MAX_FRAMES };
_Static_assert(PYREC_DEPTH_MAX == PYSTACK_MAX_FRAMES, "pyrec.h's bound is the BPF program's");

static void on_event(const struct pystack_event *e, void *arg)
{
	struct pyrec *r = arg;
	struct rproc *p = find(r, (pid_t)e->pid);
	size_t n = e->nframes < PYREC_MAX_FRAMES ? e->nframes : PYREC_MAX_FRAMES;
	if (!p && r->npend < PENDING_MAX) {
		size_t len = PYSTACK_EVENT_HEAD + n * sizeof(e->f[0]);
		ALLOC_GROW(r->pend, r->npend + 1, r->pcap);
		r->pend[r->npend] = xmalloc(len);
		memcpy(r->pend[r->npend++], e, len);
		return;
	}
	if (!p)
		r->unclaimed++;
	if (!p || p->state != P_PYTHON)
		return;
	for (size_t i = 0; i < n; i++)
		r->raw[i] = (struct py_rawframe){ e->f[i].code, e->f[i].lasti_aux & 0x00ffffffffffffffull, e->f[i].sig,
						  (uint8_t)(e->f[i].lasti_aux >> 56) };
	p->rd.parent = parent_reader(r, p);
	size_t k = pyread_cook(&p->rd, r->raw, n, r->cooked, PYREC_MAX_FRAMES);
	p->rd.parent = NULL;
	uint16_t fl = ((e->flags & PYSTACK_TRUNCATED) ? PYSTORE_TRUNCATED : 0) | ((e->flags & PYSTACK_GIL) ? PYSTORE_GIL : 0);
	pystore_add(&p->w, e->time, e->tid, fl, r->cooked, k);
	r->stacks++;
}

/* Did tid run since the last tick (true when its CPU time cannot be read)? */
static bool ran_since(struct rproc *p, int32_t tid)
{
	struct ran *e = NULL;
	for (size_t i = 0; i < p->nran && !e; i++)
		if (p->ran[i].tid == tid)
			e = &p->ran[i];
	if (!e) {
		char path[96];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)p->pid, (int)tid);
		ALLOC_GROW(p->ran, p->nran + 1, p->rancap);
		e = &p->ran[p->nran++];
		*e = (struct ran){ tid, open(path, O_RDONLY | O_CLOEXEC), UINT64_MAX, false };
	}
	e->seen = true;
	char buf[96];
	ssize_t n = e->fd >= 0 ? pread(e->fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return true;
	buf[n] = 0;
	uint64_t cpu = strtoull(buf, NULL, 10);
	bool ran = cpu != e->cpu;
	e->cpu = cpu;
	return ran;
}

/* Forgets the threads not met at this tick (gone). */
static void ran_sweep(struct rproc *p)
{
	size_t k = 0;
	for (size_t i = 0; i < p->nran; i++) {
		if (!p->ran[i].seen) {
			if (p->ran[i].fd >= 0)
				close(p->ran[i].fd);
			continue;
		}
		p->ran[i].seen = false;
		p->ran[k++] = p->ran[i];
	}
	p->nran = k;
}

/* The fallback: every thread's stack as it is now; tick: only the threads that ran since the
 * last tick (the others' last stack still holds); only (n of them): those threads' alone. */
static void read_stacks(struct pyrec *r, struct rproc *p, uint64_t now, bool tick, const int32_t *only, size_t n_only)
{
	int nt = pyread_threads_all(&p->rd);
	struct py_thread *th = p->rd.th;
	uint64_t holder = nt > 0 ? pygil_holder(&p->rd.proc) : 0;
	for (int t = 0; t < nt; t++) {
		int32_t tid = pyread_tid(&p->rd, &th[t]);
		bool wanted = !only;
		for (size_t i = 0; i < n_only && !wanted; i++)
			wanted = only[i] == tid;
		if (!tid || !wanted || (tick && !ran_since(p, tid)))
			continue;
		bool trunc;
		size_t n = pyread_stack(&p->rd, th[t].tstate, r->raw, r->depth, &trunc);
		p->rd.parent = parent_reader(r, p);
		size_t k = pyread_cook(&p->rd, r->raw, n, r->cooked, PYREC_MAX_FRAMES);
		p->rd.parent = NULL;
		if (!k)
			continue;
		uint16_t fl = (trunc ? PYSTORE_TRUNCATED : 0) | (holder && th[t].tstate == holder ? PYSTORE_GIL : 0);
		pystore_add(&p->w, now, (uint32_t)tid, fl, r->cooked, k);
		r->stacks++;
	}
	if (tick)
		ran_sweep(p);
}

/* The threads' Python names (threading.Thread.name), stored with the stacks: at once when a
 * thread without one shows up, then every 5 ms (10 tries: a short thread may be gone soon) and
 * every 100 ms (10 more) while it has none, else every second (a rename), and at the end (now
 * 0). */
static void read_names(struct rproc *p, uint64_t now)
{
	bool more = p->w.unnamed > p->names_left;
	if (p->w.unnamed != p->names_left)
		p->names_tries = 0;
	uint64_t every = !p->w.unnamed || p->names_tries >= 20 ? 1000000000ull
			 : p->names_tries >= 10 ? 100000000ull : 5000000ull;
	if (now && p->names_at && !more && now - p->names_at < every)
		return;
	p->names_at = now ? now : 1;
	pythname_store(&p->rd, &p->w);
	err_clear();
	p->names_left = p->w.unnamed;
	p->names_tries++;
}

/* The sampler's hook: the stacks of the threads it stopped, with the sample's time. */
static void paused_read(void *arg, pid_t pid, const int32_t *tids, size_t n, uint64_t time)
{
	struct pyrec *r = arg;
	struct rproc *p = find(r, pid);
	if (p && p->state == P_PYTHON)
		read_stacks(r, p, time, false, tids, n);
}

/* A tick of the sampler over every Python process it may pause; those it cannot (and -X perf's)
 * are read here, without pausing (said once, at the end): *reads then. Whether any was read. */
static bool pause_tick(struct pyrec *r, uint64_t now, bool *reads)
{
	bool any = false;
	for (size_t i = 0; i < r->n; i++) {
		struct rproc *p = &r->p[i];
		if (p->state != P_PYTHON)
			continue;
		any = true;
		/* a Python that names its frames itself (-X perf) keeps the kernel's samples, whose
		 * unwinding names them; its frames read here only extend those */
		if (!p->unpaused && (p->w.flags & PYSTORE_OWN)) {
			p->unpaused = true;
			p->w.flags = (p->w.flags & ~(uint32_t)PYSTORE_PAUSED) | PYSTORE_APPROX;
		}
		if (!p->unpaused && pysampler_tick(r->sampler, p->pid, paused_read, r) < 0) {
			p->unpaused = true;
			p->w.flags = (p->w.flags & ~(uint32_t)PYSTORE_PAUSED) | PYSTORE_APPROX;
			if (!r->pause_problem)
				r->pause_problem = xasprintf("%s: its Python stacks were read without pausing "
							     "(approximate)", err_msg());
		}
		if ((*reads |= p->unpaused))
			read_stacks(r, p, now, true, NULL, 0);
	}
	pysampler_sweep(r->sampler);
	return any;
}

static bool look_all(struct pyrec *r, uint64_t now)
{
	bool looking = false;
	for (size_t i = 0; i < r->n; i++)
		if (r->p[i].state == P_LOOKING) {
			look(r, &r->p[i], now);
			/* the fast cadence only in a process's first 3 s (then look() takes one a second) */
			looking |= r->p[i].state == P_LOOKING && now - r->p[i].since <= 3000000000ull;
		}
	return looking;
}

static void *finder_main(void *arg)
{
	struct pyrec *r = arg;
	for (;;) {
		pthread_mutex_lock(&r->lock);
		uint64_t now = now_ns();
		bool stop = r->stop, looking = !stop && look_all(r, now), reading = false, reads = false;
		/* Without BPF, the tick: the stacks of the threads that ran, every millisecond (as
		 * --python's 999 Hz samples come), so that a sample is joined with a stack read a
		 * millisecond or so from it rather than at the batch (~100 ms). */
		bool pausing = !stop && r->sampler;
		if (pausing && now >= r->next_pause) { /* fast ticks while they read a process */
			pausing = pause_tick(r, now, &reads);
			r->next_pause = now_ns() + pysampler_next_wait(r->sampler, reads);
		} else if (pausing && r->stopped) /* a thread stopped at its CPU-time alarm */
			pysampler_events(r->sampler, paused_read, r);
		r->stopped = false;
		for (size_t i = 0; !stop && !r->bpf && !r->sampler && i < r->n; i++)
			if (r->p[i].state == P_PYTHON) {
				read_stacks(r, &r->p[i], now_ns(), true, NULL, 0);
				reading = true;
			}
		for (size_t i = 0; !stop && i < r->n; i++)
			if (r->p[i].state == P_PYTHON)
				read_names(&r->p[i], now);
		/* With BPF, the stacks queued are named here too, every few milliseconds, while
		 * their process still lives to be asked about its code objects: a short program
		 * has often ended before the recorder's next batch. */
		bool draining = false;
		for (size_t i = 0; !stop && r->bpf && i < r->n && !draining; i++)
			draining = r->p[i].state == P_PYTHON;
		if (draining && pybpf_drain(r->bpf, on_event, on_fork, r) < 0)
			note_problem(r, err_msg());
		uint64_t took = now_ns() - now, until_pause = r->sampler && r->next_pause > now_ns() ? r->next_pause - now_ns() : 0;
		if (stop && r->sampler) /* nothing stays traced (the thread's end would detach too) */
			pysampler_release_all(r->sampler);
		pthread_mutex_unlock(&r->lock);
		if (stop)
			return NULL;
		/* the reads take a third of a core at most (deep stacks, many threads) */
		uint64_t wait = reading ? 2 * took : looking ? 2000000 : draining ? 5000000 : 20000000;
		if (reading && wait < 1000000)
			wait = 1000000;
		if (wait > 100000000)
			wait = 100000000;
		if (pausing && until_pause < wait) /* pauses take half the time at most */
			wait = until_pause > took ? until_pause : took;
		struct timespec ts = { 0, (long)wait };
		if (pausing) /* woken early by a stop of a thread it traces */
			r->stopped = pysampler_block(r->sampler, wait);
		else
			nanosleep(&ts, NULL);
	}
}

void pyrec_poll(struct pyrec *r, uint64_t now)
{
	if (!now)
		now = now_ns();
	pthread_mutex_lock(&r->lock);
	look_all(r, now);
	if (r->bpf) {
		if (pybpf_drain(r->bpf, on_event, on_fork, r) < 0)
			note_problem(r, err_msg());
	} else {
		for (size_t i = 0; i < r->n; i++)
			if (r->p[i].state == P_PYTHON)
				if (!r->sampler || r->p[i].unpaused)
					read_stacks(r, &r->p[i], now, false, NULL, 0);
	}
	pthread_mutex_unlock(&r->lock);
}

static void finder_stop(struct pyrec *r)
{
	if (!r->finder_started)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->finder, NULL);
	r->finder_started = false;
}

/* Each process's blob; drop: the stacks are forgotten once handed over. */
static void hand_over(struct pyrec *r, void (*add)(void *arg, int32_t pid, const uint8_t *blob, size_t len),
		      void *arg, bool drop)
{
	for (size_t i = 0; i < r->n; i++) {
		struct rproc *p = &r->p[i];
		if (!p->have_rd || !p->w.nstacks)
			continue;
		size_t len;
		p->w.flags |= r->gil_flags;
		uint8_t *b = pystore_finish(&p->w, &p->rd, &len);
		add(arg, (int32_t)p->pid, b, len);
		free(b);
		if (drop) {
			p->w.len = 0;
			p->w.nstacks = 0;
		}
	}
}

void pyrec_store(struct pyrec *r, void (*add)(void *arg, int32_t pid, const uint8_t *blob, size_t len), void *arg)
{
	finder_stop(r);
	for (size_t i = 0; i < r->n; i++)
		if (r->p[i].state == P_PYTHON)
			read_names(&r->p[i], 0);
	hand_over(r, add, arg, false);
}

void pyrec_take(struct pyrec *r, void (*add)(void *arg, int32_t pid, const uint8_t *blob, size_t len), void *arg)
{
	hand_over(r, add, arg, true);
}

void pyrec_gil(struct pyrec *r, uint32_t flags)
{
	r->gil_flags = flags & (PYSTORE_GIL_ONLY | PYSTORE_GIL_MARK);
}

void pyrec_stats(const struct pyrec *r, struct pyrec_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->n; i++) {
		out->procs += r->p[i].state == P_PYTHON;
		out->gil_unknown += r->p[i].state == P_PYTHON && !r->p[i].rd.proc.gil_known;
	}
	out->stacks = r->stacks;
	out->dropped = r->bpf ? pybpf_dropped(r->bpf) : 0;
	out->problem = r->problem;
	out->pause_problem = r->pause_problem;
	if (r->sampler) {
		struct pysampler_stats ps;
		pysampler_stats(r->sampler, &ps);
		out->pauses = ps.ticks;
		out->pause_mean_ns = ps.ticks ? ps.pause_ns / ps.ticks : 0;
		out->pause_max_ns = ps.pause_max_ns;
		out->pause_hz = ps.hz;
	}
}

struct pyrec *pyrec_start(const int *fds, size_t nfds, pid_t pid, bool command, const pid_t *tids, size_t ntids,
			  unsigned depth)
{
	struct pyrec *r = pyrec_new(true);
	if (depth && depth < PYSTACK_MAX_FRAMES)
		r->depth = depth;
	pyrec_attach(r, fds, nfds);
	if (pid > 0)
		pyrec_watch(r, pid, command); /* a command is about to exec */
	for (size_t i = 0; i < ntids; i++)
		pyrec_watch(r, tids[i], false);
	pyrec_poll(r, 0);
	return r;
}

char *pyrec_fallback_line(const struct pyrec *r)
{
	const char *why = pyrec_fallback_reason(r);
	unsigned asked = 0, hz = r->sampler ? pysampler_hz(r->sampler, &asked) : 0;
	if (why && r->sampler)
		return xasprintf("--python: no BPF (%s): pausing the threads that run (%u samples a second of their CPU "
				 "time%s%.0u%s) to read their Python and native stacks at one instant (ptrace; exact; a "
				 "Python under -X perf keeps CPython's own frames)", why, hz,
				 asked ? ", lowered from " : "", asked, asked ? ": each pause costs the process 0.05-0.2 ms" : "");
	return why ? xasprintf("--python: no BPF (%s): reading Python stacks with process_vm_readv every "
			       "millisecond instead (approximate)", why) : NULL;
}

char *pyrec_pause(struct pyrec *r, const struct perf_event_attr *attrs, size_t nev, uint64_t id, bool nonblocking, bool hz_given)
{
	if (r->bpf || nonblocking)
		return NULL;
	const struct perf_event_attr *a = &attrs[0];
	bool clock = nev == 1 && a->type == PERF_TYPE_SOFTWARE &&
		     (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
	if (!clock)
		return xstrdup("--python: the threads are paused for exact stacks only with a cpu-clock or "
			       "task-clock event alone: reading without pausing (approximate)");
	struct pysampler *s = pysampler_new(a, id, hz_given);
	if (!s)
		return xasprintf("--python: %s: reading without pausing (approximate)", err_msg());
	pthread_mutex_lock(&r->lock);
	r->sampler = s;
	snprintf(r->method, sizeof(r->method), "threads paused at each sample, ptrace, %u Hz", pysampler_hz(s, NULL));
	for (size_t i = 0; i < r->n; i++)
		if (r->p[i].state == P_PYTHON)
			r->p[i].w.flags = (r->p[i].w.flags & ~(uint32_t)PYSTORE_APPROX) | PYSTORE_PAUSED;
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int pyrec_flush(struct pyrec *r, record_cb cb, void *arg)
{
	return r->sampler ? pysampler_drain(r->sampler, cb, arg) : 0;
}

bool pyrec_replaced(struct pyrec *r, const struct evsel_set *s, const struct perf_event_header *h)
{
	struct perf_sample smp;
	if (r->sampler && h->type == PERF_RECORD_SAMPLE && sample_parse(s, h, &smp) == 0)
		return pysampler_replaces_on(r->sampler, smp.pid, smp.time, smp.cpu);
	err_clear();
	return false;
}

uint64_t pyrec_lost_replaced(struct pyrec *r, const struct evsel_set *s, const struct perf_event_header *h)
{
	struct perf_sample id;
	struct rec_lost l;
	if (r->sampler && h->type == PERF_RECORD_LOST && record_parse_lost(h, &l) == 0 && sample_id_parse(s, h, &id) == 0)
		return pysampler_lost(r->sampler, id.pid, id.time, id.cpu) ? l.lost : 0;
	err_clear();
	return 0;
}

void pyrec_free(struct pyrec *r)
{
	if (!r)
		return;
	finder_stop(r);
	pthread_mutex_destroy(&r->lock);
	for (size_t i = 0; i < r->n; i++) {
		if (r->p[i].have_rd)
			pyread_free(&r->p[i].rd);
		pystore_writer_free(&r->p[i].w);
		ran_free(&r->p[i]);
	}
	free(r->p);
	for (size_t i = 0; i < r->npend; i++)
		free(r->pend[i]);
	free(r->pend);
	free(r->raw);
	free(r->cooked);
	pybpf_close(r->bpf);
	free(r->reason);
	free(r->problem);
	free(r->pause_problem);
	pysampler_free(r->sampler);
	free(r);
}
