/* perf lock contention's counting: see lockstat.h. A thread's wait on a lock starts at its first
 * contention_begin (a nested begin while it waits, as mutex spinning gives, is not a new wait)
 * and ends at contention_end on the same lock; the row is found from each event's own call
 * chain, as perf finds it. */
#include "analysis/lockstat.h"

#include <event-parse.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/resolve.h"
#include "symbols/kallsyms.h"
#include "util/error.h"
#include "util/notes.h"
#include "util/fileio.h"
#include "util/xalloc.h"

#define LOCK_KALLSYMS_MAX (256u << 20)
#define LOCK_GOLDEN 0x61C8864680B583EBull

struct lock_wait {
	uint64_t addr, since;
	bool waiting;
};

struct lock_waits {
	struct lock_wait *v;
	size_t n, cap;
};

/* The four section bounds from a kallsyms file. */
static void lock_sections(struct lockstat *ls, const char *path)
{
	static const char *const names[] = { "__sched_text_start", "__sched_text_end",
					     "__lock_text_start", "__lock_text_end" };
	uint64_t *dst[] = { &ls->sched_lo, &ls->sched_hi, &ls->lock_lo, &ls->lock_hi };
	char *buf = path ? file_read(path, LOCK_KALLSYMS_MAX, NULL) : NULL;
	if (!buf) {
		err_clear();
		return;
	}
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char type, name[64];
		unsigned long long addr;
		if (sscanf(line, "%llx %c %63s", &addr, &type, name) != 3)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(name, names[i]))
				*dst[i] = addr;
	}
	free(buf);
	if (!(ls->sched_lo < ls->sched_hi))
		ls->sched_lo = ls->sched_hi = 0;
	if (!(ls->lock_lo < ls->lock_hi))
		ls->lock_lo = ls->lock_hi = 0;
}

int lockstat_init(struct lockstat *ls, struct tep_handle *tep, const char *kallsyms)
{
	memset(ls, 0, sizeof(*ls));
	ls->max_stack = 8;
	ls->stack_skip = 3;
	hashmap_init(&ls->waits, HASHMAP_U64);
	hashmap_init(&ls->byname, HASHMAP_U64);
	ls->begin = tep ? tep_find_event_by_name(tep, "lock", "contention_begin") : NULL;
	ls->end = tep ? tep_find_event_by_name(tep, "lock", "contention_end") : NULL;
	if (!ls->begin || !ls->end)
		return err_set("no lock:contention_begin and lock:contention_end events in the recording "
			       "(record them with 'lperf lock record')");
	ls->begin_addr = tep_find_field(ls->begin, "lock_addr");
	ls->begin_flags = tep_find_field(ls->begin, "flags");
	ls->end_addr = tep_find_field(ls->end, "lock_addr");
	if (!ls->begin_addr || !ls->begin_flags || !ls->end_addr)
		return err_set("lock:contention_begin/end: the recording's formats have no lock_addr or flags field");
	lock_sections(ls, kallsyms);
	return 0;
}

static bool lock_function(const struct lockstat *ls, uint64_t ip)
{
	return (ip >= ls->sched_lo && ip < ls->sched_hi) || (ip >= ls->lock_lo && ip < ls->lock_hi);
}

/* The frames perf looks at: at most max_stack, the first stack_skip skipped. */
static size_t lock_first_frame(const struct lockstat *ls, const struct resolved_sample *rs, size_t *end)
{
	*end = rs->nframes < (size_t)ls->max_stack ? rs->nframes : (size_t)ls->max_stack;
	return (size_t)ls->stack_skip;
}

/* The call chain's key: its frames outside the lock functions. */
static uint64_t lock_chain_key(const struct lockstat *ls, const struct resolved_sample *rs)
{
	uint64_t h = 0;
	size_t end, i = lock_first_frame(ls, rs, &end);
	for (; i < end; i++) {
		const struct frame *f = &rs->frames[i];
		if (f->loc.sym && lock_function(ls, f->ip))
			continue;
		h ^= f->ip * LOCK_GOLDEN; /* perf's key: the frames' golden-ratio hashes xored */
	}
	return h;
}

/* The caller's name: the first frame outside the lock functions with a symbol. */
static char *lock_caller(const struct lockstat *ls, const struct resolved_sample *rs)
{
	size_t end, i = lock_first_frame(ls, rs, &end);
	for (; i < end; i++) {
		const struct frame *f = &rs->frames[i];
		if (!f->loc.sym || lock_function(ls, f->ip))
			continue;
		if (f->loc.sym_off)
			return xasprintf("%s+%#" PRIx64, f->loc.sym->name, f->loc.sym_off);
		return xstrdup(f->loc.sym->name);
	}
	return xstrdup("");
}

static struct lock_entry *lock_row(struct lockstat *ls, const struct resolved_sample *rs, uint64_t addr,
				   bool create, unsigned flags)
{
	uint64_t key = ls->per_thread ? rs->s->tid : ls->by_addr ? addr : lock_chain_key(ls, rs);
	bool found = true;
	struct hashmap_entry *he = create ? hashmap_insert_u64(&ls->byname, key, &found)
					  : hashmap_find_u64(&ls->byname, key);
	if (!he)
		return NULL;
	if (create && !found) {
		ALLOC_GROW(ls->v, ls->n + 1, ls->cap);
		struct lock_entry *e = &ls->v[ls->n];
		memset(e, 0, sizeof(*e));
		e->key = key;
		e->seq = ls->n;
		e->tid = rs->s->tid;
		e->flags = flags;
		e->min = UINT64_MAX;
		e->name = ls->per_thread ? xstrdup(rs->thread && rs->thread->comm ? rs->thread->comm : "")
					 : lock_caller(ls, rs);
		he->value = (void *)(uintptr_t)(++ls->n);
	}
	struct lock_entry *e = &ls->v[(uintptr_t)he->value - 1];
	/* Per thread the row bears the thread's latest name, as perf's (a thread renamed after its
	 * first wait, by prctl or exec, is shown by its new name). */
	if (ls->per_thread && found && rs->thread && rs->thread->comm && strcmp(e->name, rs->thread->comm)) {
		free(e->name);
		e->name = xstrdup(rs->thread->comm);
	}
	return e;
}

static struct lock_wait *lock_wait_of(struct lockstat *ls, uint32_t tid, uint64_t addr, bool create)
{
	bool found;
	struct hashmap_entry *he = create ? hashmap_insert_u64(&ls->waits, tid, &found)
					  : hashmap_find_u64(&ls->waits, tid);
	if (!he)
		return NULL;
	if (create && !found)
		he->value = xcalloc(1, sizeof(struct lock_waits));
	struct lock_waits *w = he->value;
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].addr == addr)
			return &w->v[i];
	if (!create)
		return NULL;
	ALLOC_GROW(w->v, w->n + 1, w->cap);
	w->v[w->n] = (struct lock_wait){ .addr = addr };
	return &w->v[w->n++];
}

static int lock_field(const struct tep_format_field *f, const struct resolved_sample *rs, uint64_t *v)
{
	unsigned long long x;
	if ((uint64_t)f->offset + (uint64_t)f->size > rs->s->raw_size)
		return -1;
	if (tep_read_number_field((struct tep_format_field *)f, rs->s->raw, &x) != 0)
		return -1;
	*v = x;
	return 0;
}

static int lock_event_id(const struct resolved_sample *rs)
{
	if (!rs->s->raw || rs->s->raw_size < 2)
		return -1;
	uint16_t id;
	memcpy(&id, rs->s->raw, sizeof(id));
	return id;
}

void lockstat_sample(struct lockstat *ls, const struct resolved_sample *rs)
{
	int id = lock_event_id(rs);
	uint64_t addr, flags;
	if (id < 0 || (id != ls->begin->id && id != ls->end->id))
		return;
	if (id == ls->begin->id) {
		if (lock_field(ls->begin_addr, rs, &addr) < 0 || lock_field(ls->begin_flags, rs, &flags) < 0) {
			ls->bad++;
			return;
		}
		struct lock_wait *w = lock_wait_of(ls, rs->s->tid, addr, true);
		if (w->waiting)
			return; /* nested (mutex spinning): the first begin counts */
		w->waiting = true;
		w->since = rs->s->time;
		lock_row(ls, rs, addr, true, (unsigned)flags)->contended++;
		return;
	}
	if (lock_field(ls->end_addr, rs, &addr) < 0) {
		ls->bad++;
		return;
	}
	struct lock_wait *w = lock_wait_of(ls, rs->s->tid, addr, false);
	if (!w || !w->waiting) {
		ls->bad++;
		return;
	}
	w->waiting = false;
	struct lock_entry *e = lock_row(ls, rs, addr, false, 0);
	if (!e)
		return;
	uint64_t t = rs->s->time >= w->since ? rs->s->time - w->since : 0;
	e->total += t;
	if (t > e->max)
		e->max = t;
	if (t < e->min)
		e->min = t;
	e->acquired++;
}

void lockstat_init_stacks(struct lockstat *ls, const char *kallsyms)
{
	memset(ls, 0, sizeof(*ls));
	ls->max_stack = 8;
	ls->stack_skip = 3;
	hashmap_init(&ls->waits, HASHMAP_U64);
	hashmap_init(&ls->byname, HASHMAP_U64);
	lock_sections(ls, kallsyms);
	struct symtab_load out = { 0 };
	kallsyms_load(kallsyms, &out);
	ls->ksyms = out.syms;
	ls->nksyms = out.nsyms;
	free(out.loads);
	free(out.debug_path);
	notes_clear(&out.notes);
}

void lockstat_add_stack(struct lockstat *ls, const uint64_t *ips, size_t n, unsigned flags, uint64_t count,
			uint64_t total, uint64_t max, uint64_t min)
{
	uint64_t key = 0;
	char *name = NULL;
	size_t end = n < (size_t)ls->max_stack ? n : (size_t)ls->max_stack;
	for (size_t i = (size_t)ls->stack_skip; i < end; i++) {
		const struct symbol *s = symtab_find(ls->ksyms, ls->nksyms, ips[i]);
		if (s && lock_function(ls, ips[i]))
			continue;
		key ^= ips[i] * LOCK_GOLDEN;
		if (!name && s)
			name = ips[i] > s->start ? xasprintf("%s+%#" PRIx64, s->name, ips[i] - s->start)
						 : xstrdup(s->name);
	}
	ALLOC_GROW(ls->v, ls->n + 1, ls->cap);
	ls->v[ls->n] = (struct lock_entry){ .key = key, .seq = ls->n, .flags = flags, .contended = count,
					    .acquired = count, .total = total, .max = max, .min = min,
					    .name = name ? name : xstrdup("") };
	ls->n++;
}

void lockstat_add_thread(struct lockstat *ls, uint32_t tid, const char *comm, unsigned flags, uint64_t count,
			 uint64_t total, uint64_t max, uint64_t min)
{
	ALLOC_GROW(ls->v, ls->n + 1, ls->cap);
	ls->v[ls->n] = (struct lock_entry){ .key = tid, .tid = tid, .seq = ls->n, .flags = flags,
					    .contended = count, .acquired = count, .total = total, .max = max,
					    .min = min, .name = xstrdup(comm ? comm : "") };
	ls->n++;
}

static uint64_t lock_value(const struct lock_entry *e, enum lock_sort key)
{
	switch (key) {
	case LOCK_SORT_CONTENDED: return e->contended;
	case LOCK_SORT_WAIT_MAX: return e->max;
	case LOCK_SORT_WAIT_MIN: return e->min == UINT64_MAX ? 0 : e->min;
	case LOCK_SORT_AVG_WAIT: return e->acquired ? e->total / e->acquired : 0;
	case LOCK_SORT_ACQUIRED: return e->acquired;
	case LOCK_SORT_WAIT_TOTAL: break;
	}
	return e->total;
}

static enum lock_sort lock_sort_by;

static int lock_cmp(const void *a, const void *b)
{
	uint64_t x = lock_value(a, lock_sort_by), y = lock_value(b, lock_sort_by);
	if (x != y)
		return x > y ? -1 : 1;
	/* Equal rows in the order perf meets them: by its hash table's bucket (the key's 12-bit
	 * golden-ratio hash), the newest first within one */
	const struct lock_entry *p = a, *q = b;
	uint64_t bp = (p->key * LOCK_GOLDEN) >> 52, bq = (q->key * LOCK_GOLDEN) >> 52;
	if (bp != bq)
		return bp < bq ? -1 : 1;
	return p->seq > q->seq ? -1 : p->seq < q->seq;
}

void lockstat_combine(struct lockstat *ls)
{
	struct hashmap byname;
	hashmap_init(&byname, HASHMAP_STR);
	size_t n = 0;
	for (size_t i = 0; i < ls->n; i++) {
		struct lock_entry *e = &ls->v[i];
		bool found;
		struct hashmap_entry *he = hashmap_insert_str(&byname, e->name, &found);
		if (!found) {
			ls->v[n] = *e;
			he->key.str = ls->v[n].name;
			he->value = (void *)(uintptr_t)n++;
			continue;
		}
		struct lock_entry *into = &ls->v[(uintptr_t)he->value];
		into->contended += e->contended;
		into->acquired += e->acquired;
		into->total += e->total;
		if (e->max > into->max)
			into->max = e->max;
		if (e->min < into->min)
			into->min = e->min;
		free(e->name);
	}
	ls->n = n;
	hashmap_free(&byname);
}

static int lock_cmp_tid(const void *a, const void *b)
{
	const struct lock_entry *p = a, *q = b;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

static int lock_cmp_name(const void *a, const void *b)
{
	const struct lock_entry *p = a, *q = b;
	int c = strcmp(p->name, q->name);
	return c ? c : p->key < q->key ? -1 : p->key > q->key;
}

void lockstat_sort_info(struct lockstat *ls)
{
	if (ls->n)
		qsort(ls->v, ls->n, sizeof(*ls->v), ls->per_thread ? lock_cmp_tid : lock_cmp_name);
	hashmap_free(&ls->byname);
	hashmap_init(&ls->byname, HASHMAP_U64);
}

void lockstat_sort(struct lockstat *ls, enum lock_sort key)
{
	lock_sort_by = key;
	if (ls->n)
		qsort(ls->v, ls->n, sizeof(*ls->v), lock_cmp);
	hashmap_free(&ls->byname); /* indices changed; counting is over */
	hashmap_init(&ls->byname, HASHMAP_U64);
}

const char *lockstat_type_name(unsigned flags)
{
	static const struct { unsigned flags; const char *name; } types[] = {
		{ 0, "semaphore" },
		{ LOCK_F_SPIN, "spinlock" },
		{ LOCK_F_SPIN | LOCK_F_READ, "rwlock:R" },
		{ LOCK_F_SPIN | LOCK_F_WRITE, "rwlock:W" },
		{ LOCK_F_READ, "rwsem:R" },
		{ LOCK_F_WRITE, "rwsem:W" },
		{ LOCK_F_RT, "rtmutex" },
		{ LOCK_F_RT | LOCK_F_READ, "rwlock-rt:R" },
		{ LOCK_F_RT | LOCK_F_WRITE, "rwlock-rt:W" },
		{ LOCK_F_PERCPU | LOCK_F_READ, "pcpu-sem:R" },
		{ LOCK_F_PERCPU | LOCK_F_WRITE, "pcpu-sem:W" },
		{ LOCK_F_MUTEX, "mutex" },
		{ LOCK_F_MUTEX | LOCK_F_SPIN, "mutex" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].flags == flags)
			return types[i].name;
	return "unknown";
}

int lockstat_sort_key(const char *name)
{
	static const char *const names[] = { "contended", "wait_total", "wait_max", "wait_min", "avg_wait",
					     "acquired" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

void lockstat_free(struct lockstat *ls)
{
	for (size_t i = 0; i < ls->waits.n; i++) {
		struct lock_waits *w = ls->waits.v[i].value;
		free(w->v);
		free(w);
	}
	hashmap_free(&ls->waits);
	hashmap_free(&ls->byname);
	for (size_t i = 0; i < ls->n; i++)
		free(ls->v[i].name);
	free(ls->v);
	symtab_free(ls->ksyms, ls->nksyms);
	memset(ls, 0, sizeof(*ls));
}
