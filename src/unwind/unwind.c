/* DWARF unwinding of perf user stack snapshots with libdwfl.
 *
 * Three layers of state, each built once:
 *   ufile   one per DSO: its ELF image (mapped once, with no descriptor kept open), load
 *           segments and machine. Every Dwfl that maps the DSO shares the Elf handle through
 *           libelf's reference count, so no sample ever opens or parses a file again.
 *   uspace  one Dwfl per process address space (struct maps), with a module per mapped ELF
 *           file and libdwfl's thread state attached. It is kept while the address space's
 *           file mappings are unchanged (checked per sample with a fingerprint of those maps),
 *           so libdwfl's per-module CFI caches survive across samples.
 *   cur     the sample being unwound, which the thread callbacks read: registers, stack copy.
 *
 * libdwfl reports the end of a stack and a failed read alike (the return address becomes
 * "undefined"), so memory_read records its failures: a failure in the last step of an unwind
 * means the snapshot (or the files) ran out, not that the outermost frame was reached. */
#include "unwind/unwind.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/xalloc.h"

/* Deeper stacks than this are cut (and reported truncated); perf's kernel.perf_event_max_stack
 * defaults to 127. */
#define UNWIND_MAX_FRAMES 256
/* Address spaces whose Dwfl is kept; the least recently used one goes first. */
#define UNWIND_MAX_SPACES 64

struct useg {
	uint64_t vaddr, offset, filesz, align;
	uint32_t flags;
};

struct ufile {
	struct dso *dso;
	bool ok;                  /* an ET_EXEC/ET_DYN image with load segments */
	Elf *elf;                 /* our reference; Dwfl modules hold others */
	void *image;              /* the vDSO copy under elf (elf_memory does not own it) */
	const char *raw;          /* the whole file (elf_rawfile), for memory reads */
	size_t raw_size;
	unsigned e_machine;
	char *path;               /* the file opened; libdwfl's module and file name */
	uint64_t lo, hi;          /* first PT_LOAD's vaddr aligned down, end of the last */
	struct useg *segs;
	size_t nsegs;
	unsigned mark;            /* == unwinder mark: already reported in the Dwfl being built */
};

struct uspace {
	const struct maps *maps;  /* key only, never dereferenced: it may be freed and reused */
	uint64_t fp;              /* fingerprint of its file mappings */
	Dwfl *dwfl;               /* NULL: nothing to unwind with (no usable file mapped) */
	const struct unwind_arch *arch;
	uint64_t used;
};

struct cur {
	struct thread *t;
	const struct unwind_arch *arch;
	Dwfl *dwfl;
	struct unwind_regs regs;
	const uint8_t *stack;     /* the copy of [regs.sp, regs.sp + stack_len) */
	uint64_t stack_len;
	void (*add)(uint64_t ip, void *arg);
	void *arg;
	unsigned nframes;
	uint64_t last_pc, last_sp;
	bool last_fp_zero;        /* the last frame's frame pointer is known and 0 */
	bool read_failed;         /* a read failed since the last frame was delivered */
	bool stopped;             /* the frame callback gave up (no progress, frame limit) */
	bool ended;               /* a return address of 0: the normal end of a stack */
};

struct unwinder {
	struct machine *m;
	struct ufile **ftab;      /* open addressing by dso pointer */
	size_t fcap, nfiles;
	struct uspace spaces[UNWIND_MAX_SPACES];
	size_t nspaces;
	uint64_t clock;
	unsigned mark;
	struct cur cur;
	struct unwind_stats st;
};

/* ---- per-DSO files ---- */

static size_t ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static struct ufile **ftab_slot(struct ufile **tab, size_t cap, const struct dso *d)
{
	size_t mask = cap - 1;
	for (size_t i = ptr_hash(d) & mask;; i = (i + 1) & mask)
		if (!tab[i] || tab[i]->dso == d)
			return &tab[i];
}

static void ftab_grow(struct unwinder *u)
{
	if ((u->nfiles + 1) * 2 <= u->fcap)
		return;
	size_t ncap = u->fcap ? u->fcap * 2 : 64;
	struct ufile **n = xcalloc(ncap, sizeof(*n));
	for (size_t i = 0; i < u->fcap; i++)
		if (u->ftab[i])
			*ftab_slot(n, ncap, u->ftab[i]->dso) = u->ftab[i];
	free(u->ftab);
	u->ftab = n;
	u->fcap = ncap;
}

/* The path the symbols module reads d from: under --symfs, without " (deleted)". */
static char *file_path(const struct dso *d)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(d->path), dl = sizeof(deleted) - 1;
	if (n > dl && !strcmp(d->path + n - dl, deleted))
		n -= dl;
	if (d->root && d->path[0] == '/')
		return xasprintf("%s%.*s", d->root, (int)n, d->path);
	return xstrndup(d->path, n);
}

/* The size of this process's mapping at base, from /proc/self/maps; 0 when not found. */
static size_t self_mapping_size(uint64_t base)
{
	char *maps = file_read("/proc/self/maps", 64u << 20, NULL);
	size_t size = 0;
	for (char *line = maps; line && *line && !size;) {
		uint64_t start, end;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2 && start == base && end > start)
			size = (size_t)(end - start);
		char *nl = strchr(line, '\n');
		line = nl ? nl + 1 : NULL;
	}
	free(maps);
	return size;
}

/* [vdso]: this process's own image, which is the recording's on the same kernel (the symbols
 * module's build-id check says when it is not). */
static Elf *vdso_elf(struct ufile *f)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	size_t size = base ? self_mapping_size(base) : 0;
	if (!size)
		return NULL;
	/* libelf may write to an image it parses; the vDSO is read-only. */
	f->image = xmalloc(size);
	memcpy(f->image, (const void *)(uintptr_t)base, size);
	return elf_memory(f->image, size);
}

static Elf *file_elf(struct ufile *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	Elf *elf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		/* The whole file in memory, so that no descriptor stays open per DSO. */
		if (elf && elf_cntl(elf, ELF_C_FDREAD) != 0) {
			elf_end(elf);
			elf = NULL;
		}
	}
	close(fd);
	return elf;
}

static void read_segments(struct ufile *f)
{
	size_t nph, cap = 0;
	if (elf_getphdrnum(f->elf, &nph) != 0)
		return;
	for (size_t i = 0; i < nph && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr || ph.p_filesz > ph.p_memsz)
			continue; /* nonsense: no module may be built from it */
		uint64_t align = ph.p_align && !(ph.p_align & (ph.p_align - 1)) ? ph.p_align : 1;
		if (!f->nsegs)
			f->lo = ph.p_vaddr & ~(align - 1);
		if (ph.p_vaddr + ph.p_memsz > f->hi)
			f->hi = ph.p_vaddr + ph.p_memsz;
		ALLOC_GROW(f->segs, f->nsegs + 1, cap);
		f->segs[f->nsegs++] = (struct useg){ ph.p_vaddr, ph.p_offset, ph.p_filesz, align, ph.p_flags };
	}
}

static void ufile_open(struct ufile *f)
{
	struct dso *d = f->dso;
	dso_load(d); /* the build-id check, and the separate debug file's path */
	if (d->mismatch)
		return;
	elf_version(EV_CURRENT);
	if (d->kind == DSO_VDSO) {
		f->path = xstrdup(d->path);
		f->elf = vdso_elf(f);
	} else {
		f->path = file_path(d);
		f->elf = file_elf(f);
	}
	GElf_Ehdr eh;
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh))
		return;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return;
	f->e_machine = eh.e_machine;
	f->raw = elf_rawfile(f->elf, &f->raw_size);
	if (!f->raw)
		f->raw_size = 0;
	read_segments(f);
	f->ok = f->nsegs && f->hi > f->lo;
}

static struct ufile *ufile_get(struct unwinder *u, struct dso *d)
{
	if (u->fcap) {
		struct ufile *f = *ftab_slot(u->ftab, u->fcap, d);
		if (f)
			return f;
	}
	ftab_grow(u);
	struct ufile *f = xcalloc(1, sizeof(*f));
	f->dso = d;
	ufile_open(f);
	*ftab_slot(u->ftab, u->fcap, d) = f;
	u->nfiles++;
	return f;
}

static void ufile_free(struct ufile *f)
{
	if (f->elf)
		elf_end(f->elf);
	free(f->image);
	free(f->path);
	free(f->segs);
	free(f);
}

static bool is_file_map(const struct map *mp)
{
	return mp->dso && (mp->dso->kind == DSO_ELF || mp->dso->kind == DSO_VDSO);
}

/* The load bias of f mapped by mp: the segment whose file bytes the mapping starts in (its
 * start rounded down to a page), an executable one first, gives the link-time address of the
 * mapping's first byte. */
static bool map_bias(const struct ufile *f, const struct map *mp, uint64_t *bias)
{
	const struct useg *best = NULL;
	for (size_t i = 0; i < f->nsegs; i++) {
		const struct useg *s = &f->segs[i];
		uint64_t page = s->align < 65536 ? s->align : 65536;
		bool in = mp->pgoff >= s->offset ? mp->pgoff - s->offset < (s->filesz ? s->filesz : 1)
						 : s->offset - mp->pgoff < page;
		if (in && (!best || (!(best->flags & PF_X) && (s->flags & PF_X))))
			best = s;
	}
	if (!best)
		return false;
	*bias = mp->start - (best->vaddr - best->offset + mp->pgoff);
	return true;
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
	if (fd >= 0)
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
		struct ufile *f = ufile_get(u, mp->dso);
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

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	struct cur *c = &u->cur;
	uint64_t v;
	if (addr >= c->regs.sp && c->stack_len >= 8 && addr - c->regs.sp <= c->stack_len - 8) {
		memcpy(&v, c->stack + (addr - c->regs.sp), 8);
		*result = v;
		return true;
	}
	if (read_file_word(u, addr, &v)) {
		*result = v;
		return true;
	}
	c->read_failed = true;
	return false;
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
	dwfl_thread_state_register_pc(thread, r->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *fr, void *arg)
{
	struct unwinder *u = arg;
	struct cur *c = &u->cur;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(fr, &pc, NULL))
		return DWARF_CB_ABORT;
	if (c->nframes && !pc) {
		c->ended = true;
		return DWARF_CB_ABORT;
	}
	/* Callers live at higher addresses: a frame that does not move outwards comes from
	 * garbage and would loop. (An AArch64 leaf keeps its caller's sp, so equal is allowed
	 * once the pc changes.) */
	Dwarf_Word sp;
	bool have_sp = dwfl_frame_reg(fr, c->arch->dwarf_sp, &sp) == 0;
	if (c->nframes && have_sp && (sp < c->last_sp || (sp == c->last_sp && pc == c->last_pc))) {
		c->stopped = true;
		return DWARF_CB_ABORT;
	}
	if (c->nframes >= UNWIND_MAX_FRAMES) {
		c->stopped = true;
		return DWARF_CB_ABORT;
	}
	c->add(pc, c->arg);
	c->nframes++;
	c->last_pc = pc;
	if (have_sp)
		c->last_sp = sp;
	Dwarf_Word fp;
	c->last_fp_zero = dwfl_frame_reg(fr, c->arch->dwarf_fp, &fp) == 0 && !fp;
	c->read_failed = false;
	return DWARF_CB_OK;
}

/* Whether libdwfl has CFI for pc (a return address unless initial). */
static bool has_cfi(Dwfl *dwfl, Dwarf_Addr pc, bool initial)
{
	if (!initial)
		pc--;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	if (!mod)
		return false;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi[2];
	cfi[0] = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Addr bias0 = bias;
	cfi[1] = dwfl_module_dwarf_cfi(mod, &bias);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr;
		if (cfi[i] && dwarf_cfi_addrframe(cfi[i], pc - (i ? bias : bias0), &fr) == 0) {
			free(fr);
			return true;
		}
	}
	return false;
}

/* libdwfl failed to go past the last frame: is that the outermost frame all the same? Code
 * without CFI (such as ld.so's _start) marks it by a frame pointer of 0, as the psABIs ask
 * of process and thread entry points, which the frame-pointer fallback cannot follow. */
static bool outermost_without_cfi(const struct cur *c)
{
	return c->last_fp_zero && !c->read_failed && !has_cfi(c->dwfl, c->last_pc, c->nframes == 1);
}

/* ---- per-address-space Dwfl ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* What a Dwfl is built from: the file mappings (anonymous and JIT maps do not matter). */
static uint64_t maps_fingerprint(const struct maps *ms)
{
	uint64_t h = 0x6c7065726675ULL;
	for (size_t i = 0; i < ms->n; i++) {
		const struct map *mp = &ms->v[i];
		if (!is_file_map(mp))
			continue;
		h = mix64(h ^ mp->start);
		h = mix64(h ^ mp->end);
		h = mix64(h ^ mp->pgoff);
		h = mix64(h ^ (uint64_t)(uintptr_t)mp->dso);
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
	for (size_t i = 0; i < ms->n; i++) {
		const struct map *mp = &ms->v[i];
		if (!is_file_map(mp))
			continue;
		struct ufile *f = ufile_get(u, mp->dso);
		uint64_t bias;
		if (!f->ok || f->mark == u->mark || !map_bias(f, mp, &bias))
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
	uint64_t fp = maps_fingerprint(t->maps);
	struct uspace *sp = NULL, *lru = NULL;
	for (size_t i = 0; i < u->nspaces && !sp; i++) {
		if (u->spaces[i].maps == t->maps)
			sp = &u->spaces[i];
		else if (!lru || u->spaces[i].used < lru->used)
			lru = &u->spaces[i];
	}
	if (sp && sp->fp == fp) {
		sp->used = ++u->clock;
		return sp;
	}
	if (!sp)
		sp = u->nspaces < UNWIND_MAX_SPACES ? &u->spaces[u->nspaces++] : lru;
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	sp->maps = t->maps;
	sp->fp = fp;
	sp->arch = NULL;
	sp->dwfl = space_build(u, t->maps, t->pid, &sp->arch);
	sp->used = ++u->clock;
	return sp;
}

/* ---- API ---- */

struct unwinder *unwind_new(struct machine *m)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));
	u->m = m;
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
	for (size_t i = 0; i < u->fcap; i++)
		if (u->ftab[i])
			ufile_free(u->ftab[i]);
	free(u->ftab);
	free(u);
}

void unwind_get_stats(const struct unwinder *u, struct unwind_stats *st)
{
	*st = u->st;
}

int unwind_user(struct unwinder *u, struct thread *t, const struct perf_sample *s,
		void (*add)(uint64_t ip, void *arg), void *arg, bool *truncated)
{
	bool trunc_unused;
	if (!truncated)
		truncated = &trunc_unused;
	*truncated = false;
	if (!s->user_abi || !s->user_regs || !s->user_nregs)
		return 0;
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
		pid_t tid = s->tid > 0 ? (pid_t)s->tid : t->tid > 0 ? t->tid : 1;
		r = dwfl_getthread_frames(sp->dwfl, tid, frame_cb, u);
	}
	bool trunc;
	if (!c->nframes) {
		/* No state could be set up: the sampled pc is all there is. */
		add(c->regs.pc, arg);
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
	return (int)c->nframes;
}
