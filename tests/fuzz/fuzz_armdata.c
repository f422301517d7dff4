/* Fuzz harness: Arm's per-CPU PMU data (sysinfo/armdata.c), what `wperf man` reads. The input is
 * one file of the data: it is loaded as an events/metrics JSON file (with the fixture's
 * architecture events for its ArchStdEvent references, json-c strict and UTF-8 checked) and as
 * a mapfile.csv (whose CPUs are then looked up by name and by alias). Seeds: the fixture's files
 * (tests/fixtures/armdata). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sysinfo/armdata.h"
#include "util/error.h"
#include "util/xalloc.h"

static struct armdata std_events;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* The architecture's events of the fixture, as armdata_load gives a core's files. */
	armdata_load_file("tests/fixtures/armdata/recommended.json", NULL, &std_events);
	armdata_load_file("tests/fixtures/armdata/common-and-microarch.json", NULL, &std_events);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = xasprintf("%s/data.json", fuzz_tmpdir());
	fuzz_write(path, data, size);
	struct armdata d = { 0 };
	if (armdata_load_file(path, &std_events, &d) == 0) {
		for (size_t i = 0; i < d.nev; i++)
			(void)armdata_event(&d, d.ev[i].name);
		for (size_t i = 0; i < d.nm; i++) {
			(void)armdata_metric(&d, d.m[i].name);
			(void)armdata_in_group(&d.m[i], "MPKI");
		}
	}
	armdata_free(&d);
	free(path);

	path = xasprintf("%s/mapfile.csv", fuzz_tmpdir());
	fuzz_write(path, data, size);
	struct armdata_cpus c;
	if (armdata_cpus(fuzz_tmpdir(), &c) == 0) {
		free(armdata_cpu_names(&c));
		for (size_t i = 0; i < c.n; i++) {
			char *alias = xasprintf("%s-r1p0", c.c[i].name);
			(void)armdata_cpu_find(&c, alias);
			free(alias);
		}
	}
	armdata_cpus_free(&c);
	free(path);
	err_clear();
	return 0;
}
