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
};

static int lockcon_silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

struct lockcon_prof *lockcon_open(bool filter)
{
	libbpf_set_print(lockcon_silent);
	struct lockcon *skel = lockcon__open();
	if (!skel) {
		err_set("cannot open lperf's lock contention BPF program: %s", strerror(errno));
		return NULL;
	}
	skel->rodata->filter = filter;
	int e = lockcon__load(skel);
	if (!e)
		e = lockcon__attach(skel);
	if (e) {
		err_set("cannot load lperf's lock contention BPF program: %s%s", strerror(e < 0 ? -e : e),
			e == -EPERM || e == -EACCES ? " (needs root or CAP_BPF and CAP_PERFMON)" : "");
		lockcon__destroy(skel);
		return NULL;
	}
	struct lockcon_prof *p = xcalloc(1, sizeof(*p));
	p->skel = skel;
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

void lockcon_read(struct lockcon_prof *p, void (*fn)(void *arg, const uint64_t *ips, size_t n,
						    const struct lockcon_totals *t), void *arg, uint64_t *lost)
{
	lockcon_enable(p, false);
	int stats = bpf_map__fd(p->skel->maps.stats), stacks = bpf_map__fd(p->skel->maps.stacks);
	int32_t key, prev;
	bool first = true;
	while (bpf_map_get_next_key(stats, first ? NULL : &prev, &key) == 0) {
		first = false;
		prev = key;
		struct lockcon_stat s;
		uint64_t ips[LOCKCON_MAX_STACK] = { 0 };
		size_t n = 0;
		if (bpf_map_lookup_elem(stats, &key, &s) || !s.count)
			continue;
		if (key >= 0 && bpf_map_lookup_elem(stacks, &key, ips) == 0)
			while (n < LOCKCON_MAX_STACK && ips[n])
				n++;
		struct lockcon_totals t = { s.total, s.max, s.min, s.count, s.flags };
		fn(arg, ips, n, &t);
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

struct lockcon_prof *lockcon_open(bool filter)
{
	err_set("lperf was built without BPF (libbpf, bpftool and clang)");
	return NULL;
}
int lockcon_follow(struct lockcon_prof *p, pid_t pid) { return 0; }
void lockcon_enable(struct lockcon_prof *p, bool on) {}
void lockcon_read(struct lockcon_prof *p, void (*fn)(void *arg, const uint64_t *ips, size_t n,
						    const struct lockcon_totals *t), void *arg, uint64_t *lost)
{
	*lost = 0;
}
void lockcon_close(struct lockcon_prof *p) {}

#endif
