/* `wperf list`, `wperf test`, `wperf detect`, `wperf --version`: wperf's tables and JSON over
 * lperf's catalog of events, metric set and sysinfo. */
#include "wperf/wperf_info.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "events/evlist.h"
#include "events/metric.h"
#include "events/pmu.h"
#include "output/wperf_out.h"
#include "sysinfo/buildinfo.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "wperf/wperf_extra.h"
#include "events/wperf_spell.h"

/* Prints the tables (unless --json or -q) and writes their JSON to stdout (--json) and/or
 * the -o file. */
static int emit(const struct wperf_args *a, struct wperf_tab *tabs, const char *const *titles,
		size_t n)
{
	int ret = 0;
	if (a->json)
		wperf_tabs_json(stdout, tabs, n);
	if (a->output) {
		char *path = wperf_out_path(a, a->output);
		FILE *f = fopen(path, "w");
		if (!f) {
			err_warn("cannot write '%s': %s", path, strerror(errno));
			ret = 1;
		} else {
			wperf_tabs_json(f, tabs, n);
			fclose(f);
		}
		free(path);
	}
	for (size_t i = 0; !a->json && !a->quiet && i < n; i++) {
		if (titles && titles[i])
			printf("%s%s\n\n", i ? "\n" : "", titles[i]);
		wperf_tab_print(stdout, &tabs[i]);
	}
	return ret;
}

int wperf_version(const struct wperf_args *a)
{
	struct utsname u;
	char rel[sizeof(u.release)] = "unknown";
	if (uname(&u) == 0)
		snprintf(rel, sizeof(rel), "%s", u.release);
	bool spe = wperf_spe_pmu(NULL) == 0;
	static const char *const cols[] = { "Component", "Version", "GitVer", "FeatureString" };
	struct wperf_tab t;
	wperf_tab_init(&t, "Version", 4, cols, cols);
	table_rowv(&t.t, "wperf", sysinfo_version(), sysinfo_gitrev(), "+pfm+dw+capstone+zlib+spe");
	table_rowv(&t.t, "wperf-driver", rel, "linux", spe ? "+perf_event+spe" : "+perf_event");
	int r = emit(a, &t, NULL, 1);
	wperf_tab_free(&t);
	return r;
}

static char *metric_events(const struct metric *m)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addc(&sb, '{');
	for (size_t i = 0; i < m->nevents; i++)
		sb_addf(&sb, "%s%s", i ? "," : "", m->events[i]);
	sb_addc(&sb, '}');
	return sb_detach(&sb);
}

int wperf_list(const struct wperf_args *a)
{
	struct ev_catalog cat = { 0 };
	if (ev_catalog_build(&cat, false, false) < 0)
		return -1;
	struct metric_set ms = { 0 };
	metric_set_builtin(&ms);
	if (a->metric_file && metric_set_load_file(&ms, a->metric_file) < 0) {
		ev_catalog_free(&cat);
		metric_set_free(&ms);
		return -1;
	}
	bool v = a->verbose > 0;
	static const char *const ecols[] = { "Alias Name", "Raw Index", "Event Type", "Description" };
	static const char *const ekeys[] = { "Alias_Name", "Raw_Index", "Event_Type", "Description" };
	static const char *const mcols[] = { "Metric", "Events", "Formula", "Unit", "Description" };
	static const char *const gcols[] = { "Group", "Metrics", "Description" };
	struct wperf_tab t[3];
	wperf_tab_init(&t[0], "Predefined_Events", v ? 4 : 3, ecols, ekeys);
	wperf_tab_init(&t[1], "Predefined_Metrics", v ? 5 : 2, mcols, mcols);
	wperf_tab_init(&t[2], "Predefined_Groups_of_Metrics", v ? 3 : 2, gcols, gcols);
	for (size_t i = 0; i < cat.n; i++) {
		const struct ev_info *e = &cat.info[i];
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
		table_row(&t[0].t, cells);
	}
	/* -E extras: "[core PMU event*]". */
	if (a->extra_events && strchr(a->extra_events, ':') && !strchr(a->extra_events, '/')) {
		char *list = xstrdup(a->extra_events), *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *c = strchr(tok, ':');
			if (!c)
				continue;
			*c = 0;
			const char *cells[] = { tok, c + 1, "[core PMU event*]", "<extra event>" };
			table_row(&t[0].t, cells);
		}
		free(list);
	}
	char spe[64];
	if (wperf_spe_pmu(spe) == 0) {
		static const char *const f[] = { "load_filter", "store_filter", "branch_filter",
						  "ts_enable", "min_latency", "jitter" };
		for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
			char name[96];
			snprintf(name, sizeof(name), "%s/%s/", spe, f[i]);
			const char *cells[] = { name, "-", "[SPE filter]", "SPE filter" };
			table_row(&t[0].t, cells);
		}
	}
	for (size_t i = 0; i < ms.n; i++) {
		const struct metric *m = &ms.m[i];
		if (!metric_arch_present(m->arch))
			continue;
		char *ev = metric_events(m);
		const char *cells[] = { m->name, ev, m->formula ? m->formula : "---",
					m->unit ? m->unit : "---", m->desc ? m->desc : "---" };
		table_row(&t[1].t, cells);
		free(ev);
	}
	for (size_t i = 0; i < ms.ng; i++) {
		const struct metric_group *g = &ms.g[i];
		if (!metric_arch_present(g->arch))
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (size_t k = 0; k < g->nmetrics; k++)
			sb_addf(&sb, "%s%s", k ? "," : "", g->metrics[k]);
		const char *cells[] = { g->name, sb_str(&sb), g->desc ? g->desc : "" };
		table_row(&t[2].t, cells);
		sb_release(&sb);
	}
	static const char *const titles[] = { "List of pre-defined events (to be used in -e)",
					      "List of supported metrics (to be used in -m)",
					      "List of supported groups of metrics (to be used in -m)" };
	int r = emit(a, t, titles, 3);
	for (int i = 0; i < 3; i++)
		wperf_tab_free(&t[i]);
	ev_catalog_free(&cat);
	metric_set_free(&ms);
	return r;
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

/* test -e/-m: how the events would be laid onto counters (lperf lets the kernel multiplex:
 * each {} group is scheduled together; wperf's padding does not exist here). */
static int schedule_rows(struct wperf_tab *t, const struct wperf_args *a, int gpc)
{
	struct strbuf ev = STRBUF_INIT, met = STRBUF_INIT;
	if (wperf_build_events(a, &ev, &met) < 0)
		return -1;
	struct evlist l = { 0 };
	int r = 0;
	if (met.len) {
		/* Each metric's events as one group, as stat schedules them. */
		struct metric_set ms = { 0 };
		metric_set_builtin(&ms);
		const struct metric **m = NULL;
		long n = (!a->metric_file || metric_set_load_file(&ms, a->metric_file) == 0)
				 ? metric_expand(&ms, sb_str(&met), &m) : -1;
		for (long i = 0; i < n; i++) {
			sb_addf(&ev, "%s%s", ev.len ? "," : "", m[i]->nevents > 1 ? "{" : "");
			for (size_t k = 0; k < m[i]->nevents; k++)
				sb_addf(&ev, "%s%s", k ? "," : "", m[i]->events[k]);
			if (m[i]->nevents > 1)
				sb_addc(&ev, '}');
		}
		free(m);
		metric_set_free(&ms);
		if (n < 0)
			r = -1;
	}
	if (r == 0 && ev.len && evlist_parse(&l, sb_str(&ev)) < 0)
		r = -1;
	struct strbuf idx = STRBUF_INIT, note = STRBUF_INIT;
	for (size_t e = 0; r == 0 && e < l.n; e++) {
		const struct ev *x = &l.ev[e];
		bool cyc = x->source == EV_SRC_HARDWARE && x->attr.config == 0;
		if (cyc)
			continue;
		sb_addf(&idx, "%s%llu", idx.len ? "," : "", (unsigned long long)x->attr.config);
		if (x->group >= 0)
			sb_addf(&note, "%sg%d", note.len ? "," : "", x->group);
		else
			sb_addf(&note, "%se", note.len ? "," : "");
	}
	if (r == 0) {
		row(t, "ioctl_events[EVT_CORE].index", "%s", sb_str(&idx));
		row(t, "ioctl_events[EVT_CORE].note", "%s", sb_str(&note));
	}
	(void)gpc;
	evlist_free(&l);
	sb_release(&ev);
	sb_release(&met);
	sb_release(&idx);
	sb_release(&note);
	return r;
}

int wperf_test(const struct wperf_args *a)
{
	struct sysinfo si;
	sysinfo_collect(&si, 0);
	static const char *const cols[] = { "Test Name", "Result" };
	static const char *const keys[] = { "Test_Name", "Result" };
	struct wperf_tab t;
	wperf_tab_init(&t, "Test_Results", 2, cols, keys);
	const struct sysinfo_cpu *c = &si.cpu;
	row(&t, "request.ioctl_events [EVT_CORE]", "%s", a->events.len || a->metrics.len ? "True" : "False");
	row(&t, "request.ioctl_events [EVT_DSU]", "False");
	row(&t, "request.ioctl_events [EVT_DMC_CLK/EVT_DMC_CLKDIV2]", "False");
	row(&t, "pmu_device.vendor_name", "%s", c->vendor ? c->vendor : c->model ? c->model : "unknown");
	row(&t, "pmu_device.product_name", "%s", c->product ? c->product : "unknown");
	row(&t, "pmu_device.product_name(extended)", "%s%s%s%s", c->model ? c->model : "unknown",
	    c->product ? " (" : "", c->product ? c->product : "", c->product ? ")" : "");
	const struct pmu_table *pt = pmu_table();
	size_t core_events = 0;
	for (size_t i = 0; i < pt->n; i++)
		if (pt->p[i].is_core)
			core_events += pt->p[i].nev;
	row(&t, "pmu_device.events_query(events) [EVT_CORE]", "%zu", core_events);
	row(&t, "pmu_device.sampling.INTERVAL_DEFAULT", "0x4000000");
	row(&t, "PMU_CTL_QUERY_HW_CFG [core_num]", "0x%lx", si.cpus_online > 0 ? si.cpus_online : 0);
	if (si.gpc_num >= 0) {
		row(&t, "PMU_CTL_QUERY_HW_CFG [gpc_num]", "0x%x", si.gpc_num);
		row(&t, "gpc_nums[EVT_CORE]", "%d", si.gpc_num);
	} else {
		row(&t, "PMU_CTL_QUERY_HW_CFG [gpc_num]", "unknown (no hardware PMU)");
		row(&t, "gpc_nums[EVT_CORE]", "0");
	}
	row(&t, "fpc_nums[EVT_CORE]", "%d", ev_have_hw_pmu() ? 1 : 0);
	if (c->have_midr) {
		row(&t, "PMU_CTL_QUERY_HW_CFG [midr_value]", "0x%016llx", (unsigned long long)c->midr);
		row(&t, "PMU_CTL_QUERY_HW_CFG [vendor_id]", "0x%x", c->implementer);
		row(&t, "PMU_CTL_QUERY_HW_CFG [part_id]", "0x%x", c->part);
	}
	row(&t, "config.count.period", "%s", "kernel-managed (perf_event_mux_interval_ms)");
	const char *spe = wperf_spe_version_name();
	row(&t, "spe_device.version_name", "%s", spe ? spe : "FEAT_SPE not implemented");
	int r = 0;
	if ((a->events.len || a->metrics.len) && schedule_rows(&t, a, si.gpc_num) < 0)
		r = -1;
	if (r == 0)
		r = emit(a, &t, NULL, 1);
	wperf_tab_free(&t);
	sysinfo_free(&si);
	return r;
}

int wperf_detect(const struct wperf_args *a)
{
	static const char *const cols[] = { "Device Instance ID", "Hardware IDs" };
	static const char *const keys[] = { "Device_Instance_ID", "Hardware_IDs" };
	struct wperf_tab t;
	wperf_tab_init(&t, "Devices", 2, cols, keys);
	const struct pmu_table *pt = pmu_table();
	for (size_t i = 0; i < pt->n; i++) {
		char id[256], hw[64];
		snprintf(id, sizeof(id), "%s/bus/event_source/devices/%s", sysfs_root(), pt->p[i].name);
		snprintf(hw, sizeof(hw), "perf_event type %u", pt->p[i].type);
		table_rowv(&t.t, id, hw);
	}
	int r = emit(a, &t, NULL, 1);
	wperf_tab_free(&t);
	return r;
}
