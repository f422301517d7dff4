/* wperf's informational tables: `wperf list`, `test`, `detect`, `--version` and `man`, laid out
 * from what the commands gathered (the event catalog and metric set, sysinfo, the PMU table, a
 * man entry), with WindowsPerf's column names, type labels and JSON keys. */
#include "output/wperf_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/pmu.h"
#include "sysinfo/buildinfo.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

void wperf_tabs_print(FILE *f, const struct wperf_tab *t, const char *const *titles, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (titles && titles[i])
			fprintf(f, "%s%s\n\n", i ? "\n" : "", titles[i]);
		wperf_tab_print(f, &t[i]);
	}
}

void wperf_version_tab(struct wperf_tab *t, const char *kernel_release, bool spe)
{
	static const char *const cols[] = { "Component", "Version", "GitVer", "FeatureString" };
	wperf_tab_init(t, "Version", 4, cols, cols);
	table_rowv(&t->t, "wperf", sysinfo_version(), sysinfo_gitrev(), "+pfm+dw+capstone+zlib+spe");
	table_rowv(&t->t, "wperf-driver", kernel_release, "linux", spe ? "+perf_event+spe" : "+perf_event");
}

const char *const wperf_list_titles[3] = { "List of pre-defined events (to be used in -e)",
					   "List of supported metrics (to be used in -m)",
					   "List of supported groups of metrics (to be used in -m)" };

static char *metric_events(const struct metric *m)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addc(&sb, '{');
	for (size_t i = 0; i < m->nevents; i++)
		sb_addf(&sb, "%s%s", i ? "," : "", m->events[i]);
	sb_addc(&sb, '}');
	return sb_detach(&sb);
}

static void list_events(struct wperf_tab *t, const struct wperf_list_view *v)
{
	for (size_t i = 0; i < v->cat->n; i++) {
		const struct ev_info *e = &v->cat->info[i];
		if (!e->usable)
			continue;
		char idx[32], type[64];
		snprintf(idx, sizeof(idx), "0x%llx", (unsigned long long)e->config);
		const char *s = e->section;
		if (e->pmu && !strncmp(e->pmu, "arm_spe", 7))
			snprintf(type, sizeof(type), "[Kernel PMU event]");
		else if (!strcmp(s, "sysfs") || !strcmp(s, "hardware") || !strcmp(s, "hardware cache"))
			snprintf(type, sizeof(type), "[core PMU event]");
		else
			snprintf(type, sizeof(type), "[%s event]", s);
		const char *cells[] = { e->name, idx, type, e->desc ? e->desc : "" };
		table_row(&t->t, cells);
	}
	/* -E extras given inline: "[core PMU event*]". */
	const char *x = v->extra_events;
	if (x && strchr(x, ':') && !strchr(x, '/')) {
		char *list = xstrdup(x), *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *c = strchr(tok, ':');
			if (!c)
				continue;
			*c = 0;
			const char *cells[] = { tok, c + 1, "[core PMU event*]", "<extra event>" };
			table_row(&t->t, cells);
		}
		free(list);
	}
	if (v->spe_pmu && *v->spe_pmu) {
		static const char *const f[] = { "load_filter", "store_filter", "branch_filter",
						  "ts_enable", "min_latency", "jitter" };
		for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
			char name[96];
			snprintf(name, sizeof(name), "%s/%s/", v->spe_pmu, f[i]);
			const char *cells[] = { name, "-", "[SPE filter]", "SPE filter" };
			table_row(&t->t, cells);
		}
	}
}

void wperf_list_tabs(struct wperf_tab t[3], const struct wperf_list_view *v)
{
	static const char *const ecols[] = { "Alias Name", "Raw Index", "Event Type", "Description" };
	static const char *const ekeys[] = { "Alias_Name", "Raw_Index", "Event_Type", "Description" };
	static const char *const mcols[] = { "Metric", "Events", "Formula", "Unit", "Description" };
	static const char *const gcols[] = { "Group", "Metrics", "Description" };
	wperf_tab_init(&t[0], "Predefined_Events", v->verbose ? 4 : 3, ecols, ekeys);
	wperf_tab_init(&t[1], "Predefined_Metrics", v->verbose ? 5 : 2, mcols, mcols);
	wperf_tab_init(&t[2], "Predefined_Groups_of_Metrics", v->verbose ? 3 : 2, gcols, gcols);
	list_events(&t[0], v);
	const struct metric_set *ms = v->metrics;
	for (size_t i = 0; i < ms->n; i++) {
		const struct metric *m = &ms->m[i];
		if (!v->arch_present[m->arch])
			continue;
		char *ev = metric_events(m);
		const char *cells[] = { m->name, ev, m->formula ? m->formula : "---",
					m->unit ? m->unit : "---", m->desc ? m->desc : "---" };
		table_row(&t[1].t, cells);
		free(ev);
	}
	for (size_t i = 0; i < ms->ng; i++) {
		const struct metric_group *g = &ms->g[i];
		if (!v->arch_present[g->arch])
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (size_t k = 0; k < g->nmetrics; k++)
			sb_addf(&sb, "%s%s", k ? "," : "", g->metrics[k]);
		const char *cells[] = { g->name, sb_str(&sb), g->desc ? g->desc : "" };
		table_row(&t[2].t, cells);
		sb_release(&sb);
	}
}

static void row(struct wperf_tab *t, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void row(struct wperf_tab *t, const char *name, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	table_rowv(&t->t, name, buf);
}

/* test -e/-m: the counter indexes of the events as stat would schedule them (the cycle counter
 * left out), and each one's note as wperf writes it there: "(g0)" or "(e)", with the metric
 * that asked for the event after a comma ("(g0,imix)"). */
static void schedule_rows(struct wperf_tab *t, const struct evlist *l)
{
	struct strbuf idx = STRBUF_INIT, note = STRBUF_INIT;
	for (size_t e = 0; e < l->n; e++) {
		const struct ev *x = &l->ev[e];
		if (x->source == EV_SRC_HARDWARE && x->attr.config == 0)
			continue;
		sb_addf(&idx, "%s%llu", idx.len ? "," : "", (unsigned long long)x->attr.config);
		if (x->group >= 0)
			sb_addf(&note, "%s(g%d", note.len ? "," : "", x->group);
		else
			sb_addf(&note, "%s(e", note.len ? "," : "");
		sb_addf(&note, "%s%s)", x->metric ? "," : "", x->metric ? x->metric : "");
	}
	row(t, "ioctl_events[EVT_CORE].index", "%s", sb_str(&idx));
	row(t, "ioctl_events[EVT_CORE].note", "%s", sb_str(&note));
	sb_release(&idx);
	sb_release(&note);
}

/* The architecture's PMU: ID_AA64DFR0_EL1.PMUVer where the kernel shows it, else PMUv3 where
 * the armv8 driver serves the cores (Linux publishes no version). */
static const char *pmu_version(const struct pmu_table *pt, const struct sysinfo_cpu *c)
{
	static const char *const ver[16] = { [1] = "FEAT_PMUv3", [4] = "FEAT_PMUv3p1",
					     [5] = "FEAT_PMUv3p4", [6] = "FEAT_PMUv3p5",
					     [7] = "FEAT_PMUv3p7", [8] = "FEAT_PMUv3p8",
					     [9] = "FEAT_PMUv3p9" };
	if (c->have_dfr0 && ver[(c->dfr0 >> 8) & 0xf])
		return ver[(c->dfr0 >> 8) & 0xf];
	for (size_t i = 0; pt && i < pt->n; i++)
		if (pt->p[i].is_core && (!strncmp(pt->p[i].name, "armv8_", 6) ||
					 !strncmp(pt->p[i].name, "armv9_", 6)))
			return "FEAT_PMUv3";
	return "not implemented";
}

/* The hardware counters in the order the kernel may hand them out, then the cycle counter. */
static void counter_map_row(struct wperf_tab *t, int gpc)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < gpc && i < 31; i++)
		sb_addf(&sb, "%d,", i);
	sb_adds(&sb, "31");
	row(t, "PMU_CTL_QUERY_HW_CFG [counter_idx_map]", "%s", sb_str(&sb));
	sb_release(&sb);
}

static bool have_pmu(const struct pmu_table *pt, const char *prefix)
{
	for (size_t i = 0; pt && i < pt->n; i++)
		if (!strncmp(pt->p[i].name, prefix, strlen(prefix)))
			return true;
	return false;
}

/* What each kind of PMU here can do, in wperf's "type.function=devices" list. */
static void device_ids_row(struct wperf_tab *t, const struct pmu_table *pt, bool spe)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "core.stat=core;core.sample=core");
	if (spe)
		sb_adds(&sb, ";spe.record=spe");
	if (have_pmu(pt, "arm_dsu_"))
		sb_adds(&sb, ";dsu.stat=dsu");
	if (have_pmu(pt, "arm_dmc620_"))
		sb_adds(&sb, ";dmc.stat=dmc_clk,dmc_clkdiv2");
	row(t, "PMU_CTL_QUERY_HW_CFG [device_id_str]", "%s", sb_str(&sb));
	sb_release(&sb);
}

void wperf_test_tab(struct wperf_tab *t, const struct wperf_test_view *v)
{
	static const char *const cols[] = { "Test Name", "Result" };
	static const char *const keys[] = { "Test_Name", "Result" };
	wperf_tab_init(t, "Test_Results", 2, cols, keys);
	const struct sysinfo *si = v->si;
	const struct sysinfo_cpu *c = &si->cpu;
	row(t, "request.ioctl_events [EVT_CORE]", "%s", v->schedule ? "True" : "False");
	row(t, "request.ioctl_events [EVT_DSU]", "False");
	row(t, "request.ioctl_events [EVT_DMC_CLK/EVT_DMC_CLKDIV2]", "False");
	/* Arm's implementer name as wperf (and lperf's stat heading) writes it. */
	bool arm = c->vendor && !strcmp(c->vendor, "Arm");
	row(t, "pmu_device.vendor_name", "%s", arm ? "Arm Limited" : c->vendor ? c->vendor :
	    c->model ? c->model : "unknown");
	row(t, "pmu_device.product_name", "%s", c->product ? c->product : "unknown");
	row(t, "pmu_device.product_name(extended)", "%s%s%s%s", c->model ? c->model : "unknown",
	    c->product ? " (" : "", c->product ? c->product : "", c->product ? ")" : "");
	row(t, "pmu_device.events_query(events) [EVT_CORE]", "%zu", v->core_events);
	row(t, "pmu_device.version_name", "%s", pmu_version(v->pmus, c));
	row(t, "pmu_device.sampling.INTERVAL_DEFAULT", "0x4000000");
	row(t, "PMU_CTL_QUERY_HW_CFG [core_num]", "0x%lx", si->cpus_online > 0 ? si->cpus_online : 0);
	if (si->gpc_num >= 0) {
		/* The kernel gives every counter to whoever opens events: all are free. */
		row(t, "PMU_CTL_QUERY_HW_CFG [gpc_num]", "0x%x", si->gpc_num);
		row(t, "PMU_CTL_QUERY_HW_CFG [total_gpc_num]", "0x%x", si->gpc_num);
		counter_map_row(t, si->gpc_num);
		row(t, "gpc_nums[EVT_CORE]", "%d", si->gpc_num);
	} else {
		row(t, "PMU_CTL_QUERY_HW_CFG [gpc_num]", "unknown (no hardware PMU)");
		row(t, "gpc_nums[EVT_CORE]", "0");
	}
	row(t, "fpc_nums[EVT_CORE]", "%d", v->hw_pmu ? 1 : 0);
	if (c->have_midr) {
		row(t, "PMU_CTL_QUERY_HW_CFG [midr_value]", "0x%016llx", (unsigned long long)c->midr);
		row(t, "PMU_CTL_QUERY_HW_CFG [vendor_id]", "0x%x", c->implementer);
		row(t, "PMU_CTL_QUERY_HW_CFG [part_id]", "0x%x", c->part);
	}
	if (c->have_dfr0)
		row(t, "PMU_CTL_QUERY_HW_CFG [id_aa64dfr0_value]", "0x%016llx",
		    (unsigned long long)c->dfr0);
	device_ids_row(t, v->pmus, v->spe_version != NULL);
	row(t, "config.count.period", "%s", v->count_period ? v->count_period :
	    "kernel-managed (perf_event_mux_interval_ms)");
	row(t, "spe_device.version_name", "%s", v->spe_version ? v->spe_version : "not implemented");
	if (v->schedule)
		schedule_rows(t, v->schedule);
}

void wperf_detect_tab(struct wperf_tab *t, const struct pmu_table *pt, const char *sysfs_root)
{
	static const char *const cols[] = { "Device Instance ID", "Hardware IDs" };
	static const char *const keys[] = { "Device_Instance_ID", "Hardware_IDs" };
	wperf_tab_init(t, "Devices", 2, cols, keys);
	for (size_t i = 0; i < pt->n; i++) {
		char id[256], hw[64];
		snprintf(id, sizeof(id), "%s/bus/event_source/devices/%s", sysfs_root, pt->p[i].name);
		snprintf(hw, sizeof(hw), "perf_event type %u", pt->p[i].type);
		table_rowv(&t->t, id, hw);
	}
}

void wperf_man_tab(struct wperf_tab *t, const char *const *fields, const char *const *values, size_t n)
{
	static const char *const cols[] = { "Field Type", "Result" };
	static const char *const keys[] = { "Field_Type", "Result" };
	wperf_tab_init(t, "Manual_Results", 2, cols, keys);
	for (size_t i = 0; i < n; i++)
		table_rowv(&t->t, fields[i], values[i] && *values[i] ? values[i] : "-");
}

/* One paragraph of a value: words filled into lines of at most width columns after the indent
 * (a longer word is cut), as wperf fills its manual pages. */
static void man_paragraph(FILE *f, const char *p, size_t len, size_t width)
{
	while (len) {
		while (len && *p == ' ')
			p++, len--;
		if (!len)
			break;
		size_t line = len <= width ? len : 0;
		for (size_t i = width; !line && i > 0; i--)
			if (p[i] == ' ')
				line = i;
		if (!line)
			line = width;
		size_t end = line;
		while (end && p[end - 1] == ' ')
			end--;
		fprintf(f, "%*s%.*s\n", WPERF_MAN_INDENT, "", (int)end, p);
		p += line;
		len -= line;
	}
}

void wperf_man_text(FILE *f, const struct wperf_tab *t)
{
	for (size_t i = 0; i < t->t.nrows; i++) {
		fprintf(f, "%s\n", t->t.cells[2 * i]);
		/* Each line of the value is a paragraph; an empty one stays an empty line. */
		for (const char *v = t->t.cells[2 * i + 1];;) {
			size_t n = strcspn(v, "\n");
			if (n)
				man_paragraph(f, v, n, WPERF_MAN_WIDTH - WPERF_MAN_INDENT);
			else
				fputc('\n', f);
			if (!v[n])
				break;
			v += n + 1;
		}
	}
}
