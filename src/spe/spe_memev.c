/* Memory-sampling events' samples as memory samples (spe_load.h): x86's PEBS load latency
 * (mem-loads, mem-stores) and AMD's IBS carry their data source, data address and weight in each
 * sample (PERF_SAMPLE_DATA_SRC, ADDR, WEIGHT or WEIGHT_STRUCT), where SPE's come from decoding
 * AUX records; mem and c2c report read both alike. */
#include <string.h>

#include <linux/perf_event.h>

#include "model/machine.h"
#include "record/record.h"
#include "resolve/resolve.h"
#include "session/session.h"
#include "spe/spe_load.h"
#include "symbols/dso.h"
#include "util/xalloc.h"

bool spe_memev_recording(const struct session *ss)
{
	for (size_t e = 0; ss->evsels && e < ss->evsels->n; e++)
		if (ss->evsels->v[e].attr.sample_type & PERF_SAMPLE_DATA_SRC)
			return true;
	return false;
}

static struct spe_sample *grow(struct spe_data *d)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->v = xrealloc(d->v, d->cap * sizeof(*d->v));
	}
	struct spe_sample *s = &d->v[d->n++];
	memset(s, 0, sizeof(*s));
	return s;
}

struct memev_ctx {
	struct session *ss;
	struct spe_data *d;
};

/* A sample whose data source the PMU left empty (0) is not a memory access perf counts either. */
static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct memev_ctx *c = arg;
	const struct perf_sample *ps = rs->s;
	const struct evsel *ev = ps->evsel;
	if (!ev || !(ev->attr.sample_type & PERF_SAMPLE_DATA_SRC) || !ps->data_src)
		return 0;
	struct spe_data *d = c->d;
	struct spe_sample *s = grow(d);
	s->data_src = ps->data_src;
	s->event = spe_intern(d, ev->name ? ev->name : "memory");
	s->r.pc = ps->ip;
	s->r.valid = ps->addr ? SPE_HAS_VA : 0;
	s->r.data_va = ps->addr;
	s->r.data_pa = ps->phys_addr;
	uint64_t w = ps->weight;
	if (ev->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT) { /* var1_dw, var2_w: latency, its instruction's */
		s->ins_lat = (uint32_t)((w >> 32) & 0xffff);
		w &= 0xffffffffULL;
	}
	s->r.lat_total = (uint32_t)(w > UINT32_MAX ? UINT32_MAX : w);
	s->pid = ps->pid;
	s->tid = ps->tid;
	s->cpu = ps->cpu;
	struct thread *t = rs->thread;
	s->comm = spe_intern(d, t && t->comm ? t->comm : ":?");
	if (rs->nframes) {
		const struct addr_loc *loc = &rs->frames[0].loc;
		s->dso = loc->dso ? spe_intern(d, loc->dso->path) : NULL;
		s->sym = loc->sym ? spe_intern(d, loc->sym->name) : NULL;
		s->sym_off = loc->sym ? loc->sym_off : 0;
		s->code_mapped = loc->map != NULL;
		s->dso_ref = loc->dso;
		s->sym_ref = loc->sym;
		s->dso_addr = loc->addr;
	}
	spe_resolve_data(c->ss, d, t, ps->cpumode, ps->addr, ps->addr != 0, s);
	return 0;
}

int spe_memev_load(struct session *ss, struct spe_data *d)
{
	memset(d, 0, sizeof(*d));
	struct memev_ctx c = { ss, d };
	for (size_t e = 0; ss->evsels && e < ss->evsels->n && d->nevents < 16; e++) {
		const struct evsel *ev = &ss->evsels->v[e];
		if (ev->attr.sample_type & PERF_SAMPLE_DATA_SRC)
			d->events[d->nevents++] = spe_intern(d, ev->name ? ev->name : "memory");
	}
	ss->tool.sample = on_sample;
	ss->tool.record = NULL;
	ss->tool.ready = NULL;
	ss->tool.arg = &c;
	return session_run(ss) < 0 ? -1 : 0;
}
