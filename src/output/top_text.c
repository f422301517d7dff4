/* lperf top's text (output/top_out.h): perf top's "Overhead  Shared Object  Symbol" rows
 * ("Children  Self" with -g), and py-spy top's "%Own %Total OwnTime TotalTime Function" with
 * --python. */
#include <inttypes.h>

#include "analysis/hist.h"
#include "output/top_out.h"

static double share(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

void top_status_line(struct strbuf *sb, const struct top_view *t, const struct top_status *st)
{
	sb_addf(sb, "Samples: %" PRIu64 " of event '%s'", t->samples, st->event);
	if (st->freq)
		sb_addf(sb, ", %" PRIu64 " Hz", st->freq);
	sb_addf(sb, ", lost: %" PRIu64 ", %.0f samples/s, target: %s", st->lost, st->samples_per_s, st->target);
}

void top_status_cost(struct strbuf *sb, const struct top_status *st)
{
	sb_addf(sb, "refresh %.1fs, lperf top itself: %.1f%% of a CPU", st->interval_s, st->self_cpu);
}

void top_table_title(struct strbuf *sb, const struct top_view *t)
{
	if (t->python)
		sb_adds(sb, "  %Own   %Total  OwnTime  TotalTime  Function (filename:line)");
	else if (t->children)
		sb_addf(sb, "%10s  %8s  %-20s  %s", "Children", "Self", "Shared Object", "Symbol");
	else
		sb_addf(sb, "%10s  %-20s  %s", "Overhead", "Shared Object", "Symbol");
}

void top_table_row(struct strbuf *sb, const struct top_view *t, size_t i)
{
	const struct top_row *r = t->rows[i];
	char name[512];
	top_row_name(r, t->python, name, sizeof(name));
	if (t->python) {
		/* Own and total time as seconds of samples: the weights are nanoseconds of cpu-clock,
		 * or events for other events (shown as they are). */
		sb_addf(sb, "%6.2f%%  %6.2f%%  %6.2fs  %8.2fs   %s", share(r->self, t->sum), share(r->total, t->sum),
			r->self / 1e9, r->total / 1e9, name);
		return;
	}
	if (t->children)
		sb_addf(sb, "%9.2f%%  %7.2f%%  ", share(r->total, t->sum), share(r->self, t->sum));
	else
		sb_addf(sb, "%9.2f%%  ", share(r->self, t->sum));
	sb_addf(sb, "%-20s  [%c] %s", hist_dso_name(r->dso), r->kernel ? 'k' : '.', name);
}

void top_print(FILE *f, const struct top_view *t, const struct top_status *st, size_t max_rows)
{
	struct strbuf sb = STRBUF_INIT;
	top_status_line(&sb, t, st);
	sb_addc(&sb, '\n');
	top_status_cost(&sb, st);
	sb_adds(&sb, "\n\n");
	top_table_title(&sb, t);
	sb_addc(&sb, '\n');
	for (size_t i = 0, shown = 0; i < t->n && (!max_rows || shown < max_rows); i++) {
		const struct top_row *r = t->rows[i];
		if (share(t->children ? r->total : r->self, t->sum) < 0.005)
			continue;
		top_table_row(&sb, t, i);
		sb_addc(&sb, '\n');
		shown++;
	}
	sb_addc(&sb, '\n');
	fputs(sb_str(&sb), f);
	fflush(f);
	sb_release(&sb);
}
