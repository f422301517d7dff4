/* WindowsPerf's counting output: per-core tables (counter value, event name, event idx, event
 * note; multiplexed and scaled value when any event was), the System-wide Overall table when
 * more than one core was counted, the Telemetry Solution Metrics table, the elapsed time; its
 * stat JSON object; its timeline CSV. */
#include "output/wperf_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/stat_out.h"
#include "util/xalloc.h"

static bool is_cycle(const struct ev *ev)
{
	return ev->source == EV_SRC_HARDWARE && ev->attr.config == PERF_COUNT_HW_CPU_CYCLES;
}

static const char *ev_display_name(const struct ev *ev)
{
	return is_cycle(ev) ? "cycle" : ev->name;
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
		if (ev->source == EV_SRC_TOOL)
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

static void metrics_table(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v)
{
	const char *cols[] = { ">core", "product_name", "metric_name", ">value", "unit" };
	struct table t;
	table_init(&t, 5, cols);
	t.indent = 8;
	t.underline = true;
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t i = 0; i < r->nmet; i++) {
			char core[16], val[48];
			snprintf(core, sizeof(core), "%d", r->cpus[c]);
			double x = r->met[i].cpu[c];
			if (isnan(x))
				snprintf(val, sizeof(val), "n/a");
			else
				snprintf(val, sizeof(val), "%.3f", x);
			const struct metric *m = r->met[i].m;
			const char *cells[] = { core, v->product, m->name, val, m->unit ? m->unit : "" };
			table_row(&t, cells);
		}
	}
	table_print(&t, f);
	table_free(&t);
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
	if (r->nmet) {
		fprintf(f, "\nTelemetry Solution Metrics:\n");
		metrics_table(f, r, v);
	}
	fprintf(f, "\n%20.3f seconds time elapsed\n", r->duration);
}

static void counter_rows(struct json *j, const char *key, const struct stat_result *r, long c)
{
	bool mux = any_mux(r);
	json_begin_array(j, key);
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (ev->source == EV_SRC_TOOL)
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
	if (r->nmet) {
		json_begin_array(j, "Telemetry_Solution_Metrics");
		for (size_t c = 0; c < r->ncpus; c++)
			for (size_t i = 0; i < r->nmet; i++) {
				char core[16], val[48];
				snprintf(core, sizeof(core), "%d", r->cpus[c]);
				double x = r->met[i].cpu[c];
				snprintf(val, sizeof(val), isnan(x) ? "n/a" : "%.3f", x);
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
	/* Uncore: DSU and DMC counts are in the core tables here (their PMUs count per CPU in
	 * cpumask); the sections keep wperf's shape. */
	json_begin_object(j, "dsu");
	json_begin_object(j, "l3metric");
	json_end_object(j);
	json_begin_object(j, "overall");
	json_end_object(j);
	json_end_object(j);
	json_begin_object(j, "dmc");
	json_begin_object(j, "pmu");
	json_end_object(j);
	json_begin_object(j, "ddr");
	json_end_object(j);
	json_end_object(j);
	json_double(j, "Time_elapsed", r->duration);
	json_end_object(j);
}

void wperf_timeline_csv_header(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v,
			       double interval_s)
{
	fprintf(f, "Multiplexing,%s\nKernel mode,%s\nCount interval,%.2f\nVendor,%s\nEvent class,core\n\n",
		any_mux(r) ? "TRUE" : "FALSE", v->kernel ? "TRUE" : "FALSE", interval_s, v->vendor);
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t e = 0; e < r->nev; e++)
			if (r->evl->ev[e].source != EV_SRC_TOOL)
				fprintf(f, "core %d,", r->cpus[c]);
		for (size_t i = 0; i < r->nmet; i++)
			fprintf(f, "core %d,", r->cpus[c]);
	}
	fputc('\n', f);
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t e = 0; e < r->nev; e++)
			if (r->evl->ev[e].source != EV_SRC_TOOL)
				fprintf(f, "%s,", ev_display_name(&r->evl->ev[e]));
		for (size_t i = 0; i < r->nmet; i++)
			fprintf(f, "M@%s,", r->met[i].m->name);
	}
	fputc('\n', f);
}

void wperf_timeline_csv_row(FILE *f, const struct stat_result *r)
{
	for (size_t c = 0; c < r->ncpus; c++) {
		for (size_t e = 0; e < r->nev; e++)
			if (r->evl->ev[e].source != EV_SRC_TOOL)
				fprintf(f, "%" PRIu64 ",", scaled(&r->ev[e].cpu[c]));
		for (size_t i = 0; i < r->nmet; i++) {
			double x = r->met[i].cpu[c];
			if (isnan(x))
				fprintf(f, "n/a,");
			else
				fprintf(f, "%.3f,", x);
		}
	}
	fputc('\n', f);
	fflush(f);
}
