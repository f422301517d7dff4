/* The kernel's symbols read ahead on their own thread (see kahead.h). */
#include "symbols/kahead.h"

#include <pthread.h>
#include <stdlib.h>

#include "symbols/kallsyms.h"
#include "symbols/ksnap.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

struct kahead {
	pthread_t tid;
	bool taken;            /* handed over (the caller's thread only) */
	bool own;              /* not $LPERF_KALLSYMS: the snapshot may answer */
	/* Written by the thread before it ends; read after pthread_join. */
	struct ksnap *ks;
	char *text;
	size_t len;
	char *why;
};

static void *kahead_main(void *arg)
{
	struct kahead *k = arg;
	if (k->own && (k->ks = ksnap_load()))
		return NULL;
	k->text = kallsyms_read(kallsyms_path(), &k->len);
	if (!k->text)
		k->why = xstrdup(err_msg());
	return NULL;
}

struct kahead *kahead_start(void)
{
	struct kahead *k = xcalloc(1, sizeof(*k));
	k->own = !getenv("LPERF_KALLSYMS");
	if (pthread_create(&k->tid, NULL, kahead_main, k) != 0) {
		free(k);
		return NULL;
	}
	return k;
}

bool kahead_take(struct kahead *k, struct ksnap **ks, char **text, size_t *len, char **why)
{
	if (k->taken)
		return false;
	pthread_join(k->tid, NULL);
	k->taken = true;
	*ks = k->ks;
	*text = k->text;
	*len = k->len;
	*why = k->why;
	return true;
}

void kahead_free(struct kahead *k)
{
	if (!k)
		return;
	if (!k->taken) {
		pthread_join(k->tid, NULL);
		ksnap_free(k->ks);
		free(k->text);
		free(k->why);
	}
	free(k);
}
