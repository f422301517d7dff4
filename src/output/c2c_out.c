/* perf c2c report --stdio's text (c2c_out.h). The column layout is perf 6.1's with --no-source:
 * fixed widths but for Symbol and Shared Object, which take their longest entry. */
#include "output/c2c_out.h"

#include <string.h>

#define RULE "=================================================\n"

static void banner(FILE *f, const char *title)
{
	fprintf(f, RULE "%s\n" RULE, title);
}

static void line(FILE *f, const char *label, uint64_t v)
{
	fprintf(f, "  %-34s: %10llu\n", label, (unsigned long long)v);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void trace_info(FILE *f, const struct c2c_stats *s)
{
	uint64_t llc_miss = s->lcl_dram + s->rmt_dram + s->rmt_hitm + s->rmt_hit;
	banner(f, "            Trace Event Information              ");
	line(f, "Total records", s->nr_entries);
	line(f, "Locked Load/Store Operations", s->locks);
	line(f, "Load Operations", s->load);
	line(f, "Loads - uncacheable", s->ld_uncache);
	line(f, "Loads - IO", s->ld_io);
	line(f, "Loads - Miss", s->ld_miss);
	line(f, "Loads - no mapping", s->ld_noadrs);
	line(f, "Load Fill Buffer Hit", s->ld_fbhit);
	line(f, "Load L1D hit", s->ld_l1hit);
	line(f, "Load L2D hit", s->ld_l2hit);
	line(f, "Load LLC hit", s->ld_llchit + s->lcl_hitm);
	line(f, "Load Local HITM", s->lcl_hitm);
	line(f, "Load Remote HITM", s->rmt_hitm);
	line(f, "Load Remote HIT", s->rmt_hit);
	line(f, "Load Local DRAM", s->lcl_dram);
	line(f, "Load Remote DRAM", s->rmt_dram);
	line(f, "Load MESI State Exclusive", s->ld_excl);
	line(f, "Load MESI State Shared", s->ld_shared);
	line(f, "Load LLC Misses", llc_miss);
	line(f, "Load access blocked by data", s->blk_data);
	line(f, "Load access blocked by address", s->blk_addr);
	line(f, "Load HIT Local Peer", s->lcl_peer);
	line(f, "Load HIT Remote Peer", s->rmt_peer);
	const char *to[] = { "LLC Misses to Local DRAM", "LLC Misses to Remote DRAM",
			     "LLC Misses to Remote cache (HIT)", "LLC Misses to Remote cache (HITM)" };
	uint64_t n[] = { s->lcl_dram, s->rmt_dram, s->rmt_hit, s->rmt_hitm };
	volatile double zero = 0.0; /* perf divides 0 by 0 here: x86 prints its NaN as -nan */
	for (int i = 0; i < 4; i++)
		fprintf(f, "  %-34s: %10.1f%%\n", to[i], llc_miss ? pct(n[i], llc_miss) : zero / zero);
	line(f, "Store Operations", s->store);
	line(f, "Store - uncacheable", s->st_uncache);
	line(f, "Store - no mapping", s->st_noadrs);
	line(f, "Store L1D Hit", s->st_l1hit);
	line(f, "Store L1D Miss", s->st_l1miss);
	line(f, "Store No available memory level", s->st_na);
	line(f, "No Page Map Rejects", s->nomap);
	line(f, "Unable to parse data source", s->noparse);
}

static void shared_info(FILE *f, const struct c2c_result *r)
{
	const struct c2c_stats *s = &r->shared;
	fprintf(f, "\n");
	banner(f, "    Global Shared Cache Line Event Information   ");
	line(f, "Total Shared Cache Lines", r->nshared);
	line(f, "Load HITs on shared lines", s->load);
	line(f, "Fill Buffer Hits on shared lines", s->ld_fbhit);
	line(f, "L1D hits on shared lines", s->ld_l1hit);
	line(f, "L2D hits on shared lines", s->ld_l2hit);
	line(f, "LLC hits on shared lines", s->ld_llchit + s->lcl_hitm);
	line(f, "Load hits on peer cache or nodes", s->lcl_peer + s->rmt_peer);
	line(f, "Locked Access on shared lines", s->locks);
	line(f, "Blocked Access on shared lines", s->blk_data + s->blk_addr);
	line(f, "Store HITs on shared lines", s->store);
	line(f, "Store L1D hits on shared lines", s->st_l1hit);
	line(f, "Store No available memory level", s->st_na);
	line(f, "Total Merged records", s->tot_hitm + s->store);
}

static const char *const sort_name[] = { "Total HITMs", "Remote HITMs", "Local HITMs", "Peer Snoop" };

static void details(FILE *f, const struct c2c_result *r, const char *const *ev, size_t nev)
{
	fprintf(f, "\n");
	banner(f, "                 c2c details                     ");
	/* SPE recordings: perf lists the event it synthesises the memory samples as, after the
	 * recorded ones */
	for (size_t i = 0; i < nev + (r->synthesized ? 1 : 0); i++)
		fprintf(f, "  %-34s: %s\n", i ? "" : "Events", i < nev ? ev[i] : "memory");
	fprintf(f, "  %-34s: %s\n", "Cachelines sort on", sort_name[r->display]);
	fprintf(f, "  %-34s: %s\n", "Cacheline data grouping", "offset,iaddr");
}

/* perf's table columns count loads and records by where they were served (a load may count at
 * two levels: a remote HITM is also remote DRAM in the data source's encoding), not one per
 * sample as the Trace Event Information does. */
static uint64_t table_loads(const struct c2c_stats *s)
{
	return s->lcl_dram + s->rmt_dram + s->rmt_hitm + s->rmt_hit + s->ld_fbhit + s->ld_l1hit + s->ld_l2hit +
	       s->ld_llchit + s->lcl_hitm;
}

static uint64_t table_records(const struct c2c_stats *s)
{
	return table_loads(s) + s->st_l1hit + s->st_l1miss + s->st_na;
}

static void line_table(FILE *f, const struct c2c_result *r)
{
	fprintf(f, "\n");
	banner(f, "           Shared Data Cache Line Table          ");
	static const char *const col[][4] = { { "    Tot", "   Hitm", "Load Hitm", "  LclHitm  RmtHitm" },
					      { "    Rmt", "   Hitm", "Load Hitm", "  LclHitm  RmtHitm" },
					      { "    Lcl", "   Hitm", "Load Hitm", "  LclHitm  RmtHitm" },
					      { "   Peer", "  Snoop", "Load Peer", "    Local   Remote" } };
	const char *const *c = col[r->display];
	fprintf(f, "#\n"
		"#        ----------- Cacheline ----------  %s  ------- %s -------    Total    Total    Total  --------- Stores --------  ----- Core Load Hit -----  - LLC Load Hit --  - RMT Load Hit --  --- Load Dram ----\n"
		"# Index             Address  Node  PA cnt  %s    Total%s  records    Loads   Stores    L1Hit   L1Miss      N/A       FB       L1       L2    LclHit  LclHitm    RmtHit  RmtHitm       Lcl       Rmt\n"
		"# .....  ..................  ....  ......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  ........  .......  ........  .......  ........  ........\n"
		"#\n", c[0], c[2], c[1], c[3]);
	uint64_t tot = c2c_display_count(&r->shared, r->display);
	bool peer = r->display == C2C_PEER;
	for (size_t i = 0; i < r->nlines; i++) {
		const struct c2c_line *l = &r->lines[i];
		const struct c2c_stats *s = &l->st;
		char addr[32];
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->addr);
		fprintf(f, "%7zu  %18s  %4s  %6d  %6.2f%%  %7llu  %7llu  %7llu  %7llu  %7llu  %7llu  %7llu  %7llu  %7llu  %7llu  %7llu  %7llu  %8llu  %7llu  %8llu  %7llu  %8llu  %8llu\n",
			i, addr, "N/A", 0, pct(c2c_display_count(s, r->display), tot),
			(unsigned long long)(peer ? s->tot_peer : s->tot_hitm),
			(unsigned long long)(peer ? s->lcl_peer : s->lcl_hitm),
			(unsigned long long)(peer ? s->rmt_peer : s->rmt_hitm), (unsigned long long)table_records(s),
			(unsigned long long)table_loads(s), (unsigned long long)s->store,
			(unsigned long long)s->st_l1hit, (unsigned long long)s->st_l1miss,
			(unsigned long long)s->st_na, (unsigned long long)s->ld_fbhit,
			(unsigned long long)s->ld_l1hit, (unsigned long long)s->ld_l2hit,
			(unsigned long long)s->ld_llchit, (unsigned long long)s->lcl_hitm,
			(unsigned long long)s->rmt_hit, (unsigned long long)s->rmt_hitm,
			(unsigned long long)s->lcl_dram, (unsigned long long)s->rmt_dram);
	}
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "[unknown]";
}

static void sym_text(const struct c2c_off *o, char *buf, size_t n)
{
	if (o->sym)
		snprintf(buf, n, "[.] %s", o->sym);
	else
		snprintf(buf, n, "[.] 0x%016llx", (unsigned long long)o->iaddr);
}

/* The Source:Line column's header cell and spacing: none when w is 0 (--no-source). */
static void src_cell(FILE *f, int w, const char *text)
{
	if (w)
		fprintf(f, "  %*s", w, text);
}

static void dots_cell(FILE *f, int w, const char *sep)
{
	fputs(sep, f);
	for (int i = 0; i < w; i++)
		fputc('.', f);
}

static void pareto_head(FILE *f, int ws, int wo, int wsrc, bool peer)
{
	fprintf(f, "#\n"
		"#        %s  ------- Store Refs ------  --------- Data address ---------                      ---------- cycles ----------    Total       cpu  %*s  %*s",
		peer ? "-- Peer Snoop --" : "----- HITM -----", ws, "", wo, "Shared");
	src_cell(f, wsrc, "");
	fprintf(f, "      \n#   Num  %s   L1 Hit  L1 Miss      N/A              Offset  Node  PA cnt        Code address  %s      load  records       cnt  %*s  %*s",
		peer ? "    Rmt      Lcl" : "RmtHitm  LclHitm", peer ? "rmt peer  lcl peer" : "rmt hitm  lcl hitm",
		ws, "Symbol", wo, "Object");
	src_cell(f, wsrc, "Source:Line");
	fprintf(f, "  Node\n# .....  .......  .......  .......  .......  .......  ..................  ....  ......  ..................  ........  ........  ........  .......  ........");
	dots_cell(f, ws, "  ");
	dots_cell(f, wo, "  ");
	if (wsrc)
		dots_cell(f, wsrc, "  ");
	fprintf(f, "  ....\n#\n");
}

static uint64_t mean(uint64_t sum, uint64_t n)
{
	return n ? sum / n : 0;
}

struct nodes {
	const int *cpu_node;
	size_t n;
};

/* The nodes of the row's CPUs, perf's way: each "%2d", a space between. */
static void node_list(const struct c2c_off *o, const struct nodes *nd, char *buf, size_t n)
{
	bool seen[1024] = { false };
	int max = -1;
	for (size_t cpu = 0; cpu < C2C_MAX_CPUS && cpu < nd->n; cpu++) {
		int node = nd->cpu_node[cpu];
		if (((o->cpus[cpu / 64] >> (cpu % 64)) & 1) && node >= 0 && node < 1024) {
			seen[node] = true;
			max = node > max ? node : max;
		}
	}
	size_t l = 0;
	buf[0] = 0;
	for (int node = 0; node <= max && l < n; node++)
		if (seen[node])
			l += (size_t)snprintf(buf + l, n - l, "%s%2d", l ? " " : "", node);
}

static int cpu_count(const struct c2c_off *o)
{
	int c = 0;
	for (size_t i = 0; i < C2C_MAX_CPUS / 64; i++)
		c += __builtin_popcountll(o->cpus[i]);
	return c;
}

static void pareto_row(FILE *f, const struct c2c_line *l, const struct c2c_off *o, const int w[3],
		       const struct nodes *nd, bool peer)
{
	int ws = w[0], wo = w[1];
	const struct c2c_stats *s = &o->st, *t = &l->st;
	char off[32], ia[32], sym[256];
	snprintf(off, sizeof(off), "0x%llx", (unsigned long long)o->offset);
	snprintf(ia, sizeof(ia), "0x%llx", (unsigned long long)o->iaddr);
	sym_text(o, sym, sizeof(sym));
	char nodes[256];
	node_list(o, nd, nodes, sizeof(nodes));
	fprintf(f, "         %6.2f%%  %6.2f%%  %6.2f%%  %6.2f%%  %6.2f%%  %18s  %4s  %6d  %18s  %8llu  %8llu  %8llu  %7llu  %8d  %-*s  %-*s  ",
		peer ? pct(s->rmt_peer, t->rmt_peer) : pct(s->rmt_hitm, t->rmt_hitm),
		peer ? pct(s->lcl_peer, t->lcl_peer) : pct(s->lcl_hitm, t->lcl_hitm), pct(s->st_l1hit, t->st_l1hit),
		pct(s->st_l1miss, t->st_l1miss), pct(s->st_na, t->st_na), off, "N/A", 0, ia,
		(unsigned long long)(peer ? mean(o->lat_rmt_peer, s->rmt_peer) : mean(o->lat_rmt_hitm, o->n_rmt_hitm)),
		(unsigned long long)(peer ? mean(o->lat_lcl_peer, s->lcl_peer) : mean(o->lat_lcl_hitm, o->n_lcl_hitm)),
		(unsigned long long)mean(o->lat_load, o->n_lat_load), (unsigned long long)table_records(s),
		cpu_count(o), ws, sym, wo, base_name(o->dso));
	if (w[2])
		fprintf(f, "%-*s  ", w[2], o->src ? o->src : "");
	fprintf(f, "%s\n", nodes);
}

/* The widest symbol, object and (with sources) Source:Line of line l's rows, from perf's
 * minimums (6, 6, the header's 11). */
static void pareto_widths(const struct c2c_line *l, bool sources, int w[3])
{
	for (size_t j = 0; j < l->noffs; j++) {
		char sym[256];
		sym_text(&l->offs[j], sym, sizeof(sym));
		int v[3] = { (int)strlen(sym), (int)strlen(base_name(l->offs[j].dso)),
			     sources && l->offs[j].src ? (int)strlen(l->offs[j].src) : 0 };
		for (int k = 0; k < 3; k++)
			w[k] = v[k] > w[k] ? (v[k] < 200 ? v[k] : 200) : w[k];
	}
}

/* perf sizes the header to every line's names and each line's rows to its own, and parts
 * the lines by an empty line. */
static void pareto(FILE *f, const struct c2c_result *r, const struct nodes *nd)
{
	int w[3] = { 6, 6, r->sources ? 11 : 0 };
	for (size_t i = 0; i < r->nlines; i++)
		pareto_widths(&r->lines[i], r->sources, w);
	fprintf(f, "\n");
	banner(f, "      Shared Cache Line Distribution Pareto      ");
	if (!r->nlines) {
		fprintf(f, "#\n");
		return;
	}
	bool peer = r->display == C2C_PEER;
	pareto_head(f, w[0], w[1], w[2], peer);
	for (size_t i = 0; i < r->nlines; i++) {
		const struct c2c_line *l = &r->lines[i];
		char addr[32];
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->addr);
		if (i)
			fprintf(f, "\n");
		fprintf(f, "  ----------------------------------------------------------------------\n");
		fprintf(f, "%7zu  %7llu  %7llu  %7llu  %7llu  %7llu  %18s\n", i,
			(unsigned long long)(peer ? l->st.rmt_peer : l->st.rmt_hitm),
			(unsigned long long)(peer ? l->st.lcl_peer : l->st.lcl_hitm),
			(unsigned long long)l->st.st_l1hit, (unsigned long long)l->st.st_l1miss,
			(unsigned long long)l->st.st_na, addr);
		fprintf(f, "  ----------------------------------------------------------------------\n");
		int lw[3] = { 6, 6, r->sources ? 11 : 0 };
		pareto_widths(l, r->sources, lw);
		for (size_t j = 0; j < l->noffs; j++)
			pareto_row(f, l, &l->offs[j], lw, nd, peer);
	}
}

void c2c_print_stdio(FILE *f, const struct c2c_result *r, const char *const *events, size_t nevents,
		     const int *cpu_node, size_t ncpu_node)
{
	const struct nodes nd = { cpu_node, ncpu_node };
	trace_info(f, &r->all);
	shared_info(f, r);
	details(f, r, events, nevents);
	line_table(f, r);
	pareto(f, r, &nd);
}
