/* lock contention -b: see lockcon.h; the program is bpf/lockcon.bpf.c. */
#include "kernel/lockcon.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

#ifdef LPERF_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/bpf/lockcon_maps.h"
#include "lockcon.skel.h"

struct lockcon_prof {
	struct lockcon *skel;
	bool per_thread;
};

static int lockcon_silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* Puts each of keys into the filter map fd; -1 after err_set. */
static int lockcon_fill(int fd, const int *keys, size_t n, const char *what)
{
	uint8_t one = 1;
	for (size_t i = 0; i < n; i++) {
		uint32_t k = (uint32_t)keys[i];
		if (bpf_map_update_elem(fd, &k, &one, BPF_ANY))
			return err_set("lock contention: cannot filter on %s %d: %s", what, keys[i], strerror(errno));
	}
	return 0;
}

struct lockcon_prof *lockcon_open(const struct lockcon_opts *o)
{
	if (o->ncpus > LOCKCON_MAX_TASKS || o->ntids > LOCKCON_MAX_TASKS) {
		err_set("lock contention: at most %d CPUs or threads can be filtered on", LOCKCON_MAX_TASKS);
		return NULL;
	}
	libbpf_set_print(lockcon_silent);
	struct lockcon *skel = lockcon__open();
	if (!skel) {
		err_set("cannot open lperf's lock contention BPF program: %s", strerror(errno));
		return NULL;
	}
	skel->rodata->filter = o->follow;
	skel->rodata->per_thread = o->per_thread;
	skel->rodata->filter_cpus = o->ncpus > 0;
	skel->rodata->filter_tids = o->ntids > 0;
	int e = lockcon__load(skel);
	if (!e)
		e = lockcon__attach(skel);
	if (e) {
		err_set("cannot load lperf's lock contention BPF program: %s%s", strerror(e < 0 ? -e : e),
			e == -EPERM || e == -EACCES ? " (needs root or CAP_BPF and CAP_PERFMON)" : "");
		lockcon__destroy(skel);
		return NULL;
	}
	if (lockcon_fill(bpf_map__fd(skel->maps.cpus), o->cpus, o->ncpus, "CPU") < 0 ||
	    lockcon_fill(bpf_map__fd(skel->maps.tids), o->tids, o->ntids, "thread") < 0) {
		lockcon__destroy(skel);
		return NULL;
	}
	struct lockcon_prof *p = xcalloc(1, sizeof(*p));
	p->skel = skel;
	p->per_thread = o->per_thread;
	return p;
}

int lockcon_follow(struct lockcon_prof *p, pid_t pid)
{
	uint32_t k = (uint32_t)pid;
	uint8_t one = 1;
	if (bpf_map__update_elem(p->skel->maps.procs, &k, sizeof(k), &one, sizeof(one), BPF_ANY))
		return err_set("lock contention: cannot follow process %d: %s", (int)pid, strerror(errno));
	return 0;
}

void lockcon_enable(struct lockcon_prof *p, bool on)
{
	__atomic_store_n(&p->skel->bss->enabled, on ? 1 : 0, __ATOMIC_SEQ_CST);
}

void lockcon_read(struct lockcon_prof *p, void (*fn)(void *arg, const struct lockcon_row *r), void *arg,
		  uint64_t *lost)
{
	lockcon_enable(p, false);
	int stats = bpf_map__fd(p->skel->maps.stats), stacks = bpf_map__fd(p->skel->maps.stacks);
	int comms = bpf_map__fd(p->skel->maps.comms);
	int32_t key, prev;
	bool first = true;
	while (bpf_map_get_next_key(stats, first ? NULL : &prev, &key) == 0) {
		first = false;
		prev = key;
		struct lockcon_stat s;
		uint64_t ips[LOCKCON_MAX_STACK] = { 0 };
		struct lockcon_comm comm = { { 0 } };
		struct lockcon_row r = { .ips = ips, .comm = comm.comm };
		if (bpf_map_lookup_elem(stats, &key, &s) || !s.count)
			continue;
		if (p->per_thread) {
			uint32_t tid = (uint32_t)key;
			r.tid = (pid_t)key;
			if (bpf_map_lookup_elem(comms, &tid, &comm) == 0)
				comm.comm[LOCKCON_COMM_LEN - 1] = 0;
		} else if (key >= 0 && bpf_map_lookup_elem(stacks, &key, ips) == 0) {
			while (r.n < LOCKCON_MAX_STACK && ips[r.n])
				r.n++;
		}
		r.t = (struct lockcon_totals){ s.total, s.max, s.min, s.count, s.flags };
		fn(arg, &r);
	}
	*lost = p->skel->bss->lost;
}

void lockcon_close(struct lockcon_prof *p)
{
	if (!p)
		return;
	lockcon__destroy(p->skel);
	free(p);
}

#else

struct lockcon_prof *lockcon_open(const struct lockcon_opts *o)
{
	err_set("lperf was built without BPF (libbpf, bpftool and clang)");
	return NULL;
}
int lockcon_follow(struct lockcon_prof *p, pid_t pid) { return 0; }
void lockcon_enable(struct lockcon_prof *p, bool on) {}
void lockcon_read(struct lockcon_prof *p, void (*fn)(void *arg, const struct lockcon_row *r), void *arg,
		  uint64_t *lost)
{
	*lost = 0;
}
void lockcon_close(struct lockcon_prof *p) {}

#endif
