#include "python/pybpf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/xalloc.h"

#ifdef LPERF_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pystack.skel.h"

struct pybpf {
	struct pystack *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t nlinks, lcap;
	pybpf_cb cb;
	pybpf_fork_cb fork_cb;
	void *cb_arg;
	bool follows_forks;       /* the fork/exec/exit tracepoint programs are attached */
};

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct pybpf *b = ctx;
	const struct pystack_fork *f = data;
	if (size >= sizeof(*f) && (f->flags & PYSTACK_FORK)) {
		if (b->fork_cb)
			b->fork_cb((pid_t)f->pid, (pid_t)f->ppid, b->cb_arg);
	} else if (size >= PYSTACK_EVENT_HEAD && b->cb) {
		const struct pystack_event *e = data;
		if (e->nframes <= PYSTACK_MAX_FRAMES &&
		    size >= PYSTACK_EVENT_HEAD + (size_t)e->nframes * sizeof(struct pystack_frame))
			b->cb(e, b->cb_arg);
	}
	return 0;
}

/* The skeleton opened and loaded; with_tp false: without the fork/exec/exit programs (a kernel
 * whose BTF lacks the tracepoints still gets the sample walker). 0 or a positive errno. */
static int load(struct pybpf *b, bool with_tp)
{
	b->skel = pystack__open();
	if (!b->skel)
		return errno ? errno : EINVAL;
	if (!with_tp) {
		bpf_program__set_autoload(b->skel->progs.pystack_fork, false);
		bpf_program__set_autoload(b->skel->progs.pystack_exec, false);
		bpf_program__set_autoload(b->skel->progs.pystack_exit, false);
	}
	int r = pystack__load(b->skel);
	if (!r)
		return 0;
	int e = r < 0 ? -r : errno;
	pystack__destroy(b->skel);
	b->skel = NULL;
	return e ? e : EINVAL;
}

/* The tracepoint programs, all or none (the fork copy without the exec removal would walk a new
 * program with the old image's offsets). */
static void attach_tracepoints(struct pybpf *b)
{
	struct bpf_program *progs[] = { b->skel->progs.pystack_exec, b->skel->progs.pystack_exit,
					b->skel->progs.pystack_fork };
	size_t i;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_link *l = bpf_program__attach(progs[i]);
		if (!l)
			break;
		ALLOC_GROW(b->links, b->nlinks + 1, b->lcap);
		b->links[b->nlinks++] = l;
	}
	if (i < sizeof(progs) / sizeof(progs[0])) {
		while (b->nlinks)
			bpf_link__destroy(b->links[--b->nlinks]);
		return;
	}
	b->follows_forks = true;
}

struct pybpf *pybpf_open(void)
{
	libbpf_set_print(silent);
	struct pybpf *b = xcalloc(1, sizeof(*b));
	/* LPERF_NO_BPF_FORKS: as on a kernel without the tracepoints (user space follows forks). */
	bool want_tp = !getenv("LPERF_NO_BPF_FORKS");
	int e = want_tp ? load(b, true) : EINVAL;
	bool with_tp = !e;
	if (e && e != EPERM && e != EACCES)
		e = load(b, false);
	if (e) {
		err_set("cannot load lperf's BPF program: %s%s", strerror(e),
			e == EPERM || e == EACCES ? " (needs root or CAP_BPF and CAP_PERFMON)" : "");
		free(b);
		return NULL;
	}
	if (with_tp)
		attach_tracepoints(b);
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), on_event, b, NULL);
	if (!b->rb) {
		err_set("cannot map the BPF ring buffer: %s", strerror(errno));
		pystack__destroy(b->skel);
		free(b);
		return NULL;
	}
	return b;
}

int pybpf_attach(struct pybpf *b, const int *fds, size_t n)
{
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		struct bpf_link *l = bpf_program__attach_perf_event(b->skel->progs.pystack_sample, fds[i]);
		if (!l) /* a tracepoint event takes only a tracepoint program */
			l = bpf_program__attach_perf_event(b->skel->progs.pystack_tracepoint, fds[i]);
		if (!l) {
			err = errno;
			continue;
		}
		ALLOC_GROW(b->links, b->nlinks + 1, b->lcap);
		b->links[b->nlinks++] = l;
	}
	if (!b->nlinks)
		return err_set("cannot attach the BPF program to the sampling events: %s",
			       err ? strerror(err) : "no event");
	return 0;
}

static unsigned int u(int32_t v)
{
	return v < 0 ? 0xffffffffu : (unsigned int)v;
}

int pybpf_add_proc(struct pybpf *b, const struct py_proc *p, unsigned depth)
{
	const struct py_layout *l = &p->layout;
	struct pystack_proc c = {
		.runtime = p->runtime,
		.runtime_interp_head = u(l->runtime_interp_head),
		.interp_tstate_head = u(l->interp_tstate_head),
		.tstate_next = u(l->tstate_next),
		.tstate_thread_id = u(l->tstate_thread_id),
		.tstate_frame = u(l->tstate_frame),
		.cframe_current = u(l->cframe_current),
		.frame_back = u(l->frame_back),
		.frame_code = u(l->frame_code),
		.frame_lasti = u(l->frame_lasti),
		.frame_aux = u(l->frame_is_entry >= 0 ? l->frame_is_entry : l->frame_owner),
		.lasti_is_int = l->frame_kind == PY_FRAME_OBJECT,
		.code_name = u(l->code_name),
		.code_filename = u(l->code_filename),
		.code_firstlineno = u(l->code_firstlineno),
		.max_frames = depth && depth < PYSTACK_MAX_FRAMES ? depth : PYSTACK_MAX_FRAMES,
		.gil = p->gil,
		.interp_gil = u(l->interp_gil),
		.gil_locked = u(l->gil_locked),
		.gil_holder = u(l->gil_holder),
		.gil_known = p->gil_known,
	};
	__u32 pid = (__u32)p->pid;
	if (bpf_map__update_elem(b->skel->maps.procs, &pid, sizeof(pid), &c, sizeof(c), BPF_ANY))
		return err_set("cannot register pid %d with the BPF program: %s", (int)pid, strerror(errno));
	return 0;
}

void pybpf_remove_proc(struct pybpf *b, int pid)
{
	__u32 k = (__u32)pid;
	bpf_map__delete_elem(b->skel->maps.procs, &k, sizeof(k), 0);
}

bool pybpf_follows_forks(const struct pybpf *b)
{
	return b->follows_forks;
}

long pybpf_drain(struct pybpf *b, pybpf_cb cb, pybpf_fork_cb fork_cb, void *arg)
{
	b->cb = cb;
	b->fork_cb = fork_cb;
	b->cb_arg = arg;
	int n = ring_buffer__consume(b->rb);
	return n < 0 ? err_set("reading the BPF ring buffer: %s", strerror(-n)) : n;
}

uint64_t pybpf_dropped(struct pybpf *b)
{
	__u32 k = 0;
	__u64 v = 0;
	if (bpf_map__lookup_elem(b->skel->maps.dropped, &k, sizeof(k), &v, sizeof(v), 0))
		return 0;
	return v;
}

void pybpf_close(struct pybpf *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	free(b->links);
	ring_buffer__free(b->rb);
	pystack__destroy(b->skel);
	free(b);
}

#else /* !LPERF_HAVE_BPF */

struct pybpf *pybpf_open(void)
{
	err_set("this lperf was built without libbpf");
	return NULL;
}
int pybpf_attach(struct pybpf *b, const int *fds, size_t n) { return -1; }
int pybpf_add_proc(struct pybpf *b, const struct py_proc *p, unsigned depth) { return -1; }
void pybpf_remove_proc(struct pybpf *b, int pid) {}
bool pybpf_follows_forks(const struct pybpf *b) { return false; }
long pybpf_drain(struct pybpf *b, pybpf_cb cb, pybpf_fork_cb fork_cb, void *arg) { return -1; }
uint64_t pybpf_dropped(struct pybpf *b) { return 0; }
void pybpf_close(struct pybpf *b) {}

#endif
