/* An address of a thread (or the kernel) to its map, DSO and symbol: recorded kernel symbols
 * (KSYMBOL), kernel maps, the process's
 * maps, and JIT code through resolve/jit.c. */
#include "resolve/resolve.h"

#include <string.h>

/* With an unknown cpumode: the kernel's maps if one holds ip, else the upper half of the
 * address space, which is the kernel's on x86-64 and arm64. */
static bool is_kernel_addr(struct machine *m, uint64_t ip)
{
	if (maps_find(&m->kmaps, ip) || maps_find(&m->ksyms, ip))
		return true;
	return ip >> 63;
}

bool resolve_addr(struct machine *m, struct thread *t, uint8_t cpumode, uint64_t ip, uint64_t time,
			struct addr_loc *out)
{
	memset(out, 0, sizeof(*out));
	out->addr = ip;
	bool kernel;
	switch (cpumode & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		kernel = true;
		break;
	case PERF_RECORD_MISC_USER:
		kernel = false;
		break;
	case PERF_RECORD_MISC_HYPERVISOR:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		out->kernel = true;
		return false;
	case PERF_RECORD_MISC_GUEST_USER:
		return false;
	default:
		kernel = is_kernel_addr(m, ip);
		break;
	}
	out->kernel = kernel;
	const struct map *mp;
	if (kernel) {
		if (!m->kernel_map_seen && !m->kmaps.n) {
			/* No kernel MMAP (a live session that synthesized none): kallsyms addresses
			 * are absolute, so one map over everything resolves them. */
			struct map all = { 0, UINT64_MAX, 0, 0, 0, dso_cache_get_kernel(&m->dsos, NULL, NULL, 0) };
			maps_insert(&m->kmaps, &all);
		}
		/* code a KSYMBOL named (a BPF program) is that, whatever kallsyms says now */
		mp = maps_find(&m->ksyms, ip);
		if (!mp)
			mp = maps_find(&m->kmaps, ip);
	} else {
		mp = t && t->maps ? maps_find(t->maps, ip) : NULL;
		/* JIT code: in executable anonymous memory, or where no mapping was recorded. */
		if (!mp || mp->dso->jit.pid) {
			if (resolve_jit(m, t, mp, ip, time, out))
				return true;
			if (mp) {
				out->map = mp;
				out->dso = mp->dso;
				return true;
			}
		}
	}
	if (!mp)
		return false;
	struct dso *d = mp->dso;
	out->map = mp;
	out->dso = d;
	if (d->kind == DSO_ELF || d->kind == DSO_VDSO)
		out->addr = dso_offset_to_addr(d, mp->pgoff + (ip - mp->start));
	else if (d->kind == DSO_KSYM)
		out->addr = ip - mp->start; /* its symbol's addresses start at 0 */
	if (kernel && m->ksyms_later && dso_symbols_later(d)) {
		out->later = true;
		return true;
	}
	out->sym = dso_find_symbol(d, out->addr);
	if (out->sym)
		out->sym_off = out->addr - out->sym->start;
	return true;
}

const struct symbol *resolve_addr_later(struct dso *d, uint64_t addr)
{
	return dso_find_symbol(d, addr);
}
