#include "output/diff_out.h"

#include <inttypes.h>

#include "output/json.h"

void diff_print_text(FILE *f, const struct stack_diff *d, const char *old_path, const char *new_path, size_t limit)
{
	fprintf(f, "# lperf diff: %s -> %s\n# event %s: %" PRIu64 " -> %" PRIu64 " samples; shares of each "
		   "run's samples, sorted by the size of the change\n#\n", old_path, new_path, d->event,
		d->old_total, d->new_total);
	fprintf(f, "#      Old       New    Change  %s\n", d->by_stack ? "Stack" : "Symbol");
	for (size_t i = 0; i < d->n && (!limit || i < limit); i++) {
		const struct diff_row *r = &d->rows[i];
		fprintf(f, "  %7.2f%%  %7.2f%%  %+7.2f  %s\n", r->old_pct, r->new_pct, r->new_pct - r->old_pct, r->key);
	}
	fflush(f);
}

void diff_print_json(FILE *f, const struct stack_diff *d, const char *old_path, const char *new_path, size_t limit)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	json_str(&j, "old", old_path);
	json_str(&j, "new", new_path);
	json_str(&j, "event", d->event);
	json_u64(&j, "old_samples", d->old_total);
	json_u64(&j, "new_samples", d->new_total);
	json_str(&j, "by", d->by_stack ? "stack" : "symbol");
	json_begin_array(&j, "rows");
	for (size_t i = 0; i < d->n && (!limit || i < limit); i++) {
		const struct diff_row *r = &d->rows[i];
		json_begin_object(&j, NULL);
		json_str(&j, d->by_stack ? "stack" : "symbol", r->key);
		json_double(&j, "old_percent", r->old_pct);
		json_double(&j, "new_percent", r->new_pct);
		json_double(&j, "change", r->new_pct - r->old_pct);
		json_u64(&j, "old_samples", r->old_n);
		json_u64(&j, "new_samples", r->new_n);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
