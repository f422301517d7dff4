#include "analysis/stacks.h"

#include <stdlib.h>
#include <string.h>

#include "symbols/srcline.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define NONE UINT32_MAX

void stacks_init(struct stacks *st)
{
	memset(st, 0, sizeof(*st));
	hashmap_init(&st->fmap, HASHMAP_STR);
	hashmap_init(&st->nmap, HASHMAP_U64);
	hashmap_init(&st->tmap, HASHMAP_U64);
}

#define IDX(e) ((uint32_t)((uintptr_t)(e)->value - 1))
#define VAL(i) ((void *)(uintptr_t)((i) + 1))

const char *stack_kind_name(enum stack_kind k)
{
	static const char *const n[] = { "root", "command", "native", "python", "kernel", "jit" };
	return k < SK_NKINDS ? n[k] : "native";
}

/* Interns a frame by DSO and name. */
static uint32_t intern_frame(struct stacks *st, const char *name, const void *key_dso, enum stack_kind kind,
			     const struct dso *d, uint64_t addr)
{
	struct strbuf key = STRBUF_INIT;
	sb_addf(&key, "%p|%s", key_dso, name);
	bool found;
	struct hashmap_entry *he = hashmap_insert_str(&st->fmap, sb_str(&key), &found);
	if (found) {
		sb_release(&key);
		return IDX(he);
	}
	ALLOC_GROW(st->frames, st->nframes + 1, st->fcap);
	struct stack_frame *f = &st->frames[st->nframes];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->kind = kind;
	f->key = sb_detach(&key);
	f->addr = addr;
	he->key.str = f->key;
	he->value = VAL(st->nframes);
	if (d && st->lines && d->kind == DSO_ELF && kind == SK_NATIVE) {
		/* srcline memoises per DSO; the const is the frames', not the cache's. */
		if (!srcline_find((struct dso *)(uintptr_t)d, addr, &f->src, &f->line))
			f->src = NULL, f->line = 0;
	}
	if (d) {
		f->dso = xstrdup(d->path);
		f->build_id_size = d->build_id_size > 20 ? 20 : d->build_id_size;
		memcpy(f->build_id, d->build_id, f->build_id_size);
	}
	/* "py::func:/path/file.py": the function and its file. */
	const char *colon = kind == SK_PYTHON && !strncmp(name, "py::", 4) ? strchr(name + 4, ':') : NULL;
	if (colon && colon[1]) {
		f->func = xstrndup(name, (size_t)(colon - name));
		f->file = xstrdup(colon + 1);
	} else {
		f->func = xstrdup(name);
		f->file = f->dso ? xstrdup(f->dso) : NULL;
	}
	return (uint32_t)st->nframes++;
}

static uint32_t new_node(struct stacks *st, uint32_t frame, uint32_t parent)
{
	ALLOC_GROW(st->nodes, st->nnodes + 1, st->ncap);
	struct stack_node *n = &st->nodes[st->nnodes];
	memset(n, 0, sizeof(*n));
	n->frame = frame;
	n->parent = parent;
	n->depth = parent == NONE ? 0 : st->nodes[parent].depth + 1;
	return (uint32_t)st->nnodes++;
}

static uint32_t child(struct stacks *st, uint32_t parent, uint32_t frame)
{
	bool found;
	struct hashmap_entry *he = hashmap_insert_u64(&st->nmap, (uint64_t)parent << 32 | frame, &found);
	if (found)
		return IDX(he);
	uint32_t n = new_node(st, frame, parent);
	he->value = VAL(n);
	struct stack_node *p = &st->nodes[parent];
	ALLOC_GROW(p->kids, p->nkids + 1, p->kcap);
	p->kids[p->nkids++] = n;
	return n;
}

size_t stacks_event(struct stacks *st, const char *name)
{
	for (size_t i = 0; i < st->nevents; i++)
		if (!strcmp(st->events[i].name, name))
			return i;
	ALLOC_GROW(st->events, st->nevents + 1, st->ecap);
	struct stack_event *e = &st->events[st->nevents];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	e->time_unit = !strcmp(name, "cpu-clock") || !strcmp(name, "task-clock") || !strcmp(name, "wall-clock") ||
		       !strncmp(name, "cpu-clock:", 10) || !strncmp(name, "task-clock:", 11);
	e->wall = !strcmp(name, "wall-clock");
	e->root = new_node(st, intern_frame(st, "all", NULL, SK_ROOT, NULL, 0), NONE);
	return st->nevents++;
}

static uint32_t thread_index(struct stacks *st, int pid, int tid, const char *comm, const char *process)
{
	bool found;
	struct hashmap_entry *he = hashmap_insert_u64(&st->tmap, (uint64_t)(uint32_t)tid << 32 | (uint32_t)pid, &found);
	if (found) {
		struct stack_thread *t = &st->threads[IDX(he)];
		if (strcmp(t->comm, comm)) {
			free(t->comm);
			t->comm = xstrdup(comm);
		}
		if (process && (!t->process || strcmp(t->process, process))) {
			free(t->process); /* the last name seen, as comm's (a COMM may come after a sample) */
			t->process = xstrdup(process);
		}
		return IDX(he);
	}
	ALLOC_GROW(st->threads, st->nthreads + 1, st->tcap);
	struct stack_thread *t = &st->threads[st->nthreads];
	t->pid = pid;
	t->tid = tid;
	t->comm = xstrdup(comm);
	t->process = process ? xstrdup(process) : NULL;
	t->samples = 0;
	he->value = VAL(st->nthreads);
	return (uint32_t)st->nthreads++;
}

static void account(struct stacks *st, size_t e, uint32_t leaf, uint32_t thread, uint64_t time, uint64_t period)
{
	struct stack_event *ev = &st->events[e];
	st->nodes[leaf].self++;
	st->nodes[leaf].period_self += period;
	for (uint32_t n = leaf; n != NONE; n = st->nodes[n].parent) {
		st->nodes[n].total++;
		st->nodes[n].period_total += period;
	}
	ev->samples++;
	ev->period += period;
	ALLOC_GROW(ev->s, ev->ns + 1, ev->scap);
	ev->s[ev->ns++] = (struct stack_sample){ time, period, thread, leaf };
	st->threads[thread].samples++;
	if (time && (!st->first_time || time < st->first_time))
		st->first_time = time;
	if (time > st->last_time)
		st->last_time = time;
}

/* A frame's name as folded.c spells it: the function, else "[dso]" or "[unknown]"; ';' and
 * newlines become ':'; kernel functions get "_[k]". In the Python view a Python frame is named
 * as the resolver's labels name it (resolve_py_label), also when the frames come unlabelled
 * (the live pictures of sample and top). */
static void frame_name(const struct stacks *st, struct strbuf *sb, const struct frame *fr)
{
	const char *name = fr->loc.sym ? fr->loc.sym->name : NULL;
	const char *py = st->python ? resolve_py_name(fr) : NULL;
	sb_reset(sb);
	if (py)
		resolve_py_label(sb, py, st->python_nolineno ? 0 : fr->line);
	else if (name)
		sb_adds(sb, name);
	else if (fr->loc.dso)
		sb_addf(sb, "[%s]", fr->loc.dso->short_name);
	else
		sb_adds(sb, "[unknown]");
	for (size_t i = 0; i < sb->len; i++)
		if (sb->buf[i] == ';' || sb->buf[i] == '\n')
			sb->buf[i] = ':';
	if (fr->loc.kernel && name)
		sb_adds(sb, "_[k]");
}

static enum stack_kind frame_kind(const struct frame *fr)
{
	if (resolve_py_name(fr))
		return SK_PYTHON;
	if (fr->loc.kernel)
		return SK_KERNEL;
	if (fr->loc.dso && (fr->loc.dso->kind == DSO_JIT || (fr->loc.dso->kind == DSO_ANON && fr->loc.sym)))
		return SK_JIT;
	return SK_NATIVE;
}

/* A Python frame new in the Python view: the function alone, its file and line. */
static void python_frame(struct stacks *st, uint32_t i, const struct frame *fr)
{
	const char *fn, *file;
	size_t flen;
	resolve_py_split(resolve_py_name(fr), &fn, &flen, &file);
	struct stack_frame *f = &st->frames[i];
	free(f->func);
	free(f->file);
	f->func = xstrndup(fn, flen);
	f->file = file ? xstrdup(file) : NULL;
	f->line = st->python_nolineno || fr->line < 0 ? 0 : (unsigned)fr->line;
}

/* A name of folded text that is a Python frame: "py::f:/x.py", or a label "f (x.py:12)". */
static bool python_name(const char *name)
{
	if (!strncmp(name, "py::", 4))
		return true;
	size_t n = strlen(name);
	if (n < 6 || name[n - 1] != ')' || !strstr(name, " ("))
		return false;
	const char *open = strrchr(name, '(');
	const char *py = strstr(open, ".py");
	return py && (py[3] == ')' || py[3] == ':');
}

static void comm_name(struct strbuf *sb, const char *comm)
{
	sb_reset(sb);
	sb_adds(sb, comm && *comm ? comm : "[unknown]");
	for (size_t i = 0; i < sb->len; i++)
		if (sb->buf[i] == ';' || sb->buf[i] == ' ' || sb->buf[i] == '\n')
			sb->buf[i] = '_';
}

void stacks_add(struct stacks *st, const struct resolved_sample *rs)
{
	const struct perf_sample *s = rs->s;
	size_t e = stacks_event(st, s->evsel && s->evsel->name ? s->evsel->name : "event");
	const char *comm = rs->thread && rs->thread->comm ? rs->thread->comm : "[unknown]";
	struct strbuf sb = STRBUF_INIT;
	comm_name(&sb, comm);
	uint32_t node = child(st, st->events[e].root, intern_frame(st, sb_str(&sb), NULL, SK_COMM, NULL, 0));
	for (size_t i = rs->nframes; i-- > 0;) {
		const struct frame *fr = &rs->frames[i];
		frame_name(st, &sb, fr);
		const struct dso *d = fr->loc.dso;
		uint64_t addr = fr->loc.sym ? fr->loc.sym->start : fr->loc.addr;
		size_t before = st->nframes;
		enum stack_kind kind = frame_kind(fr);
		uint32_t f = intern_frame(st, sb_str(&sb), d, kind, d, addr);
		if (st->nframes > before && kind == SK_PYTHON && st->python)
			python_frame(st, f, fr);
		node = child(st, node, f);
	}
	sb_release(&sb);
	int pid = rs->thread ? rs->thread->pid : (int)s->pid;
	int tid = rs->thread ? rs->thread->tid : (int)s->tid;
	uint32_t t = thread_index(st, pid, tid, comm, rs->thread ? rs->thread->kcomm : NULL);
	account(st, e, node, t, s->time, s->period ? s->period : 1);
}

void stacks_add_names(struct stacks *st, const char *event, const char *const *names, size_t n,
		      uint64_t time, uint64_t period, int tid)
{
	size_t e = stacks_event(st, event);
	uint32_t node = st->events[e].root;
	for (size_t i = 0; i < n; i++) {
		enum stack_kind k = i == 0 ? SK_COMM : python_name(names[i]) ? SK_PYTHON :
				    strstr(names[i], "_[k]") ? SK_KERNEL : SK_NATIVE;
		node = child(st, node, intern_frame(st, names[i], NULL, k, NULL, 0));
	}
	uint32_t t = thread_index(st, tid, tid, n ? names[0] : "[unknown]", NULL);
	account(st, e, node, t, time, period);
}

/* A frame of src in dst (interned by the source frame itself), with what it shows copied. */
static uint32_t copy_frame(struct stacks *dst, const struct stack_frame *fr)
{
	size_t before = dst->nframes;
	uint32_t i = intern_frame(dst, fr->name, fr, fr->kind, NULL, fr->addr);
	if (dst->nframes == before)
		return i;
	struct stack_frame *f = &dst->frames[i];
	f->dso = fr->dso ? xstrdup(fr->dso) : NULL;
	f->build_id_size = fr->build_id_size;
	memcpy(f->build_id, fr->build_id, sizeof(f->build_id));
	f->src = fr->src;
	f->line = fr->line;
	free(f->func);
	free(f->file);
	f->func = xstrdup(fr->func);
	f->file = fr->file ? xstrdup(fr->file) : NULL;
	return i;
}

void stacks_invert(const struct stacks *src, struct stacks *dst)
{
	stacks_init(dst);
	dst->command = src->command ? xstrdup(src->command) : NULL;
	dst->python = src->python;
	dst->lost = src->lost;
	for (size_t e = 0; e < src->nevents; e++) {
		const struct stack_event *ev = &src->events[e];
		size_t de = stacks_event(dst, ev->name);
		dst->events[de].time_unit = ev->time_unit;
		dst->events[de].wall = ev->wall;
		for (size_t k = 0; k < ev->ns; k++) {
			const struct stack_sample *s = &ev->s[k];
			uint32_t node = dst->events[de].root;
			for (uint32_t i = s->node; i != NONE && src->nodes[i].parent != NONE; i = src->nodes[i].parent)
				node = child(dst, node, copy_frame(dst, &src->frames[src->nodes[i].frame]));
			const struct stack_thread *th = &src->threads[s->thread];
			account(dst, de, node, thread_index(dst, th->pid, th->tid, th->comm, th->process), s->time, s->period);
		}
	}
	stacks_finish(dst);
}

static int cmp_kids(const void *a, const void *b, void *arg)
{
	const struct stacks *st = arg;
	const struct stack_node *x = &st->nodes[*(const uint32_t *)a], *y = &st->nodes[*(const uint32_t *)b];
	return strcmp(st->frames[x->frame].name, st->frames[y->frame].name);
}

void stacks_finish(struct stacks *st)
{
	for (size_t i = 0; i < st->nnodes; i++)
		if (st->nodes[i].nkids > 1)
			qsort_r(st->nodes[i].kids, st->nodes[i].nkids, sizeof(uint32_t), cmp_kids, st);
}

void stacks_set_command(struct stacks *st, int argc, char *const *argv)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < argc; i++) {
		if (i)
			sb_addc(&sb, ' ');
		sb_adds(&sb, argv[i]);
	}
	free(st->command);
	st->command = sb.len ? sb_detach(&sb) : NULL;
	sb_release(&sb);
}

char *stacks_path(const struct stacks *st, uint32_t node)
{
	uint32_t chain[4096];
	size_t n = 0;
	for (uint32_t i = node; i != NONE && st->nodes[i].parent != NONE && n < 4096; i = st->nodes[i].parent)
		chain[n++] = i;
	struct strbuf sb = STRBUF_INIT;
	while (n-- > 0) {
		if (sb.len)
			sb_addc(&sb, ';');
		sb_adds(&sb, st->frames[st->nodes[chain[n]].frame].name);
	}
	return sb_detach(&sb);
}

uint32_t stacks_find(const struct stacks *st, size_t e, const char *path)
{
	return e < st->nevents ? stacks_find_under(st, st->events[e].root, path) : NONE;
}

uint32_t stacks_find_under(const struct stacks *st, uint32_t node, const char *path)
{
	const char *p = path;
	while (*p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		uint32_t found = NONE;
		const struct stack_node *nd = &st->nodes[node];
		for (uint32_t k = 0; k < nd->nkids; k++) {
			const char *name = st->frames[st->nodes[nd->kids[k]].frame].name;
			if (strlen(name) == len && !memcmp(name, p, len)) {
				found = nd->kids[k];
				break;
			}
		}
		if (found == NONE)
			return NONE;
		node = found;
		p = end ? end + 1 : p + len;
	}
	return node;
}

void stacks_by_thread(const struct stacks *st, size_t e, size_t **idx, size_t **start)
{
	const struct stack_event *ev = &st->events[e];
	size_t *st_ = xcalloc(st->nthreads + 2, sizeof(size_t));
	size_t *ix = xmalloc((ev->ns ? ev->ns : 1) * sizeof(size_t));
	for (size_t i = 0; i < ev->ns; i++)
		st_[ev->s[i].thread + 2]++;
	for (size_t t = 2; t < st->nthreads + 2; t++)
		st_[t] += st_[t - 1];
	for (size_t i = 0; i < ev->ns; i++)   /* counting sort, stable */
		ix[st_[ev->s[i].thread + 1]++] = i;
	*idx = ix;
	*start = st_;
}

/* Totals per function: a node adds its total to its frame unless the frame is already on the
 * path above (recursion counts once). */
static void func_walk(const struct stacks *st, uint32_t node, uint32_t *onpath, uint64_t *self, uint64_t *total)
{
	const struct stack_node *nd = &st->nodes[node];
	if (!onpath[nd->frame]++)
		total[nd->frame] += nd->total;
	self[nd->frame] += nd->self;
	for (uint32_t k = 0; k < nd->nkids; k++)
		func_walk(st, nd->kids[k], onpath, self, total);
	onpath[nd->frame]--;
}

static int cmp_func(const void *a, const void *b, void *arg)
{
	const struct stacks *st = arg;
	const struct stack_func *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(st->frames[x->frame].name, st->frames[y->frame].name);
}

size_t stacks_functions(const struct stacks *st, size_t e, struct stack_func **out)
{
	*out = NULL;
	if (e >= st->nevents || !st->nframes)
		return 0;
	uint32_t *onpath = xcalloc(st->nframes, sizeof(uint32_t));
	uint64_t *self = xcalloc(st->nframes, sizeof(uint64_t));
	uint64_t *total = xcalloc(st->nframes, sizeof(uint64_t));
	func_walk(st, st->events[e].root, onpath, self, total);
	size_t n = 0;
	struct stack_func *v = xmalloc(st->nframes * sizeof(*v));
	for (size_t f = 0; f < st->nframes; f++)
		if (total[f] && st->frames[f].kind != SK_ROOT && st->frames[f].kind != SK_COMM)
			v[n++] = (struct stack_func){ (uint32_t)f, self[f], total[f] };
	if (n > 1)
		qsort_r(v, n, sizeof(*v), cmp_func, (void *)st);
	free(onpath);
	free(self);
	free(total);
	*out = v;
	return n;
}

void stacks_free(struct stacks *st)
{
	for (size_t i = 0; i < st->nframes; i++) {
		free(st->frames[i].name);
		free(st->frames[i].func);
		free(st->frames[i].file);
		free(st->frames[i].dso);
		free(st->frames[i].key);
	}
	for (size_t i = 0; i < st->nnodes; i++)
		free(st->nodes[i].kids);
	for (size_t i = 0; i < st->nevents; i++) {
		free(st->events[i].name);
		free(st->events[i].s);
	}
	for (size_t i = 0; i < st->nthreads; i++) {
		free(st->threads[i].comm);
		free(st->threads[i].process);
	}
	free(st->frames);
	free(st->nodes);
	free(st->events);
	free(st->threads);
	free(st->command);
	hashmap_free(&st->fmap);
	hashmap_free(&st->nmap);
	hashmap_free(&st->tmap);
	memset(st, 0, sizeof(*st));
}
