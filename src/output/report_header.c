/* perf report --header: what a recording's header and feature sections say, in perf's words. */
#include <inttypes.h>

#include "output/attr_text.h"
#include "output/report_out.h"
#include "perfdata/perfdata.h"

static void desc_field(const char *name, const char *value, void *arg)
{
	fprintf(arg, ", %s = %s", name, value);
}

void report_print_header(FILE *f, const struct perfdata_reader *r)
{
	const struct perfdata_info *in = &r->info;
	fprintf(f, "# ========\n");
	if (in->hostname)
		fprintf(f, "# hostname : %s\n", in->hostname);
	if (in->osrelease)
		fprintf(f, "# os release : %s\n", in->osrelease);
	if (in->version)
		fprintf(f, "# perf version : %s\n", in->version);
	if (in->arch)
		fprintf(f, "# arch : %s\n", in->arch);
	if (in->nrcpus_online || in->nrcpus_avail)
		fprintf(f, "# nrcpus online : %u\n# nrcpus avail : %u\n", in->nrcpus_online, in->nrcpus_avail);
	if (in->cpudesc)
		fprintf(f, "# cpudesc : %s\n", in->cpudesc);
	if (in->total_mem_kb)
		fprintf(f, "# total memory : %" PRIu64 " kB\n", in->total_mem_kb);
	if (in->ncmdline) {
		fprintf(f, "# cmdline :");
		for (size_t i = 0; i < in->ncmdline; i++)
			fprintf(f, " %s", in->cmdline[i]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->evsels.n; i++) {
		const struct evsel *e = &r->evsels.v[i];
		fprintf(f, "# event : name = %s, , id = {", e->name);
		for (size_t k = 0; k < e->nids; k++)
			fprintf(f, "%s %" PRIu64, k ? "," : "", e->ids[k]);
		fputs(" }", f);
		attr_for_each_field(&e->attr, desc_field, f); /* every field set, in perf's words */
		fputc('\n', f);
	}
	if (in->first_sample_time || in->last_sample_time)
		fprintf(f, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n# time of last sample : %" PRIu64
			   ".%06" PRIu64 "\n# sample duration : %10.3f ms\n",
			in->first_sample_time / 1000000000, in->first_sample_time % 1000000000 / 1000,
			in->last_sample_time / 1000000000, in->last_sample_time % 1000000000 / 1000,
			(double)(in->last_sample_time - in->first_sample_time) / 1e6);
	for (size_t i = 0; i < in->nbuildids; i++) {
		fprintf(f, "# build id : ");
		for (size_t k = 0; k < in->buildids[i].size && k < 20; k++)
			fprintf(f, "%02x", in->buildids[i].id[k]);
		fprintf(f, " %s\n", in->buildids[i].filename);
	}
	if (in->has_feature[FEAT_COMPRESSED])
		fprintf(f, "# compressed : %s, level = %u, ratio = %u\n", in->comp_type == 1 ? "Zstd" : "Unknown",
			in->comp_level, in->comp_ratio);
	if (in->has_feature[FEAT_LPERF_LOST])
		fprintf(f, "# lost of paused Python processes : %" PRIu64 " samples (the kernel's; lperf wrote "
			   "their samples itself)\n", in->lost_replaced);
	fprintf(f, "# features present:");
	for (int b = 1; b < FEAT_MAX; b++)
		if (in->has_feature[b])
			fprintf(f, " %s", perfdata_feature_name(b));
	fprintf(f, "\n# ========\n#\n");
}
