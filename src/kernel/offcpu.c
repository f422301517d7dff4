/* record --off-cpu: see offcpu.h; the program is bpf/offcpu.bpf.c. */
#include "kernel/offcpu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

#ifdef LPERF_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/bpf/offcpu_maps.h"
#include "offcpu.skel.h"

/* Samples sort after everything recorded: perf's "time" of off-CPU samples. */
#define OFFCPU_TIMESTAMP (~0ull << 32)

struct offcpu_prof {
	struct offcpu *skel;
};

static int offcpu_silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

struct offcpu_prof *offcpu_open(bool filter, bool runnable)
{
	if (getenv("LPERF_NO_BPF")) { /* as python/pymethod.c: tests of the paths without BPF */
		err_set("LPERF_NO_BPF is set");
		return NULL;
	}
	libbpf_set_print(offcpu_silent);
	struct offcpu *skel = offcpu__open();
	if (!skel) {
		err_set("cannot open lperf's off-CPU BPF program: %s", strerror(errno));
		return NULL;
	}
	skel->rodata->filter = filter;
	skel->rodata->runnable = runnable;
	int e = offcpu__load(skel);
	if (!e)
		e = offcpu__attach(skel);
	if (e) {
		err_set("cannot load lperf's off-CPU BPF program: %s%s", strerror(e < 0 ? -e : e),
			e == -EPERM || e == -EACCES ? " (needs root or CAP_BPF and CAP_PERFMON)" : "");
		offcpu__destroy(skel);
		return NULL;
	}
	struct offcpu_prof *p = xcalloc(1, sizeof(*p));
	p->skel = skel;
	return p;
}

int offcpu_follow(struct offcpu_prof *p, pid_t pid)
{
	uint32_t k = (uint32_t)pid;
	uint8_t one = 1;
	if (bpf_map__update_elem(p->skel->maps.procs, &k, sizeof(k), &one, sizeof(one), BPF_ANY))
		return err_set("off-CPU: cannot follow process %d: %s", (int)pid, strerror(errno));
	return 0;
}

void offcpu_enable(struct offcpu_prof *p, bool on)
{
	__atomic_store_n(&p->skel->bss->enabled, on ? 1 : 0, __ATOMIC_SEQ_CST);
}

/* One sample of total ns for key k, its user stack in ips[0..nips). */
static int offcpu_sample(const struct perf_event_attr *attr, uint64_t id, uint64_t time,
			 const struct offcpu_key *k, uint64_t total, const uint64_t *ips, size_t nips,
			 record_cb sink, void *arg)
{
	uint64_t buf[16 + OFFCPU_MAX_STACK];
	size_t n = 1; /* buf[0]: the header */
	uint64_t st = attr->sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER)
		buf[n++] = id;
	if (st & PERF_SAMPLE_IP)
		buf[n++] = nips ? ips[0] : 0;
	if (st & PERF_SAMPLE_TID)
		buf[n++] = (uint64_t)k->tid << 32 | k->pid;
	if (st & PERF_SAMPLE_TIME)
		buf[n++] = time;
	if (st & PERF_SAMPLE_ID)
		buf[n++] = id;
	if (st & PERF_SAMPLE_CPU)
		buf[n++] = 0;
	if (st & PERF_SAMPLE_PERIOD)
		buf[n++] = total;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		buf[n++] = nips + 1;
		buf[n++] = PERF_CONTEXT_USER;
		memcpy(&buf[n], ips, nips * sizeof(*ips));
		n += nips;
	}
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				       (uint16_t)(n * sizeof(uint64_t)) };
	memcpy(&buf[0], &h, sizeof(h));
	return sink((const struct perf_event_header *)buf, arg);
}

int offcpu_write(struct offcpu_prof *p, const struct perf_event_attr *attr, uint64_t id, record_cb sink,
		 void *arg, uint64_t *n)
{
	*n = 0;
	offcpu_enable(p, false);
	if (attr->sample_type & ~(uint64_t)OFFCPU_SAMPLE_TYPES)
		return err_set("off-CPU samples cannot carry sample type %#llx",
			       (unsigned long long)(attr->sample_type & ~(uint64_t)OFFCPU_SAMPLE_TYPES));
	int totals = bpf_map__fd(p->skel->maps.totals), stacks = bpf_map__fd(p->skel->maps.stacks);
	struct offcpu_key key, prev;
	bool first = true;
	uint64_t time = OFFCPU_TIMESTAMP;
	while (bpf_map_get_next_key(totals, first ? NULL : &prev, &key) == 0) {
		first = false;
		prev = key;
		uint64_t total = 0, ips[OFFCPU_MAX_STACK] = { 0 };
		size_t nips = 0;
		if (bpf_map_lookup_elem(totals, &key, &total) || !total)
			continue;
		if (key.stack_id >= 0 && bpf_map_lookup_elem(stacks, &key.stack_id, ips) == 0)
			while (nips < OFFCPU_MAX_STACK && ips[nips])
				nips++;
		if (offcpu_sample(attr, id, time++, &key, total, ips, nips, sink, arg) < 0)
			return -1;
		(*n)++;
	}
	return 0;
}

void offcpu_close(struct offcpu_prof *p)
{
	if (!p)
		return;
	offcpu__destroy(p->skel);
	free(p);
}

#else /* no BPF: record says why and records without off-CPU time */

struct offcpu_prof *offcpu_open(bool filter, bool runnable)
{
	err_set("lperf was built without BPF (libbpf, bpftool and clang)");
	return NULL;
}

int offcpu_follow(struct offcpu_prof *p, pid_t pid) { return 0; }
void offcpu_enable(struct offcpu_prof *p, bool on) {}
int offcpu_write(struct offcpu_prof *p, const struct perf_event_attr *attr, uint64_t id, record_cb sink,
		 void *arg, uint64_t *n)
{
	*n = 0;
	return 0;
}
void offcpu_close(struct offcpu_prof *p) {}

#endif
