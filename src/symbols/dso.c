/* The DSO cache (kinds, lookup by path and build-id), the one dispatcher to the symbol loaders
 * (ELF, vDSO, kallsyms: each fills a symtab_load that is kept here; perf maps, read and grown
 * here through perfmap.c), and the lookups every resolved address makes: file offset to virtual
 * address, address to symbol. */
#include "symbols/dso.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbols/buildid_cache.h"
#include "symbols/elf.h"
#include "symbols/kahead.h"
#include "symbols/kallsyms.h"
#include "symbols/ksnap.h"
#include "symbols/perfmap.h"
#include "symbols/symstore.h"
#include "util/error.h"
#include "symbols/symtab.h"
#include "util/xalloc.h"

void dso_cache_init(struct dso_cache *c)
{
	memset(c, 0, sizeof(*c));
	hashmap_init(&c->by_path, HASHMAP_STR);
}

void dso_cache_set_root(struct dso_cache *c, const char *root)
{
	free(c->root);
	c->root = NULL;
	if (!root || !*root || !strcmp(root, "/"))
		return;
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	c->root = xstrndup(root, n);
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool is_kernel_path(const char *path)
{
	return has_prefix(path, "[kernel.kallsyms]");
}

/* Mappings with no file behind them, whatever their name looks like. */
static bool is_anon_path(const char *path)
{
	if (!*path || has_prefix(path, "//") || has_prefix(path, "/memfd:") || has_prefix(path, "/dev/") ||
	    has_prefix(path, "/SYSV") || has_prefix(path, "/anon_hugepage"))
		return true;
	/* [heap], [stack], [stack:TID], [anon:name], [vsyscall], [uprobes]... */
	return path[0] == '[' && strcmp(path, "[vdso]") != 0;
}

static enum dso_kind kind_of(const char *path)
{
	if (is_kernel_path(path))
		return DSO_KERNEL;
	if (!strcmp(path, "[vdso]"))
		return DSO_VDSO;
	if (is_anon_path(path))
		return DSO_ANON;
	return DSO_ELF;
}

/* A recorded build-id and a DSO's agree unless both are known and differ. */
static bool bid_compatible(const struct dso *d, const uint8_t *bid, size_t bid_size)
{
	if (!bid_size || !d->build_id_size)
		return true;
	return bid_size == d->build_id_size && !memcmp(bid, d->build_id, bid_size);
}

static struct dso *lookup(struct dso_cache *c, const char *path, const uint8_t *bid, size_t bid_size)
{
	size_t pos = 0;
	for (struct hashmap_entry *e; (e = hashmap_next_str(&c->by_path, path, &pos));)
		if (bid_compatible(e->value, bid, bid_size))
			return e->value;
	return NULL;
}

static struct dso *add(struct dso_cache *c, const char *path, enum dso_kind kind, const uint8_t *bid,
		       size_t bid_size)
{
	struct dso *d = xcalloc(1, sizeof(*d));
	d->kind = kind;
	d->seq = (uint32_t)c->n;
	d->path = xstrdup(path);
	const char *slash = strrchr(d->path, '/');
	d->short_name = slash && kind == DSO_ELF ? slash + 1 : d->path;
	if (bid_size) {
		d->build_id_size = bid_size > sizeof(d->build_id) ? sizeof(d->build_id) : bid_size;
		memcpy(d->build_id, bid, d->build_id_size);
	}
	d->root = c->root ? xstrdup(c->root) : NULL;
	ALLOC_GROW(c->v, c->n + 1, c->cap);
	c->v[c->n++] = d;
	hashmap_add_str(&c->by_path, d->path, d);
	return d;
}

static struct dso *get(struct dso_cache *c, const char *path, enum dso_kind kind, const uint8_t *bid,
		       size_t bid_size)
{
	if (bid_size > 20)
		bid_size = 20;
	if (!bid)
		bid_size = 0;
	struct dso *d = lookup(c, path, bid, bid_size);
	if (!d)
		return add(c, path, kind, bid, bid_size);
	/* The first record that knows the build-id teaches it, as long as nothing was loaded yet
	 * (loading compares it with the file). */
	if (bid_size && !d->build_id_size && !d->loaded) {
		memcpy(d->build_id, bid, bid_size);
		d->build_id_size = bid_size;
	}
	return d;
}

struct dso *dso_cache_get(struct dso_cache *c, const char *path, const uint8_t *build_id, size_t bid_size)
{
	if (!path)
		path = "";
	if (is_kernel_path(path))
		return get(c, "[kernel.kallsyms]", DSO_KERNEL, build_id, bid_size);
	return get(c, path, kind_of(path), build_id, bid_size);
}

/* "/lib/modules/6.1.0/kernel/net/netfilter/nf_tables.ko.xz" and "[nf_tables]" are module
 * "nf_tables"; kallsyms spells dashes in module names as underscores. */
static char *module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (base[0] == '[' && n >= 2 && base[n - 1] == ']') {
		base++;
		n -= 2;
	} else {
		const char *ko = strstr(base, ".ko");
		if (ko && (!ko[3] || ko[3] == '.'))
			n = (size_t)(ko - base);
	}
	char *s = xasprintf("[%.*s]", (int)n, base);
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	return s;
}

struct dso *dso_cache_get_kernel(struct dso_cache *c, const char *path, const uint8_t *build_id,
				 size_t bid_size)
{
	if (!path || !*path || is_kernel_path(path))
		return get(c, "[kernel.kallsyms]", DSO_KERNEL, build_id, bid_size);
	struct dso *d = get(c, path, DSO_KERNEL, build_id, bid_size);
	if (!d->module && d->kind == DSO_KERNEL) {
		d->module = module_name(path);
		d->short_name = d->module;
		d->kernel = get(c, "[kernel.kallsyms]", DSO_KERNEL, NULL, 0);
	}
	return d;
}

struct dso *dso_cache_get_perfmap(struct dso_cache *c, int pid)
{
	char *path = perfmap_path(pid);
	struct dso *d = lookup(c, path, NULL, 0);
	/* A file of that name mapped for real (unlikely) is another DSO. */
	if (!d || d->kind != DSO_JIT) {
		d = add(c, path, DSO_JIT, NULL, 0);
		d->jit.pid = pid;
		d->jit.force = c->jit_force;
		d->jit.short_name = xasprintf("[JIT] tid %d", pid);
		d->short_name = d->jit.short_name;
	}
	free(path);
	return d;
}

void dso_cache_set_jit_force(struct dso_cache *c, bool force)
{
	c->jit_force = force;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->kind == DSO_JIT && !c->v[i]->loaded)
			c->v[i]->jit.force = force;
}

/* A new DSO of kind with one symbol [start, start+size) called name, loaded. */
static struct dso *add_one_symbol(struct dso_cache *c, const char *path, enum dso_kind kind, uint64_t start,
				  uint64_t size, const char *name)
{
	struct dso *d = add(c, path, kind, NULL, 0);
	const char *slash = strrchr(d->path, '/');
	d->short_name = slash ? slash + 1 : d->path;
	d->loaded = true;
	d->syms = xcalloc(1, sizeof(*d->syms));
	d->nsyms = 1;
	d->syms[0].start = start;
	d->syms[0].size = size;
	d->syms[0].name = xstrdup(name);
	return d;
}

struct dso *dso_cache_add_jit_code(struct dso_cache *c, const char *path, uint64_t start, uint64_t size,
				   const char *name)
{
	return add_one_symbol(c, path, DSO_JIT, start, size, name);
}

struct dso *dso_cache_ksymbol(struct dso_cache *c, const char *name, uint64_t size)
{
	size_t pos = 0;
	for (struct hashmap_entry *e; (e = hashmap_next_str(&c->by_path, name, &pos));) {
		struct dso *d = e->value;
		if (d->kind == DSO_KSYM) {
			if (size > d->syms[0].size)
				d->syms[0].size = size;
			return d;
		}
	}
	return add_one_symbol(c, name, DSO_KSYM, 0, size, name);
}

static void elf_found_free(struct elf_found *f);

#define DSO_FREE_HOOKS 4
static void (*free_hooks[DSO_FREE_HOOKS])(const struct dso *d);

void dso_on_free(void (*fn)(const struct dso *d))
{
	for (size_t i = 0; i < DSO_FREE_HOOKS; i++) {
		if (free_hooks[i] == fn)
			return;
		if (!free_hooks[i]) {
			free_hooks[i] = fn;
			return;
		}
	}
	abort(); /* a programming error: raise DSO_FREE_HOOKS */
}

static void dso_free(struct dso *d)
{
	for (size_t i = 0; i < DSO_FREE_HOOKS && free_hooks[i]; i++)
		free_hooks[i](d);
	kahead_free(d->kahead);
	elf_found_free(d->ahead_elf);
	perfmap_free(d->jit.perfmap);
	free(d->jit.data);
	free(d->jit.short_name);
	if ((d->ksnap && !d->ksnap_fresh && !d->ksnap_rest) || d->symstore) { /* the snapshot's, the store's */
		d->syms = NULL;
		d->nsyms = 0;
	}
	symtab_free(d->syms, d->nsyms);
	ksnap_free(d->ksnap);
	symstore_free(d->symstore);
	free(d->path);
	notes_clear(&d->notes);
	free(d->debug_path);
	free(d->cached);
	free(d->loads);
	free(d->module);
	free(d->root);
	free(d);
}

void dso_cache_free(struct dso_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		dso_free(c->v[i]);
	free(c->v);
	hashmap_free(&c->by_path);
	free(c->root);
	memset(c, 0, sizeof(*c));
}

/* For notes that are a state (a perf map's, recomputed as it grows): note replaces the older
 * ones; NULL clears them. */
static void set_note(struct dso *d, char *note)
{
	notes_clear(&d->notes);
	notes_take(&d->notes, note);
}

const char *dso_load_note(const struct dso *d)
{
	return notes_last(&d->notes);
}

static const char deleted[] = " (deleted)";

static bool is_deleted(const char *path)
{
	size_t n = strlen(path);
	return n > sizeof(deleted) - 1 && !strcmp(path + n - (sizeof(deleted) - 1), deleted);
}

char *dso_file_path(const struct dso *d, const char *path)
{
	size_t n = strlen(path);
	if (is_deleted(path))
		n -= sizeof(deleted) - 1;
	if (d->root && path[0] == '/')
		return xasprintf("%s%.*s", d->root, (int)n, path);
	return xstrndup(path, n);
}

char *dso_read_path(const struct dso *d)
{
	return d->cached ? xstrdup(d->cached) : dso_file_path(d, d->path);
}

/* Keeps what a loader found, its notes after the DSO's. */
static void keep(struct dso *d, struct symtab_load *r)
{
	symtab_free(d->syms, d->nsyms);
	d->syms = r->syms;
	d->nsyms = r->nsyms;
	if (r->loads) {
		free(d->loads);
		d->loads = r->loads;
		d->nloads = r->nloads;
	}
	d->is_exec |= r->is_exec;
	d->mismatch |= r->mismatch;
	if (r->build_id_size && !d->build_id_size) {
		memcpy(d->build_id, r->build_id, r->build_id_size);
		d->build_id_size = r->build_id_size;
	}
	if (r->debug_path) {
		free(d->debug_path);
		d->debug_path = r->debug_path;
	}
	notes_move(&d->notes, &r->notes);
}

/* What loading an ELF DSO finds (elf_find), kept in the DSO by elf_keep: at once when the walk
 * loads it, later when it was read ahead (dso_read_ahead). */
struct elf_found {
	struct symtab_load r;
	char *cached;
	bool mismatch, deleted;
	struct symstore *symstore;
};

/* A DSO the recording names by build-id is read from the file at its path while that file is
 * the recorded build, else from the build-id cache's copy; with neither, a file that is another
 * build is not read at all (its symbols and CFI would describe other code). A file gone or
 * without a build-id is left to the loader's own checks and notes. */
static void locate(const struct dso *d, char **file, struct elf_found *f)
{
	if (!d->build_id_size)
		return;
	char *found;
	int rc = buildid_cache_locate(*file, d->build_id, d->build_id_size, &found);
	if (rc == 1) {
		free(*file);
		*file = found;
		f->cached = xstrdup(found);
	} else if (rc == 0) {
		free(found);
	} else {
		uint8_t have[20];
		if (buildid_of_file(*file, have)) {
			f->mismatch = true;
			notes_add(&f->r.notes, "%s", err_msg());
		}
	}
}

/* Symbol stores (symbols/symstore.h) are kept by the file's build-id (the recorded one, else the
 * file's own: the store checks the file's size and time either way), unless a debug file was
 * given by hand (wperf's --pdb_file: not part of what the store checks). Files with few symbols
 * (perf inject's one-function JIT files, small programs) are read faster than a store is kept,
 * and a file the walk keeps whole (buildid_memo_has: 4 KiB at most) is not even looked up. */
#define STORE_MIN_SYMS 64

/* The store of file's symbols into r, when there is a usable one. */
static bool load_stored(const struct dso *d, const char *file, struct elf_found *f)
{
	struct symtab_load *r = &f->r;
	uint8_t id[20];
	size_t idn = d->build_id_size;
	if (debuginfo_has_files() || buildid_memo_has(file))
		return false;
	if (idn)
		memcpy(id, d->build_id, idn);
	else
		idn = buildid_of_file(file, id);
	if (!idn || !(f->symstore = symstore_load(id, idn, file)))
		return false;
	struct symstore *s = f->symstore;
	r->syms = s->syms;
	r->nsyms = s->nsyms;
	r->loads = s->loads; /* the DSO's from now on */
	r->nloads = s->nloads;
	s->loads = NULL;
	s->nloads = 0;
	r->is_exec = s->is_exec;
	memcpy(r->build_id, id, idn);
	r->build_id_size = idn;
	r->debug_path = s->debug.path ? xstrdup(s->debug.path) : NULL;
	return true;
}

/* Keeps a load of file for the next report: only a complete one (symbols found, nothing noted)
 * of the recorded build, when the file has a build-id. */
static void save_stored(const struct dso *d, const char *file, const struct symtab_load *r)
{
	if (!debuginfo_has_files() && !buildid_memo_has(file) && !r->mismatch && !r->notes.n &&
	    r->nsyms >= STORE_MIN_SYMS &&
	    r->build_id_size && (!d->build_id_size || (r->build_id_size == d->build_id_size &&
						       !memcmp(r->build_id, d->build_id, d->build_id_size))))
		symstore_save(r->build_id, r->build_id_size, file, r);
}

static void elf_find(const struct dso *d, struct elf_found *f)
{
	struct symtab_load *r = &f->r;
	struct elf_want w = { d->path, NULL, d->root, d->build_id, d->build_id_size };
	if (d->kind == DSO_VDSO) {
		/* Another kernel's vDSO is read from the build-id cache's copy, else not at all. */
		uint8_t now[20];
		size_t n = d->build_id_size ? buildid_vdso(now) : 0;
		char *file = NULL;
		if (n && (n != d->build_id_size || memcmp(now, d->build_id, n)) &&
		    buildid_cache_path(d->build_id, d->build_id_size, &file) == 0) {
			f->cached = file;
			w.file = file;
			elfsym_load_file(&w, r);
		} else {
			vdso_load(&w, r);
		}
	} else if (is_deleted(d->path) && !d->build_id_size) {
		/* The file was removed or replaced after it was mapped (a rebuild, an upgrade): what
		 * is at the path now may be another version, and without a build-id to compare, its
		 * symbols would name the wrong code. perf leaves such frames unnamed too. */
		f->deleted = true;
		notes_add(&r->notes, "deleted after it was mapped, and the recording has no build-id to check "
			  "the file now at its path against");
	} else {
		char *file = dso_file_path(d, d->path);
		locate(d, &file, f);
		w.file = file;
		if (!f->mismatch && !load_stored(d, file, f)) {
			elfsym_load_file(&w, r);
			save_stored(d, file, r);
		}
		free(file);
	}
}

static void elf_keep(struct dso *d, struct elf_found *f)
{
	d->cached = f->cached;
	d->mismatch |= f->mismatch;
	d->deleted |= f->deleted;
	d->symstore = f->symstore;
	keep(d, &f->r);
}

static void elf_found_free(struct elf_found *f)
{
	if (!f)
		return;
	if (f->symstore)
		f->r.syms = NULL, f->r.nsyms = 0; /* the store's */
	symtab_free(f->r.syms, f->r.nsyms);
	symstore_free(f->symstore);
	free(f->r.loads);
	free(f->r.debug_path);
	notes_clear(&f->r.notes);
	free(f->cached);
	free(f);
}

static void load_elf(struct dso *d)
{
	struct elf_found found = { 0 }, *f = d->ahead_elf ? d->ahead_elf : &found;
	if (!d->ahead_elf)
		elf_find(d, f);
	elf_keep(d, f);
	free(d->ahead_elf);
	d->ahead_elf = NULL;
}

void dso_read_ahead(struct dso *d)
{
	/* Only with the recording's build-id: a record may still teach one to a DSO without it. */
	if (d->loaded || d->ahead_elf || d->kind != DSO_ELF || !d->build_id_size)
		return;
	d->ahead_elf = xcalloc(1, sizeof(*d->ahead_elf));
	elf_find(d, d->ahead_elf);
}

bool dso_ahead_plain(const struct dso *d)
{
	const struct elf_found *f = d->ahead_elf;
	return f && !f->mismatch && !f->deleted && !f->cached;
}

static void load_kallsyms(struct dso *d, const char *path)
{
	struct symtab_load r = { 0 };
	kallsyms_load(path, &r);
	keep(d, &r);
}

/* The running kernel: what the thread reading ahead loaded (symbols/kahead.h), else the same
 * loaded here (kahead_load): its snapshot, or the one a first report writes as it reads
 * kallsyms, answering as a second report's does, with the symbols outside its core range kept
 * beside it; $LPERF_KALLSYMS read as it is. */
static void load_running_kernel(struct dso *d)
{
	struct kahead_result res = { 0 };
	if (!(d->kahead && kahead_take(d->kahead, &res)))
		kahead_load(&res);
	if ((d->ksnap = res.ks) && !res.rest) {
		d->syms = res.ks->syms;
		d->nsyms = res.ks->nsyms;
		return;
	}
	keep(d, &res.r);
	d->ksnap_rest = res.rest;
}

/* The snapshot decides the core kernel's addresses only: for any other address (a module, BPF),
 * or when a lookup finds a part of it damaged, /proc/kallsyms is read afresh, once. The snapshot's array stays alive until the DSO is freed,
 * as symbols handed out before point into it. */
static void kernel_refresh(struct dso *d)
{
	if (!d->ksnap || d->ksnap_fresh)
		return;
	d->ksnap_fresh = true;
	if (d->ksnap_rest)
		symtab_free(d->syms, d->nsyms);
	d->ksnap_rest = false;
	d->syms = NULL;
	d->nsyms = 0;
	load_kallsyms(d, kallsyms_path());
	ksnap_save(d->syms, d->nsyms, d->ksnap);
}

/* The running kernel's /proc/kallsyms names the recording's kernel only when the recording's
 * build-id is the running kernel's (or unknown); another kernel's symbols come from the kallsyms
 * the build-id cache keeps for it, else from nothing. $LPERF_KALLSYMS is taken as given. */
static void load_kernel(struct dso *d)
{
	uint8_t now[20];
	size_t n = d->build_id_size && !getenv("LPERF_KALLSYMS") ? buildid_kernel(now) : 0;
	if (!n || (n == d->build_id_size && !memcmp(now, d->build_id, n))) {
		load_running_kernel(d);
		return;
	}
	char *file;
	if (buildid_cache_path(d->build_id, d->build_id_size, &file) == 0) {
		d->cached = file;
		load_kallsyms(d, file);
		return;
	}
	char want[BUILDID_HEX], got[BUILDID_HEX];
	buildid_hex(d->build_id, d->build_id_size, want);
	buildid_hex(now, n, got);
	d->mismatch = true;
	notes_add(&d->notes, "%s: the recording's kernel has build-id %s, the running kernel's is %s, and the "
		  "build-id cache %s has no copy of its kallsyms", d->path, want, got, buildid_cache_dir());
}

static void load_module(struct dso *d)
{
	struct dso *k = d->kernel;
	dso_load(k);
	if (!k->ksnap_rest) /* else its module symbols are all there */
		kernel_refresh(k);
	struct symtab_load r = { 0 };
	kallsyms_load_module(k->syms, k->nsyms, dso_load_note(k), d->module, &r);
	keep(d, &r);
}

/* The note says what the map skipped, and nothing once a map that was missing is found. */
static void perfmap_noted(struct dso *d)
{
	notes_clear(&d->notes);
	perfmap_notes(d->jit.perfmap, &d->notes);
}

static void load_perfmap(struct dso *d)
{
	struct dso_jit *j = &d->jit;
	if (!j->perfmap)
		j->perfmap = perfmap_new();
	if (j->supplied) {
		perfmap_add(j->perfmap, j->data, j->data_len, true);
		free(j->data);
		j->data = NULL;
		perfmap_noted(d);
		return;
	}
	char *buf;
	size_t len;
	clock_gettime(CLOCK_MONOTONIC, &j->checked);
	int r = perfmap_read_file(d->path, j->force, &buf, &len);
	if (r <= 0) {
		set_note(d, xstrdup(r < 0 ? err_msg() : "no perf map (the JIT wrote none, or it is gone)"));
		return;
	}
	j->file_size = (off_t)len;
	perfmap_add(j->perfmap, buf, len, true);
	/* An unterminated last line was parsed anyway; read it again when the file grows, and
	 * the completed line (later) shadows it. */
	const char *nl = len ? memrchr(buf, '\n', len) : NULL;
	j->consumed = nl ? (size_t)(nl - buf) + 1 : 0;
	free(buf);
	perfmap_noted(d);
}

bool dso_perfmap_refresh(struct dso *d)
{
	struct dso_jit *j = &d->jit;
	if (!d->loaded || !j->perfmap || j->supplied)
		return false;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = (int64_t)(now.tv_sec - j->checked.tv_sec) * 1000 +
		     (now.tv_nsec - j->checked.tv_nsec) / 1000000;
	if (ms < 100)
		return false;
	j->checked = now;
	struct stat st;
	if (lstat(d->path, &st) < 0 || st.st_size <= j->file_size)
		return false;
	char *buf;
	size_t len;
	if (perfmap_read_file(d->path, j->force, &buf, &len) <= 0)
		return false;
	size_t before = perfmap_entries(j->perfmap);
	if (len > j->consumed) {
		const char *text = buf + j->consumed;
		size_t n = len - j->consumed;
		perfmap_add(j->perfmap, text, n, true);
		const char *nl = memrchr(text, '\n', n);
		if (nl)
			j->consumed += (size_t)(nl - text) + 1;
	}
	j->file_size = (off_t)len;
	free(buf);
	perfmap_noted(d);
	return perfmap_entries(j->perfmap) > before;
}

void dso_set_perfmap_data(struct dso *d, const void *data, size_t len)
{
	if (d->loaded)
		return; /* too late: symbols handed out must stay as they are */
	struct dso_jit *j = &d->jit;
	free(j->data);
	j->data = xmalloc(len + 1);
	if (len)
		memcpy(j->data, data, len);
	j->data[len] = 0;
	j->data_len = len;
	j->supplied = true;
}

/* The one dispatcher: each kind's loader fills a symtab_load, kept here. */
void dso_load(struct dso *d)
{
	if (d->loaded)
		return;
	d->loaded = true;
	switch (d->kind) {
	case DSO_ELF:
	case DSO_VDSO:
		load_elf(d);
		break;
	case DSO_KERNEL:
		if (d->kernel)
			load_module(d);
		else
			load_kernel(d);
		break;
	case DSO_ANON:
	case DSO_KSYM:
		break;
	case DSO_JIT:
		if (d->jit.pid)
			load_perfmap(d);
		break;
	}
}

void dso_load_kallsyms(struct dso *d, const char *path)
{
	if (d->loaded || d->kind != DSO_KERNEL)
		return;
	d->loaded = true;
	if (d->kernel) {
		dso_load_kallsyms(d->kernel, path);
		load_module(d);
	} else {
		load_kallsyms(d, path);
	}
}

const struct symbol *dso_find_symbol(struct dso *d, uint64_t addr)
{
	dso_load(d);
	if (d->jit.perfmap)
		return perfmap_find(d->jit.perfmap, addr);
	if (d->ksnap && !d->ksnap_fresh) {
		const struct symbol *s;
		bool covers = ksnap_covers(d->ksnap, addr);
		if (covers && ksnap_find(d->ksnap, addr, &s) == 0)
			return s;
		if (!covers && d->ksnap_rest) /* read with the snapshot's own symbols */
			return symtab_find(d->syms, d->nsyms, addr);
		err_clear(); /* a damaged part: read afresh, and the snapshot rewritten */
		kernel_refresh(d);
	}
	const struct symbol *s = symtab_find(d->syms, d->nsyms, addr);
	/* read afresh part way: a function the snapshot named before keeps its symbol */
	const struct symbol *seen = s && d->ksnap && d->ksnap_fresh ? ksnap_seen(d->ksnap, s) : NULL;
	return seen ? seen : s;
}

uint64_t dso_offset_to_addr(struct dso *d, uint64_t offset)
{
	if (d->kind != DSO_ELF && d->kind != DSO_VDSO)
		return offset;
	dso_load(d);
	if (!d->nloads)
		return offset;
	/* The segment holding the offset; else the nearest one below it, since a mapping starts
	 * at a page boundary that can lie before its segment's p_offset and one mapping moves all
	 * its bytes by the same delta. */
	size_t best = 0;
	bool found = false;
	for (size_t i = 0; i < d->nloads; i++) {
		uint64_t off = d->loads[i].offset, sz = d->loads[i].filesz;
		if (offset >= off && offset - off < (sz ? sz : 1))
			return d->loads[i].vaddr + (offset - off);
		if (offset >= off && (!found || off >= d->loads[best].offset)) {
			best = i;
			found = true;
		}
	}
	return d->loads[best].vaddr + (offset - d->loads[best].offset);
}

bool dso_symbols_later(struct dso *d)
{
	const struct dso *k = d->kernel ? d->kernel : d;
	if (d->kind != DSO_KERNEL || !k->kahead || !kahead_reading(k->kahead))
		return false;
	__atomic_store_n(&d->later, true, __ATOMIC_RELAXED);
	return true;
}

void dso_cache_settle(struct dso_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (__atomic_load_n(&c->v[i]->later, __ATOMIC_RELAXED))
			dso_load(c->v[i]);
}

void dso_cache_read_ahead_go(struct dso_cache *c)
{
	struct dso *d = lookup(c, "[kernel.kallsyms]", NULL, 0);
	if (d && d->kahead)
		kahead_go(d->kahead);
}

void dso_cache_read_ahead_kernel(struct dso_cache *c)
{
	struct dso *d = lookup(c, "[kernel.kallsyms]", NULL, 0);
	if (!d || d->kind != DSO_KERNEL || d->kernel || d->loaded || d->kahead)
		return;
	/* load_kernel's test: only the running kernel's symbols are read here */
	uint8_t now[20];
	size_t n = d->build_id_size && !getenv("LPERF_KALLSYMS") ? buildid_kernel(now) : 0;
	if (n && (n != d->build_id_size || memcmp(now, d->build_id, n)))
		return;
	buildid_cache_dir(); /* its default is made on first use: here, before the thread asks */
	d->kahead = kahead_start();
}
