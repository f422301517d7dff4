/* DWARF unwinding of perf user stack snapshots with libdwfl.
 *
 * Three layers of state, each built once:
 *   ufile   one per DSO (ufile.c): its ELF image, load segments and machine, shared by every
 *           Dwfl that maps the DSO.
 *   uspace  one Dwfl per process address space (struct maps), with a module per mapped ELF
 *           file and libdwfl's thread state attached. It is kept while the address space's
 *           file mappings are unchanged (checked per sample with a fingerprint of those maps),
 *           so libdwfl's per-module CFI caches survive across samples.
 *   cur     the sample being unwound, which the thread callbacks read: registers, stack copy.
 *
 * libdwfl reports the end of a stack and a failed read alike (the return address becomes
 * "undefined"), so memory_read records its failures: a failure in the last step of an unwind
 * means the snapshot (or the files) ran out, not that the outermost frame was reached.
 *
 * JIT code has no module, so libdwfl can only try its frame-pointer fallback there, which fails
 * (or invents frames) when the code around it keeps no frame pointers. An unwind is therefore a
 * series of libdwfl passes: a pass stops at the first frame in JIT code whose rule jitstep.c
 * knows (CPython's trampolines: jitdump CFI, or the perf-map template's fixed rule), jitstep
 * computes the caller's registers, and the next pass starts from them as a fresh thread state
 * (dwfl_getthread_frames asks set_initial_registers anew each time). */
#include "unwind/unwind.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/dwarfcap.h"
#include "symbols/jitdump.h"
#include "unwind/cfa.h"
#include "unwind/jitstep.h"
#include "unwind/ufile.h"
#include "util/xalloc.h"

/* Deeper stacks than this are cut (and reported truncated); perf's kernel.perf_event_max_stack
 * defaults to 127. */
#define UNWIND_MAX_FRAMES 256
/* Address spaces whose Dwfl is kept; the least recently used one goes first. */
#define UNWIND_MAX_SPACES 64

struct uspace {
	const struct maps *maps;  /* key only, never dereferenced: it may be freed and reused */
	uint64_t fp;              /* fingerprint of its file mappings */
	uint64_t gen;             /* the maps' generation the fingerprint was taken at */
	Dwfl *dwfl;               /* NULL: nothing to unwind with (no usable file mapped) */
	const struct unwind_arch *arch;
	uint64_t used;
	bool py_checked;          /* looked through the mapped files for a trampoline template */
	uint8_t py[32];
	size_t py_len;
};

struct cur {
	struct thread *t;
	struct uspace *space;
	const struct unwind_arch *arch;
	Dwfl *dwfl;
	uint64_t time;            /* the sample's: JIT code is placed over time */
	struct unwind_regs regs;  /* where the current libdwfl pass starts */
	uint64_t init_pc;         /* the pc handed to libdwfl for it */
	bool pass_caller;         /* regs.pc is a return address (a pass after a JIT step): libdwfl
				   * gets pc - 1 (the call's CFI row), the first frame is given pc */
	bool pass_first;          /* the next frame libdwfl reports is the pass's first */
	unsigned pass_frames;
	enum jitstep_result jit;  /* a JIT frame ended the pass: its step */
	struct unwind_regs jit_next;
	const uint8_t *stack;     /* the copy of [stack_base, stack_base + stack_len) */
	uint32_t *sp_log;         /* where deliver notes each frame's stack pointer (or NULL) */
	uint64_t stack_base, stack_len;
	void (*add)(uint64_t ip, bool activation, void *arg);
	void *arg;
	unsigned nframes;
	uint64_t last_pc, last_sp;
	bool last_activation;     /* the last frame's pc is where it executes, not a return address */
	bool last_fp_zero;        /* the last frame's frame pointer is known and 0 */
	bool read_failed;         /* a read failed since the last frame was delivered */
	bool stopped;             /* the frame callback gave up (no progress, frame limit) */
	bool ended;               /* a return address of 0: the normal end of a stack */
};

/* native_step's answer for a pc of an address space: its reduced CFI row, NULL for none (the
 * frame is libdwfl's), kept so that a pc seen before costs no map, file or row lookup. The key
 * is the maps' generation, unique over all maps and bumped at every change. */
#define UNWIND_STEP_SLOTS 4096

struct step_ent {
	uint64_t gen, pc;         /* gen 0: empty */
	const struct cfa_rule *rule;
};

struct unwinder {
	struct machine *m;
	const struct unwind_lookup *lookup;
	struct ufile_cache files;
	struct uspace spaces[UNWIND_MAX_SPACES];
	size_t nspaces;
	uint64_t clock;
	unsigned mark;
	struct cur cur;
	struct jitstep *js;
	struct unwind_stats st;
	struct step_ent *steps;   /* UNWIND_STEP_SLOTS, allocated on first use */
	/* The stack pointers of the last unwind's frames (from its stack copy's start), and this
	 * one's: the next sample's are mostly at the same places (the same calls), so their words
	 * are fetched all at once before the steps, which would wait for them one by one. */
	uint32_t sp_at[2][UNWIND_MAX_FRAMES];
	unsigned sp_cur;          /* sp_at[sp_cur] is this unwind's, the other the last one's */
	unsigned sp_n;            /* the last one's count */
};

static bool is_file_map(const struct map *mp)
{
	return mp->dso && (mp->dso->kind == DSO_ELF || mp->dso->kind == DSO_VDSO);
}

/* The unwinder whose unwind_user runs on this thread: libdwfl's callbacks that change shared
 * state find its lock here. */
static __thread struct unwinder *running;

/* d's file in this unwinder's cache; opening it reads the DSO (dso_load), which other threads'
 * unwinders share, so a first use is made under the lookup's lock. */
static struct ufile *file_of(struct unwinder *u, struct dso *d)
{
	if (!u->lookup->lock)
		return ufile_get(&u->files, d);
	struct hashmap_entry *e = hashmap_find_ptr(&u->files.by_dso, d);
	if (e)
		return e->value;
	u->lookup->lock();
	struct ufile *f = ufile_get(&u->files, d);
	u->lookup->unlock();
	return f;
}

/* ---- libdwfl callbacks ---- */

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct ufile *f = *userdata;
	*elfp = NULL;
	if (!f || !f->elf)
		return -1;
	/* Another reference to the shared handle: the module's elf_end drops only that one. */
	*elfp = elf_begin(-1, ELF_C_READ_MMAP, f->elf);
	if (*elfp && !*file_name)
		*file_name = strdup(f->path);
	return -1;
}

/* Only the debug file the symbols module found (by build-id or .gnu_debuglink, locally):
 * libdwfl's standard search could ask debuginfod servers over the network. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct ufile *f = *userdata;
	/* A link without a CRC is a dwz .gnu_debugaltlink request; CFI never needs that file. */
	if (!f || !f->dso->debug_path || (debuglink_file && !debuglink_crc))
		return -1;
	int fd = open(f->dso->debug_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Its .debug_frame is read as the file's own is (cfa_elf_bounded). */
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool bounded = cfa_elf_bounded(elf);
	char *why = dwarfcap_refusal(elf); /* libdwfl would inflate its DWARF for .debug_frame */
	bool refused = why != NULL;
	free(why);
	/* Without a .debug_frame the file has no CFI for libdwfl, which would still load (and
	 * inflate) all its DWARF looking for one: the CFI it finds is the same, none. */
	bool cfi = cfa_elf_has_debug_frame(elf);
	elf_end(elf);
	if (!bounded || refused || !cfi) {
		if (!bounded) {
			/* The DSO is shared with other threads' unwinders. */
			const struct unwind_lookup *lk = running ? running->lookup : NULL;
			if (lk && lk->lock)
				lk->lock();
			f->dso->cfi_refused = true;
			if (lk && lk->lock)
				lk->unlock();
		}
		close(fd);
		return -1;
	}
	*debuginfo_file_name = strdup(f->dso->debug_path);
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	return 0; /* threads are only ever asked for by tid (get_thread) */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	*thread_arg = arg;
	return true;
}

/* Reads from the file mapped at addr: through the thread's map (its file offset), else through
 * a reported module's read-only load segments (data the executable maps do not cover).
 * Writable mappings are skipped: the file does not hold what the process wrote there. */
static bool read_file_word(struct unwinder *u, uint64_t addr, uint64_t *out)
{
	struct cur *c = &u->cur;
	const struct map *mp = c->t->maps ? maps_find(c->t->maps, addr) : NULL;
	if (mp && is_file_map(mp) && !(mp->prot & PROT_WRITE)) {
		struct ufile *f = file_of(u, mp->dso);
		uint64_t off = addr - mp->start + mp->pgoff;
		if (f->ok && off <= f->raw_size && f->raw_size - off >= 8) {
			memcpy(out, f->raw + off, 8);
			return true;
		}
	}
	Dwfl_Module *mod = dwfl_addrmodule(c->dwfl, addr);
	void **ud = NULL;
	Dwarf_Addr low = 0;
	if (!mod || !dwfl_module_info(mod, &ud, &low, NULL, NULL, NULL, NULL, NULL) || !ud || !*ud)
		return false;
	const struct ufile *f = *ud;
	uint64_t v = addr - (low - f->lo);
	for (size_t i = 0; i < f->nsegs; i++) {
		const struct useg *s = &f->segs[i];
		if ((s->flags & PF_W) || v < s->vaddr || v - s->vaddr >= s->filesz || s->filesz - (v - s->vaddr) < 8)
			continue;
		uint64_t off = s->offset + (v - s->vaddr);
		if (off <= f->raw_size && f->raw_size - off >= 8) {
			memcpy(out, f->raw + off, 8);
			return true;
		}
	}
	return false;
}

static bool read_word(uint64_t addr, uint64_t *out, void *arg)
{
	struct unwinder *u = arg;
	struct cur *c = &u->cur;
	if (addr >= c->stack_base && c->stack_len >= 8 && addr - c->stack_base <= c->stack_len - 8) {
		memcpy(out, c->stack + (addr - c->stack_base), 8);
		return true;
	}
	if (read_file_word(u, addr, out))
		return true;
	c->read_failed = true;
	return false;
}

/* read_word, with a PAC-signed return address (aarch64) taken without its code when the
 * address then lands in a module or a mapping. Both libdwfl and the native steps read so. */
static bool read_word_pac(uint64_t addr, uint64_t *out, void *arg)
{
	if (!read_word(addr, out, arg))
		return false;
	struct cur *c = &((struct unwinder *)arg)->cur;
	uint64_t bare = unwind_strip_pac(c->arch, *out);
	if (bare != *out && ((c->dwfl && dwfl_addrmodule(c->dwfl, bare)) ||
			     (c->t->maps && maps_find(c->t->maps, bare))))
		*out = bare;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uint64_t v;
	if (!read_word_pac(addr, &v, arg))
		return false;
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	const struct unwind_regs *r = &u->cur.regs;
	unsigned n = u->cur.arch->ndwarf;
	/* One call per run of consecutive registers the sample holds. */
	for (unsigned i = 0; i < n;) {
		if (!(r->present >> i & 1)) {
			i++;
			continue;
		}
		unsigned j = i;
		while (j < n && r->present >> j & 1)
			j++;
		if (!dwfl_thread_state_registers(thread, (int)i, j - i, &r->dwarf[i]))
			return false;
		i = j;
	}
	dwfl_thread_state_register_pc(thread, u->cur.init_pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Hands one frame to the caller. Callers live at higher addresses: a frame that does not move
 * outwards comes from garbage and would loop (an AArch64 leaf keeps its caller's sp, so equal is
 * allowed once the pc changes). False, with c->stopped, for such a frame or past the limit. */
static bool deliver(struct cur *c, uint64_t pc, bool have_sp, uint64_t sp, bool activation, bool fp_zero)
{
	if (c->nframes && have_sp && (sp < c->last_sp || (sp == c->last_sp && pc == c->last_pc))) {
		c->stopped = true;
		return false;
	}
	if (c->nframes >= UNWIND_MAX_FRAMES) {
		c->stopped = true;
		return false;
	}
	if (c->sp_log && have_sp && sp >= c->stack_base && sp - c->stack_base < c->stack_len)
		c->sp_log[c->nframes] = (uint32_t)(sp - c->stack_base);
	c->add(pc, activation, c->arg);
	c->nframes++;
	c->pass_frames++;
	c->last_pc = pc;
	if (have_sp)
		c->last_sp = sp;
	c->last_activation = activation;
	c->last_fp_zero = fp_zero;
	c->read_failed = false;
	return true;
}

static bool regs_fp_zero(const struct cur *c, const struct unwind_regs *r)
{
	return (r->present >> c->arch->dwarf_fp & 1) && !r->dwarf[c->arch->dwarf_fp];
}

/* CPython's trampoline template, from the first mapped file that has one (the python executable
 * or libpython); each file is searched once. */
static const uint8_t *space_py_template(struct unwinder *u, struct uspace *sp, const struct thread *t,
					size_t *len)
{
	if (!sp->py_checked) {
		sp->py_checked = true;
		const struct map *v = maps_view(t->maps);
		for (size_t i = 0; i < t->maps->n && !sp->py_len; i++) {
			const struct map *mp = &v[i];
			if (!is_file_map(mp))
				continue;
			size_t n;
			const uint8_t *tmpl = ufile_py_template(file_of(u, mp->dso), &n);
			if (tmpl) {
				memcpy(sp->py, tmpl, n);
				sp->py_len = n;
			}
		}
	}
	*len = sp->py_len;
	return sp->py_len ? sp->py : NULL;
}

/* The step over a frame (registers r) in JIT code: the process's jitdump code at the pc, else
 * its perf map entry there when that is a CPython trampoline whose template lperf knows. */
static enum jitstep_result jit_step(struct unwinder *u, const struct unwind_regs *r, bool activation,
				    struct unwind_regs *out)
{
	struct cur *c = &u->cur;
	uint64_t look = activation ? r->pc : r->pc - 1;
	/* Code in a module is the files'; the rest may be JIT code. */
	if (!c->t || c->t->pid <= 0 || !c->t->maps || !c->space || dwfl_addrmodule(c->dwfl, look))
		return JITSTEP_NONE;
	const struct jitstep_frame f = { c->arch, r, activation, read_word, u };
	const struct jitdump_code *code = u->lookup->jit_code(u->m, c->t, look, c->time);
	if (code)
		return jitstep_code(u->js, code, &f, out);
	struct addr_loc loc;
	if (!u->lookup->resolve(u->m, c->t, PERF_RECORD_MISC_USER, look, c->time, &loc) || !loc.dso ||
	    loc.dso->kind != DSO_JIT || loc.dso->jit.pid <= 0 || !loc.sym)
		return JITSTEP_NONE;
	size_t len;
	const uint8_t *tmpl = space_py_template(u, c->space, c->t, &len);
	if (!tmpl || loc.sym->size != len || !jitstep_py_template_known(tmpl, len, c->arch->e_machine))
		return JITSTEP_NONE;
	return jitstep_py_trampoline(u->js, loc.sym->start, &f, out);
}

static void frame_regs(const struct cur *c, Dwfl_Frame *fr, uint64_t pc, struct unwind_regs *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < c->arch->ndwarf; i++) {
		Dwarf_Word v;
		if (dwfl_frame_reg(fr, i, &v) == 0) {
			out->dwarf[i] = v;
			out->present |= 1U << i;
		}
	}
	out->pc = pc;
	out->has_pc = true;
	out->sp = out->dwarf[c->arch->dwarf_sp];
	out->has_sp = out->present >> c->arch->dwarf_sp & 1;
}

static enum jitstep_result native_step(struct unwinder *u, const struct unwind_regs *r, bool activation,
				       struct unwind_regs *out);

static int frame_cb(Dwfl_Frame *fr, void *arg)
{
	struct unwinder *u = arg;
	struct cur *c = &u->cur;
	Dwarf_Addr pc;
	bool activation;
	/* dwfl_frame_pc peeks at the caller to tell an activation: a read that fails there is
	 * the failure that ends this unwind, and must survive this frame's delivery. */
	c->read_failed = false;
	if (!dwfl_frame_pc(fr, &pc, &activation))
		return DWARF_CB_ABORT;
	bool peek_failed = c->read_failed;
	bool first = c->pass_first;
	c->pass_first = false;
	if (first && c->pass_caller) {
		pc = c->regs.pc;
		activation = false;
	}
	if (c->nframes && !pc) {
		/* libdwfl turns a failed read of the return address into pc 0, which otherwise
		 * marks the outermost frame: tell the two apart. */
		if (c->read_failed)
			c->stopped = true;
		else
			c->ended = true;
		return DWARF_CB_ABORT;
	}
	Dwarf_Word sp, fp;
	bool have_sp = dwfl_frame_reg(fr, c->arch->dwarf_sp, &sp) == 0;
	bool fp_zero = dwfl_frame_reg(fr, c->arch->dwarf_fp, &fp) == 0 && !fp;
	if (!deliver(c, pc, have_sp, sp, activation, fp_zero))
		return DWARF_CB_ABORT;
	c->read_failed = peek_failed;
	/* Code outside every module may be JIT code with a known rule: end the pass there, before
	 * libdwfl's frame-pointer fallback guesses. (The pass's first frame was checked before;
	 * the module test spares frame_regs for the others.) */
	if (!first && !dwfl_addrmodule(c->dwfl, activation ? pc : pc - 1)) {
		struct unwind_regs in;
		frame_regs(c, fr, pc, &in);
		c->jit = jit_step(u, &in, activation, &c->jit_next);
		if (c->jit != JITSTEP_NONE)
			return DWARF_CB_ABORT;
	} else if (!first) {
		/* A frame with a plain CFI row after the one libdwfl was needed for (a PLT stub's
		 * expression, say): the pass ends and the native steps go on from its caller, as they
		 * do at a pass's start, instead of libdwfl unwinding the rest of the stack. */
		struct unwind_regs in, next;
		frame_regs(c, fr, pc, &in);
		if (native_step(u, &in, activation, &next) == JITSTEP_STEP) {
			c->jit = JITSTEP_STEP;
			c->jit_next = next;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

/* libdwfl failed to go past the last frame: is that the outermost frame all the same? Code
 * without CFI (such as ld.so's _start) marks it by a frame pointer of 0, as the psABIs ask
 * of process and thread entry points, which the frame-pointer fallback cannot follow. */
static bool outermost_without_cfi(const struct cur *c)
{
	return c->last_fp_zero && !c->read_failed && !ufile_has_cfi(c->dwfl, c->last_pc, c->last_activation);
}

/* ---- per-address-space Dwfl ---- */

/* What a Dwfl is built from: the file mappings (anonymous and JIT maps do not matter). */
static uint64_t maps_fingerprint(const struct maps *ms)
{
	uint64_t h = 0x6c7065726675ULL;
	const struct map *v = maps_view(ms);
	for (size_t i = 0; i < ms->n; i++) {
		const struct map *mp = &v[i];
		if (!is_file_map(mp))
			continue;
		h = hashmap_hash_u64(h ^ mp->start);
		h = hashmap_hash_u64(h ^ mp->end);
		h = hashmap_hash_u64(h ^ mp->pgoff);
		h = hashmap_hash_u64(h ^ (uint64_t)(uintptr_t)mp->dso);
	}
	return h;
}

struct range {
	uint64_t lo, hi;
};

static bool overlaps(const struct range *r, size_t n, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < n; i++)
		if (lo < r[i].hi && r[i].lo < hi)
			return true;
	return false;
}

/* A Dwfl with a module per mapped ELF file (the first mapping of a file gives its bias) and
 * the sample-driven thread state attached; NULL when no usable file is mapped. */
static Dwfl *space_build(struct unwinder *u, const struct maps *ms, pid_t pid, const struct unwind_arch **arch)
{
	if (++u->mark == 0)
		u->mark = 1;
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);
	if (!dwfl)
		return NULL;
	struct range *ranges = NULL;
	size_t nranges = 0, rcap = 0;
	struct ufile *first = NULL;
	const struct map *v = maps_view(ms);
	for (size_t i = 0; i < ms->n; i++) {
		const struct map *mp = &v[i];
		if (!is_file_map(mp))
			continue;
		struct ufile *f = file_of(u, mp->dso);
		uint64_t bias;
		if (!f->ok || f->cfi_refused || f->mark == u->mark || !ufile_map_bias(f, mp, &bias))
			continue;
		uint64_t lo = bias + f->lo, hi = bias + f->hi;
		if (hi <= lo || overlaps(ranges, nranges, lo, hi))
			continue;
		Dwfl_Module *mod = dwfl_report_module(dwfl, f->path, lo, hi);
		void **ud = NULL;
		if (!mod || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) || !ud)
			continue;
		*ud = f;
		f->mark = u->mark;
		ALLOC_GROW(ranges, nranges + 1, rcap);
		ranges[nranges++] = (struct range){ lo, hi };
		if (!first && unwind_arch_by_machine(f->e_machine))
			first = f;
	}
	free(ranges);
	dwfl_report_end(dwfl, NULL, NULL);
	/* The architecture (libdwfl's backend) comes from the files, not from this host. */
	if (!first || !dwfl_attach_state(dwfl, first->elf, pid > 0 ? pid : 1, &thread_callbacks, u)) {
		dwfl_end(dwfl);
		return NULL;
	}
	*arch = unwind_arch_by_machine(first->e_machine);
	return dwfl;
}

static struct uspace *space_get(struct unwinder *u, const struct thread *t)
{
	struct uspace *sp = NULL, *lru = NULL;
	for (size_t i = 0; i < u->nspaces && !sp; i++) {
		if (u->spaces[i].maps == t->maps)
			sp = &u->spaces[i];
		else if (!lru || u->spaces[i].used < lru->used)
			lru = &u->spaces[i];
	}
	/* Unchanged since the last sample: no need to look at the maps at all. */
	if (sp && sp->gen == t->maps->gen) {
		sp->used = ++u->clock;
		return sp;
	}
	uint64_t fp = maps_fingerprint(t->maps);
	if (sp && sp->fp == fp) { /* changed, but not in its file mappings */
		sp->gen = t->maps->gen;
		sp->used = ++u->clock;
		return sp;
	}
	if (!sp)
		sp = u->nspaces < UNWIND_MAX_SPACES ? &u->spaces[u->nspaces++] : lru;
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	sp->maps = t->maps;
	sp->fp = fp;
	sp->gen = t->maps->gen;
	sp->arch = NULL;
	sp->dwfl = space_build(u, t->maps, t->pid, &sp->arch);
	sp->used = ++u->clock;
	return sp;
}

/* ---- API ---- */

struct unwinder *unwind_new(struct machine *m, const struct unwind_lookup *lookup)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));
	u->m = m;
	u->lookup = lookup;
	u->js = jitstep_new();
	return u;
}

void unwind_free(struct unwinder *u)
{
	if (!u)
		return;
	/* Dwfls first: their modules hold references to the files' Elf handles. */
	for (size_t i = 0; i < u->nspaces; i++)
		if (u->spaces[i].dwfl)
			dwfl_end(u->spaces[i].dwfl);
	ufile_cache_free(&u->files);
	free(u->steps);
	jitstep_free(u->js);
	free(u);
}

void unwind_get_stats(const struct unwinder *u, struct unwind_stats *st)
{
	*st = u->st;
}

/* The plain CFI row of the mapped ELF file at pc (link-time address pc - bias), else NULL. */
static const struct cfa_rule *step_rule(struct unwinder *u, uint64_t look)
{
	struct cur *c = &u->cur;
	const struct map *mp = maps_find(c->t->maps, look);
	if (!mp || !is_file_map(mp))
		return NULL;
	struct ufile *f = file_of(u, mp->dso);
	uint64_t bias;
	if (!f->ok || f->e_machine != c->arch->e_machine || !ufile_map_bias(f, mp, &bias))
		return NULL;
	const struct cfa_rule *rule = ufile_cfa_rule(f, look - bias, c->arch);
	return rule->kind == CFA_PLAIN ? rule : NULL;
}

/* The step over a frame of a mapped ELF file by its .eh_frame row, reduced once per pc and kept
 * (cfa.c): no libdwfl state and no allocation per frame. JITSTEP_NONE for what libdwfl should
 * take: no file, no row (.debug_frame only, or none: its frame-pointer fallback), a signal
 * frame, an expression, or a rule that cannot be applied (libdwfl then tells a stack copy that
 * ran out from the outermost frame). out may be r: written only for JITSTEP_STEP. */
static enum jitstep_result native_step(struct unwinder *u, const struct unwind_regs *r, bool activation,
				       struct unwind_regs *out)
{
	struct cur *c = &u->cur;
	uint64_t look = activation ? r->pc : r->pc - 1;
	if (!c->t || !c->t->maps)
		return JITSTEP_NONE;
	/* The space's arch is the same for every sample of one generation of its maps. */
	uint64_t gen = c->t->maps->gen;
	if (!u->steps)
		u->steps = xcalloc(UNWIND_STEP_SLOTS, sizeof(*u->steps));
	struct step_ent *se = &u->steps[(hashmap_hash_u64(look ^ gen * 0x9e3779b97f4a7c15ULL) >> 32) % UNWIND_STEP_SLOTS];
	const struct cfa_rule *rule;
	if (gen && se->gen == gen && se->pc == look) {
		rule = se->rule;
	} else {
		rule = step_rule(u, look);
		*se = (struct step_ent){ gen, look, rule };
	}
	if (!rule)
		return JITSTEP_NONE;
	/* read_word_pac gives the stack copy's words as they are, but for PAC-signed return
	 * addresses: the step reads them itself where no code is stripped. */
	bool plain = c->arch->e_machine != EM_AARCH64;
	const struct jitstep_frame fr = { c->arch, r, activation, read_word_pac, u, plain ? c->stack : NULL,
					  c->stack_base, c->stack_len };
	enum jitstep_result res = cfa_rule_step(rule, &fr, out);
	return res == JITSTEP_FAIL ? JITSTEP_NONE : res;
}

/* The end of an unwind a JIT step decided. */
static void jit_end(struct cur *c, enum jitstep_result j)
{
	c->ended = j == JITSTEP_END;
	c->stopped = j == JITSTEP_FAIL;
}

/* libdwfl passes from c->regs, with JIT steps between them; returns the last pass's result. */
static int run_passes(struct unwinder *u, pid_t tid)
{
	struct cur *c = &u->cur;
	bool activation = true; /* c->regs.pc, which is yet to be delivered, is the sampled pc */
	for (;;) {
		/* Frames with a plain CFI row, and JIT frames, at the pass's start are stepped over
		 * here; libdwfl takes the first other frame and goes on from there. */
		enum jitstep_result j;
		struct unwind_regs next;
		for (;;) {
			uint64_t pc = c->regs.pc, sp = c->regs.sp; /* a native step is made in place */
			bool fp_zero = regs_fp_zero(c, &c->regs);
			bool native = (j = native_step(u, &c->regs, activation, &c->regs)) != JITSTEP_NONE;
			if (!native && (j = jit_step(u, &c->regs, activation, &next)) == JITSTEP_NONE)
				break;
			if (!deliver(c, pc, true, sp, activation, fp_zero))
				return -1;
			if (j != JITSTEP_STEP) {
				jit_end(c, j);
				return -1;
			}
			if (!native)
				c->regs = next;
			activation = false;
		}
		c->pass_caller = !activation;
		c->pass_first = true;
		c->pass_frames = 0;
		c->jit = JITSTEP_NONE;
		c->init_pc = activation ? c->regs.pc : c->regs.pc - 1;
		int r = dwfl_getthread_frames(c->dwfl, tid, frame_cb, u);
		if (!c->pass_frames && c->nframes && !c->stopped) {
			/* libdwfl could not even start (not expected): keep the caller found. */
			deliver(c, c->regs.pc, true, c->regs.sp, false, false);
			c->stopped = true;
		}
		if (c->jit == JITSTEP_NONE)
			return r;
		if (c->jit != JITSTEP_STEP) {
			jit_end(c, c->jit);
			return r;
		}
		c->regs = c->jit_next;
		activation = false;
	}
}

/* Fetches the words the last unwind's frames read (return addresses and saved registers just
 * below each caller's stack pointer) in this sample's stack copy, and logs this one's. */
static void prefetch_frames(struct unwinder *u)
{
	struct cur *c = &u->cur;
	const uint32_t *last = u->sp_at[u->sp_cur ^ 1];
	for (unsigned k = 0; c->stack && k < u->sp_n; k++)
		if (last[k] >= 16 && last[k] < c->stack_len)
			__builtin_prefetch(c->stack + last[k] - 16);
	c->sp_log = u->sp_at[u->sp_cur];
}

int unwind_user(struct unwinder *u, struct thread *t, const struct perf_sample *s,
		void (*add)(uint64_t ip, bool activation, void *arg), void *arg, bool *truncated)
{
	bool trunc_unused;
	if (!truncated)
		truncated = &trunc_unused;
	*truncated = false;
	if (!s->user_abi || !s->user_regs || !s->user_nregs)
		return 0;
	running = u;
	struct uspace *sp = t && t->maps ? space_get(u, t) : NULL;
	const struct unwind_arch *arch = sp && sp->arch ? sp->arch : unwind_arch_host();
	if (!arch)
		return 0;
	struct cur *c = &u->cur;
	memset(c, 0, sizeof(*c));
	unwind_regs_convert(arch, s->user_regs_mask, s->user_regs, s->user_nregs, &c->regs);
	if (!c->regs.has_pc)
		return 0;
	u->st.samples++;
	int r = -1;
	if (c->regs.has_sp && sp && sp->dwfl) {
		c->t = t;
		c->arch = arch;
		c->dwfl = sp->dwfl;
		c->add = add;
		c->arg = arg;
		if (s->user_stack) {
			c->stack = s->user_stack;
			c->stack_len = s->user_stack_dyn_size < s->user_stack_size ? s->user_stack_dyn_size
										     : s->user_stack_size;
		}
		c->stack_base = c->regs.sp;
		prefetch_frames(u);
		c->space = sp;
		c->time = s->time;
		r = run_passes(u, s->tid > 0 ? (pid_t)s->tid : t->tid > 0 ? t->tid : 1);
	}
	bool trunc;
	if (!c->nframes) {
		/* No state could be set up: the sampled pc is all there is. */
		add(c->regs.pc, true, arg);
		c->nframes = 1;
		trunc = true;
	} else if (c->ended) {
		trunc = false;
	} else if (c->stopped) {
		trunc = true;
	} else if (r != 0) {
		trunc = !outermost_without_cfi(c);
	} else {
		trunc = c->read_failed;
	}
	*truncated = trunc;
	u->st.truncated += trunc;
	u->st.frames += c->nframes;
	if (c->sp_log) {
		u->sp_n = c->nframes;
		u->sp_cur ^= 1;
	}
	return (int)c->nframes;
}
