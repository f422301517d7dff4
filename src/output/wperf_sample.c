/* WindowsPerf's sampling JSON (wperf sample/record --json): {"sampling": {pe_file, pdb_file,
 * sample_display_row, samples_generated, samples_dropped, base_address, runtime_delta,
 * events: [{type, samples: [{overhead, count, symbol}], interval, printed_sample_num,
 * annotate: []}]}}. */
#include "output/wperf_out.h"

#include <stdlib.h>

#include "output/report_out.h"

void wperf_sample_json_begin(struct json *j, const struct wperf_sample_info *in)
{
	json_begin_object(j, NULL);
	json_begin_object(j, "sampling");
	json_str(j, "pe_file", in->pe_file ? in->pe_file : "");
	json_str(j, "pdb_file", in->pdb_file ? in->pdb_file : "");
	json_u64(j, "sample_display_row", in->display_rows);
	json_u64(j, "samples_generated", in->generated);
	json_u64(j, "samples_dropped", in->dropped);
	json_u64(j, "base_address", in->base_address);
	json_u64(j, "runtime_delta", in->runtime_delta);
	json_begin_array(j, "events");
}

void wperf_sample_json_event(struct json *j, const struct report_section *s,
			     const struct report_opts *o)
{
	struct report_wperf_row *rows;
	size_t n = report_wperf_rows(s, o, &rows);
	size_t shown = o->max_rows && o->max_rows < n ? o->max_rows : n;
	uint64_t total = s->hist->total_samples;
	json_begin_object(j, NULL);
	json_str(j, "type", s->event);
	json_begin_array(j, "samples");
	for (size_t i = 0; i < shown; i++) {
		json_begin_object(j, NULL);
		json_double(j, "overhead", total ? 100.0 * (double)rows[i].count / (double)total : 0.0);
		json_u64(j, "count", rows[i].count);
		json_str(j, "symbol", rows[i].name);
		json_end_object(j);
	}
	json_end_array(j);
	json_u64(j, "interval", s->sample_period);
	json_u64(j, "printed_sample_num", shown);
	/* Source lines per hot function come with --annotate (the annotate command's model). */
	json_begin_array(j, "annotate");
	json_end_array(j);
	json_end_object(j);
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
}

void wperf_sample_json_end(struct json *j)
{
	json_end_array(j);
	json_end_object(j);
	json_end_object(j);
	json_finish(j);
}
