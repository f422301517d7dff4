/* Samples to frames: callchain contexts, DWARF-unwound user frames, the `[truncated]` marker and
 * the Python view. */
#include "resolve/resolve.h"

#include <elf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/srcline.h"
#include "unwind/unwind.h"
#include "util/xalloc.h"

static const struct unwind_lookup plain_lookup = { resolve_addr, resolve_jit_code, NULL, NULL };

static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;

void resolve_lock(void)
{
	pthread_mutex_lock(&shared_mu);
}

void resolve_unlock(void)
{
	pthread_mutex_unlock(&shared_mu);
}

static bool addr_locked(struct machine *m, struct thread *t, uint8_t cpumode, uint64_t ip, uint64_t time,
			struct addr_loc *out)
{
	resolve_lock();
	bool ok = resolve_addr(m, t, cpumode, ip, time, out);
	resolve_unlock();
	return ok;
}

static const struct jitdump_code *jit_code_locked(struct machine *m, struct thread *t, uint64_t ip, uint64_t time)
{
	resolve_lock();
	const struct jitdump_code *c = resolve_jit_code(m, t, ip, time);
	resolve_unlock();
	return c;
}

static const struct unwind_lookup shared_lookup = { addr_locked, jit_code_locked, resolve_lock, resolve_unlock };

void resolver_share(struct resolver *r)
{
	r->shared = true;
	if (r->unwinder) {
		unwind_free(r->unwinder);
		r->unwinder = unwind_new(r->machine, &shared_lookup);
	}
}

/* A DSO whose lookups, once it is loaded, only read it: an ELF file's or the vDSO's symbols
 * (not a perf map's, which a live session reads again, nor the kernel's, refreshed for modules). */
static bool lookups_read_only(const struct dso *d)
{
	return d->loaded && (d->kind == DSO_ELF || d->kind == DSO_VDSO) && !d->jit.pid && !d->jit.perfmap &&
	       !d->ksnap;
}

/* resolve_addr for r: a shared resolver takes the lock unless ip is in a process's file whose
 * symbols it has seen loaded (the common case, then read without one). */
static bool lookup(struct resolver *r, struct thread *t, uint8_t cpumode, uint64_t ip, uint64_t time,
		   struct addr_loc *out)
{
	if (!r->shared)
		return resolve_addr(r->machine, t, cpumode, ip, time, out);
	if ((cpumode & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER && t && t->maps) {
		const struct map *mp = maps_find(t->maps, ip);
		if (mp && mp->dso && !mp->dso->jit.pid && hashmap_find_ptr(&r->ready, mp->dso))
			return resolve_addr(r->machine, t, cpumode, ip, time, out);
	}
	resolve_lock();
	bool ok = resolve_addr(r->machine, t, cpumode, ip, time, out);
	if (ok && !out->kernel && out->dso && lookups_read_only(out->dso)) {
		bool found;
		hashmap_insert_ptr(&r->ready, out->dso, &found);
	}
	resolve_unlock();
	return ok;
}

void resolver_init(struct resolver *r, struct machine *m, const struct evsel_set *evsels, bool callchains,
		   bool python_view)
{
	memset(r, 0, sizeof(*r));
	r->machine = m;
	r->callchains = callchains;
	r->python_view = python_view;
	hashmap_init(&r->pylabels, HASHMAP_STR);
	bool stacks = false;
	for (size_t i = 0; i < evsels->n; i++)
		stacks |= (evsels->v[i].attr.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) ==
			  (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	if (callchains && stacks)
		r->unwinder = unwind_new(m, &plain_lookup);
}

static void ucache_free(struct resolver *r);

void resolver_free(struct resolver *r)
{
	if (r->unwinder)
		unwind_free(r->unwinder);
	free(r->fbuf);
	ucache_free(r);
	resolve_python_labels_free(r);
	hashmap_free(&r->ready);
	memset(r, 0, sizeof(*r));
}

struct user_frames {
	struct resolver *r;
	size_t *n;
	struct thread *t;
	uint64_t time;
};

/* Callers of a kernel-made callchain are looked up at their return address itself, as Linux perf
 * does, so that reports and scripts agree with perf's symbol for symbol (ip - 1, the call instruction, would name a
 * different function only where a call is a function's last instruction). JIT code is resolved
 * at the sample's time: a JIT can reuse an address for new code. */
static void add_frame(struct resolver *r, size_t *n, uint64_t ip, uint8_t cpumode, struct thread *t,
		      uint64_t time)
{
	ALLOC_GROW(r->fbuf, *n + 1, r->fcap);
	struct frame *f = &r->fbuf[(*n)++];
	memset(f, 0, sizeof(*f));
	f->ip = ip;
	lookup(r, t, cpumode, ip, time, &f->loc);
}

/* A DWARF-unwound pc's frames (its own and, with inline_frames, its inlined levels) as they
 * were resolved, kept per resolver: deep stacks repeat the same pcs sample after sample. The key
 * is the address space's generation (unique over all maps and bumped at every change, so an
 * entry of a changed or freed address space is never hit) and the pc; only pcs in a file whose
 * lookups are plain reads are kept (not JIT code, whose symbols depend on the time). One entry
 * per slot: with 4,096 slots the deep-stack Python recording's 600-odd pcs collided often enough
 * that pcs of one stack evicted each other at every sample (21,000 misses of 266,000 lookups; 810
 * with 16,384 slots, 640 KB of which the slots used are touched). */
#define UCACHE_SLOTS 16384

struct ucache_ent {
	uint64_t gen, ip;          /* gen 0: empty */
	struct frame *f;
	size_t n, cap;
};

struct resolve_ucache {
	struct ucache_ent e[UCACHE_SLOTS];
};

static struct ucache_ent *ucache_slot(struct resolver *r, uint64_t gen, uint64_t ip)
{
	if (!r->ucache)
		r->ucache = xcalloc(1, sizeof(*r->ucache));
	uint64_t h = (ip ^ (gen * 0x9e3779b97f4a7c15ULL)) * 0xbf58476d1ce4e5b9ULL;
	return &r->ucache->e[(h >> 32) % UCACHE_SLOTS];
}

static void ucache_free(struct resolver *r)
{
	if (!r->ucache)
		return;
	for (size_t i = 0; i < UCACHE_SLOTS; i++)
		free(r->ucache->e[i].f);
	free(r->ucache);
	r->ucache = NULL;
}

/* DWARF-unwound callers are taken at their call instruction (return address - 1), as perf's
 * libdw unwinder reports them: script prints main+0x5c where the call returns to main+0x5d, and
 * symbols, lines and inline levels are those of the call. */
static void add_user(uint64_t ip, bool activation, void *arg)
{
	struct user_frames *a = arg;
	struct resolver *r = a->r;
	size_t at = *a->n;
	uint64_t pc = activation ? ip : ip - 1;
	uint64_t gen = a->t && a->t->maps ? a->t->maps->gen : 0;
	struct ucache_ent *ce = gen ? ucache_slot(r, gen, pc) : NULL;
	if (ce && ce->gen == gen && ce->ip == pc) {
		ALLOC_GROW(r->fbuf, at + ce->n, r->fcap);
		memcpy(&r->fbuf[at], ce->f, ce->n * sizeof(*ce->f));
		*a->n = at + ce->n;
		return;
	}
	add_frame(r, a->n, pc, PERF_RECORD_MISC_USER, a->t, a->time);
	if (r->inline_frames && *a->n == at + 1) {
		if (r->shared)
			resolve_lock();
		resolve_expand_inline(&r->fbuf, &r->fcap, a->n, at, r->srclines);
		if (r->shared)
			resolve_unlock();
	}
	const struct addr_loc *loc = &r->fbuf[at].loc;
	if (!ce || *a->n <= at || !loc->map || loc->kernel || !loc->dso || !lookups_read_only(loc->dso))
		return;
	size_t n = *a->n - at;
	ALLOC_GROW(ce->f, n, ce->cap);
	memcpy(ce->f, &r->fbuf[at], n * sizeof(*ce->f));
	ce->n = n;
	ce->gen = gen;
	ce->ip = pc;
}

/* The cpumode a context marker switches to; -1 for an invalid marker (0xffff...ffff), after
 * which perf drops the whole chain. */
static int context_mode(uint64_t marker)
{
	switch (marker) {
	case PERF_CONTEXT_KERNEL: return PERF_RECORD_MISC_KERNEL;
	case PERF_CONTEXT_USER: return PERF_RECORD_MISC_USER;
	case PERF_CONTEXT_HV: return PERF_RECORD_MISC_HYPERVISOR;
	case PERF_CONTEXT_GUEST_KERNEL: return PERF_RECORD_MISC_GUEST_KERNEL;
	case PERF_CONTEXT_GUEST_USER: return PERF_RECORD_MISC_GUEST_USER;
	default: return -1;
	}
}

/* AArch64 frame-pointer chains: a leaf function that keeps no frame record of its own leaves its
 * caller out of the chain (the frame pointer still points at the caller's record, which holds
 * the caller's caller). Its return address is still in the link register, which record samples
 * for fp chains (REGS_USER, LR only) as perf does; perf puts it after the leaf when DWARF says
 * the leaf's return address is LR. Without a DWARF step here the same cases are told apart by
 * where LR points: the caller is missing when LR is neither the chain's next entry (a function
 * with a frame record before any call) nor inside the leaf's own function (one that has called
 * something since). frames[leaf] is the chain's first user frame. */
static void insert_link_register(struct resolver *r, size_t *n, size_t leaf, const struct perf_sample *s,
				 struct thread *t)
{
	const unsigned lr_bit = 30; /* perf's PERF_REG_ARM64_LR */
	if (r->e_machine != EM_AARCH64 || !s->user_abi || !(s->user_regs_mask & (1ULL << lr_bit)))
		return;
	size_t k = (size_t)__builtin_popcountll(s->user_regs_mask & ((1ULL << lr_bit) - 1));
	if (k >= s->user_nregs)
		return;
	uint64_t lr = unwind_strip_pac(unwind_arch_by_machine(EM_AARCH64), s->user_regs[k]);
	if (!lr || (leaf + 1 < *n && r->fbuf[leaf + 1].ip == lr))
		return;
	struct addr_loc at;
	if (!lookup(r, t, PERF_RECORD_MISC_USER, lr, s->time, &at) || !at.sym)
		return;
	const struct addr_loc *lf = &r->fbuf[leaf].loc;
	if (lf->sym == at.sym && lf->dso == at.dso)
		return;
	add_frame(r, n, lr, PERF_RECORD_MISC_USER, t, s->time);
	struct frame caller = r->fbuf[*n - 1];
	memmove(&r->fbuf[leaf + 2], &r->fbuf[leaf + 1], (*n - 2 - leaf) * sizeof(r->fbuf[0]));
	r->fbuf[leaf + 1] = caller;
}

/* The kernel's callchain; with stack copies (dwarf) it stops where the user part begins.
 * Returns false (and no frames) for a chain with an invalid context entry, as perf. */
static bool add_callchain(struct resolver *r, size_t *n, const struct perf_sample *s, struct thread *t, bool dwarf)
{
	uint8_t mode = s->cpumode;
	size_t user_leaf = SIZE_MAX;
	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t ip = s->callchain[i];
		if (dwarf && ip == PERF_CONTEXT_USER)
			break;
		if (ip >= PERF_CONTEXT_MAX) {
			int m = context_mode(ip);
			if (m < 0) {
				*n = 0;
				return false;
			}
			mode = (uint8_t)m;
			continue;
		}
		if (mode == PERF_RECORD_MISC_USER && user_leaf == SIZE_MAX)
			user_leaf = *n;
		add_frame(r, n, ip, mode, t, s->time);
	}
	if (user_leaf != SIZE_MAX && !dwarf)
		insert_link_register(r, n, user_leaf, s, t);
	return true;
}

size_t resolve_sample_frames(struct resolver *r, const struct perf_sample *s, struct thread *t, bool *truncated_out,
			     bool *chain_reset_out)
{
	size_t n = 0;
	bool used_chain = false, chain_reset = false;
	bool dwarf = r->unwinder && s->user_abi;
	if (r->callchains && s->callchain_nr) {
		chain_reset = !add_callchain(r, &n, s, t, dwarf);
		used_chain = n > 0;
	}
	bool truncated = false;
	if (r->callchains && dwarf) {
		struct user_frames a = { r, &n, t, s->time };
		unwind_user(r->unwinder, t, s, add_user, &a, &truncated);
		if (truncated) {
			const struct dso *last = n ? r->fbuf[n - 1].loc.dso : NULL;
			if (last && (last->mismatch || last->deleted))
				r->truncated_unread++;
			/* Say so in the stack itself, so no view presents a cut stack as whole. */
			static struct symbol truncated_sym = { 0, 0, (char *)"[truncated]", NULL };
			ALLOC_GROW(r->fbuf, n + 1, r->fcap);
			memset(&r->fbuf[n], 0, sizeof(r->fbuf[n]));
			r->fbuf[n++].loc.sym = &truncated_sym;
			r->truncated++;
		}
		used_chain = n > 0;
	}
	if (!used_chain)
		add_frame(r, &n, s->ip, s->cpumode, t, s->time);
	*truncated_out = truncated;
	*chain_reset_out = chain_reset;
	return n;
}

void resolve_sample_finish(struct resolver *r, const struct perf_sample *s, struct thread *t, size_t n,
			   bool truncated, bool chain_reset, struct resolved_sample *out)
{
	if (r->merge)
		n = r->merge(r->merge_arg, s, &r->fbuf, &r->fcap, n);
	if (r->python_view)
		n = resolve_python_view(r->fbuf, n);
	if (r->python_view && r->python_labels)
		resolve_python_labels(r, r->fbuf, n);
	for (size_t i = 0; r->srclines && i < n; i++) {
		struct frame *f = &r->fbuf[i];
		if (!f->srcline && f->loc.map && f->loc.dso)
			f->srcline = srcline_string(f->loc.dso, NULL, f->loc.addr);
	}
	*out = (struct resolved_sample){ s, t, r->fbuf, n, truncated, chain_reset };
}

void resolve_sample(struct resolver *r, const struct perf_sample *s, struct thread *t,
		    struct resolved_sample *out)
{
	bool truncated, chain_reset;
	size_t n = resolve_sample_frames(r, s, t, &truncated, &chain_reset);
	resolve_sample_finish(r, s, t, n, truncated, chain_reset, out);
}

static bool is_py(const struct frame *f)
{
	return f->loc.sym && !strncmp(f->loc.sym->name, "py::", 4);
}

/* The interpreter itself: libpython*, or a python* executable (static builds). */
static bool is_interpreter(const struct frame *f)
{
	const char *n = f->loc.dso ? f->loc.dso->short_name : NULL;
	return n && (!strncmp(n, "libpython", 9) || !strncmp(n, "python", 6));
}

size_t resolve_python_view(struct frame *frames, size_t n)
{
	size_t first_py = n;
	for (size_t i = 0; i < n && first_py == n; i++)
		if (is_py(&frames[i]))
			first_py = i;
	if (first_py == n)
		return n;
	size_t out = 0;
	for (size_t i = 0; i < first_py; i++)
		if (!is_interpreter(&frames[i]))
			frames[out++] = frames[i];
	/* A [truncated] marker stays: after the Python frames (their reader's bound cut them) or at
	 * the end (the native unwinding stopped); said once. Other pseudo-frames ([GIL]) stay. */
	for (size_t i = first_py; i < n; i++) {
		bool mark = frames[i].loc.sym && !frames[i].loc.dso && frames[i].loc.sym->name[0] == '[';
		bool cut = mark && !strcmp(frames[i].loc.sym->name, "[truncated]");
		if (cut && out && frames[out - 1].loc.sym && !frames[out - 1].loc.dso &&
		    !strcmp(frames[out - 1].loc.sym->name, "[truncated]"))
			continue;
		if (is_py(&frames[i]) || mark)
			frames[out++] = frames[i];
	}
	return out;
}
