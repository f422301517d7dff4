/* lperf stat record / stat report: perf stat's counts kept in perf.data (perf 6.1's STAT,
 * STAT_ROUND, STAT_CONFIG, THREAD_MAP and CPU_MAP records, the STAT feature; `-o -` writes a
 * pipe) and printed back in perf's layout. Files and pipes of either tool, read by either. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/stat_opts.h"
#include "events/evlist.h"
#include "output/stat_perf.h"
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_stat.h"
#include "stat/stat_result.h"
#include "stat/stat_aggr.h"
#include "stat/stat_shadow.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct { int lperf; uint64_t perf; } aggr_map[] = {
	{ STAT_AGGR_GLOBAL, PERFDATA_AGGR_GLOBAL }, { STAT_AGGR_NONE, PERFDATA_AGGR_NONE },
	{ STAT_AGGR_CORE, PERFDATA_AGGR_CORE },     { STAT_AGGR_DIE, PERFDATA_AGGR_DIE },
	{ STAT_AGGR_SOCKET, PERFDATA_AGGR_SOCKET }, { STAT_AGGR_NODE, PERFDATA_AGGR_NODE },
	{ STAT_AGGR_THREAD, PERFDATA_AGGR_THREAD },
};

struct recording {
	const char *path;
	int argc;
	char **argv;               /* main's, for CMDLINE */
	int aggr;
	unsigned interval_ms;
	struct perfdata_writer *w; /* opened at the first interval, or at the end */
	struct counter_val *cum;   /* -I: counts since counting began, [event][column] */
	struct statperf_opts po;   /* -I: the rows perf prints meanwhile */
	unsigned nprinted;
};

/* The event ids of the file: one per event and CPU column, unique within it. */
static uint64_t event_id(size_t e, size_t col, size_t ncols)
{
	return 1 + (uint64_t)e * ncols + col;
}

static void add_events(struct perfdata_writer *w, const struct stat_result *r)
{
	const struct evlist *l = r->evl;
	uint64_t *ids = xmalloc((r->ncpus ? r->ncpus : 1) * sizeof(uint64_t));
	for (size_t e = 0; e < r->nev; e++) {
		if (l->ev[e].source == EV_SRC_TOOL)
			continue;
		for (size_t col = 0; col < r->ncpus; col++)
			ids[col] = event_id(e, col, r->ncpus);
		struct perf_event_attr a = l->ev[e].attr;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.sample_type |= PERF_SAMPLE_IDENTIFIER;
		a.size = sizeof(a);
		perfdata_writer_add_event(w, &a, l->ev[e].name, ids, r->ncpus);
	}
	free(ids);
}

static _Noreturn void die_writing(struct recording *rec)
{
	char *why = xstrdup(err_msg());
	perfdata_writer_close(rec->w, false, false);
	err_die(EXIT_RUNTIME, "%s", why);
}

/* The recording's maps for r's shape; counts fills per round. */
static void stat_of(const struct recording *rec, const struct stat_result *r, struct perfdata_stat *ps)
{
	static int any_thread = -1;
	*ps = (struct perfdata_stat){ .aggr_mode = PERFDATA_AGGR_GLOBAL, .interval_ms = rec->interval_ms,
				      .scale = 1, .cpus = r->cpus, .ncpus = r->ncpus, .pids = &any_thread,
				      .npids = 1 };
	for (size_t i = 0; i < sizeof(aggr_map) / sizeof(aggr_map[0]); i++)
		if (aggr_map[i].lperf == rec->aggr)
			ps->aggr_mode = aggr_map[i].perf;
	ps->counts = xmalloc((r->nev * r->ncpus + 1) * sizeof(*ps->counts));
}

/* Opens the file and writes what precedes the counts: events, units, maps and config. */
static void start_recording(struct recording *rec, const struct stat_result *r)
{
	rec->w = perfdata_writer_open(rec->path);
	if (!rec->w)
		err_die_last(EXIT_RUNTIME);
	add_events(rec->w, r);
	perfdata_writer_set_cmdline(rec->w, rec->argc, rec->argv);
	perfdata_writer_set_stat(rec->w);
	const struct evlist *l = r->evl;
	for (size_t e = 0; e < r->nev; e++)
		if (stat_ev_is_clock(&l->ev[e]) &&
		    perfdata_stat_write_unit(rec->w, event_id(e, 0, r->ncpus), "msec", 1e-6) < 0)
			die_writing(rec);
	struct perfdata_stat ps;
	stat_of(rec, r, &ps);
	if (perfdata_stat_write_maps(rec->w, &ps) < 0)
		die_writing(rec);
	free(ps.counts);
}

/* One round: every supported event's counts per column (vals: [event][column], since counting
 * began), perf storing the CPU's number (-1: any), not its column. */
static void write_round(struct recording *rec, const struct stat_result *r, const struct counter_val *vals,
			uint64_t type, double time_s)
{
	struct perfdata_stat ps;
	stat_of(rec, r, &ps);
	ps.time_ns = (uint64_t)(time_s * 1e9 + 0.5);
	for (size_t e = 0; e < r->nev; e++) {
		if (r->evl->ev[e].source == EV_SRC_TOOL || r->ev[e].total.status == COUNTER_NOT_SUPPORTED)
			continue;
		for (size_t col = 0; col < r->ncpus; col++) {
			const struct counter_val *v = &vals[e * r->ncpus + col];
			ps.counts[ps.ncounts++] = (struct perfdata_stat_count){ event_id(e, col, r->ncpus),
										(uint32_t)r->cpus[col], 0, v->val, v->ena, v->run };
		}
	}
	if (perfdata_stat_write_round(rec->w, &ps, type) < 0)
		die_writing(rec);
	free(ps.counts);
}

/* stat's view for `stat record -I`: perf's interval rows on stderr, and a round in the file. */
static void record_interval(const struct stat_result *delta, void *arg)
{
	struct recording *rec = arg;
	statperf_interval(stderr, delta, &rec->po, rec->nprinted++);
	if (!rec->w) {
		start_recording(rec, delta);
		rec->cum = xcalloc(delta->nev * delta->ncpus + 1, sizeof(*rec->cum));
	}
	for (size_t e = 0; e < delta->nev; e++)
		for (size_t col = 0; col < delta->ncpus; col++) {
			struct counter_val *c = &rec->cum[e * delta->ncpus + col];
			const struct counter_val *d = &delta->ev[e].cpu[col].raw;
			c->val += d->val;
			c->ena += d->ena;
			c->run += d->run;
		}
	write_round(rec, delta, rec->cum, PERFDATA_STAT_ROUND_INTERVAL, delta->timestamp);
}

/* stat's view for `stat record`: the counts go to the file instead of a table. */
static void write_recording(const struct stat_result *r, void *arg)
{
	struct recording *rec = arg;
	if (rec->cum) {
		/* Interval rounds only, as perf: a FINAL round would read as one more interval. */
		free(rec->cum);
		if (perfdata_writer_close(rec->w, true, true) < 0)
			err_die_last(EXIT_RUNTIME);
		return;
	}
	if (!rec->w)
		start_recording(rec, r);
	struct counter_val *vals = xcalloc(r->nev * r->ncpus + 1, sizeof(*vals));
	for (size_t e = 0; e < r->nev; e++)
		for (size_t col = 0; col < r->ncpus; col++)
			vals[e * r->ncpus + col] = r->ev[e].cpu[col].raw;
	write_round(rec, r, vals, PERFDATA_STAT_ROUND_FINAL, r->duration);
	free(vals);
	if (perfdata_writer_close(rec->w, true, true) < 0)
		err_die_last(EXIT_RUNTIME);
}

/* lperf stat record [OPTIONS] [--] CMD: stat's options, -o the recording (default perf.data).
 * argv is stat's: "stat", "record", .... */
static int stat_record(int argc, char **argv)
{
	struct stat_opts o;
	char **cmd = stat_parse_options(&o, argc - 1, argv + 1);
	if (o.json || o.json_doc || o.csv_sep || o.metric_only)
		err_die(EXIT_USAGE, "stat record writes perf.data: -j, --json-doc, -x and --metric-only "
			"belong to 'stat report' or plain 'stat'");
	/* CMDLINE as perf stores it: the tool, then "stat record ...". */
	char **full = xcalloc((size_t)argc + 2, sizeof(char *));
	full[0] = (char *)"lperf";
	for (int i = 0; i < argc; i++)
		full[i + 1] = argv[i];
	struct recording rec = { o.output ? o.output : "perf.data", argc + 1, full, o.aggr,
				 (unsigned)o.interval_ms };
	rec.po = (struct statperf_opts){ .layout = STATPERF_TEXT, .aggr = o.aggr, .big_num = o.big_num };
	o.output = NULL;
	o.stdout_to_stderr = !strcmp(rec.path, "-");
	const struct stat_view view = { .final = write_recording, .interval = record_interval, .arg = &rec };
	o.view = &view;
	o.quiet = true;
	if (o.big_num)
		setlocale(LC_NUMERIC, "");
	int rc = stat_command(&o, cmd);
	free(full);
	return rc;
}

struct report_walk {
	struct perfdata_reader *rd;
	struct perfdata_stat ps;
	struct evlist l;
	bool have_events;
	struct stat_result prev;      /* interval recordings: the previous round's counts */
	struct statperf_opts po;
	unsigned nprinted;
};

static void result_of(struct report_walk *rw, struct stat_result *r);

/* The recording's aggregation mode (STAT_CONFIG), where it counted CPUs. */
static void report_aggr(struct report_walk *rw, const struct stat_result *r)
{
	for (size_t k = 0; k < sizeof(aggr_map) / sizeof(aggr_map[0]); k++)
		if (aggr_map[k].perf == rw->ps.aggr_mode && r->cpus[0] >= 0)
			rw->po.aggr = aggr_map[k].lperf;
}

/* An INTERVAL round: the counts since the previous one, as perf's interval rows. */
static void report_interval(struct report_walk *rw)
{
	struct stat_result cur, delta;
	result_of(rw, &cur);
	result_of(rw, &delta);
	if (!rw->prev.evl) /* before the first round: nothing counted yet */
		stat_result_init_shape(&rw->prev, cur.evl, cur.cpus, cur.ncpus);
	stat_diff(&delta, &cur, &rw->prev);
	report_aggr(rw, &cur);
	statperf_interval(stderr, &delta, &rw->po, rw->nprinted++);
	stat_copy_values(&rw->prev, &cur);
	stat_result_free(&cur);
	stat_result_free(&delta);
}

static int on_record(const struct perf_event_header *h, void *arg)
{
	struct report_walk *rw = arg;
	if (perfdata_stat_read(&rw->ps, h, rw->rd->offset) < 0)
		return -1;
	if (h->type == REC_STAT_ROUND && rw->ps.round_type == PERFDATA_STAT_ROUND_INTERVAL)
		report_interval(rw);
	return 0;
}

static enum ev_source source_of(const struct perf_event_attr *a)
{
	switch (a->type) {
	case PERF_TYPE_SOFTWARE: return EV_SRC_SOFTWARE;
	case PERF_TYPE_HARDWARE: return EV_SRC_HARDWARE;
	case PERF_TYPE_HW_CACHE: return EV_SRC_HWCACHE;
	case PERF_TYPE_TRACEPOINT: return EV_SRC_TRACEPOINT;
	case PERF_TYPE_RAW: return EV_SRC_RAW;
	default: return EV_SRC_SYSFS;
	}
}

/* The recording's events as an event list (names, attrs; no groups). */
static void events_of(const struct evsel_set *set, struct evlist *l)
{
	memset(l, 0, sizeof(*l));
	l->ev = xcalloc(set->n ? set->n : 1, sizeof(struct ev));
	l->n = l->cap = set->n;
	for (size_t i = 0; i < set->n; i++) {
		struct ev *ev = &l->ev[i];
		ev->name = xstrdup(set->v[i].name ? set->v[i].name : "?");
		ev->base = xstrdup(ev->name);
		ev->attr = set->v[i].attr;
		ev->source = source_of(&ev->attr);
		ev->group = -1;
		ev->leader = i;
	}
}

/* The counts of the recording's last round over its CPU map; events without a count are
 * <not supported>. Several threads of one CPU column add up. */
static void fill_result(struct stat_result *r, const struct evsel_set *set, const struct perfdata_stat *ps)
{
	bool *seen = xcalloc(r->nev ? r->nev : 1, sizeof(bool));
	for (size_t i = 0; i < ps->ncounts; i++) {
		const struct perfdata_stat_count *c = &ps->counts[i];
		const struct evsel *es = evsel_by_id(set, c->id);
		size_t col = 0;
		while (col < r->ncpus && r->cpus[col] != (int)c->cpu)
			col++;
		if (!es || col == r->ncpus)
			continue;
		size_t e = (size_t)(es - set->v);
		struct counter_val *v = &r->ev[e].cpu[col].raw;
		v->val += c->val;
		v->ena += c->ena;
		v->run += c->run;
		seen[e] = true;
	}
	for (size_t e = 0; e < r->nev; e++) {
		struct stat_event *se = &r->ev[e];
		if (!seen[e]) {
			se->total.status = COUNTER_NOT_SUPPORTED;
			for (size_t col = 0; col < r->ncpus; col++)
				se->cpu[col].status = COUNTER_NOT_SUPPORTED;
			continue;
		}
		for (size_t col = 0; col < r->ncpus; col++) {
			struct stat_value *v = &se->cpu[col];
			v->status = counter_scale(&v->raw, &v->scaled);
			se->total.raw.val += v->raw.val;
			se->total.raw.ena += v->raw.ena;
			se->total.raw.run += v->raw.run;
		}
		se->total.status = counter_scale(&se->total.raw, &se->total.scaled);
	}
	free(seen);
	r->duration = (double)ps->time_ns / 1e9;
}

/* The last round as a result (the recording's events, known by now, as its event list). */
static void result_of(struct report_walk *rw, struct stat_result *r)
{
	static const int any_cpu = -1;
	if (!rw->have_events) {
		events_of(&rw->rd->evsels, &rw->l);
		rw->have_events = true;
	}
	stat_result_init_shape(r, &rw->l, rw->ps.ncpus ? rw->ps.cpus : &any_cpu, rw->ps.ncpus ? rw->ps.ncpus : 1);
	fill_result(r, &rw->rd->evsels, &rw->ps);
}

/* perf's heading: 'pipe' for a stream, else the recording's command line. */
static char *report_target(const struct perfdata_reader *rd)
{
	if (rd->pipe || !rd->info.ncmdline)
		return xstrdup("'pipe'");
	struct strbuf sb = STRBUF_INIT;
	sb_addc(&sb, '\'');
	for (size_t i = 0; i < rd->info.ncmdline; i++)
		sb_addf(&sb, "%s%s", i ? " " : "", rd->info.cmdline[i]);
	sb_addc(&sb, '\'');
	return sb_detach(&sb);
}

static const char *const report_usage[] = { "lperf stat report [-i FILE]", NULL };

/* lperf stat report [-i FILE]: the counts of a stat recording, as perf stat report prints them. */
static int stat_report(int argc, char **argv)
{
	const char *input = "perf.data";
	bool force = false;
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording ('-': standard input)" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "read a file another user owns" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "stat report", report_usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	struct report_walk rw = { 0 };
	struct perfdata_reader rd;
	if (perfdata_open_force(&rd, input, force) < 0)
		err_die_last(EXIT_RUNTIME);
	rw.rd = &rd;
	char *target = report_target(&rd);
	rw.po = (struct statperf_opts){ .layout = STATPERF_TEXT, .target = target, .big_num = true };
	setlocale(LC_NUMERIC, "");
	if (perfdata_for_each(&rd, on_record, &rw) < 0)
		err_die_last(EXIT_RUNTIME);
	if (!rw.ps.nrounds && !rw.ps.ncounts)
		err_die(EXIT_RUNTIME, "%s holds no counts of 'stat record' (no STAT records)",
			strcmp(input, "-") ? input : "standard input");
	/* An interval recording's rows are printed; a FINAL round holds the totals. */
	if (!rw.nprinted) {
		struct stat_result r;
		result_of(&rw, &r);
		report_aggr(&rw, &r);
		statperf_print(stderr, &r, &rw.po);
		stat_result_free(&r);
	}
	free(target);
	if (rw.prev.evl)
		stat_result_free(&rw.prev);
	if (rw.have_events)
		evlist_free(&rw.l);
	perfdata_stat_free(&rw.ps);
	perfdata_close(&rd);
	return 0;
}

/* lperf stat: `stat record`, `stat report`, or counting (src/cmd/stat.c). */
int cmd_stat(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "record"))
		return stat_record(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return stat_report(argc - 1, argv + 1);
	return stat_main(argc, argv);
}
