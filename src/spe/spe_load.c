/* SPE recordings into resolved samples (see spe_load.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/machine.h"
#include "spe/spe_load.h"
#include "spe/spe_stats.h"
#include "resolve/resolve.h"
#include "session/session.h"
#include "symbols/dso.h"
#include "util/error.h"
#include "util/xalloc.h"

enum { MAX_NOTES = 10 };

struct find {
	int found;      /* 1: Arm SPE, 2: another AUX kind */
	unsigned seen;
};

/* perf writes AUXTRACE_INFO ahead of the recorded data: looking stops at the first sample or
 * after a few thousand records, so that other recordings pay nothing for the check. */
static int find_info(const struct perf_event_header *h, void *arg)
{
	struct find *f = arg;
	if (h->type == PERF_RECORD_SAMPLE || ++f->seen > 4096)
		return 1;
	if (h->type != SPE_REC_AUXTRACE_INFO)
		return 0;
	struct spe_auxtrace_info in;
	f->found = spe_parse_auxtrace_info(h, &in) == 0 ? 1 : 2;
	return 1;
}

bool spe_recording(struct perfdata_reader *r)
{
	/* A stream can be walked only once, and a walk of pipe-mode data declares its events as it
	 * goes: the session gets those whole (SPE needs a perf.data file). */
	if (r->stream || r->pipe)
		return false;
	struct find f = { 0, 0 };
	perfdata_for_each(r, find_info, &f);
	err_clear();
	return f.found == 1;
}

/* Interned copy of s (the names repeat for every record): the one hash map, owning the strings. */
const char *spe_intern(struct spe_data *d, const char *s)
{
	if (!s)
		return NULL;
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(&d->strings, s, &found);
	if (!found) {
		e->value = xstrdup(s);
		e->key.str = e->value;
	}
	return e->value;
}

struct load_ctx {
	struct spe_data *d;
	const struct spe_load_opts *o;
	const struct evsel *evsel; /* the SPE event (its name holds "arm_spe"), else the first */
	uint32_t last_tid[256]; /* the thread ITRACE_START named last, per CPU (bounded) */
};

/* A record the caller's selection keeps, as one sample of the SPE event at its PC. */
static void as_sample(struct load_ctx *c, const struct spe_sample *s, struct thread *t, const struct addr_loc *loc)
{
	const struct spe_itrace *sel = c->o->select;
	if (sel && sel->given && !spe_record_kinds(&s->r, sel))
		return;
	struct perf_sample ps = { 0 };
	ps.period = 1;
	ps.pid = s->pid;
	ps.tid = s->tid;
	ps.cpu = s->cpu;
	ps.ip = s->r.pc;
	ps.evsel = c->evsel;
	struct frame fr = { 0 };
	fr.ip = s->r.pc;
	fr.loc = *loc;
	struct resolved_sample rs = { 0 };
	rs.s = &ps;
	rs.thread = t;
	rs.frames = &fr;
	rs.nframes = 1;
	c->o->sample(&rs, c->o->arg);
}

static void add_sample(struct session *ss, struct load_ctx *c, const struct spe_record *rec,
		       const struct spe_auxtrace *a)
{
	struct spe_data *d = c->d;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->v = xrealloc(d->v, d->cap * sizeof(*d->v));
	}
	struct spe_sample *s = &d->v[d->n++];
	memset(s, 0, sizeof(*s));
	s->r = *rec;
	s->cpu = a->cpu;
	uint32_t tid = a->tid;
	if (rec->valid & SPE_HAS_CONTEXT)
		tid = rec->context; /* CONTEXTIDR holds the PID with CONFIG_PID_IN_CONTEXTIDR */
	else if (tid == (uint32_t)-1 && a->cpu < 256)
		tid = c->last_tid[a->cpu];
	struct thread *t = machine_find_thread(&ss->machine, (pid_t)tid);
	s->tid = tid;
	s->pid = t ? (uint32_t)t->pid : tid;
	char tmp[32];
	if (t && t->comm) {
		s->comm = spe_intern(d, t->comm);
	} else {
		snprintf(tmp, sizeof(tmp), ":%u", tid);
		s->comm = spe_intern(d, tmp);
	}
	uint8_t mode = rec->el == 0 ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
	struct addr_loc loc;
	bool resolved = resolve_addr(&ss->machine, t, mode, rec->pc, 0, &loc);
	if (resolved) {
		s->dso = loc.dso ? spe_intern(d, loc.dso->path) : NULL;
		s->sym = loc.sym ? spe_intern(d, loc.sym->name) : NULL;
		s->sym_off = loc.sym_off;
		s->dso_ref = loc.dso;
		s->sym_ref = loc.sym;
		s->dso_addr = loc.addr;
	}
	/* the data address (a branch's target), as perf's samples carry it in addr */
	uint64_t target = (rec->valid & SPE_HAS_VA) ? rec->data_va : (rec->valid & SPE_HAS_BR_TGT) ? rec->br_target : 0;
	spe_resolve_data(ss, d, t, mode, target, rec->valid & SPE_HAS_VA, s);
	if (resolved && c->o && c->o->sample)
		as_sample(c, s, t, &loc);
}

void spe_resolve_data(struct session *ss, struct spe_data *d, struct thread *t, uint8_t mode, uint64_t target,
		      bool is_data, struct spe_sample *s)
{
	const struct map *dm = target && t && t->maps ? maps_find(t->maps, target) : NULL;
	s->data_mapped = is_data && dm;
	struct addr_loc dl;
	if (dm && resolve_addr(&ss->machine, t, mode, target, 0, &dl)) {
		s->dsym = dl.sym ? spe_intern(d, dl.sym->name) : NULL;
		s->ddso = dl.dso ? spe_intern(d, dl.dso->path) : NULL;
	}
}

static void decode_buffer(struct session *ss, struct load_ctx *c, const struct spe_auxtrace *a)
{
	struct spe_data *d = c->d;
	struct spe_decoder dec;
	spe_decoder_init(&dec, a->data, a->size, d->ver);
	struct spe_record rec;
	int rc;
	while ((rc = spe_next_record(&dec, &rec)) != 0) {
		if (rc < 0) {
			if (d->notes.n < MAX_NOTES)
				notes_add(&d->notes, "AUXTRACE buffer %llu (cpu %u, AUX offset 0x%llx): %s",
					  (unsigned long long)d->buffers, a->cpu, (unsigned long long)a->offset,
					  err_msg());
			continue;
		}
		add_sample(ss, c, &rec, a);
	}
	d->errors += dec.errors;
	d->skipped += dec.skipped;
	d->truncated += dec.truncated;
	d->buffers++;
	d->bytes += a->size;
}

static int on_record(struct session *ss, const struct perf_event_header *h, void *arg)
{
	struct load_ctx *c = arg;
	struct spe_data *d = c->d;
	switch (h->type) {
	case SPE_REC_AUXTRACE_INFO:
		if (spe_parse_auxtrace_info(h, &d->info) == 0)
			d->have_info = true;
		break;
	case SPE_REC_AUXTRACE: {
		struct spe_auxtrace a;
		/* the reader has checked that the data lies inside the data section */
		if (spe_parse_auxtrace(h, (size_t)h->size + (size_t)((const uint64_t *)h)[1], &a) == 0)
			decode_buffer(ss, c, &a);
		break;
	}
	case PERF_RECORD_AUX: {
		struct spe_aux_rec ar;
		if (spe_parse_aux(h, &ar) == 0) {
			d->aux_records++;
			d->aux_truncated += (ar.flags & PERF_AUX_FLAG_TRUNCATED) != 0;
			d->aux_partial += (ar.flags & PERF_AUX_FLAG_PARTIAL) != 0;
			d->aux_collision += (ar.flags & PERF_AUX_FLAG_COLLISION) != 0;
		}
		break;
	}
	case PERF_RECORD_ITRACE_START: {
		struct perf_sample ps;
		d->itrace_starts++;
		if (h->size >= 16 && sample_id_parse(ss->evsels, h, &ps) == 0 && ps.cpu < 256)
			memcpy(&c->last_tid[ps.cpu], (const uint8_t *)h + 12, 4);
		err_clear();
		break;
	}
	default:
		break;
	}
	return 0;
}

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	return 0;
}

int spe_session_load(struct session *ss, enum spe_version ver, const struct spe_load_opts *o,
		     struct spe_data *d)
{
	memset(d, 0, sizeof(*d));
	d->ver = ver;
	struct load_ctx *c = xcalloc(1, sizeof(*c));
	c->d = d;
	c->o = o;
	const struct evsel_set *evs = ss->evsels;
	for (size_t e = 0; e < evs->n && !c->evsel; e++)
		if (evs->v[e].name && strstr(evs->v[e].name, "arm_spe"))
			c->evsel = &evs->v[e];
	if (!c->evsel && evs->n)
		c->evsel = &evs->v[0];
	/* The session's model and lookups stay; its records now come here. */
	ss->tool.sample = on_sample;
	ss->tool.record = on_record;
	ss->tool.ready = NULL;
	ss->tool.arg = c;
	int rc = session_run(ss);
	free(c);
	return rc < 0 ? -1 : 0;
}

int spe_load(struct perfdata_reader *r, enum spe_version ver, const char *symfs, struct spe_data *d)
{
	struct session ss;
	struct session_tool tool = { 0 };
	struct session_opts so = { .symfs = symfs };
	session_attach(&ss, r, &so, &tool);
	struct spe_load_opts o = { 0 };
	int rc = spe_session_load(&ss, ver, &o, d);
	session_close(&ss);
	return rc;
}

void spe_data_free(struct spe_data *d)
{
	for (size_t i = 0; i < d->strings.n; i++)
		free(d->strings.v[i].value);
	hashmap_free(&d->strings);
	notes_clear(&d->notes);
	free(d->v);
	memset(d, 0, sizeof(*d));
}
