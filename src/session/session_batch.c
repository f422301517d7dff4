/* report --threads: batches of samples resolved by worker threads, delivered in order (see
 * session_batch.h). */
#include "session/session_batch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/xalloc.h"

/* Samples per batch: enough that a batch costs far more than handing it over, few enough that
 * the pool drains quickly at a model change. */
#define SPOOL_BATCH 64

/* A slot's state, written under the pool's lock (read without it: atomic). By sequence number: slot fill is the one the session
 * fills (no state yet), run .. fill - 1 are queued, deliver .. run - 1 running or done. */
enum { SLOT_QUEUED = 1, SLOT_RUNNING, SLOT_DONE };

struct sitem {
	struct perf_sample s;
	struct thread *t;
	void *copy;              /* the record's copy in a block of its own (not in the arena) */
	struct perfdata_rbuf *held; /* the reader's buffer it lies in (spool_cfg.hold) */
	struct frame *fbuf;      /* its nf frames: the resolver's buffer, traded for this one's (no
				  * copy on either thread); kept for the next sample in this place */
	size_t fcap, nf;
	bool truncated, chain_reset;
};

/* Room in a slot for its records' copies (records neither in the stable memory nor in a buffer
 * the reader lends: a compressed file's, a held --wall sample), so that a batch of DWARF samples (8 KB each) costs no allocation per
 * sample; a record that does not fit is copied into a block of its own. */
#define SLOT_ARENA ((size_t)SPOOL_BATCH * (10u << 10))

struct slot {
	int state;
	struct sitem items[SPOOL_BATCH];
	size_t n;
	uint8_t *arena;          /* SLOT_ARENA bytes, on first use; arena_len of them hold copies */
	size_t arena_len;
	const void *lowest;      /* the lowest record of its samples read in place (NULL: none) */
};

struct worker {
	struct spool *p;
	pthread_t tid;
	struct resolver rv;
	bool started;
};

struct spool {
	struct spool_cfg c;
	pthread_mutex_t mu;
	pthread_cond_t work;     /* a slot was queued, or stop */
	pthread_cond_t done;     /* a slot was resolved */
	bool stop;
	struct slot *slots;
	size_t nslots;
	uint64_t fill;           /* the slot being filled (sequence number; slot fill % nslots) */
	bool filling;            /* it has samples (the session's own, no lock) */
	uint64_t run;            /* the next slot for a worker */
	uint64_t deliver;        /* the next slot to hand to the tool */
	struct worker *w;
	unsigned nw;
	bool nobody;             /* no worker thread could be started */
	int rc;                  /* the tool's first non-zero */
};

/* The stack copy of s the unwinder reads (a cache miss at each frame otherwise), fetched into
 * the caches while the sample before it is resolved. The caller prefetches: GCC takes a function
 * that only prefetches for a pure one and drops its calls. */
static uint64_t stack_len(const struct perf_sample *s)
{
	if (!s->user_stack)
		return 0;
	return s->user_stack_dyn_size < s->user_stack_size ? s->user_stack_dyn_size : s->user_stack_size;
}

/* Trades r's frame buffer for it's (a resolver's buffer is scratch, grown as it needs). */
static void trade_frames(struct resolver *r, struct sitem *it)
{
	struct frame *f = r->fbuf;
	size_t cap = r->fcap;
	r->fbuf = it->fbuf;
	r->fcap = it->fcap;
	it->fbuf = f;
	it->fcap = cap;
}

static void resolve_slot(struct worker *w, struct slot *sl)
{
	for (size_t i = 0; i < sl->n; i++) {
		struct sitem *it = &sl->items[i];
		const struct perf_sample *next = i + 1 < sl->n ? &sl->items[i + 1].s : NULL;
		for (uint64_t k = 0, n = next ? stack_len(next) : 0; k < n; k += 64)
			__builtin_prefetch(next->user_stack + k);
		trade_frames(&w->rv, it);
		it->nf = resolve_sample_frames(&w->rv, &it->s, it->t, &it->truncated, &it->chain_reset);
		trade_frames(&w->rv, it);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct spool *p = w->p;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->run == p->fill)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stop)
			break;
		struct slot *sl = &p->slots[p->run++ % p->nslots];
		__atomic_store_n(&sl->state, SLOT_RUNNING, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&p->mu);
		resolve_slot(w, sl);
		pthread_mutex_lock(&p->mu);
		__atomic_store_n(&sl->state, SLOT_DONE, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct spool *spool_new(const struct spool_cfg *cfg, unsigned nworkers)
{
	struct spool *p = xcalloc(1, sizeof(*p));
	p->c = *cfg;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->nslots = 2 * (size_t)nworkers + 2;
	p->slots = xcalloc(p->nslots, sizeof(*p->slots));
	p->w = xcalloc(nworkers, sizeof(*p->w));
	p->nw = nworkers;
	p->nobody = true;
	for (unsigned i = 0; i < nworkers; i++) {
		struct worker *w = &p->w[i];
		w->p = p;
		resolver_init(&w->rv, cfg->machine, cfg->evsels, cfg->main->callchains, false);
		w->rv.inline_frames = cfg->main->inline_frames;
		w->rv.e_machine = cfg->main->e_machine;
		resolver_share(&w->rv);
		/* Without a thread the pool still works: the session resolves on its own (below). */
		w->started = pthread_create(&w->tid, NULL, worker_main, w) == 0;
		p->nobody &= !w->started;
	}
	return p;
}

static void free_copies(struct slot *sl)
{
	for (size_t i = 0; i < sl->n; i++) {
		free(sl->items[i].copy);
		sl->items[i].copy = NULL;
		perfdata_walk_release(sl->items[i].held);
		sl->items[i].held = NULL;
	}
	sl->n = 0;
	sl->arena_len = 0;
}

/* Room for a copy of record h in slot sl: in its arena, else a block of its own (*own). */
static void *copy_room(struct slot *sl, const struct perf_event_header *h, void **own)
{
	size_t need = ((size_t)h->size + 7) & ~(size_t)7;
	if (!sl->arena)
		sl->arena = xmalloc(SLOT_ARENA);
	if (SLOT_ARENA - sl->arena_len >= need) {
		void *at = sl->arena + sl->arena_len;
		sl->arena_len += need;
		return at;
	}
	return *own = xmalloc(h->size);
}

/* The slot of sequence number k is resolved. Without a lock: the session polls it after every
 * sample (the worker stores it last, under the lock, with release order). */
static bool slot_done(struct spool *p, uint64_t k)
{
	return __atomic_load_n(&p->slots[k % p->nslots].state, __ATOMIC_ACQUIRE) == SLOT_DONE;
}

/* No worker could be started: the slot is resolved here, with the first worker's resolver. */
static void resolve_unstarted(struct spool *p, struct slot *sl)
{
	pthread_mutex_lock(&p->mu);
	bool queued = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SLOT_QUEUED;
	if (queued)
		p->run++;
	pthread_mutex_unlock(&p->mu);
	if (!queued)
		return;
	resolve_slot(&p->w[0], sl);
	__atomic_store_n(&sl->state, SLOT_DONE, __ATOMIC_RELEASE);
}

/* Sleeps until the slot of sequence number k (queued) is resolved. */
static void wait_done(struct spool *p, uint64_t k)
{
	if (slot_done(p, k))
		return;
	pthread_mutex_lock(&p->mu);
	while (!slot_done(p, k))
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* Hands the oldest queued slot to the tool, waiting for it when wait (else only if resolved).
 * False when there was nothing (more) to deliver now. */
static bool deliver_one(struct spool *p, bool wait)
{
	if (p->deliver == p->fill)
		return false;
	struct slot *sl = &p->slots[p->deliver % p->nslots];
	if (p->nobody)
		resolve_unstarted(p, sl);
	if (wait)
		wait_done(p, p->deliver);
	else if (!slot_done(p, p->deliver))
		return false;
	for (size_t i = 0; i < sl->n && !p->rc; i++) {
		struct sitem *it = &sl->items[i];
		p->rc = p->c.deliver(p->c.arg, &it->s, it->t, &it->fbuf, &it->fcap, it->nf, it->truncated,
				     it->chain_reset);
	}
	free_copies(sl);
	p->deliver++;
	return true;
}

/* The slot being filled goes to the workers. */
static void submit(struct spool *p)
{
	if (!p->filling)
		return;
	struct slot *sl = &p->slots[p->fill % p->nslots];
	p->filling = false;
	pthread_mutex_lock(&p->mu);
	__atomic_store_n(&sl->state, SLOT_QUEUED, __ATOMIC_RELAXED);
	p->fill++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

int spool_add(struct spool *p, const struct perf_event_header *h, const struct perf_sample *s, struct thread *t)
{
	if (!p->filling) {
		/* The ring is full when the next slot still waits for delivery: the session sleeps
		 * until half of it is resolved, not once for every slot (two switches a batch). */
		if (p->fill - p->deliver >= p->nslots && !p->nobody)
			wait_done(p, p->deliver + p->nslots / 2 - 1);
		while (p->fill - p->deliver >= p->nslots)
			deliver_one(p, true);
		p->slots[p->fill % p->nslots].n = 0;
		p->slots[p->fill % p->nslots].arena_len = 0;
		p->slots[p->fill % p->nslots].lowest = NULL;
		p->filling = true;
	}
	struct slot *sl = &p->slots[p->fill % p->nslots];
	struct sitem *it = &sl->items[sl->n++];
	struct frame *fbuf = it->fbuf;
	size_t fcap = it->fcap;
	memset(it, 0, sizeof(*it));
	it->fbuf = fbuf;
	it->fcap = fcap;
	it->s = *s;
	it->t = t;
	const char *base = p->c.stable_base, *at = (const char *)h;
	bool stable = base && at >= base && at - base < (ptrdiff_t)p->c.stable_len &&
		      p->c.stable_len - (size_t)(at - base) >= h->size;
	if (!stable && p->c.hold && (it->held = p->c.hold(p->c.arg, h, h->size)) != NULL) {
		/* In a buffer the reader keeps for it: the sample's pointers stay valid. */
	} else if (!stable) {
		/* The record goes away after this call (a copy in the queue, a held --wall sample):
		 * the sample's pointers move to a copy of it. */
		void *copy = copy_room(sl, h, &it->copy);
		memcpy(copy, h, h->size);
		struct perf_sample c;
		if (sample_parse(p->c.evsels, copy, &c) == 0) {
			c.evsel = s->evsel;
			c.period = s->period;
			it->s = c;
		}
	} else if (!sl->lowest || (const void *)h < sl->lowest) {
		sl->lowest = h;
	}
	if (sl->n == SPOOL_BATCH)
		submit(p);
	while (deliver_one(p, false))
		;
	return p->rc;
}

const void *spool_oldest(const struct spool *p)
{
	const void *low = NULL;
	for (uint64_t k = p->deliver; k < p->fill + p->filling; k++) {
		const void *l = p->slots[k % p->nslots].lowest;
		if (l && (!low || l < low))
			low = l;
	}
	return low;
}

/* At a drain with nothing out, the part-filled slot is resolved on the session's thread (with the
 * first worker's resolver: every worker is idle). The drain waits for it anyway, and waking a
 * worker for a few samples costs two switches: a JIT's start-up maps new code every few samples. */
static void resolve_here(struct spool *p)
{
	if (!p->filling || p->deliver != p->fill)
		return;
	struct slot *sl = &p->slots[p->fill % p->nslots];
	p->filling = false;
	resolve_slot(&p->w[0], sl);
	pthread_mutex_lock(&p->mu);
	__atomic_store_n(&sl->state, SLOT_DONE, __ATOMIC_RELEASE);
	p->fill++;
	p->run++;
	pthread_mutex_unlock(&p->mu);
}

int spool_drain(struct spool *p)
{
	resolve_here(p);
	submit(p);
	while (deliver_one(p, true))
		;
	struct resolver *into = p->c.main;
	for (unsigned i = 0; i < p->nw; i++) {
		into->truncated += p->w[i].rv.truncated;
		into->truncated_unread += p->w[i].rv.truncated_unread;
		p->w[i].rv.truncated = p->w[i].rv.truncated_unread = 0;
	}
	return p->rc;
}

int spool_free(struct spool *p)
{
	if (!p)
		return 0;
	int rc = spool_drain(p);
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->nw; i++) {
		if (p->w[i].started)
			pthread_join(p->w[i].tid, NULL);
		resolver_free(&p->w[i].rv);
	}
	for (size_t i = 0; i < p->nslots; i++) {
		for (size_t k = 0; k < SPOOL_BATCH; k++)
			free(p->slots[i].items[k].fbuf);
		free(p->slots[i].arena);
	}
	free(p->slots);
	free(p->w);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
	return rc;
}
