/* Private to src/session: report --threads N. A file's samples, in the order the time ordering
 * delivers them, are gathered in batches; worker threads resolve whole batches (call chains,
 * DWARF unwinding, inline frames: resolve_sample_frames on a shared resolver of their own) while
 * the session reads on; the batches are handed to the tool in that same order
 * (spool_cfg.deliver), so the output is the one-thread run's byte for byte.
 *
 * Workers read the model (threads, maps) without a lock, so it must not change while a batch is
 * out: the session drains the pool (every batch resolved and delivered) before a record that
 * changes it (MMAP, COMM, FORK, EXIT, a thread seen for the first time). */
#ifndef LPERF_SESSION_BATCH_H
#define LPERF_SESSION_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve/resolve.h"

struct perfdata_rbuf;

struct spool;

struct spool_cfg {
	struct machine *machine;
	const struct evsel_set *evsels;
	struct resolver *main;    /* the session's: the workers resolve as it does (callchains,
				   * inline frames, machine) and their counts are added to it */
	const void *stable_base;  /* records here stay as they are until the pool is freed */
	size_t stable_len;
	/* A record elsewhere (len bytes at h) kept as it is until its sample is delivered: the
	 * reader's buffer holding it (perfdata_walk_hold; released on delivery), or NULL, and the
	 * sample reads a copy. NULL: always a copy. Called with arg. */
	struct perfdata_rbuf *(*hold)(void *arg, const void *h, size_t len);
	/* The n frames a worker found for s, handed on in the order the samples were added: in
	 * *f, a buffer of *fcap frames (malloc'd) the callee may trade for one of its own. */
	int (*deliver)(void *arg, const struct perf_sample *s, struct thread *t, struct frame **f, size_t *fcap,
		       size_t n, bool truncated, bool chain_reset);
	void *arg;
};

/* nworkers threads (cfg is copied). */
struct spool *spool_new(const struct spool_cfg *cfg, unsigned nworkers);
/* Queues sample s of record h (h is copied unless it lies in the stable memory or is held,
 * spool_cfg.hold) in thread t.
 * May deliver finished batches on the way; returns the tool's non-zero. */
int spool_add(struct spool *p, const struct perf_event_header *h, const struct perf_sample *s, struct thread *t);
/* The lowest address of a record in the stable memory that a queued sample still reads, or NULL:
 * the pages from there on must stay (ordered_hold). */
const void *spool_oldest(const struct spool *p);
/* Waits for every queued sample and delivers it; returns the tool's first non-zero (the samples
 * after it are dropped). */
int spool_drain(struct spool *p);
/* Drains, stops the workers, and adds their counts (cut DWARF stacks) to the main resolver. */
int spool_free(struct spool *p);

#endif
