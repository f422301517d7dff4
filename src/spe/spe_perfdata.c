/* SPE's perf.data records, built and parsed (see spe_perfdata.h). */
#include <string.h>

#include "spe/spe_perfdata.h"
#include "util/error.h"

struct w {
	uint8_t *b;
	size_t n, cap;
	bool over;
};

static void put(struct w *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		w->over = true;
		return;
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void p64(struct w *w, uint64_t v) { put(w, &v, 8); }
static void p32(struct w *w, uint32_t v) { put(w, &v, 4); }

static void header(struct w *w, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };
	put(w, &h, sizeof(h));
}

static size_t finish(struct w *w)
{
	if (w->over || w->n > 0xffff)
		return 0;
	((struct perf_event_header *)(void *)w->b)->size = (uint16_t)w->n;
	return w->n;
}

/* sample_id trailer in the kernel's order: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER */
static void trailer(struct w *w, const struct perf_event_attr *a, const struct spe_trailer *t)
{
	if (!a || !a->sample_id_all)
		return;
	uint64_t st = a->sample_type;
	struct spe_trailer z = { 0 };
	if (!t)
		t = &z;
	if (st & PERF_SAMPLE_TID) {
		p32(w, t->pid);
		p32(w, t->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		p64(w, t->time);
	if (st & PERF_SAMPLE_ID)
		p64(w, t->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		p64(w, t->id);
	if (st & PERF_SAMPLE_CPU) {
		p32(w, t->cpu);
		p32(w, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		p64(w, t->id);
}

size_t spe_build_auxtrace_info(void *buf, size_t cap, const struct spe_auxtrace_info *in)
{
	struct w w = { buf, 0, cap, false };
	header(&w, SPE_REC_AUXTRACE_INFO, 0);
	p32(&w, SPE_AUXTRACE_ARM_SPE);
	p32(&w, 0);
	p64(&w, in->pmu_type);
	p64(&w, in->per_cpu);
	return finish(&w);
}

size_t spe_build_auxtrace(void *buf, size_t cap, const struct spe_auxtrace *a)
{
	struct w w = { buf, 0, cap, false };
	header(&w, SPE_REC_AUXTRACE, 0);
	p64(&w, a->size);
	p64(&w, a->offset);
	p64(&w, a->reference);
	p32(&w, a->idx);
	p32(&w, a->tid);
	p32(&w, a->cpu);
	p32(&w, 0);
	return finish(&w);
}

size_t spe_build_aux(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t aux_offset,
		     uint64_t aux_size, uint64_t flags, const struct spe_trailer *t)
{
	struct w w = { buf, 0, cap, false };
	header(&w, PERF_RECORD_AUX, 0);
	p64(&w, aux_offset);
	p64(&w, aux_size);
	p64(&w, flags);
	trailer(&w, attr, t);
	return finish(&w);
}

size_t spe_build_itrace_start(void *buf, size_t cap, const struct perf_event_attr *attr,
			      uint32_t pid, uint32_t tid, const struct spe_trailer *t)
{
	struct w w = { buf, 0, cap, false };
	header(&w, PERF_RECORD_ITRACE_START, 0);
	p32(&w, pid);
	p32(&w, tid);
	trailer(&w, attr, t);
	return finish(&w);
}

static uint64_t g64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t g32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

int spe_parse_auxtrace_info(const struct perf_event_header *h, struct spe_auxtrace_info *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (h->size < 16)
		return err_set("AUXTRACE_INFO of %u bytes has no type", h->size);
	if (g32(p + 8) != SPE_AUXTRACE_ARM_SPE)
		return 1;
	if (h->size < 24)
		return err_set("Arm SPE AUXTRACE_INFO of %u bytes has no PMU type", h->size);
	out->pmu_type = (uint32_t)g64(p + 16);
	out->per_cpu = h->size >= 32 && g64(p + 24);
	return 0;
}

int spe_parse_auxtrace(const struct perf_event_header *h, size_t avail, struct spe_auxtrace *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (h->size < 48)
		return err_set("AUXTRACE record of %u bytes (48 needed)", h->size);
	out->size = g64(p + 8);
	out->offset = g64(p + 16);
	out->reference = g64(p + 24);
	out->idx = g32(p + 32);
	out->tid = g32(p + 36);
	out->cpu = g32(p + 40);
	if (avail < h->size || out->size > avail - h->size)
		return err_set("AUXTRACE data of %llu bytes runs past the data section",
			       (unsigned long long)out->size);
	out->data = p + h->size;
	return 0;
}

int spe_parse_aux(const struct perf_event_header *h, struct spe_aux_rec *out)
{
	const uint8_t *p = (const uint8_t *)h;
	if (h->size < 32)
		return err_set("AUX record of %u bytes (32 needed)", h->size);
	out->aux_offset = g64(p + 8);
	out->aux_size = g64(p + 16);
	out->flags = g64(p + 24);
	return 0;
}
