/* The AUX areas of a live run (see live_aux.h). */
#include "live/live_aux.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/evlist.h"
#include "events/spe_terms.h"
#include "kernel/auxbuf.h"
#include "record/record.h"
#include "util/error.h"
#include "util/xalloc.h"

void live_aux_attr(struct live *l, size_t e, struct perf_event_attr *a, uint64_t period)
{
	const struct ev *ev = &l->evl->ev[e];
	if (!spe_pmu_name(ev->pmu))
		return;
	if (spe_attr_prepare(a, ev->pmu, period) < 0)
		err_clear(); /* the kernel refuses it at open, with its own reason */
}

size_t live_aux_pages(size_t aux_pages)
{
	if (aux_pages)
		return aux_pages;
	long page = sysconf(_SC_PAGESIZE);
	size_t bytes = geteuid() == 0 ? 4u << 20 : 128u << 10;
	return bytes / (size_t)(page > 0 ? page : 4096);
}

/* The fd of an SPE event in ring buffer b, or -1. */
static int spe_fd_of(const struct live *l, size_t b)
{
	bool per_cpu = l->cpus[0] >= 0;
	for (size_t e = 0; e < l->nev; e++) {
		if (!spe_pmu_name(l->evl->ev[e].pmu))
			continue;
		for (size_t i = 0; i < (per_cpu ? l->nrows : l->ncols); i++) {
			size_t col = per_cpu ? b : i, row = per_cpu ? i : b;
			int fd = l->fds[(e * l->ncols + col) * l->nrows + row];
			if (fd >= 0)
				return fd;
		}
	}
	return -1;
}

int live_aux_map(struct live *l, size_t aux_pages)
{
	bool any = false;
	for (size_t e = 0; e < l->nev; e++)
		any |= spe_pmu_name(l->evl->ev[e].pmu);
	if (!any)
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	l->aux = xcalloc(l->nrbs, sizeof(*l->aux));
	l->naux = l->nrbs;
	for (size_t b = 0; b < l->nrbs; b++) {
		int fd = spe_fd_of(l, b);
		if (fd < 0 || !l->rbs[b].base)
			continue;
		size_t data_pages = (size_t)(l->rbs[b].data_size / (uint64_t)(page > 0 ? page : 4096));
		if (auxbuf_map(&l->aux[b], fd, l->rbs[b].base, data_pages,
			       live_aux_pages(aux_pages)) < 0)
			return err_wrap("%s %d", l->rbs[b].cpu >= 0 ? "CPU" : "task",
					l->rbs[b].cpu >= 0 ? l->rbs[b].cpu : l->rbs[b].pid);
	}
	return 0;
}

struct piece_ctx {
	const struct live *l;
	size_t b;
	record_cb cb;
	void *arg;
	long n;
};

/* perf's PERF_RECORD_AUXTRACE: header, size, offset, reference, idx, tid, cpu, reserved */
static int piece(const uint8_t *data, uint64_t size, uint64_t offset, void *arg)
{
	struct piece_ctx *p = arg;
	const struct ringbuf *rb = &p->l->rbs[p->b];
	uint64_t padded = (size + 7) & ~7ULL;
	uint8_t *rec = xmalloc(48 + padded);
	struct perf_event_header h = { REC_AUXTRACE, 0, 48 };
	uint64_t f64[3] = { padded, offset, (uint64_t)p->n };
	uint32_t f32[4] = { (uint32_t)p->b, (uint32_t)rb->pid, (uint32_t)rb->cpu, 0 };
	memcpy(rec, &h, 8);
	memcpy(rec + 8, f64, 24);
	memcpy(rec + 32, f32, 16);
	memcpy(rec + 48, data, size);
	memset(rec + 48 + size, 0, padded - size);
	int r = p->cb((const struct perf_event_header *)(void *)rec, p->arg);
	free(rec);
	p->n++;
	return r;
}

long live_aux_drain(struct live *l, record_cb cb, void *arg)
{
	long total = 0;
	for (size_t b = 0; b < l->naux; b++) {
		if (!l->aux[b].pc)
			continue;
		struct piece_ctx p = { l, b, cb, arg, 0 };
		if (auxbuf_drain(&l->aux[b], piece, &p) < 0)
			return -1;
		total += p.n;
	}
	return total;
}

void live_aux_unmap(struct live *l)
{
	for (size_t b = 0; b < l->naux; b++)
		auxbuf_unmap(&l->aux[b]);
	free(l->aux);
	l->aux = NULL;
	l->naux = 0;
}
