/* The kernel's symbols loaded on their own thread (see kahead.h). */
#include "symbols/kahead.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "symbols/kallsyms.h"
#include "symbols/ksnap.h"
#include "util/error.h"
#include "util/xalloc.h"

enum state {
	LOOKING,               /* for a usable snapshot: a moment */
	READING,               /* kallsyms, to write the snapshot: tens of milliseconds */
	DONE,                  /* res is complete (release) */
};

struct kahead {
	pthread_t tid;
	bool taken;            /* handed over (the caller's thread only) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool go;               /* under mu: kahead_go was called */
	int state;             /* atomic, set under mu: enum state */
	/* Written by the thread before it ends; read after pthread_join. */
	struct kahead_result res;
};

static void set_state(struct kahead *k, enum state st)
{
	pthread_mutex_lock(&k->mu);
	__atomic_store_n(&k->state, st, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&k->cv);
	pthread_mutex_unlock(&k->mu);
}

/* kahead_load's work; k (NULL: none) is the thread's, whose whole parse waits for kahead_go. */
static void load(struct kahead_result *res, struct kahead *k)
{
	bool own = !getenv("LPERF_KALLSYMS");
	if (own && (res->ks = ksnap_load()))
		return;
	if (k)
		set_state(k, READING);
	if (own && (res->ks = ksnap_stream_rest(&res->r))) {
		res->rest = true;
		return;
	}
	size_t len;
	char *text = kallsyms_read(kallsyms_path(), &len);
	if (!text)
		notes_add(&res->r.notes, "%s", err_msg());
	if (k) {
		pthread_mutex_lock(&k->mu);
		while (!k->go)
			pthread_cond_wait(&k->cv, &k->mu);
		pthread_mutex_unlock(&k->mu);
	}
	if (text)
		kallsyms_parse_text(text, len, kallsyms_path(), &res->r);
	if (own && (res->ks = ksnap_save_rest(&res->r.syms, &res->r.nsyms)))
		res->rest = true;
	if (k)
		malloc_trim(0);
}

void kahead_load(struct kahead_result *res)
{
	load(res, NULL);
}

static void *kahead_main(void *arg)
{
	struct kahead *k = arg;
	load(&k->res, k);
	set_state(k, DONE);
	return NULL;
}

struct kahead *kahead_start(void)
{
	struct kahead *k = xcalloc(1, sizeof(*k));
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	if (pthread_create(&k->tid, NULL, kahead_main, k) != 0) {
		pthread_cond_destroy(&k->cv);
		pthread_mutex_destroy(&k->mu);
		free(k);
		return NULL;
	}
	return k;
}

void kahead_go(struct kahead *k)
{
	pthread_mutex_lock(&k->mu);
	k->go = true;
	pthread_cond_broadcast(&k->cv);
	pthread_mutex_unlock(&k->mu);
}

/* Lets the thread end, and waits for it. */
static void join(struct kahead *k)
{
	kahead_go(k);
	pthread_join(k->tid, NULL);
	pthread_cond_destroy(&k->cv);
	pthread_mutex_destroy(&k->mu);
}

bool kahead_reading(struct kahead *k)
{
	int st = __atomic_load_n(&k->state, __ATOMIC_ACQUIRE);
	if (st == LOOKING) {
		pthread_mutex_lock(&k->mu);
		while ((st = __atomic_load_n(&k->state, __ATOMIC_ACQUIRE)) == LOOKING)
			pthread_cond_wait(&k->cv, &k->mu);
		pthread_mutex_unlock(&k->mu);
	}
	return st == READING;
}

bool kahead_take(struct kahead *k, struct kahead_result *out)
{
	if (k->taken)
		return false;
	join(k);
	k->taken = true;
	*out = k->res;
	return true;
}

void kahead_free(struct kahead *k)
{
	if (!k)
		return;
	if (!k->taken) {
		join(k);
		ksnap_free(k->res.ks);
		symtab_free(k->res.r.syms, k->res.r.nsyms);
		notes_clear(&k->res.r.notes);
	}
	free(k);
}
