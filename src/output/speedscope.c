/* speedscope's file format (https://www.speedscope.app/file-format-schema.json): the frames once,
 * then one "sampled" profile per event and thread, its samples in time order (root first, the
 * command frame left out: the profile's name says which thread), each weighing its period. For
 * a time-based event (cpu-clock, task-clock) the unit is nanoseconds and the profile starts at
 * its first sample's time from the start of the recording, so speedscope shows real times and
 * threads line up; other events count events ("none"). The schema has no per-sample time. */
#include <inttypes.h>
#include <stdlib.h>

#include "output/json.h"
#include "output/pictures.h"
#include "sysinfo/buildinfo.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void write_stack(struct json *j, const struct stacks *st, uint32_t node)
{
	uint32_t chain[4096];
	size_t n = 0;
	for (uint32_t i = node; i != UINT32_MAX && n < 4096; i = st->nodes[i].parent) {
		enum stack_kind k = st->frames[st->nodes[i].frame].kind;
		if (k != SK_ROOT && k != SK_COMM)
			chain[n++] = st->nodes[i].frame;
	}
	json_begin_array(j, NULL);
	while (n-- > 0)
		json_u64(j, NULL, chain[n]);
	json_end_array(j);
}

static void write_profile(struct json *j, const struct stacks *st, size_t e, uint32_t t, const size_t *idx, size_t n)
{
	const struct stack_event *ev = &st->events[e];
	const struct stack_thread *th = &st->threads[t];
	struct strbuf name = STRBUF_INIT;
	sb_addf(&name, "%s: %s (pid %d, tid %d)", ev->name, th->comm, th->pid, th->tid);
	json_begin_object(j, NULL);
	json_str(j, "type", "sampled");
	json_str(j, "name", sb_str(&name));
	uint64_t start = 0, total = 0;
	if (ev->time_unit && n && ev->s[idx[0]].time >= st->first_time)
		start = ev->s[idx[0]].time - st->first_time;
	for (size_t i = 0; i < n; i++)
		total += ev->s[idx[i]].period;
	json_str(j, "unit", ev->time_unit ? "nanoseconds" : "none");
	json_u64(j, "startValue", start);
	json_u64(j, "endValue", start + total);
	json_begin_array(j, "samples");
	for (size_t i = 0; i < n; i++)
		write_stack(j, st, ev->s[idx[i]].node);
	json_end_array(j);
	json_begin_array(j, "weights");
	for (size_t i = 0; i < n; i++)
		json_u64(j, NULL, ev->s[idx[i]].period);
	json_end_array(j);
	json_end_object(j);
	sb_release(&name);
}

/* The index among the profiles written (one per event and thread with samples) of the one with
 * the most samples: speedscope opens on it, not on a main thread that only waited. */
static size_t busiest_profile(const struct stacks *st)
{
	size_t at = 0, best = 0, most = 0;
	for (size_t e = 0; e < st->nevents; e++) {
		size_t *idx, *start;
		stacks_by_thread(st, e, &idx, &start);
		for (size_t t = 0; t < st->nthreads; t++) {
			size_t n = start[t + 1] - start[t];
			if (!n)
				continue;
			if (n > most) {
				most = n;
				best = at;
			}
			at++;
		}
		free(idx);
		free(start);
	}
	return best;
}

void speedscope_write(FILE *f, const struct stacks *st)
{
	struct json j;
	json_init(&j, f, false);
	json_begin_object(&j, NULL);
	json_str(&j, "$schema", "https://www.speedscope.app/file-format-schema.json");
	json_str(&j, "name", st->command ? st->command : "lperf");
	char exporter[64];
	snprintf(exporter, sizeof(exporter), "lperf %s", sysinfo_version());
	json_str(&j, "exporter", exporter);
	json_u64(&j, "activeProfileIndex", busiest_profile(st));
	json_begin_object(&j, "shared");
	json_begin_array(&j, "frames");
	for (size_t i = 0; i < st->nframes; i++) {
		const struct stack_frame *fr = &st->frames[i];
		json_begin_object(&j, NULL);
		json_str(&j, "name", fr->kind == SK_PYTHON ? fr->func : fr->name);
		if (fr->file)
			json_str(&j, "file", fr->file);
		if (fr->kind == SK_PYTHON && fr->line) /* the Python view: a frame per function and line */
			json_u64(&j, "line", fr->line);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_begin_array(&j, "profiles");
	for (size_t e = 0; e < st->nevents; e++) {
		size_t *idx, *start;
		stacks_by_thread(st, e, &idx, &start);
		for (size_t t = 0; t < st->nthreads; t++)
			if (start[t + 1] > start[t])
				write_profile(&j, st, e, (uint32_t)t, idx + start[t], start[t + 1] - start[t]);
		free(idx);
		free(start);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
