#include "live/live.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "events/evlist.h"
#include "kernel/perf_event.h"
#include "live/live_aux.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

#define LIVE_DEFAULT_PAGES 128
#define LIVE_DEFAULT_FREQ 4000
#define LIVE_DEFAULT_STACK 8192
#define LIVE_MAX_STACK 65528 /* the whole sample must fit header.size, a u16 */

uint64_t live_user_regs_mask(void)
{
#if defined(__x86_64__)
	/* AX..SS (0-11) and R8-R15 (16-23); DS/ES/FS/GS (12-15) are invalid in 64-bit mode. */
	return 0xff0fffULL;
#elif defined(__aarch64__)
	return (1ULL << 33) - 1; /* X0-X30, SP, PC */
#else
	return 0;
#endif
}

static size_t fd_index(const struct live *l, size_t e, size_t col, size_t row)
{
	return (e * l->ncols + col) * l->nrows + row;
}

size_t live_mmap_pages(size_t asked, enum live_callchain callchain)
{
	if (asked)
		return asked;
	/* Stack copies make samples 30 to 100 times larger: give them room, where the locked-memory
	 * budget allows (root; others keep perf's default and see lost samples reported). At 10 kHz
	 * a CPU writes 80 MB/s of 8 KiB stacks; 16 MiB is 200 ms for the reader (sample unwinds as
	 * it reads) to catch up after a stall. */
	if (callchain != LIVE_CG_DWARF || geteuid() != 0)
		return LIVE_DEFAULT_PAGES;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	if (ncpu < 1)
		ncpu = 1;
	if (page < 4096)
		page = 4096;
	size_t want = (size_t)(256u << 20) / (size_t)ncpu / (size_t)page, pages = 1024;
	while (pages < 4096 && pages * 2 <= want)
		pages *= 2;
	return pages;
}

static int check_opts(const struct live_opts *o, size_t *pages, uint32_t *stack)
{
	if (!o->ncpus && !o->npids)
		return err_set("nothing to sample: give CPUs (CPU-wide) or tasks");
	if (o->inherit && !o->ncpus)
		return err_set("following child tasks (inherit) needs per-CPU ring buffers: the kernel "
			       "cannot map an inherited per-task event on any CPU; pass the CPU list "
			       "(e.g. all online CPUs) with the tasks");
	*pages = o->mmap_pages ? o->mmap_pages : LIVE_DEFAULT_PAGES;
	if (*pages & (*pages - 1))
		return err_set("ring buffer size: %zu pages is not a power of two (-m takes 1, 2, 4, "
			       "8, ... pages)", *pages);
	*stack = 0;
	if (o->callchain == LIVE_CG_DWARF) {
		if (!live_user_regs_mask())
			return err_set("DWARF call graphs are not supported on this architecture; use "
				       "frame pointers (--call-graph fp)");
		uint64_t s = o->stack_size ? o->stack_size : LIVE_DEFAULT_STACK;
		s = (s + 7) & ~7ULL;
		if (s > LIVE_MAX_STACK)
			return err_set("DWARF stack dump size %u is too large: at most %d bytes fit a "
				       "sample record", o->stack_size, LIVE_MAX_STACK);
		*stack = (uint32_t)s;
	}
	return 0;
}

/* The attr event e is opened with: the user's event plus the sampling settings. */
static void sampling_attr(struct live *l, size_t e, const struct live_opts *o, uint32_t stack,
			  uint64_t freq)
{
	const struct ev *ev = &l->evl->ev[e];
	struct perf_event_attr *a = &l->attrs[e];
	*a = ev->attr;
	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CPU;
	/* With several events a reader must tell their samples apart; IDENTIFIER sits at a fixed
	 * place (first in samples, last in trailers). */
	if (l->nev > 1)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (o->callchain != LIVE_CG_NONE) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = o->exclude_callchain_kernel;
	}
#if defined(__aarch64__)
	/* Frame-pointer chains on AArch64 miss a leaf's caller (the leaf keeps no frame record):
	 * the link register is sampled to put it back at report time, as perf does
	 * (resolve/resolve.c). */
	if (o->callchain == LIVE_CG_FP && !a->exclude_callchain_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= 1ULL << 30; /* PERF_REG_ARM64_LR */
	}
#endif
	if (o->branch_sample_type) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_sample_type;
	}
	if (o->sample_regs_intr) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = o->sample_regs_intr;
	}
	if (ev->source == EV_SRC_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW; /* the tracepoint's fields, as perf records them */
	a->sample_type |= o->sample_type_extra;
	if (ev->offcpu) /* the fields of the samples kernel/offcpu.c writes */
		a->sample_type = (a->sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)) |
			PERF_SAMPLE_CALLCHAIN;
	if (o->callchain == LIVE_CG_DWARF && !ev->offcpu) {
		/* The user part is unwound offline from registers and stack; the kernel keeps
		 * giving the kernel part of the chain, as perf records it. */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = live_user_regs_mask();
		a->sample_stack_user = stack;
		a->exclude_callchain_user = 1;
	}
	a->freq = 0;
	if (ev->period) {
		a->sample_period = ev->period;
	} else if (o->period) {
		a->sample_period = o->period;
	} else if (ev->source == EV_SRC_TRACEPOINT) {
		a->sample_period = 1; /* every hit, as perf samples tracepoints */
	} else {
		a->freq = 1;
		a->sample_freq = freq;
	}
	if (ev->offcpu) { /* as perf opens it: the event never fires, lperf writes its samples */
		a->freq = 1;
		a->sample_freq = 1;
	}
	a->read_format = PERF_FORMAT_ID;
	bool leader = ev->leader == e;
	/* Members follow their leader: only leaders are enabled (group ioctl or exec). */
	a->disabled = leader;
	a->enable_on_exec = leader && o->enable_on_exec;
	a->inherit = o->inherit;
	a->sample_id_all = 1;
	a->use_clockid = o->use_clockid;
	a->clockid = o->use_clockid ? o->clockid : 0;
	if (o->exclude_kernel && !ev->user_mods) {
		a->exclude_kernel = a->exclude_hv = 1;
		l->kernel_excluded |= ev->source != EV_SRC_TRACEPOINT;
	}
	/* Side-band (maps, names, fork/exit) once per CPU or task: on the first event only. */
	if (e == 0) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		/* BPF programs loaded or unloaded during the run (their code named in the recording) */
		a->ksymbol = 1;
		a->bpf_event = !o->no_bpf_event;
		/* DWARF unwinders (perf's too) need the non-executable segments as well: that is
		 * where .eh_frame_hdr lives, and [stack] tells where the stack is. With -d, the
		 * mappings data addresses fall in. */
		a->mmap_data = o->callchain == LIVE_CG_DWARF || o->mmap_data;
	}
	live_aux_attr(l, e, a, ev->period ? ev->period : o->period); /* SPE: live_aux.c */
}

/* Explains a failed open: sampling-specific causes first, then the counting explanations. */
static int explain_open_error(struct live *l, size_t e, int err, pid_t pid, int cpu)
{
	struct ev tmp = l->evl->ev[e];
	tmp.attr = l->attrs[e];
	if (err == EOPNOTSUPP || err == EINVAL) {
		/* Does it count? Then the PMU just cannot sample (uncore, msr...). */
		struct perf_event_attr a = tmp.attr;
		a.sample_period = 0;
		a.freq = 0;
		a.sample_type = 0;
		a.sample_regs_user = 0;
		a.sample_stack_user = 0;
		a.exclude_callchain_user = 0;
		a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = a.ksymbol = a.bpf_event = 0;
		a.inherit = 0;
		a.read_format = 0;
		a.use_clockid = 0;
		a.clockid = 0;
		a.branch_sample_type = 0;
		int fd = pe_open(&a, pid, cpu, -1, 0);
		if (fd >= 0) {
			close(fd);
			if (l->attrs[e].branch_sample_type)
				return err_set("cannot sample the branch stack of event '%s': the %s PMU does not "
					       "record branches (%s)", tmp.name, tmp.pmu ? tmp.pmu : "kernel",
					       strerror(err));
			if (l->attrs[e].use_clockid)
				return err_set("cannot sample event '%s' with clock %d: the kernel rejected "
					       "the clock (%s)", tmp.name, l->attrs[e].clockid, strerror(err));
			return err_set("cannot sample event '%s': the %s PMU counts it but cannot sample "
				       "it (%s); count it with 'lperf stat -e %s'", tmp.name,
				       tmp.pmu ? tmp.pmu : "kernel", strerror(err), tmp.name);
		}
	}
	return pe_explain_error(&tmp, err, pid, cpu);
}

static int open_one(struct live *l, size_t e, size_t col, size_t row)
{
	struct ev *ev = &l->evl->ev[e];
	int group_fd = -1;
	if (ev->leader != e) {
		group_fd = l->fds[fd_index(l, ev->leader, col, row)];
		if (group_fd < 0) {
			errno = EINVAL;
			return -1;
		}
	}
	struct perf_event_attr a = l->attrs[e];
	int fd = pe_open(&a, l->pids[row], l->cpus[col], group_fd, 0);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !ev->user_mods && !a.exclude_kernel) {
		/* Kernel sampling forbidden by perf_event_paranoid: user mode only, as perf does.
		 * The kept attr changes too, so every fd of the event and perf.data agree. */
		a = l->attrs[e];
		a.exclude_kernel = a.exclude_hv = 1;
		fd = pe_open(&a, l->pids[row], l->cpus[col], group_fd, 0);
		if (fd >= 0) {
			l->attrs[e].exclude_kernel = l->attrs[e].exclude_hv = 1;
			l->kernel_excluded = true;
		}
	}
	if (fd < 0 && errno == EINVAL && (a.ksymbol || a.bpf_event)) {
		/* A kernel before 5.1 has neither: without them, as perf retries (every fd and
		 * perf.data agree) */
		struct perf_event_attr b = a;
		b.ksymbol = b.bpf_event = 0;
		fd = pe_open(&b, l->pids[row], l->cpus[col], group_fd, 0);
		if (fd >= 0)
			l->attrs[e].ksymbol = l->attrs[e].bpf_event = 0;
		else
			errno = EINVAL;
	}
	l->fds[fd_index(l, e, col, row)] = fd;
	return fd;
}

static int open_all(struct live *l)
{
	for (size_t e = 0; e < l->nev; e++) {
		for (size_t col = 0; col < l->ncols; col++) {
			for (size_t row = 0; row < l->nrows; row++) {
				int fd = open_one(l, e, col, row);
				if (fd >= 0) {
					uint64_t id = 0;
					if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
						return err_set("cannot read the id of event '%s': %s",
							       l->evl->ev[e].name, strerror(errno));
					l->fd_ids[fd_index(l, e, col, row)] = id;
					l->ids[e][l->nids[e]++] = id;
					continue;
				}
				int err = errno;
				/* A thread that exited since it was listed is not an error. */
				if (err == ESRCH && l->nrows > 1)
					continue;
				if (err == EINVAL && l->evl->ev[e].leader != e &&
				    l->fds[fd_index(l, l->evl->ev[e].leader, col, row)] < 0)
					continue; /* its leader's thread is gone */
				return explain_open_error(l, e, err, l->pids[row], l->cpus[col]);
			}
		}
	}
	return 0;
}

/* One buffer per CPU column, or per task row when the tasks run on any CPU; the first fd of
 * each is mapped and the others redirected into it. */
static int map_all(struct live *l, size_t pages)
{
	bool per_cpu = l->cpus[0] >= 0;
	l->nrbs = per_cpu ? l->ncols : l->nrows;
	l->rbs = xcalloc(l->nrbs, sizeof(*l->rbs));
	for (size_t b = 0; b < l->nrbs; b++) {
		struct ringbuf *rb = &l->rbs[b];
		rb->fd = -1;
		rb->cpu = per_cpu ? l->cpus[b] : -1;
		rb->pid = per_cpu ? -1 : l->pids[b];
		for (size_t e = 0; e < l->nev; e++) {
			for (size_t i = 0; i < (per_cpu ? l->nrows : l->ncols); i++) {
				size_t col = per_cpu ? b : i, row = per_cpu ? i : b;
				int fd = l->fds[fd_index(l, e, col, row)];
				if (fd < 0)
					continue;
				if (!rb->base) {
					if (ringbuf_map(rb, fd, pages) < 0) {
						if (per_cpu)
							return err_wrap("CPU %d", l->cpus[b]);
						return err_wrap("task %d", (int)l->pids[b]);
					}
					rb->cpu = per_cpu ? l->cpus[b] : -1;
					rb->pid = per_cpu ? -1 : l->pids[b];
					continue;
				}
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rb->fd) < 0)
					return err_set("cannot direct event '%s' into the ring buffer of "
						       "%s %d: %s", l->evl->ev[e].name,
						       per_cpu ? "CPU" : "task",
						       per_cpu ? l->cpus[b] : (int)l->pids[b],
						       strerror(errno));
			}
		}
	}
	return 0;
}

static uint64_t effective_freq(struct live *l, const struct live_opts *o)
{
	uint64_t freq = o->freq ? o->freq : LIVE_DEFAULT_FREQ;
	uint64_t max;
	if (file_read_u64("/proc/sys/kernel/perf_event_max_sample_rate", &max) == 0 && max > 0 &&
	    freq > max) {
		/* The kernel refuses a higher frequency (EINVAL); perf lowers it the same way. */
		l->freq_max = max;
		l->freq_asked = freq;
		freq = max;
	}
	err_clear();
	return freq;
}

void live_open_notes(const struct live *l, struct notes *ns)
{
	if (l->freq_max)
		notes_add(ns, "the maximum sampling frequency (%" PRIu64 " Hz) is lower than the %" PRIu64
			  " Hz asked for: sampling at %" PRIu64 " Hz; root can raise the limit in "
			  "/proc/sys/kernel/perf_event_max_sample_rate (the kernel lowers it again when "
			  "sampling takes too long)", l->freq_max, l->freq_asked, l->freq_max);
	if (l->kernel_excluded) {
		long p = pe_paranoid();
		notes_add_level(ns, NOTES_HINT, "kernel samples were left out: kernel.perf_event_paranoid is "
				"%ld, which lets users without CAP_PERFMON sample user mode only; run as root, "
				"or 'sysctl kernel.perf_event_paranoid=1', to see the kernel's part", p);
	}
}

int live_open(struct live *l, struct evlist *evl, const struct live_opts *o)
{
	memset(l, 0, sizeof(*l));
	size_t pages = 0;
	uint32_t stack = 0;
	if (check_opts(o, &pages, &stack) < 0)
		return -1;
	if (evl->n == 0)
		return err_set("no events to sample");
	for (size_t e = 0; e < evl->n; e++)
		if (evl->ev[e].source == EV_SRC_TOOL)
			return err_set("cannot sample '%s': lperf measures it itself; it only counts "
				       "(lperf stat)", evl->ev[e].name);

	l->evl = evl;
	l->nev = evl->n;
	l->ncols = o->ncpus ? o->ncpus : 1;
	l->nrows = o->npids ? o->npids : 1;
	l->cpus = xmalloc(l->ncols * sizeof(*l->cpus));
	l->pids = xmalloc(l->nrows * sizeof(*l->pids));
	for (size_t i = 0; i < l->ncols; i++)
		l->cpus[i] = o->ncpus ? o->cpus[i] : -1;
	for (size_t i = 0; i < l->nrows; i++)
		l->pids[i] = o->npids ? o->pids[i] : -1;
	size_t nfd = l->nev * l->ncols * l->nrows;
	l->fds = xmalloc(nfd * sizeof(*l->fds));
	for (size_t i = 0; i < nfd; i++)
		l->fds[i] = -1;
	l->fd_ids = xcalloc(nfd, sizeof(*l->fd_ids));
	l->attrs = xcalloc(l->nev, sizeof(*l->attrs));
	l->ids = xcalloc(l->nev, sizeof(*l->ids));
	l->nids = xcalloc(l->nev, sizeof(*l->nids));
	for (size_t e = 0; e < l->nev; e++)
		l->ids[e] = xcalloc(l->ncols * l->nrows, sizeof(**l->ids));

	uint64_t freq = effective_freq(l, o);
	for (size_t e = 0; e < l->nev; e++)
		sampling_attr(l, e, o, stack, freq);

	if (open_all(l) < 0 || map_all(l, pages) < 0 || live_aux_map(l, o->aux_pages) < 0) {
		live_close(l);
		return -1;
	}
	l->pfd = xcalloc(nfd + 1, sizeof(*l->pfd)); /* and a slot for live_wake_on's fd */
	l->wake_fd = -1;
	for (size_t i = 0; i < nfd; i++) {
		if (l->fds[i] < 0)
			continue;
		l->pfd[l->npfd].fd = l->fds[i];
		l->pfd[l->npfd].events = POLLIN;
		l->npfd++;
	}
	l->npfd_live = l->npfd;
	if (l->npfd == 0) {
		err_set("no event could be opened: every task exited");
		live_close(l);
		return -1;
	}
	return 0;
}

static void each_leader_ioctl(struct live *l, unsigned long req)
{
	if (!l->evl)
		return;
	for (size_t e = 0; e < l->nev; e++) {
		if (l->evl->ev[e].leader != e)
			continue;
		for (size_t i = 0; i < l->ncols * l->nrows; i++) {
			int fd = l->fds[e * l->ncols * l->nrows + i];
			if (fd >= 0)
				ioctl(fd, req, PERF_IOC_FLAG_GROUP);
		}
	}
}

void live_enable(struct live *l) { each_leader_ioctl(l, PERF_EVENT_IOC_ENABLE); }
void live_disable(struct live *l) { each_leader_ioctl(l, PERF_EVENT_IOC_DISABLE); }

void live_wake_on(struct live *l, int fd)
{
	l->wake_fd = fd;
}

long live_read(struct live *l, int timeout_ms, record_cb cb, void *arg)
{
	size_t np = l->npfd_live ? l->npfd : 0;
	if (l->wake_fd >= 0) { /* after every slot: hung-up ones are fd -1, which poll skips */
		l->pfd[l->npfd] = (struct pollfd){ .fd = l->wake_fd, .events = POLLIN };
		np = l->npfd + 1;
	}
	int r = poll(np ? l->pfd : NULL, np, timeout_ms);
	if (r < 0) {
		if (errno == EINTR)
			return 0;
		return err_set("cannot wait for samples: poll: %s", strerror(errno));
	}
	if (r > 0) {
		/* A task that exited hangs up its fds; stop polling them (they would report
		 * POLLHUP at once for ever) but keep draining their buffers. */
		for (size_t i = 0; i < l->npfd; i++) {
			if (l->pfd[i].fd >= 0 && (l->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))) {
				l->pfd[i].fd = -1;
				l->npfd_live--;
			}
			l->pfd[i].revents = 0;
		}
		if (l->npfd_live == 0)
			l->all_hup = true;
	}
	long total = 0;
	for (size_t b = 0; b < l->nrbs; b++) {
		long n = ringbuf_drain(&l->rbs[b], cb, arg);
		if (n < 0)
			return -1;
		total += n;
	}
	long aux = l->naux ? live_aux_drain(l, cb, arg) : 0; /* SPE data as AUXTRACE records */
	return aux < 0 ? -1 : total + aux;
}

void live_close(struct live *l)
{
	if (!l->evl)
		return;
	live_aux_unmap(l);
	for (size_t b = 0; b < l->nrbs; b++)
		ringbuf_unmap(&l->rbs[b]);
	if (l->fds)
		for (size_t i = 0; i < l->nev * l->ncols * l->nrows; i++)
			if (l->fds[i] >= 0)
				close(l->fds[i]);
	for (size_t e = 0; e < l->nev && l->ids; e++)
		free(l->ids[e]);
	free(l->ids);
	free(l->nids);
	free(l->attrs);
	free(l->fds);
	free(l->fd_ids);
	free(l->rbs);
	free(l->cpus);
	free(l->pids);
	free(l->pfd);
	memset(l, 0, sizeof(*l));
}
