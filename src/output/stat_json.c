/* lperf stat --json: one document, described by docs/schemas/stat.schema.json. */
#include <math.h>
#include <stdio.h>

#include "output/json.h"
#include "output/stat_out.h"

static const char *status_name(enum counter_status s)
{
	switch (s) {
	case COUNTER_COUNTED: return "counted";
	case COUNTER_MULTIPLEXED: return "multiplexed";
	case COUNTER_NOT_COUNTED: return "not_counted";
	default: return "not_supported";
	}
}

static void value_fields(struct json *j, const struct stat_result *r, size_t e, const struct stat_value *v)
{
	bool have = v->status == COUNTER_COUNTED || v->status == COUNTER_MULTIPLEXED ||
		    r->evl->ev[e].source == EV_SRC_TOOL;
	json_str(j, "status", r->evl->ev[e].source == EV_SRC_TOOL ? "counted" : status_name(v->status));
	if (have)
		json_double(j, "value", statout_display_value(r, e, v));
	else
		json_null(j, "value");
	json_u64(j, "raw_count", v->raw.val);
	json_double(j, "scaled_count", have ? v->scaled : NAN);
	json_u64(j, "time_enabled_ns", v->raw.ena);
	json_u64(j, "time_running_ns", v->raw.run);
	json_double(j, "running_percent", v->raw.ena ? 100.0 * (double)v->raw.run / (double)v->raw.ena : NAN);
}

static void events(struct json *j, const struct stat_result *r, const struct statout_opts *o, bool brief)
{
	json_begin_array(j, "events");
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		json_begin_object(j, NULL);
		json_str(j, "name", ev->name);
		json_str(j, "unit", statout_unit(ev));
		if (!brief) {
			char note[128];
			statout_note(ev, note, sizeof(note));
			json_str(j, "pmu", ev->pmu);
			json_u64(j, "type", ev->attr.type);
			json_u64(j, "config", ev->attr.config);
			json_str(j, "encoding", ev->encoding);
			if (ev->group >= 0)
				json_i64(j, "group", ev->group);
			else
				json_null(j, "group");
			json_str(j, "metric", ev->metric);
			json_str(j, "note", note);
			json_bool(j, "exclude_user", ev->attr.exclude_user);
			json_bool(j, "exclude_kernel", ev->attr.exclude_kernel);
			json_str(j, "reason", r->why[e]);
		}
		value_fields(j, r, e, &r->ev[e].total);
		if (!brief && r->runs > 1) {
			json_double(j, "mean", r->ev[e].mean);
			json_double(j, "stddev_percent", stat_rel_stddev(r->ev[e].mean, r->ev[e].m2, r->runs));
		}
		if (o->per_cpu && r->cpus[0] >= 0) {
			json_begin_array(j, "per_cpu");
			for (size_t col = 0; col < r->ncpus; col++) {
				json_begin_object(j, NULL);
				json_i64(j, "cpu", r->cpus[col]);
				value_fields(j, r, e, &r->ev[e].cpu[col]);
				json_end_object(j);
			}
			json_end_array(j);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

static void metrics(struct json *j, const struct stat_result *r, const struct statout_opts *o, bool brief)
{
	json_begin_array(j, "metrics");
	for (size_t i = 0; i < r->nmet; i++) {
		const struct stat_metric *sm = &r->met[i];
		if (!sm->m->formula)
			continue;
		json_begin_object(j, NULL);
		json_str(j, "name", sm->m->name);
		json_double(j, "value", sm->total);
		json_str(j, "unit", sm->m->unit ? sm->m->unit : "");
		if (!brief)
			json_str(j, "formula", sm->m->formula);
		if (o->per_cpu && r->cpus[0] >= 0) {
			json_begin_array(j, "per_cpu");
			for (size_t col = 0; col < r->ncpus; col++) {
				json_begin_object(j, NULL);
				json_i64(j, "cpu", r->cpus[col]);
				json_double(j, "value", sm->cpu[col]);
				json_end_object(j);
			}
			json_end_array(j);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

void statout_json(FILE *f, const struct stat_result *r, const struct stat_result *intervals,
		  size_t nintervals, const struct statout_opts *o)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	json_str(&j, "schema", "lperf-stat/1");
	json_str(&j, "target", o->target);
	json_str(&j, "modes", o->modes);
	json_begin_array(&j, "cpus");
	for (size_t col = 0; col < r->ncpus && r->cpus[col] >= 0; col++)
		json_i64(&j, NULL, r->cpus[col]);
	json_end_array(&j);
	json_i64(&j, "runs", r->runs > 1 ? r->runs : 1);
	json_double(&j, "duration_s", r->runs > 1 ? r->dur_mean : r->duration);
	json_double(&j, "user_s", r->user_s >= 0 ? r->user_s : NAN);
	json_double(&j, "sys_s", r->sys_s >= 0 ? r->sys_s : NAN);
	json_bool(&j, "multiplexed", stat_multiplexed(r));
	events(&j, r, o, false);
	metrics(&j, r, o, false);
	json_begin_array(&j, "intervals");
	for (size_t i = 0; i < nintervals; i++) {
		json_begin_object(&j, NULL);
		json_double(&j, "time_s", intervals[i].timestamp);
		json_double(&j, "duration_s", intervals[i].duration);
		events(&j, &intervals[i], o, true);
		metrics(&j, &intervals[i], o, true);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
