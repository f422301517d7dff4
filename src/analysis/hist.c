#include "analysis/hist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "symbols/srcline.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char *const key_names[HK_NKEYS] = { "comm", "pid", "tid", "dso", "sym", "cpu", "srcline",
						 "srcfile", "trace" };

const char *hist_key_name(enum hist_key k)
{
	return k < HK_NKEYS ? key_names[k] : "?";
}

int hist_parse_sort(const char *spec, enum hist_key *keys, size_t *nkeys)
{
	*nkeys = 0;
	const char *p = spec;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t k;
		for (k = 0; k < HK_NKEYS; k++)
			if (strlen(key_names[k]) == len && !strncasecmp(key_names[k], p, len))
				break;
		/* perf's synonyms */
		if (k == HK_NKEYS && len == 6 && !strncasecmp(p, "symbol", 6))
			k = HK_SYM;
		if (k == HK_NKEYS && len == 7 && !strncasecmp(p, "command", 7))
			k = HK_COMM;
		if (k == HK_NKEYS)
			return err_set("unknown sort key '%.*s' (use comm, pid, tid, dso, sym, cpu, srcline, srcfile, trace)", (int)len, p);
		bool dup = false;
		for (size_t i = 0; i < *nkeys; i++)
			dup |= keys[i] == (enum hist_key)k;
		if (!dup)
			keys[(*nkeys)++] = (enum hist_key)k;
		p = end ? end + 1 : p + len;
	}
	if (!*nkeys)
		return err_set("empty sort key list");
	return 0;
}

static bool key_eq(const void *value, const void *key);
static bool pending_eq(const void *value, const void *key);

void hist_init(struct hist *h, const enum hist_key *keys, size_t nkeys, enum hist_graph graph, bool children)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->keys, keys, nkeys * sizeof(*keys));
	h->nkeys = nkeys;
	for (size_t i = 0; i < nkeys; i++)
		h->keymask |= 1u << keys[i];
	h->graph = graph;
	h->children = children;
	hashmap_init_custom(&h->index, key_eq);
	hashmap_init_custom(&h->pending, pending_eq);
}

/* Per sample: consecutive samples mostly come from one command, so the last name is tried
 * first; the scan covers the rest (commands are few next to samples). */
static const char *intern(struct hist *h, const char *s)
{
	if (h->ncomms && !strcmp(h->comms[h->ncomms - 1], s))
		return h->comms[h->ncomms - 1];
	for (size_t i = h->ncomms; i-- > 0;)
		if (!strcmp(h->comms[i], s))
			return h->comms[i];
	ALLOC_GROW(h->comms, h->ncomms + 1, h->ccap);
	return h->comms[h->ncomms++] = xstrdup(s);
}

/* The key of one (sample, frame) pair. No padding the compiler adds (pad_ is zeroed with the
 * rest): the distinct samples' keys and frames are compared whole, with memcmp. */
struct key {
	const char *comm;
	struct dso *dso;
	const struct symbol *sym;
	const char *srcline, *srcfile;
	const char *trace;
	uint64_t addr;
	int pid, tid, cpu;
	bool kernel, inlined;
	bool later;              /* sym left for later (addr_loc.later): found by settle_key; addr,
				  * the frame's, says which symbol it will be */
	uint8_t pad_[1];
};
_Static_assert(sizeof(struct key) == 6 * sizeof(void *) + 8 + 3 * sizeof(int) + 4, "struct key has padding");

static bool has_key(const struct hist *h, enum hist_key k)
{
	return h->keymask >> k & 1;
}

/* The address perf shows for an unresolved frame: the DSO address, except in an ET_EXEC file,
 * where perf's DSO addresses are file offsets (it adjusts such symbols to offsets), so the map-
 * relative ip - start + pgoff (cc1plus: 0x1724391 where the runtime address is 0x1b24391). */
static uint64_t unresolved_addr(const struct frame *f)
{
	const struct map *mp = f->loc.map;
	if (!mp)
		return f->ip;
	if (f->loc.dso && f->loc.dso->kind == DSO_ELF && f->loc.dso->is_exec)
		return f->ip - mp->start + mp->pgoff;
	return f->loc.addr;
}

/* A Python frame's srcline, "file.py:LINE" (line 0: its srcfile, "file.py"), as perf spells a
 * native frame's. */
static const char *py_srcline(const char *pyname, int line)
{
	const char *fn, *file;
	size_t flen;
	resolve_py_split(pyname, &fn, &flen, &file);
	if (!file)
		return srcline_intern(line ? "??:0" : "");
	if (!line)
		return srcline_basename(file);
	char buf[512];
	const char *base = strrchr(file, '/');
	snprintf(buf, sizeof(buf), "%s:%d", base ? base + 1 : file, line);
	return srcline_intern(buf);
}

/* The keys' parts that are the sample's, not a frame's (make_key fills the rest): computed once
 * per sample, as the command's name is interned (hashed and compared) to get them. */
static void sample_key(struct hist *h, const struct resolved_sample *rs, struct key *k)
{
	memset(k, 0, sizeof(*k));
	if (has_key(h, HK_COMM))
		k->comm = intern(h, rs->thread && rs->thread->comm ? rs->thread->comm : "[unknown]");
	if (has_key(h, HK_PID))
		k->pid = (int)rs->s->pid;
	if (has_key(h, HK_TID))
		k->tid = (int)rs->s->tid;
	if (has_key(h, HK_CPU))
		k->cpu = (int)rs->s->cpu;
	if (has_key(h, HK_TRACE))
		k->trace = h->cur_trace;
}

/* Frame f's key: the sample's part (sample_key's) and f's own. */
static void make_key(struct hist *h, const struct key *sample, const struct frame *f, struct key *k)
{
	*k = *sample;
	if (has_key(h, HK_DSO) || has_key(h, HK_SYM)) {
		k->dso = f->loc.dso;
		k->kernel = f->loc.kernel;
	}
	if (has_key(h, HK_SYM)) {
		k->sym = f->loc.sym;
		k->inlined = f->inlined && f->loc.sym;
		if (!k->sym)
			k->addr = unresolved_addr(f);
		k->later = f->loc.later;
	}
	const char *py = f->line > 0 ? resolve_py_name(f) : NULL;
	if (has_key(h, HK_SRCLINE))
		k->srcline = py ? py_srcline(py, f->line) : srcline_string(f->loc.map ? f->loc.dso : NULL, f->loc.sym, f->loc.addr);
	if (has_key(h, HK_SRCFILE))
		k->srcfile = py ? py_srcline(py, 0) : srcline_file_string(f->loc.map ? f->loc.dso : NULL, f->loc.addr);
}

/* HK_TRACE: the sample's text, computed once per sample and interned. */
static const char *trace_of(struct hist *h, const struct perf_sample *s)
{
	char *t = h->trace_text ? h->trace_text(h->trace_arg, s) : NULL;
	bool found;
	struct hashmap_entry *he = hashmap_insert_str(&h->traces, t ? t : "", &found);
	if (!found) {
		he->value = t ? t : xstrdup("");
		he->key.str = he->value;
	} else {
		free(t);
	}
	return he->value;
}

static uint64_t key_hash(const struct key *k)
{
	uint64_t x = (uint64_t)(uintptr_t)k->comm * 31 + (uint64_t)k->pid * 131 + (uint64_t)k->tid * 137 +
		     (uint64_t)k->cpu * 139 + (uint64_t)(uintptr_t)k->dso * 149 +
		     (uint64_t)(uintptr_t)k->sym * 151 + k->addr * 157 + k->kernel + k->inlined * 2u +
		     (uint64_t)(uintptr_t)k->srcline * 163 + (uint64_t)(uintptr_t)k->srcfile * 167 +
		     (uint64_t)(uintptr_t)k->trace * 173;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static bool key_eq(const void *value, const void *key)
{
	const struct hist_entry *e = value;
	const struct key *k = key;
	return k->comm == e->comm && k->pid == e->pid && k->tid == e->tid && k->cpu == e->cpu &&
	       k->dso == e->dso && k->sym == e->sym && k->addr == e->addr && k->kernel == e->kernel &&
	       k->inlined == e->inlined && k->srcline == e->srcline && k->srcfile == e->srcfile && k->trace == e->trace;
}

static struct hist_entry *find_or_add(struct hist *h, const struct key *k)
{
	bool found;
	struct hashmap_entry *he = hashmap_insert_custom(&h->index, key_hash(k), k, &found);
	if (found)
		return he->value;
	struct hist_entry *e = xcalloc(1, sizeof(*e));
	e->comm = k->comm;
	e->pid = k->pid;
	e->tid = k->tid;
	e->cpu = k->cpu;
	e->dso = k->dso;
	e->sym = k->sym;
	e->addr = k->addr;
	e->kernel = k->kernel;
	e->inlined = k->inlined;
	e->srcline = k->srcline;
	e->srcfile = k->srcfile;
	e->trace = k->trace;
	he->value = e;
	ALLOC_GROW(h->v, h->n + 1, h->cap);
	h->v[h->n++] = e;
	return e;
}

/* A frame as the histogram sees it: its entry's key and its call-graph node. */
struct hist_pframe {
	struct key k;
	struct dso *dso;
	const struct symbol *sym;
	uint64_t addr;           /* unresolved_addr when sym is NULL */
	bool kernel, inlined;
	bool later;              /* sym left for later (addr_loc.later) */
	uint8_t pad_[5];         /* zeroed: compared whole, as struct key */
};
_Static_assert(sizeof(struct hist_pframe) == sizeof(struct key) + 2 * sizeof(void *) + 16, "hist_pframe has padding");

/* One distinct sample as the histogram sees it (its self key and its frames): the samples of a
 * loop repeat a few stacks many times, so each distinct one is added to the entries and trees
 * once, at hist_sort, with its count and period (the trees cost O(depth^2) per addition in
 * children mode). */
struct pending {
	struct key self;
	struct hist_pframe *f;
	size_t n;
	uint64_t samples, period;
	int pid, tid;            /* its first sample's thread */
};

static bool key_same(const struct key *a, const struct key *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu &&
	       a->dso == b->dso && a->sym == b->sym && a->addr == b->addr && a->kernel == b->kernel &&
	       a->inlined == b->inlined && a->srcline == b->srcline && a->srcfile == b->srcfile && a->trace == b->trace;
}

static uint64_t pframe_hash(uint64_t h, const struct hist_pframe *f)
{
	return hashmap_hash_u64(h ^ ((uint64_t)(uintptr_t)f->sym * 3 + (uint64_t)(uintptr_t)f->dso * 5 +
				     f->addr * 7 + f->kernel * 11u + f->inlined * 13u +
				     (uint64_t)(uintptr_t)f->k.sym * 17 + (uint64_t)(uintptr_t)f->k.dso * 19 +
				     f->k.addr * 23 + f->k.kernel * 29u + f->k.inlined * 31u +
				     (uint64_t)(uintptr_t)f->k.srcline * 37 + (uint64_t)(uintptr_t)f->k.srcfile * 41));
}

/* The probe key of the pending map: a sample's self key and frames. */
struct pending_probe {
	const struct key *self;
	const struct hist_pframe *f;
	size_t n;
};

static bool pending_eq(const void *value, const void *key)
{
	const struct pending *p = value;
	const struct pending_probe *q = key;
	/* Whole keys and frames (no padding of the compiler's, struct key): the frames' sample parts
	 * (command, pid, tid, cpu, trace) are the self key's, so this is the comparison of the self
	 * keys and of each frame's own parts. */
	return p->n == q->n && !memcmp(&p->self, q->self, sizeof(p->self)) &&
	       !memcmp(p->f, q->f, p->n * sizeof(*p->f));
}

static struct callnode *child(struct callnode *parent, const struct hist_pframe *f)
{
	for (size_t i = 0; i < parent->nkids; i++) {
		struct callnode *c = parent->kids[i];
		if ((c->sym || f->sym) ? c->sym == f->sym : c->dso == f->dso && c->addr == f->addr)
			return c;
	}
	struct callnode *c = xcalloc(1, sizeof(*c));
	c->dso = f->dso;
	c->sym = f->sym;
	c->addr = f->addr;
	c->kernel = f->kernel;
	c->inlined = f->inlined;
	c->seq = (uint32_t)parent->nkids;
	ALLOC_GROW(parent->kids, parent->nkids + 1, parent->cap);
	parent->kids[parent->nkids++] = c;
	return c;
}

/* Adds the path of frames [from, to) stepping by dir under the entry's tree: callee order (+1)
 * holds the function's callers outward; caller order (-1) the path from the root down to the
 * function itself. */
static void add_path(struct hist_entry *e, const struct hist_pframe *frames, long from, long to, long dir,
		     uint64_t samples, uint64_t period)
{
	if (!e->tree)
		e->tree = xcalloc(1, sizeof(*e->tree));
	size_t depth = (size_t)((to - from) * dir);
	if (depth > e->max_depth)
		e->max_depth = depth;
	struct callnode *n = e->tree;
	n->samples += samples;
	n->period += period;
	for (long i = from; i != to; i += dir) {
		n = child(n, &frames[i]);
		n->samples += samples;
		n->period += period;
	}
}

/* Whether a sample's first frame is an inlined function in the sampled one (DWARF stacks): the
 * self entry is then the function it is inlined in, and the frame an entry of its own. */
static bool first_inlined(const struct pending *p)
{
	return p->n && p->f[0].inlined && !key_same(&p->f[0].k, &p->self);
}

/* The trees hold chains as perf's entries hold them (tree_has_self): the sampled entry the whole
 * chain, from its first frame (the function itself, or the functions inlined in it: "adler
 * (inlined)", then "main") outward in callee order, from the root down to that frame in caller
 * order; an entry further up the stack (children) the part of the chain from its own frame:
 * outward (callee order) or down to the sampled frame (caller order). */
/* The entry of key k, which remembers the thread of the first sample it got. */
static struct hist_entry *entry_of(struct hist *h, const struct key *k, const struct pending *p)
{
	struct hist_entry *e = find_or_add(h, k);
	if (!e->has_thread) {
		e->has_thread = true;
		e->thread_pid = p->pid;
		e->thread_tid = p->tid;
	}
	return e;
}

static void apply(struct hist *h, const struct pending *p)
{
	struct hist_entry *self = entry_of(h, &p->self, p);
	self->samples += p->samples;
	self->period += p->period;
	long n = (long)p->n;
	if (h->graph != HIST_GRAPH_NONE) {
		self->tree_has_self = true;
		if (h->graph == HIST_CALLEE)
			add_path(self, p->f, 0, n, 1, p->samples, p->period);
		else
			add_path(self, p->f, n - 1, -1, -1, p->samples, p->period);
	}
	if (!h->children)
		return;
	/* Children: every distinct entry on the stack gets the sample once (recursion counts once):
	 * the sampled function first (its self entry), then every frame of the chain; an inlined
	 * first frame is an entry of its own (perf's "adler (inlined)" with no self time). */
	struct hist_entry *seen[64];
	size_t nseen = 0;
	self->acc_samples += p->samples;
	self->acc_period += p->period;
	seen[nseen++] = self;
	/* A function on the stack more than once (recursion) gets the part of the chain from its
	 * first frame in perf's walk: the innermost in callee order, the outermost in caller order. */
	long lo = first_inlined(p) ? 0 : 1;
	bool down = h->graph == HIST_CALLER;
	for (long step = lo; step < n; step++) {
		long i = down ? n - 1 - (step - lo) : step;
		struct hist_entry *e = entry_of(h, &p->f[i].k, p);
		bool dup = false;
		for (size_t j = 0; j < nseen && !dup; j++)
			dup = seen[j] == e;
		if (dup)
			continue;
		if (nseen < ARRAY_SIZE(seen))
			seen[nseen++] = e;
		e->acc_samples += p->samples;
		e->acc_period += p->period;
		e->tree_has_self = true;
		if (h->graph == HIST_CALLEE)
			add_path(e, p->f, i, n, 1, p->samples, p->period);
		else if (h->graph == HIST_CALLER)
			add_path(e, p->f, i, -1, -1, p->samples, p->period);
	}
}

bool hist_ksyms_later(const enum hist_key *keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++)
		if (keys[i] == HK_SRCLINE || keys[i] == HK_SRCFILE)
			return false;
	return true;
}

void hist_add(struct hist *h, const struct resolved_sample *rs)
{
	if (!rs->nframes)
		return;
	uint64_t period = rs->s->period ? rs->s->period : 1;
	h->total_samples++;
	h->total_period += period;
	/* The self entry is the sampled function itself, not an inlined function in it (as perf,
	 * whose self entry comes from the sample's ip, not from its chain). */
	struct frame self_frame = rs->frames[0];
	if (self_frame.inlined && self_frame.loc.sym)
		self_frame.loc.sym = srcline_inline_base(self_frame.loc.sym);
	self_frame.inlined = false;
	struct key self, sample;
	h->cur_trace = has_key(h, HK_TRACE) ? trace_of(h, rs->s) : NULL;
	sample_key(h, rs, &sample);
	make_key(h, &sample, &self_frame, &self);
	/* Without a call graph or children only the self entry counts: its frames are not kept. */
	size_t n = h->children || h->graph != HIST_GRAPH_NONE ? rs->nframes : 1;
	ALLOC_GROW(h->scratch, n, h->scratch_cap);
	struct hist_pframe *pf = h->scratch;
	uint64_t hash = key_hash(&self) + n;
	for (size_t i = 0; i < n; i++) {
		const struct frame *f = &rs->frames[i];
		make_key(h, &sample, f, &pf[i].k);
		pf[i].dso = f->loc.dso;
		pf[i].sym = f->loc.sym;
		pf[i].addr = unresolved_addr(f);
		pf[i].kernel = f->loc.kernel;
		pf[i].inlined = f->inlined;
		pf[i].later = f->loc.later;
		memset(pf[i].pad_, 0, sizeof(pf[i].pad_));
		hash = pframe_hash(hash, &pf[i]);
	}
	struct pending_probe probe = { &self, pf, n };
	bool found;
	struct hashmap_entry *he = hashmap_insert_custom(&h->pending, hash, &probe, &found);
	if (!found) {
		struct pending *p = xcalloc(1, sizeof(*p));
		p->self = self;
		p->n = n;
		p->f = xmalloc(n * sizeof(*pf));
		memcpy(p->f, pf, n * sizeof(*pf));
		p->pid = (int)rs->s->pid;
		p->tid = (int)rs->s->tid;
		he->value = p;
	}
	struct pending *p = he->value;
	p->samples++;
	p->period += period;
}

/* A kernel symbol the walk left for later (resolve.h's addr_loc.later) found now: the key then
 * is what make_key makes of the frame with its symbol. */
static void settle_key(struct key *k)
{
	if (!k->later)
		return;
	k->later = false;
	k->sym = resolve_addr_later(k->dso, k->addr);
	if (k->sym)
		k->addr = 0;
}

/* A distinct sample's symbols left for later, found before it reaches the entries and trees.
 * Samples that were one stack apart from those symbols stay two distinct samples that add up to
 * the same entries and nodes, each created by the first sample that holds it as before: the
 * output is the same as if the walk had looked the symbols up (ties keep the order of the
 * samples' first coming, and every entry the thread of its first sample). */
static void settle(struct pending *p)
{
	settle_key(&p->self);
	for (size_t i = 0; i < p->n; i++) {
		struct hist_pframe *f = &p->f[i];
		settle_key(&f->k);
		if (f->later)
			f->sym = resolve_addr_later(f->dso, f->addr);
		f->later = false;
	}
}

/* Adds the distinct samples to the entries, in the order they first came. */
static void flush_pending(struct hist *h)
{
	for (size_t i = 0; i < h->pending.n; i++) {
		struct pending *p = h->pending.v[i].value;
		settle(p);
		apply(h, p);
		free(p->f);
		free(p);
	}
	hashmap_free(&h->pending);
	hashmap_init_custom(&h->pending, pending_eq);
}

/* Equal totals: perf orders by the sort keys in their order, each ascending (the DSO's short
 * name, the symbol's name, the command, ...). */
static int cmp_key(const struct hist_entry *x, const struct hist_entry *y, enum hist_key k)
{
	char bx[256], by[256];
	switch (k) {
	case HK_COMM: return x->comm && y->comm ? strcmp(x->comm, y->comm) : 0;
	case HK_PID: return x->pid - y->pid;
	case HK_TID: return x->tid - y->tid;
	case HK_CPU: return x->cpu - y->cpu;
	case HK_DSO: return strcmp(hist_dso_name(x->dso), hist_dso_name(y->dso));
	case HK_SYM:
		hist_sym_name(x->sym, x->addr, bx, sizeof(bx));
		hist_sym_name(y->sym, y->addr, by, sizeof(by));
		return strcmp(bx, by);
	case HK_SRCLINE: return x->srcline && y->srcline ? strcmp(x->srcline, y->srcline) : 0;
	case HK_SRCFILE: return x->srcfile && y->srcfile ? strcmp(x->srcfile, y->srcfile) : 0;
	case HK_TRACE: return x->trace && y->trace ? strcmp(x->trace, y->trace) : 0;
	default: return 0;
	}
}

struct sort_arg {
	const struct hist *h;
	bool by_children;
};

static int cmp_entries(const void *a, const void *b, void *arg)
{
	const struct hist_entry *x = *(const struct hist_entry *const *)a;
	const struct hist_entry *y = *(const struct hist_entry *const *)b;
	const struct sort_arg *sa = arg;
	const struct hist *h = sa->h;
	bool by_period = sa->by_children;
	uint64_t px = by_period ? x->acc_period : x->period, py = by_period ? y->acc_period : y->period;
	if (px != py)
		return px > py ? -1 : 1;
	/* Equal children totals: perf orders by the longest chain, the outermost callers first
	 * (_start, then __libc_start_call_main, then main). */
	if (by_period && x->tree && y->tree && x->max_depth != y->max_depth)
		return (x->max_depth > y->max_depth) == (h->graph == HIST_CALLER) ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	int c;
	for (size_t k = 0; k < h->nkeys; k++)
		if ((c = cmp_key(x, y, h->keys[k])))
			return c;
	if (x->inlined != y->inlined)
		return x->inlined ? 1 : -1;
	return x->tid - y->tid;
}

static int cmp_nodes(const void *a, const void *b)
{
	const struct callnode *x = *(const struct callnode *const *)a;
	const struct callnode *y = *(const struct callnode *const *)b;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	/* Equal: in the order of perf's tree of children, where a child is placed by its function,
	 * the later first: inlined functions by name, others of one object by their address. */
	if ((x->inlined || y->inlined) && x->sym && y->sym) {
		int c = strcmp(y->sym->name, x->sym->name);
		if (c)
			return c;
	} else if (x->dso == y->dso) {
		uint64_t ax = x->sym ? x->sym->start : x->addr, ay = y->sym ? y->sym->start : y->addr;
		if (ax != ay)
			return ax > ay ? -1 : 1;
	} else if (x->dso && y->dso) {
		/* Of two objects, perf places by its DSOs' addresses in memory, which follow the
		 * order it made them in: the kernel's at the start, the others at their first
		 * mapping. The later first here too. */
		uint64_t ox = x->dso->kind == DSO_KERNEL ? x->dso->seq : (1ull << 32) + x->dso->seq;
		uint64_t oy = y->dso->kind == DSO_KERNEL ? y->dso->seq : (1ull << 32) + y->dso->seq;
		if (ox != oy)
			return ox > oy ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void callnode_sort(struct callnode *n)
{
	if (!n)
		return;
	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), cmp_nodes);
	for (size_t i = 0; i < n->nkids; i++)
		callnode_sort(n->kids[i]);
}

void hist_sort(struct hist *h, bool by_children)
{
	flush_pending(h);
	if (h->n > 1)
		qsort_r(h->v, h->n, sizeof(*h->v), cmp_entries, &(struct sort_arg){ h, by_children });
	hashmap_free(&h->index); /* no more adds are expected */
	for (size_t i = 0; i < h->n; i++)
		callnode_sort(h->v[i]->tree);
}

static void free_node(struct callnode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		free_node(n->kids[i]);
	free(n->kids);
	free(n);
}

void hist_free(struct hist *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free_node(h->v[i]->tree);
		free(h->v[i]);
	}
	for (size_t i = 0; i < h->ncomms; i++)
		free(h->comms[i]);
	free(h->comms);
	free(h->v);
	hashmap_free(&h->index);
	for (size_t i = 0; i < h->pending.n; i++) {
		struct pending *p = h->pending.v[i].value;
		free(p->f);
		free(p);
	}
	hashmap_free(&h->pending);
	for (size_t i = 0; i < h->traces.n; i++)
		free(h->traces.v[i].value);
	hashmap_free(&h->traces);
	free(h->scratch);
	memset(h, 0, sizeof(*h));
}

const char *hist_dso_name(const struct dso *d)
{
	return d ? d->short_name : "[unknown]";
}

void hist_sym_name(const struct symbol *sym, uint64_t addr, char *buf, size_t size)
{
	if (sym)
		snprintf(buf, size, "%s", sym->name);
	else
		snprintf(buf, size, "0x%016" PRIx64, addr);
}

void hist_entry_name(const struct hist_entry *e, char *buf, size_t size)
{
	hist_sym_name(e->sym, e->addr, buf, size);
	size_t len = strlen(buf);
	if (e->inlined && len + 11 < size)
		memcpy(buf + len, " (inlined)", 11);
}
