/* perf mem report --stdio's text (mem_out.h). */
#include "output/mem_out.h"
#include "output/report_out.h"

#include <linux/perf_event.h>
#include <string.h>

#include "util/xalloc.h"

/* Appends the names of the set bits of m (names[i] for bit i), " or " between them. */
static size_t names_of(char *buf, size_t n, size_t l, uint64_t m, const char *const *names, size_t nn, int *printed)
{
	for (size_t i = 0; m && i < nn; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s%s", (*printed)++ ? " or " : "", names[i]);
	}
	return l;
}

const char *mem_lvl_str(uint64_t v, char *buf, size_t n)
{
	static const char *const lvl[] = { "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
					   "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
					   "Remote Cache (2 hops)", "I/O", "Uncached" };
	union perf_mem_data_src ds = { .val = v };
	uint64_t m = ds.mem_lvl & ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
	size_t l = 0;
	int printed = 0;
	buf[0] = 0;
	if (ds.mem_remote)
		l += (size_t)snprintf(buf, n, "Remote ");
	l = names_of(buf, n, l, m, lvl, ARRAY_SIZE(lvl), &printed);
	if (ds.mem_lvl_num) {
		const char *name = ds.mem_lvl_num == PERF_MEM_LVLNUM_NA ? "N/A" : ds.mem_lvl_num == PERF_MEM_LVLNUM_RAM ? "RAM"
				 : ds.mem_lvl_num == PERF_MEM_LVLNUM_ANY_CACHE ? "Any cache"
				 : ds.mem_lvl_num == PERF_MEM_LVLNUM_LFB ? "LFB/MAB"
				 : ds.mem_lvl_num == PERF_MEM_LVLNUM_PMEM ? "PMEM" : NULL;
		if (name)
			l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s%s", printed++ ? " or " : "", name);
		else
			l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%sL%d", printed++ ? " or " : "", (int)ds.mem_lvl_num);
	}
	if (l == 0)
		l += (size_t)snprintf(buf, n, "N/A");
	if (ds.mem_lvl & PERF_MEM_LVL_HIT)
		l += (size_t)snprintf(buf + l, l < n ? n - l : 0, " hit");
	if (ds.mem_lvl & PERF_MEM_LVL_MISS)
		snprintf(buf + l, l < n ? n - l : 0, " miss");
	return buf;
}

const char *mem_snoop_str(uint64_t v, char *buf, size_t n)
{
	static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx[] = { "Fwd", "Peer" };
	union perf_mem_data_src ds = { .val = v };
	int printed = 0;
	buf[0] = 0;
	size_t l = names_of(buf, n, 0, ds.mem_snoop, snoop, ARRAY_SIZE(snoop), &printed);
	names_of(buf, n, l, ds.mem_snoopx, snoopx, ARRAY_SIZE(snoopx), &printed);
	if (!buf[0])
		snprintf(buf, n, "N/A");
	return buf;
}

const char *mem_tlb_str(uint64_t v, char *buf, size_t n)
{
	static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	union perf_mem_data_src ds = { .val = v };
	int printed = 0;
	buf[0] = 0;
	size_t l = names_of(buf, n, 0, ds.mem_dtlb & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb,
			    ARRAY_SIZE(tlb), &printed);
	if (!buf[0])
		l = (size_t)snprintf(buf, n, "N/A");
	if (ds.mem_dtlb & PERF_MEM_TLB_HIT)
		l += (size_t)snprintf(buf + l, l < n ? n - l : 0, " hit");
	if (ds.mem_dtlb & PERF_MEM_TLB_MISS)
		snprintf(buf + l, l < n ? n - l : 0, " miss");
	return buf;
}

const char *mem_lock_str(uint64_t v)
{
	union perf_mem_data_src ds = { .val = v };
	return ds.mem_lock & PERF_MEM_LOCK_NA ? "N/A" : ds.mem_lock & PERF_MEM_LOCK_LOCKED ? "Yes" : "No";
}

const char *mem_blk_str(uint64_t v)
{
	union perf_mem_data_src ds = { .val = v };
	if (!ds.mem_blk || (ds.mem_blk & PERF_MEM_BLK_NA))
		return " N/A";
	return (ds.mem_blk & PERF_MEM_BLK_DATA) ? ((ds.mem_blk & PERF_MEM_BLK_ADDR) ? " Data Addr" : " Data") : " Addr";
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "[unknown]";
}

static void dots(FILE *f, int w)
{
	for (int i = 0; i < w; i++)
		fputc('.', f);
}

static void sym_of(char *buf, size_t n, const char *name, uint64_t addr)
{
	if (name)
		snprintf(buf, n, "[.] %s", name);
	else
		snprintf(buf, n, "[.] 0x%016llx", (unsigned long long)addr);
}

/* perf's column widths: the longest entry, at least the header's; a data symbol takes room for
 * an offset too (its name + 4 + 16 + 2) */
static void widths(const struct spe_mem_section *s, int w[4])
{
	w[0] = 6, w[1] = 13, w[2] = 22, w[3] = 16;
	char sym[300];
	for (size_t i = 0; i < s->n; i++) {
		const struct spe_mem_row *r = &s->rows[i];
		sym_of(sym, sizeof(sym), r->sym, r->sym_start);
		int l[4] = { (int)strlen(sym), (int)strlen(base_name(r->dso)),
			     r->dsym ? (int)strlen(r->dsym) + 22 : 0, r->ddso ? (int)strlen(base_name(r->ddso)) : 0 };
		for (int k = 0; k < 4; k++)
			w[k] = l[k] > w[k] ? (l[k] < 256 ? l[k] : 256) : w[k];
	}
}

static void section(FILE *f, const struct spe_mem_section *s)
{
	int w[4];
	widths(s, w);
	char cnt[32];
	fprintf(f, "# Samples: %s of event '%s'\n", report_sample_count(s->samples, cnt, sizeof(cnt)), s->name);
	fprintf(f, "# Total weight : %llu\n", (unsigned long long)s->total_weight);
	fprintf(f, "# Sort order   : local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,"
		   "local_ins_lat,local_p_stage_cyc\n#\n");
	fprintf(f, "# Overhead       Samples  Local Weight  Memory access             %-*s  %-*s  %-*s  %-*s  Snoop         "
		   "TLB access              Locked  Blocked     Local INSTR Latency\n",
		w[0], "Symbol", w[1], "Shared Object", w[2], "Data Symbol", w[3], "Data Object");
	fprintf(f, "# ........  ............  ............  ........................");
	for (int k = 0; k < 4; k++) {
		fprintf(f, "  ");
		dots(f, w[k]);
	}
	fprintf(f, "  ............  ......................  ......  ..........  ...................\n#\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct spe_mem_row *r = &s->rows[i];
		char lvl[128], snp[64], tlb[64], weight[32], sym[300], dsym[300], ins[16];
		sym_of(sym, sizeof(sym), r->sym, r->sym_start);
		sym_of(dsym, sizeof(dsym), r->dsym, r->daddr);
		snprintf(weight, sizeof(weight), "%llu", (unsigned long long)r->weight);
		snprintf(ins, sizeof(ins), "%u", r->ins_lat);
		uint64_t cost = r->weight ? r->weight : 1; /* perf's: a sample without a weight costs 1 */
		double pct = s->total_weight ? 100.0 * (double)(cost * r->nr) / (double)s->total_weight : 0.0;
		fprintf(f, "%9.2f%%  %12llu  %-12s  %-24s  %-*s  %-*s  %-*s  %-*s  %-12s  %-22s  %-6s  %-10s  %-19s\n", pct,
			(unsigned long long)r->nr, weight, mem_lvl_str(r->data_src, lvl, sizeof(lvl)), w[0], sym, w[1],
			base_name(r->dso), w[2], dsym, w[3], r->ddso ? base_name(r->ddso) : "[unknown]",
			mem_snoop_str(r->data_src, snp, sizeof(snp)), mem_tlb_str(r->data_src, tlb, sizeof(tlb)),
			mem_lock_str(r->data_src), mem_blk_str(r->data_src), ins);
	}
	fprintf(f, "\n\n");
}

void mem_print_stdio(FILE *f, const struct spe_mem_section *s, size_t n)
{
	fprintf(f, "# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n"
		   "# Total Lost Samples: 0\n#\n");
	for (size_t i = 0; i < n; i++)
		section(f, &s[i]);
}

void mem_print_raw(FILE *f, const struct spe_mem_raw *v, size_t n, const char *sep, bool phys, bool hide)
{
	fprintf(f, "# PID, TID, IP, ADDR, %sLOCAL WEIGHT, DSRC, SYMBOL\n", phys ? "PHYS ADDR, " : "");
	bool padded = !sep;
	for (size_t i = 0; i < n; i++) {
		const struct spe_mem_raw *r = &v[i];
		if (hide && !r->sym)
			continue;
		const char *fs = sep ? sep : " ";
		if (padded) /* perf's "0x016%" prints the literal 0x016 before the address */
			fprintf(f, "%5u%s%5u%s0x%016llx%s0x016%llx%s", r->pid, fs, r->tid, fs, (unsigned long long)r->ip, fs,
				(unsigned long long)r->addr, fs);
		else
			fprintf(f, "%u%s%u%s0x%llx%s0x%llx%s", r->pid, fs, r->tid, fs, (unsigned long long)r->ip, fs,
				(unsigned long long)r->addr, fs);
		if (phys)
			fprintf(f, "0x%016llx%s", (unsigned long long)r->phys, fs);
		fprintf(f, padded ? "%5llu%s0x%06llx%s%s:%s\n" : "%llu%s0x%llx%s%s:%s\n", (unsigned long long)r->weight, fs,
			(unsigned long long)r->data_src, fs, r->dso ? r->dso : "???", r->sym ? r->sym : "???");
		padded = false;
	}
}
