/* WindowsPerf's renderers (the wperf personality): its "pretty" tables (8-space indent, header
 * underlined with '=') and its JSON shapes, key by key as wperf writes them (checked against
 * WindowsPerf's public schemas by tests/e2e/t90-wperf.sh). */
#ifndef LPERF_OUTPUT_WPERF_OUT_H
#define LPERF_OUTPUT_WPERF_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output/json.h"
#include "output/table.h"
#include "events/evlist.h"
#include "events/metric.h"
#include "events/pmu.h"
#include "stat/stat_result.h"
#include "sysinfo/sysinfo.h"

/* One of wperf's simple tables: text columns, and the JSON key of each column (the header with
 * spaces as '_'). Rows go in t. */
struct wperf_tab {
	const char *key;             /* "Test_Results", "Devices", "Version" */
	struct table t;
	const char *const *jkeys;
	bool json_as_int[8];         /* columns written as JSON integers */
};

void wperf_tab_init(struct wperf_tab *w, const char *key, size_t ncols, const char *const *cols,
		    const char *const *jkeys);
void wperf_tab_print(FILE *f, const struct wperf_tab *w);
/* {"KEY": [ {col: cell, ...}, ... ]} into an open object. */
void wperf_tab_json(struct json *j, const struct wperf_tab *w);
/* One JSON document holding the tables. */
void wperf_tabs_json(FILE *f, const struct wperf_tab *w, size_t n);
void wperf_tab_free(struct wperf_tab *w);
/* The tables as text, each after its title (NULL: none), as list and test print them. */
void wperf_tabs_print(FILE *f, const struct wperf_tab *t, const char *const *titles, size_t n);

/* The informational commands' tables (wperf_info_out.c); free each with wperf_tab_free. */
/* --version: lperf's row and the "driver" (the kernel's perf_event, +spe with an SPE PMU). */
void wperf_version_tab(struct wperf_tab *t, const char *kernel_release, bool spe);
/* list: the events this machine can open, the metrics and the metric groups. */
struct wperf_list_view {
	const struct ev_catalog *cat;
	const struct metric_set *metrics;
	bool arch_present[3];        /* by enum metric_arch: whose metrics apply here */
	const char *extra_events;    /* -E as given (listed when it is "name:0xHEX,..." inline) */
	const char *spe_pmu;         /* "arm_spe_0" (its filters are listed); NULL or "" when none */
	bool verbose;                /* -v: every column */
};
extern const char *const wperf_list_titles[3];
void wperf_list_tabs(struct wperf_tab t[3], const struct wperf_list_view *v);
/* test: what the driver would answer, from this machine's facts. */
struct wperf_test_view {
	const struct sysinfo *si;
	size_t core_events;          /* events the core PMUs publish */
	bool hw_pmu;                 /* a core hardware PMU is exposed (the fixed cycle counter) */
	const char *spe_version;     /* "FEAT_SPEv1p1"; NULL without SPE */
	const struct evlist *schedule; /* -e/-m as stat schedules them; NULL when neither was given */
	const struct pmu_table *pmus;  /* the PMUs in sysfs: device_id_str, pmu_device.version_name */
	const char *count_period;      /* config.count.period: --config's value, or NULL */
};
void wperf_test_tab(struct wperf_tab *t, const struct wperf_test_view *v);
/* detect: one row per PMU of the table, named by its sysfs directory. */
void wperf_detect_tab(struct wperf_tab *t, const struct pmu_table *pt, const char *sysfs_root);
/* man: field/value rows ("CPU", "NAME", ...; an empty or NULL value shows as "-"), printed as
 * wperf prints a manual page (each field on its line, its value indented and filled to wperf's
 * 81 columns), or as its Manual_Results JSON through wperf_tabs_json. */
#define WPERF_MAN_WIDTH 81
#define WPERF_MAN_INDENT 4
void wperf_man_tab(struct wperf_tab *t, const char *const *fields, const char *const *values, size_t n);
void wperf_man_text(FILE *f, const struct wperf_tab *t);

/* Counting output. */
struct wperf_stat_view {
	const char *vendor;          /* "Arm Limited", "GenuineIntel" */
	const char *product;         /* "neoverse-n1", "x86-64" */
	bool kernel;                 /* -k */
	bool all_cores;
	bool big_num;
};
/* wperf's event idx column: "fixed" for the cycle counter, else the config as 0x%02llx (or
 * 0x%04llx when wide, as in the System-wide table). */
void wperf_event_idx(const struct ev *ev, bool wide, char *buf, size_t size);
void wperf_stat_text(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v);
/* The stat object ({"core":..., "dsu":..., "dmc":..., "Time_elapsed":...}) into an open JSON
 * object (key NULL at top level). */
void wperf_stat_json(struct json *j, const char *key, const struct stat_result *r,
		     const struct wperf_stat_view *v);
/* Timeline CSV: the header block and the column rows, then one row per count. When mux (the
 * first count was multiplexed: stat_multiplexed), each event's column is followed by a
 * sched_times column, as wperf writes it. */
void wperf_timeline_csv_header(FILE *f, const struct stat_result *r, const struct wperf_stat_view *v,
			       double interval_s, bool mux);
void wperf_timeline_csv_row(FILE *f, const struct stat_result *r, bool mux);
/* The timeline's JSON: the count duration and interval, then each count's stat object. */
void wperf_timeline_json(FILE *f, const struct stat_result *runs, size_t n, double duration_s,
			 double interval_s, const struct wperf_stat_view *v);

/* Sampling JSON ({"sampling": {...}}, output/wperf_sample_json.c): what the run was, then one
 * object per event. */
struct wperf_sample_info {
	const char *pe_file, *pdb_file;
	uint64_t display_rows;
	uint64_t generated, dropped;
	uint64_t base_address, runtime_delta;
};
struct profile;
struct report_opts;
struct annot_view;
/* The document for a finished profile: each event's hot functions (o->max_rows), with annot the
 * "annotate" array of its hot functions in WindowsPerf's keys, with pcs (-v) every sampled PC. */
void wperf_sample_json(FILE *f, const struct wperf_sample_info *in, const struct profile *p,
		       const struct report_opts *o, struct annot_view *annot, struct annot_view *pcs);

#endif
