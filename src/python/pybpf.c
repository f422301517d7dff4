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
	void *cb_arg;
};

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct pybpf *b = ctx;
	if (size >= sizeof(struct pystack_event) && b->cb)
		b->cb(data, b->cb_arg);
	return 0;
}

struct pybpf *pybpf_open(void)
{
	libbpf_set_print(silent);
	struct pybpf *b = xcalloc(1, sizeof(*b));
	b->skel = pystack__open();
	if (!b->skel) {
		err_set("cannot open lperf's BPF program: %s", strerror(errno));
		free(b);
		return NULL;
	}
	int r = pystack__load(b->skel);
	if (r) {
		int e = r < 0 ? -r : errno;
		err_set("cannot load lperf's BPF program: %s%s", strerror(e),
			e == EPERM || e == EACCES ? " (needs root or CAP_BPF and CAP_PERFMON)" : "");
		pystack__destroy(b->skel);
		free(b);
		return NULL;
	}
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
		if (!l) {
			err = errno; /* tracepoints take only tracepoint programs: skipped */
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

int pybpf_add_proc(struct pybpf *b, const struct py_proc *p)
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

long pybpf_drain(struct pybpf *b, pybpf_cb cb, void *arg)
{
	b->cb = cb;
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
int pybpf_add_proc(struct pybpf *b, const struct py_proc *p) { return -1; }
void pybpf_remove_proc(struct pybpf *b, int pid) {}
long pybpf_drain(struct pybpf *b, pybpf_cb cb, void *arg) { return -1; }
uint64_t pybpf_dropped(struct pybpf *b) { return 0; }
void pybpf_close(struct pybpf *b) {}

#endif
