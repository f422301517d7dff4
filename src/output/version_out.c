#include "output/version_out.h"

#include "output/json.h"
#include "output/table.h"
#include "util/xalloc.h"

void version_print_line(FILE *f, const struct sysinfo_component *c)
{
	fprintf(f, "lperf version %s (%s) %s\n", c[0].version, c[0].gitver, c[0].features);
}

void version_print_table(FILE *f, const struct sysinfo_component *c, size_t n)
{
	static const char *const cols[] = { "Component", "Version", "GitVer", "FeatureString" };
	struct table t;
	table_init(&t, ARRAY_SIZE(cols), cols);
	t.indent = 8;
	t.underline = true;
	for (size_t k = 0; k < n; k++)
		table_rowv(&t, c[k].name, c[k].version, c[k].gitver, c[k].features);
	table_print(&t, f);
	table_free(&t);
}

void version_print_json(FILE *f, const struct sysinfo_component *c, size_t n)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	json_begin_array(&j, "Version");
	for (size_t k = 0; k < n; k++) {
		json_begin_object(&j, NULL);
		json_str(&j, "Component", c[k].name);
		json_str(&j, "Version", c[k].version);
		json_str(&j, "GitVer", c[k].gitver);
		json_str(&j, "FeatureString", c[k].features);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}

void version_print_build_options(FILE *f, const struct sysinfo_component *c)
{
	const struct sysinfo_build_option *o;
	size_t n = sysinfo_build_options(&o);
	version_print_line(f, c);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%22s: [ %-3s ]  # %s\n", o[i].name, o[i].on ? "on" : "OFF", o[i].macro);
}
