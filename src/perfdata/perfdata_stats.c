#include "perfdata/perfdata_stats.h"

#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "util/error.h"
#include "util/xalloc.h"

struct stats_walk {
	struct perfdata_reader *r;
	struct perfdata_stats *st;
};

static int count_record(const struct perf_event_header *h, void *arg)
{
	struct stats_walk *w = arg;
	struct perfdata_stats *st = w->st;
	if (h->type < PDSTATS_NTYPES)
		st->types[h->type]++;
	st->total++;
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	struct perf_sample s;
	if (sample_parse(&w->r->evsels, h, &s) < 0 || !s.evsel)
		return 0; /* counted as a sample; no event to count it for */
	size_t e = (size_t)(s.evsel - w->r->evsels.v);
	if (e >= st->nev) {
		size_t n = w->r->evsels.n;
		st->ev_samples = xrealloc(st->ev_samples, n * sizeof(*st->ev_samples));
		memset(st->ev_samples + st->nev, 0, (n - st->nev) * sizeof(*st->ev_samples));
		st->nev = n;
	}
	st->ev_samples[e]++;
	return 0;
}

int perfdata_stats(struct perfdata_reader *r, struct perfdata_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct stats_walk w = { r, st };
	uint64_t before = r->compressed_records, consumed[ARRAY_SIZE(r->consumed)];
	memcpy(consumed, r->consumed, sizeof(consumed));
	int ret = perfdata_for_each(r, count_record, &w);
	uint64_t comp = r->compressed_records - before;
	st->types[REC_COMPRESSED] += comp;
	st->total += comp;
	/* the pipe's attrs, names and features, which the reader keeps for itself */
	for (size_t k = 0; k < ARRAY_SIZE(consumed); k++) {
		st->types[REC_HEADER_ATTR + k] += r->consumed[k] - consumed[k];
		st->total += r->consumed[k] - consumed[k];
	}
	if (st->nev < r->evsels.n) {
		st->ev_samples = xrealloc(st->ev_samples, (r->evsels.n ? r->evsels.n : 1) * sizeof(*st->ev_samples));
		memset(st->ev_samples + st->nev, 0, (r->evsels.n - st->nev) * sizeof(*st->ev_samples));
		st->nev = r->evsels.n;
	}
	return ret ? -1 : 0;
}

void perfdata_stats_free(struct perfdata_stats *st)
{
	free(st->ev_samples);
	memset(st, 0, sizeof(*st));
}

static struct pdtask *task_at(struct perfdata_tasks *t, pid_t pid, pid_t tid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].tid == tid && t->v[i].pid == pid)
			return &t->v[i];
	ALLOC_GROW(t->v, t->n + 1, t->cap);
	t->v[t->n] = (struct pdtask){ pid, tid, -1, NULL };
	return &t->v[t->n++];
}

static int task_record(const struct perf_event_header *h, void *arg)
{
	struct perfdata_tasks *t = arg;
	if (h->type == PERF_RECORD_COMM) {
		struct rec_comm c;
		if (record_parse_comm(h, &c) < 0)
			return 0;
		struct pdtask *k = task_at(t, (pid_t)c.pid, (pid_t)c.tid);
		free(k->comm);
		k->comm = xstrdup(c.comm);
	} else if (h->type == PERF_RECORD_FORK) {
		struct rec_task f;
		if (record_parse_task(h, &f) < 0)
			return 0;
		struct pdtask *k = task_at(t, (pid_t)f.pid, (pid_t)f.tid);
		k->ppid = (pid_t)f.ppid;
		/* A new thread or process starts with its parent's name until its own COMM. */
		if (!k->comm)
			for (size_t i = 0; i < t->n; i++)
				if (t->v[i].tid == (pid_t)f.ptid && t->v[i].comm) {
					k->comm = xstrdup(t->v[i].comm);
					break;
				}
	}
	return 0;
}

static int by_tid(const void *a, const void *b)
{
	const struct pdtask *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int perfdata_tasks(struct perfdata_reader *r, struct perfdata_tasks *t)
{
	memset(t, 0, sizeof(*t));
	struct pdtask *idle = task_at(t, 0, 0);
	idle->comm = xstrdup("swapper");
	int ret = perfdata_for_each(r, task_record, t);
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_tid);
	return ret ? -1 : 0;
}

void perfdata_tasks_free(struct perfdata_tasks *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].comm);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
