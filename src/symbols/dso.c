/* The DSO cache (kinds, lookup by path and build-id) and the lookups every resolved address
 * makes: file offset to virtual address, address to symbol. */
#include "symbols/dso.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/perfmap.h"
#include "symbols/srcline.h"
#include "symbols/symtab.h"
#include "util/xalloc.h"

void dso_cache_init(struct dso_cache *c)
{
	memset(c, 0, sizeof(*c));
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

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void index_put(struct dso_cache *c, size_t i)
{
	size_t mask = c->icap - 1, slot = hash_str(c->v[i]->path) & mask;
	while (c->index[slot])
		slot = (slot + 1) & mask;
	c->index[slot] = i + 1;
}

static void index_grow(struct dso_cache *c)
{
	if ((c->n + 1) * 2 <= c->icap)
		return;
	free(c->index);
	c->icap = c->icap ? c->icap * 2 : 64;
	c->index = xcalloc(c->icap, sizeof(*c->index));
	for (size_t i = 0; i < c->n; i++)
		index_put(c, i);
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
	if (!c->icap)
		return NULL;
	size_t mask = c->icap - 1;
	for (size_t slot = hash_str(path) & mask; c->index[slot]; slot = (slot + 1) & mask) {
		struct dso *d = c->v[c->index[slot] - 1];
		if (!strcmp(d->path, path) && bid_compatible(d, bid, bid_size))
			return d;
	}
	return NULL;
}

static struct dso *add(struct dso_cache *c, const char *path, enum dso_kind kind, const uint8_t *bid,
		       size_t bid_size)
{
	struct dso *d = xcalloc(1, sizeof(*d));
	d->kind = kind;
	d->path = xstrdup(path);
	const char *slash = strrchr(d->path, '/');
	d->short_name = slash && kind == DSO_ELF ? slash + 1 : d->path;
	if (bid_size) {
		d->build_id_size = bid_size > sizeof(d->build_id) ? sizeof(d->build_id) : bid_size;
		memcpy(d->build_id, bid, d->build_id_size);
	}
	d->root = c->root ? xstrdup(c->root) : NULL;
	index_grow(c);
	ALLOC_GROW(c->v, c->n + 1, c->cap);
	c->v[c->n++] = d;
	index_put(c, c->n - 1);
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
		d->jit_pid = pid;
		d->jit_force = c->jit_force;
		d->short_alloc = xasprintf("[JIT] tid %d", pid);
		d->short_name = d->short_alloc;
	}
	free(path);
	return d;
}

void dso_cache_set_jit_force(struct dso_cache *c, bool force)
{
	c->jit_force = force;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->kind == DSO_JIT && !c->v[i]->loaded)
			c->v[i]->jit_force = force;
}

struct dso *dso_cache_add_jit_code(struct dso_cache *c, const char *path, uint64_t start, uint64_t size,
				   const char *name)
{
	struct dso *d = add(c, path, DSO_JIT, NULL, 0);
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

static void dso_free(struct dso *d)
{
	srcline_forget_dso(d);
	perfmap_dso_free(d);
	free(d->short_alloc);
	symtab_free(d);
	free(d->path);
	free(d->load_note);
	free(d->debug_path);
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
	free(c->index);
	free(c->root);
	memset(c, 0, sizeof(*c));
}

void dso_note(struct dso *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(d->load_note);
	d->load_note = s;
}

char *dso_file_path(const struct dso *d, const char *path)
{
	size_t n = strlen(path);
	static const char deleted[] = " (deleted)";
	if (n > sizeof(deleted) - 1 && !strcmp(path + n - (sizeof(deleted) - 1), deleted))
		n -= sizeof(deleted) - 1;
	if (d->root && path[0] == '/')
		return xasprintf("%s%.*s", d->root, (int)n, path);
	return xstrndup(path, n);
}

const char *kallsyms_path(void)
{
	const char *p = getenv("LPERF_KALLSYMS");
	return p && *p ? p : "/proc/kallsyms";
}

void dso_load(struct dso *d)
{
	if (d->loaded)
		return;
	d->loaded = true;
	switch (d->kind) {
	case DSO_ELF:
		elfsym_load_file(d);
		break;
	case DSO_KERNEL:
		if (d->kernel)
			kallsyms_load_module(d);
		else
			kallsyms_load(d, kallsyms_path());
		break;
	case DSO_VDSO:
		vdso_load(d);
		break;
	case DSO_ANON:
		break;
	case DSO_JIT:
		if (d->jit_pid)
			perfmap_dso_load(d);
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
		kallsyms_load_module(d);
	} else {
		kallsyms_load(d, path);
	}
}

const struct symbol *dso_find_symbol(struct dso *d, uint64_t addr)
{
	dso_load(d);
	if (d->perfmap)
		return perfmap_find(d->perfmap, addr);
	/* The last symbol starting at or below addr. */
	size_t lo = 0, hi = d->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct symbol *s = &d->syms[lo - 1];
	uint64_t size = s->size ? s->size : 1;
	return addr - s->start < size ? s : NULL;
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
