/* WindowsPerf's counting output: per-core tables (counter value, event name, event idx, event
 * note; multiplexed and scaled value when any event was), the System-wide Overall table when
 * more than one core was counted, the Telemetry Solution Metrics table, the elapsed time; its
 * stat JSON object; its timeline CSV. */
#include "output/wperf_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/stat_out.h"
#include "util/xalloc.h"

static bool is_cycle(const struct ev *ev)
{
	return ev->source == EV_SRC_HARDWARE && ev->attr.config == PERF_COUNT_HW_CPU_CYCLES;
}

enum { CLASS_CORE, CLASS_DSU, CLASS_DMC };

/* wperf's event classes: Linux's DSU and DMC-620 PMUs stand for its /dsu/ and /dmc_clk.../ ones. */
static int ev_class(const struct ev *ev)
{
	if (ev->pmu && !strncmp(ev->pmu, "arm_dsu_", 8))
		return CLASS_DSU;
	if (ev->pmu && !strncmp(ev->pmu, "arm_dmc620_", 11))
		return CLASS_DMC;
	return CLASS_CORE;
}

/* "arm_dsu_0/l3d_cache/" -> "l3d_cache"; "arm_dmc620_X/clkdiv2_rdwr/" -> "rdwr" (the class is
 * the table's); a PMU event by its canonical name, as wperf prints it ("LD_SPEC" typed ->
 * "ld_spec"); other names as given. */
static void display_name(const struct ev *ev, char *buf, size_t size)
{
	const char *n = ev->name, *slash = strchr(n, '/');
	if (ev_class(ev) == CLASS_CORE || !slash) {
		if (ev->source == EV_SRC_SYSFS && ev->base && !strcasecmp(n, ev->base))
			n = ev->base;
		snprintf(buf, size, "%s", is_cycle(ev) ? "cycle" : n);
		return;
	}
	const char *x = slash + 1;
	size_t len = strcspn(x, "/");
	if (!strncmp(x, "clkdiv2_", 8))
		x += 8, len -= 8;
	else if (!strncmp(x, "clk_", 4))
		x += 4, len -= 4;
	snprintf(buf, size, "%.*s", (int)len, x);
}

static const char *ev_display_name(const struct ev *ev)
{
	static char buf[128];
	display_name(ev, buf, sizeof(buf));
	return buf;
}

/* An uncore PMU counts its own unit whichever CPU reads it: its total is that one reading. */
static uint64_t uncore_value(const struct stat_result *r, size_t e)
{
	return r->ev[e].total.raw.val;
}

/* The unit (stat_result.units) of an uncore PMU, or -1. */
static long unit_of(const struct stat_result *r, const char *pmu)
{
	for (size_t u = 0; u < r->nunits; u++)
		if (!strcmp(r->units[u].pmu, pmu))
			return (long)u;
	return -1;
}

/* A unit metric of pmu (NULL: over all units), NAN when n/a or not counted. */
static double unit_metric(const struct stat_result *r, const char *pmu, const char *name)
{
	long u = pmu ? unit_of(r, pmu) : -1;
	return pmu && u < 0 ? NAN : stat_unit_metric(r, u, name);
}

/* The core metrics (the uncore ones have tables of their own). */
/* A computed metric of the cores: a Telemetry Solution row and an M@ column. Event sets
 * (imix, a -C name:{...}) have no value of their own: their events are the rows. */
static bool core_metric(const struct stat_metric *sm)
{
	return !sm->m->pmu && sm->m->expr;
}

static bool any_core_metric(const struct stat_result *r)
{
	for (size_t i = 0; i < r->nmet; i++)
		if (core_metric(&r->met[i]))
			return true;
	return false;
}

/* The uncore PMU names among the events of class cls, in order of first use. */
static size_t uncore_pmus(const struct stat_result *r, int cls, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (ev_class(ev) != cls)
			continue;
		size_t k;
		for (k = 0; k < n && strcmp(out[k], ev->pmu); k++)
			;
		if (k == n && n < max)
			out[n++] = ev->pmu;
	}
	return n;
}

void wperf_event_idx(const struct ev *ev, bool wide, char *buf, size_t size)
{
	if (is_cycle(ev))
		snprintf(buf, size, "fixed");
	else
		snprintf(buf, size, wide ? "0x%04llx" : "0x%02llx", (unsigned long long)ev->attr.config);
}

static void mux_cell(const struct stat_value *v, char *buf, size_t size)
{
	/* wperf: scheduled rounds / all rounds; here the milliseconds the counter ran / was enabled. */
	snprintf(buf, size, "%" PRIu64 "/%" PRIu64, v->raw.run / 1000000, v->raw.ena / 1000000);
}

static uint64_t counted(const struct stat_value *v)
{
	return v->raw.val;
}

static uint64_t scaled(const struct stat_value *v)
{
	return isfinite(v->scaled) && v->scaled > 0 ? (uint64_t)llround(v->scaled) : v->raw.val;
}

static bool any_mux(const struct stat_result *r)
{
	return stat_multiplexed(r);
}

static void num(const struct wperf_stat_view *v, uint64_t x, char *buf, size_t size)
{
	if (v->big_num)
		fmt_thousands(x, buf, size);
	else
		snprintf(buf, size, "%" PRIu64, x);
}

/* One table: per core column c, or the totals when c < 0. */
static void counter_table(FILE *f, const struct stat_result *r, long c, bool mux,
			  const struct wperf_stat_view *v)
{
	const char *cols[] = { ">counter value", "event name", "event idx", "event note",
			       ">multiplexed", ">scaled value" };
	struct table t;
	table_init(&t, mux ? 6 : 4, cols);
	t.indent = 8;
	t.underline = true;
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (ev->source == EV_SRC_TOOL || ev_class(ev) != CLASS_CORE)
			continue;
		const struct stat_value *sv = c < 0 ? &r->ev[e].total : &r->ev[e].cpu[c];
		char val[32], idx[16], note[128], mx[48], sc[32];
		num(v, counted(sv), val, sizeof(val));
		wperf_event_idx(ev, c < 0 && r->ncpus > 1, idx, sizeof(idx));
		statout_note(ev, note, sizeof(note));
		mux_cell(sv, mx, sizeof(mx));
		num(v, scaled(sv), sc, sizeof(sc));
		if (sv->status == COUNTER_NOT_SUPPORTED)
			snprintf(val, sizeof(val), "<not supported>");
		const char *cells[] = { val, ev_display_name(ev), idx, note, mx, sc };
		table_row(&t, cells);
	}
	table_print(&t, f);
	table_free(&t);
}

/* A Telemetry Solution row's core and value cells ("n/a" when not computable). */
static void ts_cells(const struct stat_result *r, size_t c, size_t i, char *core, char *val, size_t size)
{
	snprintf(core, size, "%d", r->cpus[c]);
	double x = r->met[i].cpu[c];
	if (isnan(x))
		snprintf(val, size, "n/a");
	else
		snprintf(val, size, "%.3f", x);
}

static void metrics_table(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v)
{
	const char *cols[] = { ">core", "product_name", "metric_name", ">value", "unit" };
	struct table t;
	table_init(&t, 5, cols);
	t.indent = 8;
	t.underline = true;
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t i = 0; i < r->nmet; i++) {
			if (!core_metric(&r->met[i]))
				continue;
			char core[48], val[48];
			ts_cells(r, c, i, core, val, sizeof(val));
			const struct metric *m = r->met[i].m;
			const char *cells[] = { core, v->product, m->name, val, m->unit ? m->unit : "" };
			table_row(&t, cells);
		}
	}
	table_print(&t, f);
	table_free(&t);
}

/* One uncore PMU's counter rows: for the DSU tables (pmu_id NULL) and the DMC one. */
static void uncore_rows(struct table *t, const struct stat_result *r, const char *pmu,
			const char *pmu_id, const struct wperf_stat_view *v)
{
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (ev_class(ev) == CLASS_CORE || strcmp(ev->pmu, pmu))
			continue;
		char val[32], idx[16], note[128], name[128];
		num(v, uncore_value(r, e), val, sizeof(val));
		wperf_event_idx(ev, false, idx, sizeof(idx));
		statout_note(ev, note, sizeof(note));
		display_name(ev, name, sizeof(name));
		const char *cells[] = { pmu_id ? pmu_id : val, pmu_id ? val : name, pmu_id ? name : idx,
					pmu_id ? idx : note, note };
		table_row(t, cells);
	}
}

static const char *dsu_cluster(const char *pmu)
{
	return pmu + strlen("arm_dsu_");
}

/* wperf's l3_cache cells of a cluster (the l3_cache metrics); false when its read bandwidth is
 * n/a (l3d_cache not counted). */
static bool l3_metric(const struct stat_result *r, const char *pmu, char *bw, char *miss, size_t size)
{
	double x = unit_metric(r, pmu, "l3_read_bandwidth"), rate = unit_metric(r, pmu, "l3_miss_rate");
	if (isnan(x))
		return false;
	snprintf(bw, size, "%.2fMB", x);
	if (!isnan(rate))
		snprintf(miss, size, "%.2f%%", rate);
	else
		snprintf(miss, size, "n/a");
	return true;
}

/* The cores a cluster serves, as sysfs lists them. */
static const char *pmu_cores(const struct stat_result *r, const char *pmu)
{
	long u = unit_of(r, pmu);
	return u < 0 ? "" : r->units[u].cpus;
}

/* A memory channel's "NN.NNMB" (pmu NULL: all channels); false when n/a. */
static bool ddr_cell(const struct stat_result *r, const char *pmu, char *buf, size_t size)
{
	double x = unit_metric(r, pmu, "ddr_rw_bandwidth");
	if (isnan(x))
		return false;
	snprintf(buf, size, "%.2fMB", x);
	return true;
}

static void uncore_text(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v)
{
	const char *pmus[32];
	size_t n = uncore_pmus(r, CLASS_DSU, pmus, 32);
	const char *cols[] = { ">counter value", "event name", "event idx", "event note" };
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\nPerformance counter stats for DSU cluster %s, no multiplexing, kernel mode "
			"%s, on %s core implementation:\n", dsu_cluster(pmus[i]),
			v->kernel ? "included" : "excluded", v->vendor);
		struct table t;
		table_init(&t, 4, cols);
		t.indent = 8;
		t.underline = true;
		uncore_rows(&t, r, pmus[i], NULL, v);
		table_print(&t, f);
		table_free(&t);
	}
	const char *lcols[] = { ">cluster", "cores", ">read_bandwidth", ">miss_rate" };
	struct table lt;
	table_init(&lt, 4, lcols);
	lt.indent = 8;
	lt.underline = true;
	for (size_t i = 0; i < n; i++) {
		char bw[48], miss[48];
		if (l3_metric(r, pmus[i], bw, miss, sizeof(bw)))
			table_rowv(&lt, dsu_cluster(pmus[i]), pmu_cores(r, pmus[i]), bw, miss);
	}
	if (lt.nrows) {
		fprintf(f, "\nL3 cache metrics:\n");
		table_print(&lt, f);
	}
	table_free(&lt);

	n = uncore_pmus(r, CLASS_DMC, pmus, 32);
	if (!n)
		return;
	const char *dcols[] = { "pmu id", ">counter value", "event name", "event idx", "event note" };
	struct table t;
	table_init(&t, 5, dcols);
	t.indent = 8;
	t.underline = true;
	const char *mcols[] = { "channel", ">rw_bandwidth" };
	struct table mt;
	table_init(&mt, 2, mcols);
	mt.indent = 8;
	mt.underline = true;
	for (size_t i = 0; i < n; i++) {
		char id[32], ch[24], bw[48];
		snprintf(id, sizeof(id), "dmc %zu", i);
		uncore_rows(&t, r, pmus[i], id, v);
		snprintf(ch, sizeof(ch), "%zu", i);
		if (ddr_cell(r, pmus[i], bw, sizeof(bw)))
			table_rowv(&mt, ch, bw);
	}
	fprintf(f, "\nPerformance counter stats for DMC, no multiplexing:\n");
	table_print(&t, f);
	char bw[48];
	if (mt.nrows && ddr_cell(r, NULL, bw, sizeof(bw))) {
		table_rowv(&mt, "all", bw);
		fprintf(f, "\nddr metrics:\n");
		table_print(&mt, f);
	}
	table_free(&t);
	table_free(&mt);
}

static void uncore_json_rows(struct json *j, const struct stat_result *r, const char *pmu,
			     const char *pmu_id)
{
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (ev_class(ev) == CLASS_CORE || strcmp(ev->pmu, pmu))
			continue;
		char idx[16], note[128], name[128];
		wperf_event_idx(ev, false, idx, sizeof(idx));
		statout_note(ev, note, sizeof(note));
		display_name(ev, name, sizeof(name));
		json_begin_object(j, NULL);
		if (pmu_id)
			json_str(j, "pmu_id", pmu_id);
		json_u64(j, "counter_value", uncore_value(r, e));
		json_str(j, "event_name", name);
		json_str(j, "event_idx", idx);
		json_str(j, "event_note", note);
		json_end_object(j);
	}
}

static void uncore_json(struct json *j, const struct stat_result *r)
{
	const char *pmus[32];
	size_t n = uncore_pmus(r, CLASS_DSU, pmus, 32);
	json_begin_object(j, "dsu");
	for (size_t i = 0; i < n; i++) {
		json_begin_object(j, dsu_cluster(pmus[i]));
		json_begin_array(j, "Performance_counter");
		uncore_json_rows(j, r, pmus[i], NULL);
		json_end_array(j);
		json_end_object(j);
	}
	json_begin_object(j, "l3metric");
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		char bw[48], miss[48];
		if (!l3_metric(r, pmus[i], bw, miss, sizeof(bw)))
			continue;
		if (!any)
			json_begin_array(j, "L3_Cache_Metrics");
		any = true;
		json_begin_object(j, NULL);
		json_str(j, "cluster", dsu_cluster(pmus[i]));
		json_str(j, "cores", pmu_cores(r, pmus[i]));
		json_str(j, "read_bandwidth", bw);
		json_str(j, "miss_rate", miss);
		json_end_object(j);
	}
	if (any)
		json_end_array(j);
	json_end_object(j);
	json_begin_object(j, "overall");
	json_end_object(j);
	json_end_object(j);

	n = uncore_pmus(r, CLASS_DMC, pmus, 32);
	json_begin_object(j, "dmc");
	json_begin_object(j, "pmu");
	if (n) {
		json_begin_array(j, "PMU_Performance_Counters");
		for (size_t i = 0; i < n; i++) {
			char id[32];
			snprintf(id, sizeof(id), "dmc %zu", i);
			uncore_json_rows(j, r, pmus[i], id);
		}
		json_end_array(j);
	}
	json_end_object(j);
	json_begin_object(j, "ddr");
	if (n) {
		json_begin_array(j, "DDR_Metrics");
		char ch[24], bw[48];
		for (size_t i = 0; i < n; i++) {
			if (!ddr_cell(r, pmus[i], bw, sizeof(bw)))
				continue;
			snprintf(ch, sizeof(ch), "%zu", i);
			json_begin_object(j, NULL);
			json_str(j, "channel", ch);
			json_str(j, "rw_bandwidth", bw);
			json_end_object(j);
		}
		if (!ddr_cell(r, NULL, bw, sizeof(bw)))
			snprintf(bw, sizeof(bw), "%.2fMB", 0.0);
		json_begin_object(j, NULL);
		json_str(j, "channel", "all");
		json_str(j, "rw_bandwidth", bw);
		json_end_object(j);
		json_end_array(j);
	}
	json_end_object(j);
	json_end_object(j);
}

void wperf_stat_text(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v)
{
	bool mux = any_mux(r);
	for (size_t c = 0; c < r->ncpus; c++) {
		fprintf(f, "\nPerformance counter stats for core %d, %s, kernel mode %s, on %s core "
			"implementation:\n", r->cpus[c], mux ? "multiplexed" : "no multiplexing",
			v->kernel ? "included" : "excluded", v->vendor);
		fprintf(f, "note: 'e' - normal event, 'gN' - grouped event with group number N, metric "
			"name will be appended if 'e' or 'g' comes from it\n\n");
		counter_table(f, r, r->cpus[c] < 0 ? -1 : (long)c, mux, v);
	}
	if (r->ncpus > 1) {
		fprintf(f, "\nSystem-wide Overall:\n");
		counter_table(f, r, -1, mux, v);
	}
	if (any_core_metric(r)) {
		fprintf(f, "\nTelemetry Solution Metrics:\n");
		metrics_table(f, r, v);
	}
	uncore_text(f, r, v);
	fprintf(f, "\n%20.3f seconds time elapsed\n", r->duration);
}

static void counter_rows(struct json *j, const char *key, const struct stat_result *r, long c)
{
	bool mux = any_mux(r);
	json_begin_array(j, key);
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (ev->source == EV_SRC_TOOL || ev_class(ev) != CLASS_CORE)
			continue;
		const struct stat_value *sv = c < 0 ? &r->ev[e].total : &r->ev[e].cpu[c];
		char idx[16], note[128], mx[48];
		wperf_event_idx(ev, c < 0 && r->ncpus > 1, idx, sizeof(idx));
		statout_note(ev, note, sizeof(note));
		json_begin_object(j, NULL);
		json_u64(j, "counter_value", counted(sv));
		json_str(j, "event_name", ev_display_name(ev));
		json_str(j, "event_idx", idx);
		json_str(j, "event_note", note);
		if (mux) {
			mux_cell(sv, mx, sizeof(mx));
			json_str(j, "multiplexed", mx);
			json_u64(j, "scaled_value", scaled(sv));
		}
		json_end_object(j);
	}
	json_end_array(j);
}

void wperf_stat_json(struct json *j, const char *key, const struct stat_result *r,
		     const struct wperf_stat_view *v)
{
	json_begin_object(j, key);
	json_begin_object(j, "core");
	json_bool(j, "Multiplexing", any_mux(r));
	json_bool(j, "Kernel_mode", v->kernel);
	json_begin_array(j, "cores");
	for (size_t c = 0; c < r->ncpus; c++) {
		json_begin_object(j, NULL);
		json_i64(j, "core_number", r->cpus[c]);
		counter_rows(j, "Performance_counter", r, r->cpus[c] < 0 ? -1 : (long)c);
		json_end_object(j);
	}
	json_end_array(j);
	json_begin_object(j, "overall");
	if (r->ncpus > 1)
		counter_rows(j, "Systemwide_Overall_Performance_Counters", r, -1);
	json_end_object(j);
	json_begin_object(j, "ts_metric");
	if (any_core_metric(r)) {
		json_begin_array(j, "Telemetry_Solution_Metrics");
		for (size_t c = 0; c < r->ncpus; c++)
			for (size_t i = 0; i < r->nmet; i++) {
				if (!core_metric(&r->met[i]))
					continue;
				char core[48], val[48];
				ts_cells(r, c, i, core, val, sizeof(val));
				json_begin_object(j, NULL);
				json_str(j, "core", core);
				json_str(j, "product_name", v->product);
				json_str(j, "metric_name", r->met[i].m->name);
				json_str(j, "value", val);
				json_end_object(j);
			}
		json_end_array(j);
	}
	json_end_object(j);
	json_end_object(j);
	uncore_json(j, r);
	json_double(j, "Time_elapsed", r->duration);
	json_end_object(j);
}

void wperf_timeline_csv_header(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v,
			       double interval_s, bool mux)
{
	fprintf(f, "Multiplexing,%s\nKernel mode,%s\nCount interval,%.2f\nVendor,%s\nEvent class,core\n\n",
		mux ? "TRUE" : "FALSE", v->kernel ? "TRUE" : "FALSE", interval_s, v->vendor);
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t e = 0; e < r->nev; e++)
			if (r->evl->ev[e].source != EV_SRC_TOOL)
				fprintf(f, mux ? "core %d,core %d," : "core %d,", r->cpus[c], r->cpus[c]);
		for (size_t i = 0; i < r->nmet; i++)
			if (core_metric(&r->met[i]))
				fprintf(f, "core %d,", r->cpus[c]);
	}
	fputc('\n', f);
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t e = 0; e < r->nev; e++)
			if (r->evl->ev[e].source != EV_SRC_TOOL)
				fprintf(f, "%s,%s", ev_display_name(&r->evl->ev[e]), mux ? "sched_times," : "");
		for (size_t i = 0; i < r->nmet; i++)
			if (core_metric(&r->met[i]))
				fprintf(f, "M@%s,", r->met[i].m->name);
	}
	fputc('\n', f);
}

void wperf_timeline_csv_row(FILE *f, const struct stat_result *r, bool mux)
{
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t e = 0; e < r->nev; e++) {
			if (r->evl->ev[e].source == EV_SRC_TOOL)
				continue;
			const struct stat_value *sv = &r->ev[e].cpu[c];
			fprintf(f, "%" PRIu64 ",", scaled(sv));
			/* wperf: the rounds the event was scheduled; here the milliseconds it ran. */
			if (mux)
				fprintf(f, "%" PRIu64 ",", sv->raw.run / 1000000);
		}
		for (size_t i = 0; i < r->nmet; i++) {
			double x = r->met[i].cpu[c];
			if (!core_metric(&r->met[i]))
				continue;
			if (isnan(x))
				fprintf(f, "n/a,");
			else
				fprintf(f, "%.3f,", x);
		}
	}
	fputc('\n', f);
	fflush(f);
}

void wperf_timeline_json(FILE *f, const struct stat_result *runs, size_t n, double duration_s,
			 double interval_s, const struct wperf_stat_view *v)
{
	fprintf(f, "{\n\"count_duration\": %.2f,\n\"count_interval\": %.2f,\n\"count_timeline\": %zu,\n"
		"\"timeline\": [\n", duration_s, interval_s, n);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(",\n", f);
		struct json j;
		json_init(&j, f, true);
		wperf_stat_json(&j, NULL, &runs[i], v);
		json_finish(&j);
	}
	fputs("\n]\n}\n", f);
	fflush(f);
}
