/* perf mem's samples from SPE records (spe_mem.h). */
#include "spe/spe_mem.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

const char *spe_mem_kind_name(enum spe_mem_kind k)
{
	static const char *const n[] = { "l1d-miss", "l1d-access", "llc-miss", "llc-access", "tlb-miss",
					 "tlb-access", "branch-miss", "remote-access", "memory" };
	return (unsigned)k < SPE_MEM_NKINDS ? n[k] : "?";
}

/* Neoverse's data sources as perf reads them: level, its number, snoop. */
static void neoverse_source(const struct spe_record *r, union perf_mem_data_src *ds)
{
	if (!(r->valid & SPE_HAS_DS))
		return;
	switch (r->data_source) {
	case 0x0: /* L1D */
		ds->mem_lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT;
		ds->mem_lvl_num = PERF_MEM_LVLNUM_L1;
		ds->mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	case 0x8: /* L2 */
	case 0x9: /* peer core: a cache-to-cache transfer */
		ds->mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
		ds->mem_lvl_num = PERF_MEM_LVLNUM_L2;
		if (r->data_source == 0x8)
			ds->mem_snoop = PERF_MEM_SNOOP_NONE;
		else
			ds->mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case 0xa: /* local cluster */
	case 0xc: /* peer cluster */
		ds->mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
		ds->mem_lvl_num = PERF_MEM_LVLNUM_L3;
		ds->mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case 0xb: /* system cache */
		ds->mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
		ds->mem_lvl_num = PERF_MEM_LVLNUM_L3;
		ds->mem_snoop = PERF_MEM_SNOOP_HIT;
		break;
	case 0xd: /* another socket */
		ds->mem_lvl = PERF_MEM_LVL_NA;
		ds->mem_lvl_num = PERF_MEM_LVLNUM_NA;
		ds->mem_remote = PERF_MEM_REMOTE_REMOTE;
		ds->mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case 0xe: /* DRAM */
		ds->mem_lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT;
		ds->mem_lvl_num = PERF_MEM_LVLNUM_RAM;
		ds->mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	default:
		break;
	}
}

uint64_t spe_mem_data_src(const struct spe_record *r, bool neoverse)
{
	if (r->op_class != SPE_OP_LDST || !(r->valid & SPE_HAS_OP))
		return 0;
	struct spe_op op;
	spe_op_split(r->op_class, r->op, &op);
	union perf_mem_data_src ds = { .val = 0 };
	ds.mem_op = op.store ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;
	uint64_t ev = r->events;
	if (neoverse && op.store) { /* Neoverse tells no level for stores */
		ds.mem_lvl = PERF_MEM_LVL_NA;
		ds.mem_lvl_num = PERF_MEM_LVLNUM_NA;
		ds.mem_snoop = PERF_MEM_SNOOP_NA;
	} else if (neoverse) {
		neoverse_source(r, &ds);
	} else if (ev & ((1u << SPE_EV_LLC_ACCESS) | (1u << SPE_EV_LLC_MISS))) {
		ds.mem_lvl = PERF_MEM_LVL_L3 | ((ev >> SPE_EV_LLC_MISS) & 1 ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	} else if (ev & ((1u << SPE_EV_L1D_ACCESS) | (1u << SPE_EV_L1D_REFILL))) {
		ds.mem_lvl = PERF_MEM_LVL_L1 | ((ev >> SPE_EV_L1D_REFILL) & 1 ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	}
	if (!neoverse && (ev & (1u << SPE_EV_REMOTE)))
		ds.mem_remote = PERF_MEM_REMOTE_REMOTE;
	if (ev & ((1u << SPE_EV_TLB_ACCESS) | (1u << SPE_EV_TLB_WALK)))
		ds.mem_dtlb = PERF_MEM_TLB_WK | ((ev >> SPE_EV_TLB_WALK) & 1 ? PERF_MEM_TLB_MISS : PERF_MEM_TLB_HIT);
	return ds.val;
}

/* Whether a record makes a sample of kind k (perf synthesises one per kind its events name). */
static bool of_kind(const struct spe_record *r, enum spe_mem_kind k, uint64_t data_src)
{
	static const int bit[] = { SPE_EV_L1D_REFILL, SPE_EV_L1D_ACCESS, SPE_EV_LLC_MISS, SPE_EV_LLC_ACCESS,
				   SPE_EV_TLB_WALK, SPE_EV_TLB_ACCESS, SPE_EV_MISPRED, SPE_EV_REMOTE };
	if (k == SPE_MEM_MEMORY)
		return data_src != 0;
	if (k == SPE_MEM_BRANCH_MISS)
		return r->op_class == SPE_OP_BRANCH && ((r->events >> bit[k]) & 1);
	return (r->events >> bit[k]) & 1;
}

/* A sample's row key: perf mem report's sort keys (local_weight, mem, sym, dso, symbol_daddr,
 * dso_daddr; snoop, tlb, locked and blocked are parts of mem's data source). */
static struct spe_mem_row row_key(const struct spe_sample *x, uint64_t data_src)
{
	uint64_t daddr = (x->r.valid & SPE_HAS_VA) ? x->r.data_va : (x->r.valid & SPE_HAS_BR_TGT) ? x->r.br_target : 0;
	return (struct spe_mem_row){ x->r.lat_total, x->ins_lat, 1, data_src, x->sym, x->dso, x->r.pc - x->sym_off,
				     daddr, x->dsym, x->ddso };
}

/* What a sample costs in perf's memory mode: its weight, 1 for none. */
static uint64_t cost(const struct spe_mem_row *r)
{
	return r->weight ? r->weight : 1;
}

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

static int key_cmp(const void *a, const void *b)
{
	const struct spe_mem_row *x = a, *y = b;
	CMP(x->weight, y->weight);
	CMP(x->data_src, y->data_src);
	CMP(x->ins_lat, y->ins_lat);
	CMP((uintptr_t)x->sym, (uintptr_t)y->sym);
	CMP((uintptr_t)x->dso, (uintptr_t)y->dso);
	CMP(x->sym ? 0 : x->sym_start, y->sym ? 0 : y->sym_start); /* no symbol: the address is the key */
	CMP(x->daddr, y->daddr);
	CMP((uintptr_t)x->dsym, (uintptr_t)y->dsym);
	CMP((uintptr_t)x->ddso, (uintptr_t)y->ddso);
	return 0;
}

/* The samples of one kind as rows: sorted by key, equal keys merged (O(n log n)). */
static void make_rows(struct spe_mem_section *s, struct spe_mem_row *v, size_t n)
{
	qsort(v, n, sizeof(*v), key_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		s->samples++;
		s->total_weight += cost(&v[i]);
		if (k && !key_cmp(&v[k - 1], &v[i]))
			v[k - 1].nr++;
		else
			v[k++] = v[i];
	}
	s->rows = v;
	s->n = k;
}

static int row_cmp(const void *a, const void *b)
{
	const struct spe_mem_row *x = a, *y = b;
	uint64_t wx = cost(x) * x->nr, wy = cost(y) * y->nr;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->sym_start != y->sym_start)
		return x->sym_start < y->sym_start ? -1 : 1;
	return x->daddr < y->daddr ? -1 : x->daddr > y->daddr;
}

/* Rows of the samples of d that keep(d, i, arg) selects, into out; false for none. */
static bool section_of(const struct spe_data *d, const uint64_t *ds, bool (*keep)(const struct spe_data *, const uint64_t *, size_t, int),
		       int arg, struct spe_mem_section *out)
{
	struct spe_mem_row *v = xcalloc(d->n ? d->n : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		if (keep(d, ds, i, arg))
			v[n++] = row_key(&d->v[i], ds[i]);
	if (!n) {
		free(v);
		return false;
	}
	memset(out, 0, sizeof(*out));
	make_rows(out, v, n);
	qsort(out->rows, out->n, sizeof(*out->rows), row_cmp);
	return true;
}

static bool of_event(const struct spe_data *d, const uint64_t *ds, size_t i, int e)
{
	(void)ds;
	return d->v[i].event == d->events[e]; /* both interned */
}

static bool of_spe_kind(const struct spe_data *d, const uint64_t *ds, size_t i, int k)
{
	return of_kind(&d->v[i].r, (enum spe_mem_kind)k, ds[i]);
}

int spe_mem_build(const struct spe_data *d, bool neoverse, struct spe_mem_section out[SPE_MEM_NKINDS],
		  size_t *nout)
{
	uint64_t *ds = xcalloc(d->n ? d->n : 1, sizeof(*ds));
	for (size_t i = 0; i < d->n; i++)
		ds[i] = d->v[i].data_src ? d->v[i].data_src : spe_mem_data_src(&d->v[i].r, neoverse);
	*nout = 0;
	if (d->nevents) { /* memory events: a section per event, as perf report shows them */
		for (size_t e = 0; e < d->nevents && *nout < SPE_MEM_NKINDS; e++)
			if (section_of(d, ds, of_event, (int)e, &out[*nout])) {
				out[*nout].kind = SPE_MEM_MEMORY;
				out[*nout].name = d->events[e];
				(*nout)++;
			}
	} else {
		for (int k = 0; k < SPE_MEM_NKINDS; k++)
			if (section_of(d, ds, of_spe_kind, k, &out[*nout])) {
				out[*nout].kind = (enum spe_mem_kind)k;
				out[*nout].name = spe_mem_kind_name((enum spe_mem_kind)k);
				(*nout)++;
			}
	}
	free(ds);
	if (!*nout) {
		err_set("no load or store records in the recording");
		return -1;
	}
	return 0;
}

void spe_mem_free(struct spe_mem_section *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].rows);
}

struct spe_mem_raw *spe_mem_raw(const struct spe_data *d, bool neoverse, size_t *n)
{
	struct spe_mem_raw *v = xcalloc(d->n ? d->n : 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct spe_sample *x = &d->v[i];
		uint64_t ds = x->data_src ? x->data_src : spe_mem_data_src(&x->r, neoverse);
		if (!ds)
			continue;
		v[(*n)++] = (struct spe_mem_raw){ x->pid, x->tid, x->r.pc,
			(x->r.valid & SPE_HAS_VA) ? x->r.data_va : 0, x->r.data_pa, x->r.lat_total, ds, x->dso, x->sym };
	}
	return v;
}
