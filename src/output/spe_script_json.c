/* lperf script --json on an Arm SPE recording: one object per decoded record with every field
 * the decoder found (docs/schemas/spe-script.schema.json). With --itrace, only the records that
 * produce the chosen events, each with the events perf would synthesise from it. */
#include <inttypes.h>

#include "output/json.h"
#include "output/spe_out.h"
#include "spe/spe.h"

static void opt_u64(struct json *j, const struct spe_record *r, unsigned bit, const char *key, uint64_t v)
{
	if (r->valid & bit)
		json_u64(j, key, v);
	else
		json_null(j, key);
}

static void record_json(struct json *j, const struct spe_sample *s, unsigned kinds, bool with_kinds)
{
	const struct spe_record *r = &s->r;
	char buf[256];
	json_begin_object(j, NULL);
	json_str(j, "comm", s->comm);
	json_u64(j, "pid", s->pid);
	json_u64(j, "tid", s->tid);
	json_u64(j, "cpu", s->cpu);
	json_u64(j, "offset", r->offset);
	json_u64(j, "pc", r->pc);
	json_u64(j, "el", r->el);
	json_str(j, "symbol", s->sym);
	if (s->sym)
		json_u64(j, "symbol_offset", s->sym_off);
	else
		json_null(j, "symbol_offset");
	json_str(j, "dso", s->dso);
	if (r->valid & SPE_HAS_OP) {
		json_str(j, "op", spe_op_name(r->op_class, r->op, buf, sizeof(buf)));
		json_str(j, "op_kind", spe_op_short(r->op_class, r->op));
	} else {
		json_null(j, "op");
		json_null(j, "op_kind");
	}
	json_begin_array(j, "events");
	for (unsigned b = 0; b < 64; b++) {
		if (!(r->events >> b & 1))
			continue;
		const char *n = spe_event_name(b);
		if (n) {
			json_str(j, NULL, n);
		} else {
			snprintf(buf, sizeof(buf), "bit%u", b);
			json_str(j, NULL, buf);
		}
	}
	json_end_array(j);
	json_begin_object(j, "latency");
	opt_u64(j, r, SPE_HAS_LAT_TOTAL, "total", r->lat_total);
	opt_u64(j, r, SPE_HAS_LAT_ISSUE, "issue", r->lat_issue);
	opt_u64(j, r, SPE_HAS_LAT_XLAT, "translation", r->lat_xlat);
	json_end_object(j);
	opt_u64(j, r, SPE_HAS_VA, "data_va", r->data_va);
	opt_u64(j, r, SPE_HAS_PA, "data_pa", r->data_pa);
	opt_u64(j, r, SPE_HAS_DS, "data_source", r->data_source);
	json_str(j, "data_source_name", r->valid & SPE_HAS_DS ? spe_data_source_name(r->data_source) : NULL);
	opt_u64(j, r, SPE_HAS_BR_TGT, "branch_target", r->br_target);
	opt_u64(j, r, SPE_HAS_PREV_BR, "previous_branch", r->prev_branch);
	opt_u64(j, r, SPE_HAS_TS, "timestamp", r->timestamp);
	opt_u64(j, r, SPE_HAS_CONTEXT, "context", r->context);
	if (with_kinds) {
		json_begin_array(j, "synthesized");
		for (int k = 0; k < SPE_K_N; k++)
			if (kinds & (1u << k))
				json_str(j, NULL, spe_kind_name((enum spe_kind)k));
		json_end_array(j);
	}
	json_end_object(j);
}

void spe_print_script_json(FILE *f, const struct spe_data *d, const struct spe_itrace *it)
{
	struct json j;
	json_init(&j, f, false);
	json_begin_object(&j, NULL);
	spe_json_summary(&j, d, NULL);
	json_begin_array(&j, "records");
	for (size_t i = 0; i < d->n; i++) {
		unsigned kinds = it->given ? spe_record_kinds(&d->v[i].r, it) : 0;
		if (!it->given || kinds)
			record_json(&j, &d->v[i], kinds, it->given);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
