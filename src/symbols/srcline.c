/* Source lines and inline chains (libdw), memoised per DSO file and address. See srcline.h. */
#include "symbols/srcline.h"

#include "symbols/buildid_cache.h"
#include "symbols/demangle.h"
#include "symbols/dwarf_funcs.h"
#include "symbols/dwarfcap.h"
#include "symbols/elf.h"
#include "symbols/srcline_split.h"
#include "symbols/srcline_store.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hashmap.h"
#include "util/xalloc.h"

/* One address's answers, each filled when asked for: its line, its inline chain's functions, the
 * chain's files and lines (the lines need the unit's whole line table, which libdw decodes and
 * keeps: 21 MB for libpython's units in a Python report, whose call graphs need none). */
struct sl_addr {
	uint64_t addr;
	bool line_done, inl_done, inl_lines_done;
	const char *file;
	unsigned line;
	const char *str;      /* "base.c:12" */
	struct srcline_inline *inl;
	size_t ninl;
	const char **perf_names; /* the names perf gives inl[] (srcline_inline_frames), once asked */
	const char **level_lines; /* each level's "file.c:12", once asked */
};

/* What binutils remembers of one function DIE between queries (perf keeps one addr2line
 * process per DSO): whether it was the innermost function of an earlier query, and the symbol
 * table name it took then (see perf_level_names). */
struct sl_die {
	bool seen;
	const char *renamed;
};

/* One DSO file (by build-id, else path). */
struct sl_file {
	char *key;
	bool opened;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;      /* Dwfl address = file address + bias (offline layouts may move it) */
	bool has_dwarf;
	bool refused;         /* its DWARF would inflate past the caps (note says how much) */
	signed char handback; /* whether its DWARF's pages can be handed back (srcline_split_hand_back) */
	bool lines_hidden;    /* its line tables were left compressed (srcline_split_open) */
	void *zmem;           /* its inflated sections (srcline_split_open): freed with dwfl */
	const char *note;
	const char *damage;   /* a damaged compressed section of its debug file (interned), or NULL */
	struct hashmap addrs; /* address -> struct sl_addr */
	struct hashmap dies;  /* DIE offset -> struct sl_die */
	struct hashmap units; /* unit DIE offset -> struct dwarf_funcs */
	/* Lines kept from earlier runs (srcline_store.h), and what to keep of this one. */
	struct slstore *store;
	bool store_tried;
	bool dirty;           /* lines were looked up in the DWARF: save them */
	uint8_t build_id[20];
	size_t build_id_size;
	char *dwarf_path;     /* the file the DWARF was read from */
};

/* A dso's file; a forgotten dso's entry has file == FORGOTTEN until a dso at the same address
 * asks again (the map removes nothing). */
static struct sl_file forgotten;
#define FORGOTTEN (&forgotten)

static struct {
	struct hashmap strs;  /* interned strings: key and value are the copy */
	struct hashmap files; /* key -> struct sl_file */
	struct hashmap dsos;  /* dso pointer -> struct sl_file (NULL: not an ELF file) */
	const struct dso *last_dso;
	struct sl_file *last_file;
} C;

const char *srcline_intern(const char *s)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(&C.strs, s, &found);
	if (!found) {
		e->value = xstrdup(s);
		e->key.str = e->value;
	}
	return e->value;
}

const char *srcline_basename(const char *path)
{
	const char *b = strrchr(path, '/');
	return srcline_intern(b ? b + 1 : path);
}

static char *file_key(const struct dso *d)
{
	if (d->build_id_size) {
		char *k = xmalloc(d->build_id_size * 2 + 4);
		strcpy(k, "id:");
		for (size_t i = 0; i < d->build_id_size; i++)
			sprintf(k + 3 + 2 * i, "%02x", d->build_id[i]);
		return k;
	}
	char *p = dso_file_path(d, d->path);
	char *k = xasprintf("path:%s", p);
	free(p);
	return k;
}

static struct sl_file *file_by_key(char *key)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(&C.files, key, &found);
	if (found) {
		free(key);
		return e->value;
	}
	struct sl_file *f = xcalloc(1, sizeof(*f));
	f->key = key;
	e->value = f;
	return f;
}

/* Drops what the cache knows about the DSO object d, which is being freed (dso_on_free); the
 * file's tables stay for other DSOs of the same file. */
static void forget_dso(const struct dso *d)
{
	if (C.last_dso == d)
		C.last_dso = NULL;
	struct hashmap_entry *e = hashmap_find_ptr(&C.dsos, d);
	if (e)
		e->value = FORGOTTEN;
}

static struct sl_file *file_of(struct dso *d)
{
	if (d == C.last_dso)
		return C.last_file;
	bool found;
	struct hashmap_entry *e = hashmap_insert_ptr(&C.dsos, d, &found);
	if (!found || e->value == FORGOTTEN) {
		dso_on_free(forget_dso);
		e->value = NULL; /* d->kind may not be known before dso_load */
		/* Symbols first: they check the build-id and set d->mismatch. */
		dso_load(d);
		struct sl_file *f = d->kind == DSO_ELF ? file_by_key(file_key(d)) : NULL;
		e = hashmap_find_ptr(&C.dsos, d); /* dso_load may have looked other DSOs up */
		e->value = f;
	}
	C.last_dso = d;
	C.last_file = e->value;
	return C.last_file;
}

/* Ends f's Dwfl and frees the sections inflated for it. */
static void file_close(struct sl_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->zmem);
	f->dwfl = NULL, f->mod = NULL, f->zmem = NULL;
}

static char *debuginfo_path;
static const char *debug_root; /* the DSO's --symfs root (NULL for /) while file_open runs */

static char *refused_debuginfo; /* set by find_debuginfo for file_open */

/* The separate debug file, found where libdwfl's standard search looks locally (the build-id
 * directory, then the .gnu_debuglink name beside the file, in .debug/ and under /usr/lib/debug,
 * its CRC and build-id checked: symbols/debuginfo.c), with the same caps on what it finds.
 * Never libdwfl's own search: when nothing is found locally it loads libdebuginfod (with
 * libcurl, GnuTLS and OpenSSL: 7 MB of a report's peak memory) to ask servers. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	/* A name without a CRC is dwz's .gnu_debugaltlink (the file of strings and units the debug
	 * file shares with others): libdwfl's search finds it by its own rules. */
	if (debuglink_file && !debuglink_crc)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
						    debuglink_crc, debuginfo_file_name);
	Dwarf_Addr bias;
	Elf *main_elf = file_name ? dwfl_module_getelf(mod, &bias) : NULL;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int nbits = dwfl_module_build_id(mod, &bits, &vaddr);
	int fd = -1;
	char *found = NULL;
	Elf *dbg = main_elf ? debuginfo_open(debug_root, file_name, main_elf, bits, nbits > 0 ? (size_t)nbits : 0,
					     &fd, &found) : NULL;
	if (!dbg) {
		free(found);
		return -1;
	}
	elf_end(dbg);
	*debuginfo_file_name = found;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	char *why = dwarfcap_refusal(elf);
	elf_end(elf);
	if (!why)
		return fd;
	free(refused_debuginfo);
	refused_debuginfo = why;
	close(fd);
	free(*debuginfo_file_name);
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* A file whose DWARF is in a separate debug file with compressed sections (srcline_split.h). */
static const Dwfl_Callbacks split_callbacks = {
	.find_elf = srcline_split_find_elf,
	.find_debuginfo = find_debuginfo, /* only for a dwz alternate file there */
	.debuginfo_path = &debuginfo_path,
};

/* Opens the file on first use: libdwfl finds the DWARF in it or in its separate debug file (a
 * compressed one's line tables left compressed unless lines are asked for). */
static void file_open(struct sl_file *f, struct dso *d, bool lines)
{
	f->opened = true;
	if (d->mismatch || d->deleted) {
		f->note = d->mismatch ? "its build-id differs from the recording's" : "deleted after it was mapped";
		return;
	}
	char *path = dso_read_path(d);
	/* Under --symfs, separate debug files are looked for under the root too. */
	free(debuginfo_path);
	debuginfo_path = d->root ? xasprintf(":.debug:%s/usr/lib/debug", d->root) : NULL;
	debug_root = d->root;
	struct srcline_split split;
	f->dwfl = srcline_split_open(&split_callbacks, d->root, path, d->build_id, d->build_id_size,
				     d->short_name ? d->short_name : "", lines, &split);
	f->mod = split.mod;
	f->lines_hidden = split.lines_hidden;
	f->zmem = split.mem;
	if (split.damage)
		f->damage = srcline_intern(split.damage);
	free(split.damage);
	if (!f->dwfl && (f->dwfl = dwfl_begin(&offline_callbacks))) {
		f->mod = dwfl_report_offline(f->dwfl, d->short_name ? d->short_name : "", path, -1);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
	free(path);
	Dwarf_Addr bias;
	Elf *elf = f->mod ? dwfl_module_getelf(f->mod, &f->bias) : NULL;
	char *why = dwarfcap_refusal(elf);
	free(refused_debuginfo);
	refused_debuginfo = NULL;
	if (elf && !why && dwfl_module_getdwarf(f->mod, &bias)) {
		f->has_dwarf = true;
		const char *mainfile = NULL, *debugfile = NULL;
		dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
		if ((debugfile || mainfile) && d->build_id_size <= sizeof(f->build_id)) {
			f->dwarf_path = xstrdup(debugfile ? debugfile : mainfile);
			memcpy(f->build_id, d->build_id, d->build_id_size);
			f->build_id_size = d->build_id_size;
		}
		return;
	}
	if (!why)
		why = refused_debuginfo, refused_debuginfo = NULL;
	if (why) {
		f->note = srcline_intern(why); /* interned: notes are not freed */
		f->refused = true;
		free(why);
	} else {
		f->note = f->mod ? "no DWARF debug information (install its -dbg/-dbgsym package)" : "cannot be read";
	}
	file_close(f);
}

/* A separate debug file by d's build-id (libc6-dbg's, whose compressed sections a first report
 * spends 20-odd ms inflating): the only DWARF worth opening before it is asked for. The files
 * with their own DWARF open quickly when asked, and a recording names hundreds that are never
 * asked (perf inject's one-function JIT files). */
static bool has_build_id_debug(const struct dso *d)
{
	char hex[BUILDID_HEX];
	buildid_hex(d->build_id, d->build_id_size, hex);
	char *path = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug", d->root ? d->root : "", hex, hex + 2);
	struct stat st;
	bool yes = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	free(path);
	return yes;
}

void srcline_read_ahead(struct dso *d)
{
	if (!dso_ahead_plain(d) || d->build_id_size < 2 || !has_build_id_debug(d))
		return;
	struct sl_file *f = file_by_key(file_key(d));
	if (!f->store_tried) {
		f->store_tried = true;
		f->store = slstore_load(d->build_id, d->build_id_size);
	}
	if (!f->store && !f->opened)
		file_open(f, d, false);
}

static struct sl_addr *addr_slot(struct sl_file *f, uint64_t addr)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&f->addrs, addr, &found);
	if (!found) {
		e->value = xcalloc(1, sizeof(struct sl_addr));
		((struct sl_addr *)e->value)->addr = addr;
	}
	return e->value;
}

static struct sl_addr *lookup(struct dso *d, uint64_t addr, bool lines)
{
	struct sl_file *f = d ? file_of(d) : NULL;
	if (!f)
		return NULL;
	if (f->opened && lines && f->lines_hidden) { /* opened again, with its line tables */
		file_close(f);
		free(f->dwarf_path);
		f->dwarf_path = NULL;
		f->opened = f->has_dwarf = false;
		f->handback = 0;
	}
	if (!f->opened)
		file_open(f, d, lines);
	if (!f->has_dwarf)
		return NULL;
	return addr_slot(f, addr);
}

static void find_line(struct sl_file *f, struct sl_addr *a)
{
	a->line_done = true;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, a->addr + f->bias);
	if (!l)
		return;
	int line = 0;
	const char *file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	if (!file || line <= 0)
		return;
	a->file = srcline_intern(file);
	a->line = (unsigned)line;
}

static void find_inlines(struct sl_file *f, struct sl_addr *a);

/* The answers an earlier run kept (srcline_store.h), put in addr's slot, without opening the
 * DWARF; NULL when it kept none. */
static struct sl_addr *stored(struct sl_file *f, struct dso *d, uint64_t addr)
{
	if ((f->opened && !f->has_dwarf) || d->mismatch || d->deleted || !d->build_id_size)
		return NULL;
	if (!f->store_tried) {
		f->store_tried = true;
		f->store = slstore_load(d->build_id, d->build_id_size);
	}
	const struct slstore_ent *e = f->store ? slstore_find(f->store, addr) : NULL;
	if (!e)
		return NULL;
	struct sl_addr *a = addr_slot(f, addr);
	if (!a->line_done && !e->no_line) {
		a->line_done = true;
		a->file = e->file ? srcline_intern(e->file) : NULL;
		a->line = e->line;
	}
	if (!a->inl_done && e->has_inl) {
		a->inl_done = true;
		a->inl_lines_done = !e->no_inl_lines;
		a->ninl = e->ninl;
		a->inl = e->ninl ? xcalloc(e->ninl, sizeof(*a->inl)) : NULL;
		for (size_t i = 0; i < e->ninl; i++) {
			a->inl[i] = e->inl[i];
			a->inl[i].func = e->inl[i].func ? srcline_intern(e->inl[i].func) : NULL;
			a->inl[i].file = e->inl[i].file ? srcline_intern(e->inl[i].file) : NULL;
		}
	}
	return a;
}

static void find_inline_lines(struct sl_file *f, struct sl_addr *a);

enum { ASK_LINE = 1, ASK_CHAIN = 2, ASK_CHAIN_LINES = 4 }; /* what answered() looks up */

static bool has_answers(const struct sl_addr *a, unsigned ask)
{
	return a && (!(ask & ASK_LINE) || a->line_done) && (!(ask & ASK_CHAIN) || a->inl_done) &&
	       (!(ask & ASK_CHAIN_LINES) || a->inl_lines_done);
}

/* addr's slot with what is asked (ASK_*; ASK_CHAIN_LINES with ASK_CHAIN) looked up: from this
 * run, else an earlier one, else the DWARF (opened then). NULL when d has no DWARF. */
static struct sl_addr *answered(struct dso *d, uint64_t addr, unsigned ask)
{
	struct sl_file *f = d ? file_of(d) : NULL;
	if (!f)
		return NULL;
	struct hashmap_entry *e = hashmap_find_u64(&f->addrs, addr);
	struct sl_addr *a = e ? e->value : NULL;
	if (!has_answers(a, ask))
		a = stored(f, d, addr);
	if (has_answers(a, ask))
		return a;
	a = lookup(d, addr, (ask & (ASK_LINE | ASK_CHAIN_LINES)) != 0);
	if (!a)
		return NULL;
	if ((ask & ASK_LINE) && !a->line_done) {
		find_line(f, a);
		f->dirty = true;
	}
	if ((ask & ASK_CHAIN) && !a->inl_done) {
		find_inlines(f, a);
		f->dirty = true;
	}
	if ((ask & ASK_CHAIN_LINES) && !a->inl_lines_done) {
		find_inline_lines(f, a);
		f->dirty = true;
	}
	return a;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct slstore_ent *a = pa, *b = pb;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* This run's lines and the earlier runs' of one file, sorted by address, distinct. */
static struct slstore_ent *merged_lines(const struct sl_file *f, size_t *n)
{
	size_t cap = f->addrs.n + (f->store ? f->store->n : 0), k = 0;
	struct slstore_ent *v = xcalloc(cap ? cap : 1, sizeof(*v));
	for (size_t i = 0; i < f->addrs.n; i++) {
		const struct sl_addr *a = f->addrs.v[i].value;
		if (a->line_done || a->inl_done)
			v[k++] = (struct slstore_ent){ a->addr, a->file, a->line, a->inl_done, a->inl, a->ninl,
						       !a->line_done, a->inl_done && !a->inl_lines_done };
	}
	for (size_t i = 0; f->store && i < f->store->n; i++)
		if (!hashmap_find_u64(&f->addrs, f->store->v[i].addr))
			v[k++] = f->store->v[i];
	qsort(v, k, sizeof(*v), ent_cmp);
	*n = k;
	return v;
}

void srcline_cache_save(void)
{
	for (size_t i = 0; i < C.files.n; i++) {
		struct sl_file *f = C.files.v[i].value;
		if (!f->dirty || !f->has_dwarf || !f->build_id_size || !f->dwarf_path)
			continue;
		size_t n;
		struct slstore_ent *v = merged_lines(f, &n);
		slstore_save(f->build_id, f->build_id_size, f->dwarf_path, v, n);
		free(v);
		f->dirty = false;
	}
}

bool srcline_find(struct dso *d, uint64_t addr, const char **file, unsigned *line)
{
	struct sl_addr *a = answered(d, addr, ASK_LINE);
	if (!a)
		return false;
	if (!a->file)
		return false;
	*file = a->file;
	*line = a->line;
	return true;
}

/* A function DIE's name as addr2line -f prints it (linkage name first), demangled as symbols;
 * *linkage says whether it was a linkage name. */
static const char *die_func_name(Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute at;
	const char *name = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	*linkage = name != NULL;
	if (!name)
		name = dwarf_diename(die);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &at))
		name = dwarf_formstring(&at);
	if (!name)
		return NULL;
	char *dem = symbol_demangle(name);
	const char *r = srcline_intern(dem ? dem : name);
	free(dem);
	return r;
}

/* The lowest address of a function DIE's first range as binutils keeps it (its "arange.low"),
 * in the DSO's address space (DWARF address - adjust); 0 when it has none. */
static uint64_t die_low(Dwarf_Die *die, Dwarf_Addr adjust)
{
	Dwarf_Addr base, start, end;
	if (dwarf_ranges(die, 0, &base, &start, &end) <= 0)
		return 0;
	return start - adjust;
}

/* The file name of a DW_AT_call_file index in the CU's file table. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	const char *name = dwarf_filesrc(files, idx, NULL, NULL);
	return name ? srcline_intern(name) : NULL;
}

/* The chain at addr (dwarf_funcs_find); once a unit's index is built, the walk having read the
 * whole unit, its pages go back to the page cache (libpython's: 12 MB of a report's peak). */
static size_t unit_chain(struct sl_file *f, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Off *offs, size_t max)
{
	bool found, built;
	struct hashmap_entry *e = hashmap_insert_u64(&f->units, dwarf_dieoffset(cu), &found);
	struct dwarf_funcs *funcs = found ? e->value : NULL;
	size_t n = dwarf_funcs_find(&funcs, cu, addr, offs, max, &built);
	e->value = funcs;
	if (built)
		srcline_split_hand_back(dwarf_getelf(dwarf_cu_getdwarf(cu->cu)), &f->handback);
	return n;
}

/* addr's inline chain: each level's function (its file and line are find_inline_lines'). */
static void find_inlines(struct sl_file *f, struct sl_addr *a)
{
	a->inl_done = true;
	a->inl_lines_done = false;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, a->addr + f->bias, &bias);
	Dwarf *dbg = cu ? dwarf_cu_getdwarf(cu->cu) : NULL;
	if (!dbg)
		return;
	Dwarf_Off offs[64];
	int nc = (int)unit_chain(f, cu, a->addr + f->bias - bias, offs, 64);
	Dwarf_Die chain[64];
	for (int i = 0; i < nc; i++)
		if (!dwarf_offdie(dbg, offs[i], &chain[i])) {
			nc = i;
			break;
		}
	if (nc <= 0) {
		a->inl_lines_done = true;
		return;
	}
	size_t cap = 0;
	int lang = dwarf_srclang(cu);
	bool cplusplus = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
			 lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
	for (int i = 0; i < nc; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		ALLOC_GROW(a->inl, a->ninl + 1, cap);
		struct srcline_inline *s = &a->inl[a->ninl++];
		bool linkage;
		s->func = die_func_name(&chain[i], &linkage);
		/* binutils takes a C name as the linkage name (perf's addr2line relies on it). */
		s->linkage = linkage || !cplusplus;
		s->die = dwarf_dieoffset(&chain[i]);
		s->low = die_low(&chain[i], f->bias - bias);
		s->file = NULL;
		s->line = 0;
		if (tag == DW_TAG_subprogram)
			break;
	}
	a->inl_lines_done = !a->ninl;
}

/* The files and lines of a's inline levels: the address's own line for the innermost, each
 * level's call site in the next level out (from the DIEs the chain names: a chain kept by an
 * earlier run has the same DIEs, the store being tied to this DWARF file). */
static void find_inline_lines(struct sl_file *f, struct sl_addr *a)
{
	a->inl_lines_done = true;
	if (!a->ninl)
		return;
	if (!a->line_done)
		find_line(f, a);
	const char *file = a->file;
	unsigned line = a->line;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, a->addr + f->bias, &bias);
	Dwarf *dbg = cu ? dwarf_cu_getdwarf(cu->cu) : NULL;
	for (size_t i = 0; i < a->ninl; i++) {
		a->inl[i].file = file;
		a->inl[i].line = line;
		/* The next level out is at this one's call site. */
		Dwarf_Die die;
		Dwarf_Attribute at;
		Dwarf_Word w = 0;
		file = NULL;
		line = 0;
		if (!dbg || !dwarf_offdie(dbg, a->inl[i].die, &die))
			continue;
		if (dwarf_attr(&die, DW_AT_call_file, &at) && dwarf_formudata(&at, &w) == 0)
			file = call_file(cu, w);
		if (dwarf_attr(&die, DW_AT_call_line, &at) && dwarf_formudata(&at, &w) == 0)
			line = (unsigned)w;
	}
}

size_t srcline_inlines(struct dso *d, uint64_t addr, const struct srcline_inline **out)
{
	struct sl_addr *a = answered(d, addr, ASK_LINE | ASK_CHAIN | ASK_CHAIN_LINES);
	if (!a)
		return 0;
	*out = a->inl;
	return a->ninl;
}

const char *srcline_string(struct dso *d, const struct symbol *sym, uint64_t addr)
{
	if (!d)
		return srcline_intern("??:0");
	char buf[4096];
	struct sl_addr *a = answered(d, addr, ASK_LINE);
	if (a && a->str)
		return a->str;
	if (a && a->file) {
		const char *b = strrchr(a->file, '/');
		snprintf(buf, sizeof(buf), "%s:%u", b ? b + 1 : a->file, a->line);
		return a->str = srcline_intern(buf);
	} else if (sym) {
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, sym->name, addr - sym->start);
	} else {
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", d->short_name ? d->short_name : "", addr);
	}
	return srcline_intern(buf);
}

const char *srcline_file_string(struct dso *d, uint64_t addr)
{
	const char *file;
	unsigned line;
	if (!d || !srcline_find(d, addr, &file, &line))
		return srcline_intern("");
	return srcline_basename(file);
}

const char *srcline_refusal(const struct dso *d)
{
	struct hashmap_entry *e = d ? hashmap_find_ptr(&C.dsos, d) : NULL;
	const struct sl_file *f = e && e->value != FORGOTTEN ? e->value : NULL;
	return !f ? NULL : f->refused ? f->note : f->damage;
}

const char *srcline_note(struct dso *d)
{
	if (!d)
		return NULL;
	if (d->kind != DSO_ELF)
		return "not an ELF file";
	struct sl_file *f = file_of(d);
	return f ? f->note : NULL;
}

void srcline_cache_free(void)
{
	srcline_inline_symbols_free();
	for (size_t i = 0; i < C.files.n; i++) {
		struct sl_file *f = C.files.v[i].value;
		for (size_t j = 0; j < f->addrs.n; j++) {
			struct sl_addr *a = f->addrs.v[j].value;
			free(a->inl);
			free(a->perf_names);
			free(a->level_lines);
			free(a);
		}
		hashmap_free(&f->addrs);
		for (size_t j = 0; j < f->dies.n; j++)
			free(f->dies.v[j].value);
		hashmap_free(&f->dies);
		for (size_t j = 0; j < f->units.n; j++)
			dwarf_funcs_free(f->units.v[j].value);
		hashmap_free(&f->units);
		file_close(f);
		slstore_free(f->store);
		free(f->dwarf_path);
		free(f->key);
		free(f);
	}
	for (size_t i = 0; i < C.strs.n; i++)
		free(C.strs.v[i].value);
	hashmap_free(&C.strs);
	hashmap_free(&C.files);
	hashmap_free(&C.dsos);
	free(debuginfo_path);
	debuginfo_path = NULL;
	memset(&C, 0, sizeof(C));
}

/* The names perf's addr2line (binutils) gives an address's inline levels, the first time it is
 * asked for that address (perf keeps each address's answer). binutils names a function DIE by
 * its linkage name; a C++ DIE without one (template instances: DW_AT_name "__move_merge<...>")
 * is named, the first time it is the innermost function of a query, by the symbol table entry
 * around the address, and from then on by its DWARF name, unless that symbol started exactly at
 * the DIE's first address: then the DIE takes the symbol's name for good, also where it is an
 * outer level of later queries. The state lives per DSO file, as binutils' does per process. */
static const char **perf_level_names(struct sl_file *f, struct sl_addr *a, const struct symbol *base)
{
	const char **names = xcalloc(a->ninl ? a->ninl : 1, sizeof(*names));
	for (size_t i = 0; i < a->ninl; i++) {
		const struct srcline_inline *l = &a->inl[i];
		names[i] = l->func ? l->func : srcline_intern("??");
		if (l->linkage)
			continue;
		bool found;
		struct hashmap_entry *e = hashmap_insert_u64(&f->dies, l->die, &found);
		if (!found)
			e->value = xcalloc(1, sizeof(struct sl_die));
		struct sl_die *st = e->value;
		if (i == 0 && !st->seen) {
			st->seen = true;
			names[i] = base->name;
			if (l->low && l->low == base->start)
				st->renamed = base->name;
		} else if (st->renamed) {
			names[i] = st->renamed;
		}
	}
	return names;
}

/* "file.c:12" for each inline level of a (its own line innermost, call sites outwards),
 * "??:0" where unknown: as perf prints them under -F +srcline. */
static const char **level_lines(const struct sl_addr *a)
{
	const char **v = xcalloc(a->ninl ? a->ninl : 1, sizeof(*v));
	for (size_t i = 0; i < a->ninl; i++) {
		const struct srcline_inline *l = &a->inl[i];
		char buf[4096];
		if (l->file && l->line) {
			const char *b = strrchr(l->file, '/');
			snprintf(buf, sizeof(buf), "%s:%u", b ? b + 1 : l->file, l->line);
			v[i] = srcline_intern(buf);
		} else {
			v[i] = srcline_intern("??:0");
		}
	}
	return v;
}

size_t srcline_inline_frames(struct dso *d, const struct symbol *base, uint64_t addr, const struct symbol **syms,
			     bool *inlined, const char **lines, size_t max)
{
	if (!d || !base || d->kind != DSO_ELF)
		return 0;
	struct sl_addr *a = answered(d, addr, ASK_CHAIN | (lines ? ASK_CHAIN_LINES : 0));
	if (!a)
		return 0;
	struct sl_file *f = file_of(d);
	if (!a->perf_names)
		a->perf_names = perf_level_names(f, a, base);
	if (lines && !a->level_lines)
		a->level_lines = level_lines(a);
	size_t out = 0;
	for (size_t i = 0; i < a->ninl && out < max; i++) {
		const char *name = a->perf_names[i];
		if (lines)
			lines[out] = a->level_lines[i];
		if (!strcmp(name, base->name)) {
			syms[out] = base;
			inlined[out++] = false;
		} else {
			syms[out] = srcline_inline_symbol(base, name);
			inlined[out++] = true;
		}
	}
	return out;
}
