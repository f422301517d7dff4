/* report --json: one object per event (schema: docs/schemas/report.schema.json). */
#include <stdio.h>

#include "output/report_out.h"

static void node(struct json *j, const struct callnode *n, uint64_t total, int depth)
{
	json_begin_object(j, NULL);
	char name[512];
	hist_sym_name(n->sym, n->addr, name, sizeof(name));
	json_str(j, "symbol", name);
	json_str(j, "dso", hist_dso_name(n->dso));
	if (n->inlined)
		json_bool(j, "inlined", true);
	json_u64(j, "samples", n->samples);
	json_u64(j, "period", n->period);
	json_double(j, "percent", total ? 100.0 * (double)n->period / (double)total : 0.0);
	json_begin_array(j, "callers");
	/* Deep trees are cut at 256 levels: JSON readers have recursion limits too. */
	for (size_t i = 0; depth < 256 && i < n->nkids; i++)
		node(j, n->kids[i], total, depth + 1);
	json_end_array(j);
	json_end_object(j);
}

void report_json_section(struct json *j, const struct report_section *s, const struct report_opts *o)
{
	const struct hist *h = s->hist;
	uint64_t total = h->total_period;
	json_begin_object(j, NULL);
	json_str(j, "event", s->event);
	json_u64(j, "samples", s->samples);
	json_u64(j, "event_count", s->period);
	json_begin_array(j, "sort");
	for (size_t k = 0; k < h->nkeys; k++)
		json_str(j, NULL, hist_key_name(h->keys[k]));
	json_end_array(j);
	json_begin_array(j, "entries");
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		double self = total ? 100.0 * (double)e->period / (double)total : 0.0;
		double acc = total ? 100.0 * (double)e->acc_period / (double)total : 0.0;
		if ((o->children ? acc : self) < o->percent_limit)
			continue;
		json_begin_object(j, NULL);
		json_double(j, "overhead", self);
		if (o->children)
			json_double(j, "children", acc);
		json_u64(j, "samples", e->samples);
		json_u64(j, "period", e->period);
		for (size_t k = 0; k < h->nkeys; k++) {
			switch (h->keys[k]) {
			case HK_COMM: json_str(j, "comm", e->comm); break;
			case HK_PID: json_i64(j, "pid", e->pid); break;
			case HK_TID: json_i64(j, "tid", e->tid); break;
			case HK_CPU: json_i64(j, "cpu", e->cpu); break;
			case HK_DSO: json_str(j, "dso", hist_dso_name(e->dso)); break;
			case HK_SYM: {
				char name[512];
				hist_sym_name(e->sym, e->addr, name, sizeof(name));
				json_str(j, "symbol", name);
				json_bool(j, "kernel", e->kernel);
				if (e->inlined)
					json_bool(j, "inlined", true);
				break;
			}
			case HK_SRCLINE: json_str(j, "srcline", e->srcline ? e->srcline : ""); break;
			case HK_SRCFILE: json_str(j, "srcfile", e->srcfile ? e->srcfile : ""); break;
			case HK_TRACE: json_str(j, "trace", e->trace ? e->trace : ""); break;
			default:
				break;
			}
		}
		if (e->tree) {
			/* The callers of the entry: where the tree starts at the entry itself, its
			 * callers are below that root (roots that are functions inlined in it stay). */
			json_begin_array(j, "callchain");
			for (size_t c = 0; c < e->tree->nkids; c++) {
				const struct callnode *r = e->tree->kids[c];
				if (e->tree_has_self && !r->inlined && r->sym == e->sym && (e->sym || r->addr == e->addr))
					for (size_t k = 0; k < r->nkids; k++)
						node(j, r->kids[k], total, 0);
				else
					node(j, r, total, 0);
			}
			json_end_array(j);
		}
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}
