/* Annotation: samples per instruction and per source line of hot functions. See annot.h. */
#include "analysis/annot.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf.h"
#include "symbols/jitdump.h"
#include "symbols/srcline.h"
#include "util/dynlib.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

/* The longest function lperf disassembles (bytes): larger "functions" are symbol-size mistakes. */
#define ANNOT_MAX_CODE (16u << 20)
/* A function's raw hits are merged per address when they grow past this and twice the last
 * merge: memory stays bounded by the addresses sampled, not by the samples. */
#define ANNOT_MERGE_AT 4096

static bool func_eq(const void *value, const void *key)
{
	const struct annot_func *f = value, *k = key;
	return f->evidx == k->evidx && f->dso == k->dso && f->sym == k->sym;
}

void annot_init(struct annot *a)
{
	memset(a, 0, sizeof(*a));
	hashmap_init_custom(&a->index, func_eq);
}

static uint64_t key_hash(int evidx, const struct dso *d, const struct symbol *s)
{
	return hashmap_hash_u64((uint64_t)(uintptr_t)d * 31 + (uint64_t)(uintptr_t)s * 131 + (uint64_t)evidx);
}

static struct annot_func *func_of(struct annot *a, int evidx, struct dso *d, const struct symbol *s)
{
	struct annot_func probe = { .evidx = evidx, .dso = d, .sym = s };
	bool found;
	struct hashmap_entry *e = hashmap_insert_custom(&a->index, key_hash(evidx, d, s), &probe, &found);
	if (!found) {
		struct annot_func *f = xcalloc(1, sizeof(*f));
		f->evidx = evidx;
		f->dso = d;
		f->sym = s;
		e->value = f;
		ALLOC_GROW(a->v, a->n + 1, a->cap);
		a->v[a->n++] = f;
	}
	return e->value;
}

static int cmp_hits(const void *pa, const void *pb)
{
	const struct annot_hit *x = pa, *y = pb;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void annot_func_merge(struct annot_func *f)
{
	if (f->nhits > 1)
		qsort(f->hits, f->nhits, sizeof(*f->hits), cmp_hits);
	size_t out = 0;
	for (size_t i = 0; i < f->nhits; i++) {
		if (out && f->hits[out - 1].addr == f->hits[i].addr) {
			f->hits[out - 1].samples += f->hits[i].samples;
			f->hits[out - 1].period += f->hits[i].period;
		} else {
			f->hits[out++] = f->hits[i];
		}
	}
	f->nhits = out;
	f->merged = out;
}

void annot_add(struct annot *a, const struct resolved_sample *rs)
{
	if (!rs->nframes)
		return;
	int evidx = rs->s->evsel ? rs->s->evsel->idx : 0;
	if (evidx < 0)
		evidx = 0;
	if ((size_t)evidx >= a->nev) {
		size_t n = (size_t)evidx + 1;
		a->ev_samples = xrealloc(a->ev_samples, n * sizeof(uint64_t));
		a->ev_period = xrealloc(a->ev_period, n * sizeof(uint64_t));
		memset(a->ev_samples + a->nev, 0, (n - a->nev) * sizeof(uint64_t));
		memset(a->ev_period + a->nev, 0, (n - a->nev) * sizeof(uint64_t));
		a->nev = n;
	}
	uint64_t period = rs->s->period ? rs->s->period : 1;
	a->ev_samples[evidx]++;
	a->ev_period[evidx] += period;
	const struct frame *fr = &rs->frames[0];
	if (!fr->loc.sym || !fr->loc.dso || !fr->loc.map)
		return;
	struct annot_func *f = func_of(a, evidx, fr->loc.dso, fr->loc.sym);
	if (!f->samples && fr->loc.dso->kind == DSO_JIT && a->machine)
		f->jit_code = resolve_jit_code(a->machine, rs->thread, fr->ip, rs->s->time);
	f->samples++;
	f->period += period;
	/* Consecutive samples often hit one address: merge them on the spot. */
	if (f->nhits && f->hits[f->nhits - 1].addr == fr->loc.addr) {
		f->hits[f->nhits - 1].samples++;
		f->hits[f->nhits - 1].period += period;
		return;
	}
	if (f->nhits >= ANNOT_MERGE_AT && f->nhits >= 2 * f->merged)
		annot_func_merge(f);
	ALLOC_GROW(f->hits, f->nhits + 1, f->hcap);
	f->hits[f->nhits++] = (struct annot_hit){ fr->loc.addr, 1, period };
}

static int cmp_funcs(const void *pa, const void *pb)
{
	const struct annot_func *x = *(const struct annot_func *const *)pa;
	const struct annot_func *y = *(const struct annot_func *const *)pb;
	if (x->evidx != y->evidx)
		return x->evidx - y->evidx;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->sym->name, y->sym->name);
}

void annot_sort(struct annot *a)
{
	if (a->n > 1)
		qsort(a->v, a->n, sizeof(*a->v), cmp_funcs);
}

/* The code bytes: [*start, *start + *size) in the DSO's address space. */
struct code {
	const uint8_t *bytes;
	size_t size;
	uint64_t start;
	unsigned e_machine;
	void *owned;             /* to free */
	const struct jitdump_code *jit;
};

static int elf_code(struct annot_func *f, struct code *c)
{
	struct dso *d = f->dso;
	uint64_t lo = f->sym->start, hi = f->sym->start + f->sym->size;
	bool live_vdso = d->kind == DSO_VDSO && !d->cached; /* else a file: the cache's copy */
	char *path = live_vdso ? NULL : dso_read_path(d);
	Elf *elf = NULL;
	int fd = -1;
	void *image = NULL;
	if (live_vdso) {
		size_t n;
		image = vdso_image(&n);
		elf = image ? elf_memory(image, n) : NULL;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	}
	int rc = -1;
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		f->note = "its file cannot be read";
		goto out;
	}
	c->e_machine = eh.e_machine;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (lo < sh.sh_addr || lo >= sh.sh_addr + sh.sh_size)
			continue;
		if (hi > sh.sh_addr + sh.sh_size || hi <= lo)
			hi = sh.sh_addr + sh.sh_size;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < sh.sh_size) {
			f->note = "its code section cannot be read";
			goto out;
		}
		size_t n = (size_t)(hi - lo);
		if (n > ANNOT_MAX_CODE)
			n = ANNOT_MAX_CODE;
		c->owned = xmalloc(n ? n : 1);
		memcpy(c->owned, (const uint8_t *)data->d_buf + (lo - sh.sh_addr), n);
		c->bytes = c->owned;
		c->size = n;
		c->start = lo;
		rc = 0;
		goto out;
	}
	f->note = "its address is in no code section of the file";
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(image);
	free(path);
	return rc;
}

/* The running kernel's code from /proc/kcore (root only): an ELF core whose PT_LOAD segments
 * sit at kernel virtual addresses. The kernel DSO's symbols are the running kernel's
 * (/proc/kallsyms), so its code is too. */
static int kcore_code(struct annot_func *f, struct code *c)
{
	const char *path = getenv("LPERF_KCORE");
	if (!path || !*path)
		path = "/proc/kcore";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		f->note = errno == ENOENT ? "kernel code is not readable (this kernel has no /proc/kcore; no "
					    "vmlinux is read)"
					  : "kernel code is not readable (/proc/kcore needs root)";
		return -1;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	int rc = -1;
	uint64_t lo = f->sym->start, n = f->sym->size;
	if (n > ANNOT_MAX_CODE)
		n = ANNOT_MAX_CODE;
	if (elf && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph && rc < 0; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (lo < ph.p_vaddr || lo + n > ph.p_vaddr + ph.p_filesz || !n)
				continue;
			c->owned = xmalloc(n);
			if (pread(fd, c->owned, n, (off_t)(ph.p_offset + (lo - ph.p_vaddr))) != (ssize_t)n) {
				free(c->owned);
				c->owned = NULL;
				break;
			}
			c->bytes = c->owned;
			c->size = n;
			c->start = lo;
			c->e_machine = elf64_getehdr(elf) ? elf64_getehdr(elf)->e_machine : EM_X86_64;
			rc = 0;
		}
	}
	if (rc < 0)
		f->note = "kernel code is not readable (its address is in no /proc/kcore segment)";
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

static int get_code(struct annot *a, struct annot_func *f, struct code *c)
{
	struct dso *d = f->dso;
	memset(c, 0, sizeof(*c));
	if (d->mismatch || d->deleted) {
		f->note = d->mismatch ? "its build-id differs from the recording's: the file on disk is not the code "
					"that ran" : "deleted after it was mapped: the file at its path may not be the code "
					"that ran";
		return -1;
	}
	switch (d->kind) {
	case DSO_ELF:
	case DSO_VDSO:
		return elf_code(f, c);
	case DSO_KERNEL:
		if (d->module) {
			f->note = "kernel module code is not read";
			return -1;
		}
		return kcore_code(f, c);
	case DSO_JIT:
		if (f->jit_code) {
			/* A jitdump code load: its bytes are in the dump (also inside lperf's recordings). */
			const struct jitdump_code *jc = f->jit_code;
			{
				c->bytes = jc->code;
				c->size = (size_t)jc->size;
				c->start = jc->addr;
				c->jit = jc;
#if defined(__aarch64__)
				c->e_machine = EM_AARCH64;
#else
				c->e_machine = EM_X86_64;
#endif
				return 0;
			}
		}
		f->note = "JIT code whose bytes no jitdump holds (a perf map names code but keeps no bytes)";
		return -1;
	case DSO_KSYM: /* today's kernel may hold other code there */
		f->note = "kernel code a KSYMBOL named (a BPF program): its instructions are not in the recording";
		return -1;
	default:
		f->note = "no code file";
		return -1;
	}
}

static bool open_capstone(const struct dynlib_cs *cs, unsigned e_machine, csh *h)
{
	cs_err e;
	if (e_machine == EM_X86_64) {
		e = cs->open(CS_ARCH_X86, CS_MODE_64, h);
		if (e == CS_ERR_OK)
			cs->option(*h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	} else if (e_machine == EM_AARCH64) {
		e = cs->open(CS_ARCH_ARM64, CS_MODE_ARM, h);
	} else {
		return false;
	}
	if (e != CS_ERR_OK)
		return false;
	cs->option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	return true;
}

/* A direct branch's or call's target, from capstone's operand details. */
static bool branch_target(const struct dynlib_cs *cs, csh h, const cs_insn *in, unsigned e_machine,
			  uint64_t *target)
{
	if (!in->detail || !(cs->insn_group(h, in, CS_GRP_JUMP) || cs->insn_group(h, in, CS_GRP_CALL)))
		return false;
	if (e_machine == EM_X86_64) {
		const cs_x86 *x = &in->detail->x86;
		if (x->op_count >= 1 && x->operands[0].type == X86_OP_IMM) {
			*target = (uint64_t)x->operands[0].imm;
			return true;
		}
		return false;
	}
	const cs_arm64 *a = &in->detail->arm64;
	for (int i = a->op_count - 1; i >= 0; i--)
		if (a->operands[i].type == ARM64_OP_IMM) {
			*target = (uint64_t)a->operands[i].imm;
			return true;
		}
	return false;
}

/* A jitdump's debug entries come from the JIT: show only file names that are printable UTF-8
 * (V8's entries are not always). */
static bool plausible_name(const char *s)
{
	if (!s || !*s)
		return false;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		if (*p < 0x20 || *p == 0x7f)
			return false;
		size_t n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : 9;
		if (n == 9 || (n == 1 && *p < 0xc2))
			return false;
		p++;
		for (size_t i = 0; i < n; i++, p++)
			if ((*p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

static void insn_line(struct annot_func *f, const struct code *c, struct annot_insn *ai)
{
	if (c->jit) {
		const char *file;
		int line;
		if (jitdump_srcline(c->jit, ai->addr, &file, &line) && line > 0 && line < 10000000 &&
		    plausible_name(file)) {
			ai->file = srcline_intern(file);
			ai->line = (unsigned)line;
		}
		return;
	}
	srcline_find(f->dso, ai->addr, &ai->file, &ai->line);
	const struct srcline_inline *inl;
	size_t n = srcline_inlines(f->dso, ai->addr, &inl);
	if (n > 1 && inl[0].func)
		ai->inlined = inl[0].func;
}

static int cmp_lines(const void *pa, const void *pb)
{
	const struct annot_line *x = pa, *y = pb;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->file != y->file)
		return !x->file ? 1 : !y->file ? -1 : strcmp(x->file, y->file);
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Samples per source line: one row per (file, line) met among the instructions. */
static void build_lines(struct annot_func *f)
{
	size_t cap = 0;
	for (size_t i = 0; i < f->ninsns; i++) {
		const struct annot_insn *in = &f->insns[i];
		size_t j;
		for (j = 0; j < f->nlines; j++)
			if (f->lines[j].file == in->file && f->lines[j].line == in->line)
				break;
		if (j == f->nlines) {
			ALLOC_GROW(f->lines, f->nlines + 1, cap);
			f->lines[f->nlines++] = (struct annot_line){ in->file, in->line, 0, 0, i };
		}
		f->lines[j].samples += in->samples;
		f->lines[j].period += in->period;
	}
	if (f->nlines > 1)
		qsort(f->lines, f->nlines, sizeof(*f->lines), cmp_lines);
}

int annot_func_disassemble(struct annot *a, struct annot_func *f)
{
	if (f->done)
		return f->note ? err_set("%s", f->note) : 0;
	f->done = true;
	annot_func_merge(f);
	struct code c;
	if (get_code(a, f, &c) < 0)
		return err_set("%s", f->note);
	const struct dynlib_cs *cs = dynlib_capstone();
	if (!cs) {
		f->note = srcline_intern(err_msg()); /* interned: notes are not freed */
		free(c.owned);
		return err_set("%s", f->note);
	}
	csh h;
	if (!open_capstone(cs, c.e_machine, &h)) {
		f->note = "its architecture is not one lperf disassembles (x86-64, AArch64)";
		free(c.owned);
		return err_set("%s", f->note);
	}
	const uint8_t *p = c.bytes;
	size_t left = c.size;
	uint64_t addr = c.start;
	size_t cap = 0, hit = 0;
	cs_insn *in = cs->malloc(h);
	while (left) {
		ALLOC_GROW(f->insns, f->ninsns + 1, cap);
		struct annot_insn *ai = &f->insns[f->ninsns];
		memset(ai, 0, sizeof(*ai));
		ai->addr = addr;
		if (cs->disasm_iter(h, &p, &left, &addr, in)) {
			ai->size = in->size;
			size_t m = strlen(in->mnemonic);
			if (m >= sizeof(ai->text))
				m = sizeof(ai->text) - 1;
			memcpy(ai->text, in->mnemonic, m);
			if (in->op_str[0] && m + 1 < sizeof(ai->text)) {
				ai->text[m++] = ' ';
				size_t o = strnlen(in->op_str, sizeof(ai->text) - 1 - m);
				memcpy(ai->text + m, in->op_str, o);
				m += o;
			}
			ai->text[m] = 0;
			ai->has_target = branch_target(cs, h, in, c.e_machine, &ai->target);
		} else {
			/* Data or an encoding capstone does not know: one byte, shown as such. */
			ai->size = 1;
			snprintf(ai->text, sizeof(ai->text), "(bad) .byte 0x%02x", *p);
			p++;
			left--;
			addr++;
		}
		while (hit < f->nhits && f->hits[hit].addr < ai->addr)
			f->unplaced += f->hits[hit++].samples;
		while (hit < f->nhits && f->hits[hit].addr < ai->addr + ai->size) {
			if (f->hits[hit].addr == ai->addr) {
				ai->samples += f->hits[hit].samples;
				ai->period += f->hits[hit].period;
			} else {
				f->unplaced += f->hits[hit].samples;
			}
			hit++;
		}
		insn_line(f, &c, ai);
		f->ninsns++;
	}
	for (; hit < f->nhits; hit++)
		f->unplaced += f->hits[hit].samples;
	cs->free(in, 1);
	cs->close(&h);
	free(c.owned);
	/* Jump targets inside the function (instructions are sorted by address). */
	for (size_t i = 0; i < f->ninsns; i++) {
		struct annot_insn *ai = &f->insns[i];
		if (!ai->has_target || ai->target < c.start || ai->target >= c.start + c.size)
			continue;
		size_t lo = 0, hi = f->ninsns;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (f->insns[mid].addr < ai->target)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < f->ninsns && f->insns[lo].addr == ai->target) {
			ai->target_inside = true;
			f->insns[lo].is_target = true;
		}
	}
	build_lines(f);
	return 0;
}

void annot_func_reset(struct annot_func *f)
{
	free(f->insns);
	free(f->lines);
	f->insns = NULL;
	f->lines = NULL;
	f->ninsns = f->nlines = 0;
	f->unplaced = 0;
	f->note = NULL;
	f->done = false;
}

void annot_free(struct annot *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct annot_func *f = a->v[i];
		free(f->hits);
		free(f->insns);
		free(f->lines);
		free(f);
	}
	free(a->v);
	hashmap_free(&a->index);
	free(a->ev_samples);
	free(a->ev_period);
	memset(a, 0, sizeof(*a));
}

/* Source files, read whole once, split into lines. */
struct src_file {
	const char *path;        /* interned */
	char *text;
	size_t *starts;          /* offsets of line starts */
	size_t nlines;
};

static struct src_file *srcs;
static size_t nsrcs, srcs_cap;

static struct src_file *src_get(const char *path)
{
	path = srcline_intern(path);
	for (size_t i = 0; i < nsrcs; i++)
		if (srcs[i].path == path)
			return &srcs[i];
	ALLOC_GROW(srcs, nsrcs + 1, srcs_cap);
	struct src_file *s = &srcs[nsrcs++];
	memset(s, 0, sizeof(*s));
	s->path = path;
	size_t len = 0;
	/* Sources bigger than 64 MiB are not sources. */
	s->text = file_read(path, 64u << 20, &len);
	if (!s->text)
		return s;
	size_t cap = 0;
	size_t pos = 0;
	while (pos < len) {
		ALLOC_GROW(s->starts, s->nlines + 2, cap);
		s->starts[s->nlines++] = pos;
		const char *nl = memchr(s->text + pos, '\n', len - pos);
		pos = nl ? (size_t)(nl - s->text) + 1 : len;
	}
	ALLOC_GROW(s->starts, s->nlines + 1, cap);
	s->starts[s->nlines] = len;
	return s;
}

const char *annot_source_line(const char *path, unsigned n, size_t *len)
{
	if (!path || !n)
		return NULL;
	struct src_file *s = src_get(path);
	if (!s->text || n > s->nlines)
		return NULL;
	size_t b = s->starts[n - 1], e = s->starts[n];
	while (e > b && (s->text[e - 1] == '\n' || s->text[e - 1] == '\r'))
		e--;
	*len = e - b;
	return s->text + b;
}

void annot_sources_free(void)
{
	for (size_t i = 0; i < nsrcs; i++) {
		free(srcs[i].text);
		free(srcs[i].starts);
	}
	free(srcs);
	srcs = NULL;
	nsrcs = srcs_cap = 0;
}
