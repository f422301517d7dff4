/* lperf stat --dry-run: the events resolved, nothing opened. */
#include <stdio.h>
#include <string.h>

#include "output/stat_out.h"
#include "output/table.h"
#include "util/xalloc.h"

void statout_dry_run(FILE *f, const struct evlist *l)
{
	const char *cols[] = { "event", "pmu", ">type", ">config", ">config1", ">config2", "modifiers",
			       "group", ">period", "encoding" };
	struct table t;
	table_init(&t, ARRAY_SIZE(cols), cols);
	t.indent = 8;
	t.underline = true;
	for (size_t e = 0; e < l->n; e++) {
		const struct ev *ev = &l->ev[e];
		const struct perf_event_attr *a = &ev->attr;
		char type[16], c0[32], c1[32], c2[32], mods[16] = "", group[48], period[32];
		snprintf(type, sizeof(type), "%u", a->type);
		snprintf(c0, sizeof(c0), "%#llx", (unsigned long long)a->config);
		snprintf(c1, sizeof(c1), "%#llx", (unsigned long long)a->config1);
		snprintf(c2, sizeof(c2), "%#llx", (unsigned long long)a->config2);
		if (!a->exclude_user)
			strcat(mods, "u");
		if (!a->exclude_kernel)
			strcat(mods, "k");
		if (!a->exclude_hv)
			strcat(mods, "h");
		if (ev->group >= 0)
			snprintf(group, sizeof(group), "g%d%s", ev->group, ev->leader == e ? " (leader)" : "");
		else
			snprintf(group, sizeof(group), "-");
		snprintf(period, sizeof(period), "%llu", (unsigned long long)ev->period);
		const char *cells[] = { ev->name, ev->pmu ? ev->pmu : "", type, c0, c1, c2, mods, group,
					ev->period ? period : "-", ev->encoding ? ev->encoding : "" };
		table_row(&t, cells);
	}
	fprintf(f, "\n Events resolved (nothing opened):\n\n");
	table_print(&t, f);
	table_free(&t);
}
