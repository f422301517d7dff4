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

static void add_row(struct spe_mem_section *s, const struct spe_sample *x, uint64_t data_src)
{
	uint64_t w = x->r.lat_total;
	uint64_t daddr = (x->r.valid & SPE_HAS_VA) ? x->r.data_va : (x->r.valid & SPE_HAS_BR_TGT) ? x->r.br_target : 0;
	s->samples++;
	s->total_weight += w;
	for (size_t i = 0; i < s->n; i++) {
		struct spe_mem_row *r = &s->rows[i];
		if (r->weight == w && r->data_src == data_src && r->sym == x->sym && r->dso == x->dso &&
		    r->daddr == daddr && (x->sym || r->sym_start == x->r.pc)) {
			r->nr++;
			return;
		}
	}
	s->rows = xrealloc(s->rows, (s->n + 1) * sizeof(*s->rows));
	s->rows[s->n++] = (struct spe_mem_row){ w, 1, data_src, x->sym, x->dso, x->r.pc - x->sym_off, daddr,
						x->dsym, x->ddso };
}

static int row_cmp(const void *a, const void *b)
{
	const struct spe_mem_row *x = a, *y = b;
	uint64_t wx = x->weight * x->nr, wy = y->weight * y->nr;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->sym_start != y->sym_start)
		return x->sym_start < y->sym_start ? -1 : 1;
	return x->daddr < y->daddr ? -1 : x->daddr > y->daddr;
}

int spe_mem_build(const struct spe_data *d, bool neoverse, struct spe_mem_section out[SPE_MEM_NKINDS],
		  size_t *nout)
{
	struct spe_mem_section all[SPE_MEM_NKINDS];
	memset(all, 0, sizeof(all));
	for (size_t i = 0; i < d->n; i++) {
		const struct spe_sample *x = &d->v[i];
		uint64_t ds = spe_mem_data_src(&x->r, neoverse);
		for (int k = 0; k < SPE_MEM_NKINDS; k++)
			if (of_kind(&x->r, (enum spe_mem_kind)k, ds))
				add_row(&all[k], x, ds);
	}
	*nout = 0;
	for (int k = 0; k < SPE_MEM_NKINDS; k++) {
		all[k].kind = (enum spe_mem_kind)k;
		if (!all[k].samples)
			continue;
		qsort(all[k].rows, all[k].n, sizeof(*all[k].rows), row_cmp);
		out[(*nout)++] = all[k];
	}
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
