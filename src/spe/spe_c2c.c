/* perf's classification of SPE loads and stores and c2c's grouping (spe_c2c.h). */
#include "spe/spe_c2c.h"

#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "symbols/srcline.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Neoverse data sources (the Arm Neoverse TRMs' SPE data-source values). */
enum { DS_L1D = 0x0, DS_L2 = 0x8, DS_PEER_CORE = 0x9, DS_LOCAL_CLUSTER = 0xa, DS_SYS_CACHE = 0xb,
       DS_PEER_CLUSTER = 0xc, DS_REMOTE = 0xd, DS_DRAM = 0xe };

bool c2c_cpuid_neoverse(const char *cpuid)
{
	if (!cpuid)
		return false;
	unsigned long long midr = strtoull(cpuid, NULL, 16);
	unsigned impl = (unsigned)(midr >> 24) & 0xff, part = (unsigned)(midr >> 4) & 0xfff;
	/* Arm's N1, N2 and V1, the cores perf 6.1 decodes data sources for */
	return impl == 0x41 && (part == 0xd0c || part == 0xd49 || part == 0xd40);
}

static void load_source(const struct spe_sample *s, bool neoverse, struct c2c_stats *st)
{
	const struct spe_record *r = &s->r;
	if (!neoverse) {
		bool llc = r->events & ((1u << SPE_EV_LLC_ACCESS) | (1u << SPE_EV_LLC_MISS));
		bool l1 = r->events & ((1u << SPE_EV_L1D_ACCESS) | (1u << SPE_EV_L1D_REFILL));
		bool miss = llc ? (r->events >> SPE_EV_LLC_MISS) & 1 : (r->events >> SPE_EV_L1D_REFILL) & 1;
		if (llc || l1) {
			if (miss)
				st->ld_miss++;
			else if (llc)
				st->ld_llchit++;
			else
				st->ld_l1hit++;
		}
		return;
	}
	if (!(r->valid & SPE_HAS_DS))
		return;
	switch (r->data_source) {
	case DS_L1D: st->ld_l1hit++; break;
	case DS_L2: st->ld_l2hit++; break;
	case DS_PEER_CORE: st->ld_l2hit++; st->lcl_peer++; st->tot_peer++; break;
	case DS_LOCAL_CLUSTER:
	case DS_PEER_CLUSTER: st->ld_llchit++; st->lcl_peer++; st->tot_peer++; break;
	case DS_SYS_CACHE: st->ld_llchit++; break;
	case DS_REMOTE: st->rmt_hit++; st->rmt_peer++; st->tot_peer++; break;
	case DS_DRAM: st->lcl_dram++; st->ld_excl++; break;
	default: break;
	}
}

/* A load of a memory event by its data source's level and snoop (x86's encoding: HITM is a
 * snoop result; a remote level or the remote bit without hops means another socket). */
static void load_ds(union perf_mem_data_src ds, struct c2c_stats *st)
{
	uint64_t lvl = ds.mem_lvl, snoop = ds.mem_snoop, snoopx = ds.mem_snoopx;
	bool remote = ds.mem_remote && !ds.mem_hops;
	if (lvl & PERF_MEM_LVL_HIT) {
		st->ld_uncache += (lvl & PERF_MEM_LVL_UNC) != 0;
		st->ld_io += (lvl & PERF_MEM_LVL_IO) != 0;
		st->ld_fbhit += (lvl & PERF_MEM_LVL_LFB) != 0;
		st->ld_l1hit += (lvl & PERF_MEM_LVL_L1) != 0;
		if (lvl & PERF_MEM_LVL_L2) {
			st->ld_l2hit++;
			if (snoopx & PERF_MEM_SNOOPX_PEER)
				st->lcl_peer++, st->tot_peer++;
		}
		if (lvl & PERF_MEM_LVL_L3) {
			if (snoop & PERF_MEM_SNOOP_HITM)
				st->lcl_hitm++, st->tot_hitm++;
			else
				st->ld_llchit++;
			if (snoopx & PERF_MEM_SNOOPX_PEER)
				st->lcl_peer++, st->tot_peer++;
		}
		if (lvl & PERF_MEM_LVL_LOC_RAM) {
			st->lcl_dram++;
			*(snoop & PERF_MEM_SNOOP_HIT ? &st->ld_shared : &st->ld_excl) += 1;
		}
		if ((lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) || remote) {
			st->rmt_dram++;
			*(snoop & PERF_MEM_SNOOP_HIT ? &st->ld_shared : &st->ld_excl) += 1;
		}
	}
	if ((lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) || remote) {
		if (snoop & PERF_MEM_SNOOP_HIT)
			st->rmt_hit++;
		else if (snoop & PERF_MEM_SNOOP_HITM)
			st->rmt_hitm++, st->tot_hitm++;
		else if (snoopx & PERF_MEM_SNOOPX_PEER)
			st->rmt_hit++, st->rmt_peer++, st->tot_peer++;
	}
	st->ld_miss += (lvl & PERF_MEM_LVL_MISS) != 0;
}

/* A memory event's sample (spe_memev.c), counted as perf c2c counts a sample by its data source. */
static bool classify_ds(const struct spe_sample *s, struct c2c_stats *st)
{
	union perf_mem_data_src ds = { .val = s->data_src };
	bool va = s->r.valid & SPE_HAS_VA;
	st->nr_entries++;
	st->locks += (ds.mem_lock & PERF_MEM_LOCK_LOCKED) != 0;
	st->blk_data += (ds.mem_blk & PERF_MEM_BLK_DATA) != 0;
	st->blk_addr += (ds.mem_blk & PERF_MEM_BLK_ADDR) != 0;
	if (ds.mem_op & PERF_MEM_OP_LOAD) {
		st->load++;
		if (!va) {
			st->ld_noadrs++;
			return true;
		}
		load_ds(ds, st);
	} else if (ds.mem_op & PERF_MEM_OP_STORE) {
		st->store++;
		if (!va) {
			st->st_noadrs++;
			return true;
		}
		if (ds.mem_lvl & PERF_MEM_LVL_HIT) {
			st->st_uncache += (ds.mem_lvl & PERF_MEM_LVL_UNC) != 0;
			st->st_l1hit += (ds.mem_lvl & PERF_MEM_LVL_L1) != 0;
		}
		st->st_l1miss += (ds.mem_lvl & PERF_MEM_LVL_MISS) && (ds.mem_lvl & PERF_MEM_LVL_L1);
		st->st_na += (ds.mem_lvl & PERF_MEM_LVL_NA) != 0;
	} else {
		st->noparse++;
		return true;
	}
	st->nomap += !s->data_mapped || !s->code_mapped;
	return true;
}

bool c2c_classify(const struct spe_sample *s, bool neoverse, struct c2c_stats *st)
{
	if (s->data_src)
		return classify_ds(s, st);
	const struct spe_record *r = &s->r;
	if (r->op_class != SPE_OP_LDST || !(r->valid & SPE_HAS_OP))
		return false;
	struct spe_op op;
	spe_op_split(r->op_class, r->op, &op);
	bool va = r->valid & SPE_HAS_VA;
	st->nr_entries++;
	if (!s->data_mapped)
		st->nomap++;
	if (op.store) {
		st->store++;
		if (!va) {
			st->st_noadrs++;
			return true;
		}
		if (neoverse)
			st->st_na++; /* Neoverse tells no level for stores: perf's N/A */
		else if (r->events & (1u << SPE_EV_L1D_REFILL))
			st->st_l1miss++;
		else if (r->events & (1u << SPE_EV_L1D_ACCESS))
			st->st_l1hit++;
		else
			st->st_na++;
		return true;
	}
	st->load++;
	if (!va) {
		st->ld_noadrs++;
		return true;
	}
	load_source(s, neoverse, st);
	return true;
}

uint64_t c2c_display_count(const struct c2c_stats *st, enum c2c_display disp)
{
	switch (disp) {
	case C2C_RMT_HITM: return st->rmt_hitm;
	case C2C_LCL_HITM: return st->lcl_hitm;
	case C2C_PEER: return st->tot_peer;
	default: return st->tot_hitm;
	}
}

static void stats_add(struct c2c_stats *a, const struct c2c_stats *b)
{
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;
	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		x[i] += y[i];
}

/* A load or store with a data address, for grouping by line, offset and code address. */
struct c2c_key {
	uint64_t line, off, pc;
	size_t idx;
};

static int key_cmp(const void *a, const void *b)
{
	const struct c2c_key *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The line and offset row of key k, appended when k starts a new one (keys come sorted). */
static struct c2c_off *group_of(struct c2c_result *r, const struct c2c_key *k, const struct c2c_key *prev,
				const struct spe_sample *s)
{
	if (!prev || prev->line != k->line) {
		r->lines = xrealloc(r->lines, (r->nlines + 1) * sizeof(*r->lines));
		memset(&r->lines[r->nlines], 0, sizeof(*r->lines));
		r->lines[r->nlines++].addr = k->line;
	}
	struct c2c_line *l = &r->lines[r->nlines - 1];
	if (!prev || prev->line != k->line || prev->off != k->off || prev->pc != k->pc) {
		l->offs = xrealloc(l->offs, (l->noffs + 1) * sizeof(*l->offs));
		struct c2c_off *o = &l->offs[l->noffs++];
		memset(o, 0, sizeof(*o));
		o->offset = k->off;
		o->iaddr = k->pc;
		o->sym = s->sym;
		o->dso = s->dso;
		o->dso_ref = s->dso_ref;
		o->sym_ref = s->sym_ref;
		o->dso_addr = s->dso_addr;
	}
	return &l->offs[l->noffs - 1];
}

static void off_add(struct c2c_off *o, const struct spe_sample *s, const struct c2c_stats *st)
{
	stats_add(&o->st, st);
	if (s->cpu < C2C_MAX_CPUS)
		o->cpus[s->cpu / 64] |= 1ULL << (s->cpu % 64);
	uint64_t lat = s->r.lat_total;
	if (st->lcl_peer)
		o->lat_lcl_peer += lat;
	if (st->rmt_peer)
		o->lat_rmt_peer += lat;
	if (st->rmt_hitm && lat)
		o->lat_rmt_hitm += lat, o->n_rmt_hitm++;
	else if (st->lcl_hitm && lat)
		o->lat_lcl_hitm += lat, o->n_lcl_hitm++;
	/* perf averages the latencies a memory event gave (SPE records always have one) */
	if (st->load && !st->lcl_peer && !st->rmt_peer && !st->lcl_hitm && !st->rmt_hitm && (lat || !s->data_src)) {
		o->lat_load += lat;
		o->n_lat_load++;
	}
}

static enum c2c_display g_disp;

static int line_cmp(const void *a, const void *b)
{
	uint64_t x = c2c_display_count(&((const struct c2c_line *)a)->st, g_disp);
	uint64_t y = c2c_display_count(&((const struct c2c_line *)b)->st, g_disp);
	return x > y ? -1 : x < y ? 1 : 0;
}

/* perf's Pareto order within a line: by offset, then by the display's count, then code address */
static int off_cmp(const void *a, const void *b)
{
	const struct c2c_off *x = a, *y = b;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	uint64_t cx = c2c_display_count(&x->st, g_disp), cy = c2c_display_count(&y->st, g_disp);
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x->iaddr < y->iaddr ? -1 : x->iaddr > y->iaddr;
}

int c2c_build(const struct spe_data *d, bool neoverse, enum c2c_display disp, struct c2c_result *out)
{
	memset(out, 0, sizeof(*out));
	out->display = disp;
	out->synthesized = !d->nevents;
	struct c2c_key *keys = xcalloc(d->n ? d->n : 1, sizeof(*keys));
	size_t nk = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct spe_sample *s = &d->v[i];
		struct c2c_stats st = { 0 };
		if (!c2c_classify(s, neoverse, &st))
			continue;
		stats_add(&out->all, &st);
		if (s->r.valid & SPE_HAS_VA)
			keys[nk++] = (struct c2c_key){ s->r.data_va & ~63ULL, s->r.data_va & 63, s->r.pc, i };
	}
	qsort(keys, nk, sizeof(*keys), key_cmp); /* O(n log n) over millions of records */
	for (size_t i = 0; i < nk; i++) {
		const struct spe_sample *s = &d->v[keys[i].idx];
		struct c2c_stats st = { 0 };
		c2c_classify(s, neoverse, &st);
		struct c2c_off *o = group_of(out, &keys[i], i ? &keys[i - 1] : NULL, s);
		stats_add(&out->lines[out->nlines - 1].st, &st);
		off_add(o, s, &st);
	}
	free(keys);
	if (!out->all.nr_entries) {
		err_set("no load or store records in the recording");
		return -1;
	}
	/* shared lines: those with HITMs or peer snoops; shown: those with the display's count */
	size_t k = 0;
	for (size_t i = 0; i < out->nlines; i++) {
		const struct c2c_stats *st = &out->lines[i].st;
		if (st->tot_hitm || st->lcl_peer || st->rmt_peer) {
			out->nshared++;
			stats_add(&out->shared, st);
		}
		if (c2c_display_count(st, disp)) {
			out->merged += out->lines[i].noffs;
			out->lines[k++] = out->lines[i];
		} else {
			free(out->lines[i].offs);
		}
	}
	out->nlines = k;
	g_disp = disp;
	qsort(out->lines, out->nlines, sizeof(*out->lines), line_cmp);
	for (size_t i = 0; i < out->nlines; i++)
		qsort(out->lines[i].offs, out->lines[i].noffs, sizeof(struct c2c_off), off_cmp);
	return 0;
}

void c2c_sources(struct c2c_result *r)
{
	for (size_t i = 0; i < r->nlines; i++)
		for (size_t j = 0; j < r->lines[i].noffs; j++) {
			struct c2c_off *o = &r->lines[i].offs[j];
			o->src = srcline_string(o->dso_ref, o->sym_ref, o->dso_addr);
		}
	r->sources = true;
}

void c2c_result_free(struct c2c_result *r)
{
	for (size_t i = 0; i < r->nlines; i++)
		free(r->lines[i].offs);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}
