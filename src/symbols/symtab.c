/* A DSO's symbol table: candidates from any source become one sorted array without duplicates
 * or overlaps, which dso_find_symbol searches by bisection. */
#include "symbols/symtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void symtab_add(struct symtab_builder *b, uint64_t start, uint64_t size, uint64_t limit, const char *name,
		const char *suffix, enum symtab_rank rank)
{
	if (!name || !*name)
		return;
	/* A symbol that wraps around the address space is garbage; keep its start only. */
	if (size && start + size < start)
		size = 0;
	ALLOC_GROW(b->v, b->n + 1, b->cap);
	b->v[b->n] = (struct symtab_cand){ start, size, limit, name, suffix, (uint8_t)rank, (uint32_t)b->n };
	b->n++;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* Orders by address, then best name first. Aliases at one address (mmap, mmap64, __mmap)
 * resolve as Linux perf resolves them (its choose_best_symbol), so reports agree symbol for
 * symbol: a symbol with a size, then non-weak over weak, then global over local, then fewer
 * leading underscores, then the longer name; synthesized PLT names lose to real symbols; and
 * finally the first in the file's order, as perf keeps the first of two equals (libc's
 * "pthread_rwlock_rdlock@GLIBC_2.2.5" before "...@@GLIBC_2.34"). kallsyms: the last listed. */
static bool sort_last_wins;

static int cand_cmp(const void *pa, const void *pb)
{
	const struct symtab_cand *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (sort_last_wins)
		return a->seq > b->seq ? -1 : a->seq < b->seq;
	bool pa_ = a->rank == SYMRANK_PLT, pb_ = b->rank == SYMRANK_PLT;
	if (pa_ != pb_)
		return pa_ ? 1 : -1;
	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	bool wa = a->rank == SYMRANK_WEAK, wb = b->rank == SYMRANK_WEAK;
	if (wa != wb)
		return wa ? 1 : -1;
	bool ga = a->rank == SYMRANK_GLOBAL, gb = b->rank == SYMRANK_GLOBAL;
	if (ga != gb)
		return ga ? -1 : 1;
	size_t ua = leading_underscores(a->name), ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	size_t la = strlen(a->name), lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

char *symtab_final_name(const char *name, const char *suffix)
{
	/* Most names (C, every kernel symbol) are kept as they are: one copy. */
	if (!suffix && !(name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')))
		return xstrdup(name);
	struct strbuf sb = STRBUF_INIT;
	char *dem = NULL;
	if (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) {
		const char *at = strchr(name, '@');
		if (at) {
			char *base = xstrndup(name, (size_t)(at - name));
			char *d = symbol_demangle(base);
			free(base);
			if (d) {
				sb_adds(&sb, d);
				sb_adds(&sb, at);
				free(d);
			}
		} else {
			dem = symbol_demangle(name);
		}
	}
	if (!sb.len)
		sb_adds(&sb, dem ? dem : name);
	free(dem);
	if (suffix)
		sb_adds(&sb, suffix);
	return sb_detach(&sb);
}

/* Merges the sorted runs v[lo, mid) and v[mid, hi) through tmp. */
static void merge_runs(struct symtab_cand *v, struct symtab_cand *tmp, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = 0;
	while (i < mid && j < hi)
		tmp[k++] = cand_cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	memcpy(v + lo, tmp, k * sizeof(*v));
}

/* Most runs between descents: kallsyms lists the core kernel by address and each module's
 * symbols by address (a handful of runs); an ELF symbol table is in no such order. */
#define SORT_MAX_RUNS 64

/* Sorts the candidates by cand_cmp. Input that is mostly in address order already (kallsyms:
 * 122,000 lines, a few descents) is sorted as runs: each group at one address sorted alone,
 * then the runs merged. cand_cmp is a total order (seq is unique), so the result is the one
 * qsort gives. */
static void sort_cands(struct symtab_cand *v, size_t n)
{
	size_t runs[SORT_MAX_RUNS + 1], nruns = 0;
	runs[nruns++] = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].start >= v[i - 1].start)
			continue;
		if (nruns == SORT_MAX_RUNS) {
			qsort(v, n, sizeof(*v), cand_cmp);
			return;
		}
		runs[nruns++] = i;
	}
	runs[nruns] = n;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].start == v[i].start)
			j++;
		if (j - i > 1)
			qsort(v + i, j - i, sizeof(*v), cand_cmp);
		i = j;
	}
	if (nruns == 1)
		return;
	struct symtab_cand *tmp = xmalloc(n * sizeof(*tmp));
	for (size_t step = 1; step < nruns; step *= 2)
		for (size_t r = 0; r + step < nruns; r += 2 * step) {
			size_t hi = r + 2 * step < nruns ? runs[r + 2 * step] : n;
			merge_runs(v, tmp, runs[r], runs[r + step], hi);
		}
	free(tmp);
}

void symtab_finish(struct symtab_builder *b, struct symbol **syms, size_t *nsyms)
{
	sort_last_wins = b->last_wins;
	if (b->n)
		sort_cands(b->v, b->n);
	/* Keep the first (best) of each address group, with the group's largest size. */
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (n && b->v[n - 1].start == b->v[i].start) {
			struct symtab_cand *keep = &b->v[n - 1];
			if (b->v[i].size > keep->size)
				keep->size = b->v[i].size;
			if (!keep->limit || (b->v[i].limit && b->v[i].limit > keep->limit))
				keep->limit = b->v[i].limit;
			continue;
		}
		b->v[n++] = b->v[i];
	}
	symtab_free(*syms, *nsyms);
	/* The symbols are written over the candidates' array, each over bytes whose candidates are
	 * read already (a symbol is smaller than a candidate), then the array is shrunk: a second
	 * array beside it was kallsyms' largest transient, 3.9 MB on top of the candidates' 6.8. */
	_Static_assert(sizeof(struct symbol) <= sizeof(struct symtab_cand), "symbols written over candidates");
	struct symbol *out = (struct symbol *)(void *)b->v;
	for (size_t i = 0; i < n; i++) {
		struct symtab_cand c = b->v[i];
		uint64_t next = i + 1 < n ? b->v[i + 1].start : UINT64_MAX;
		uint64_t size = c.size;
		if (!size) {
			/* A label without a size (assembly, crt's _init, kallsyms) runs to the next
			 * symbol, across sections as in perf (_init then covers the PLT header, which
			 * has no symbol of its own); the last one to the end of its section. */
			uint64_t end = next;
			if (next == UINT64_MAX && c.limit > c.start)
				end = c.limit;
			size = end == UINT64_MAX ? 0 : end - c.start;
		}
		if (size > next - c.start)
			size = next - c.start; /* overlaps: the later symbol owns its bytes */
		struct symbol sym = { .start = c.start, .size = size, .name = symtab_final_name(c.name, c.suffix) };
		if (strncmp(sym.name, c.name, strlen(c.name)))
			sym.mangled = xasprintf("%s%s", c.name, c.suffix ? c.suffix : "");
		memcpy(&out[i], &sym, sizeof(sym)); /* over candidate bytes read already */
	}
	if (n) {
		*syms = xrealloc(out, n * sizeof(*out));
	} else {
		free(b->v);
		*syms = NULL;
	}
	*nsyms = n;
	memset(b, 0, sizeof(*b));
}

void symtab_free(struct symbol *syms, size_t nsyms)
{
	for (size_t i = 0; i < nsyms; i++) {
		free(syms[i].name);
		free(syms[i].mangled);
	}
	free(syms);
}

const struct symbol *symtab_find(const struct symbol *syms, size_t nsyms, uint64_t addr)
{
	size_t lo = 0, hi = nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct symbol *s = &syms[lo - 1];
	uint64_t size = s->size ? s->size : 1;
	return addr - s->start < size ? s : NULL;
}
