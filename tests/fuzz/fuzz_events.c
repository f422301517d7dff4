/* Fuzz harness: the -e grammar. The input's first byte picks a sysfs fixture tree (an AMD x86
 * machine, an Arm PMUv3 machine, a VM without a hardware PMU: tests/fixtures/sysfs-*) for
 * LPERF_SYSFS_ROOT; the rest is an event list as `-e` takes it: names (generic, raw rNNN,
 * libpfm4 names, PMU/terms/, tracepoints, metrics' duration_time), :modifiers, :period,
 * {groups}, commas. Parsed with evlist_parse (with the defaults stat applies), then every event
 * is looked up again by name, and unknown names produce suggestions. Seeds: the event strings of
 * the tests and the docs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/evlist.h"
#include "fuzz.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	fuzz_use_sysfs_fixture(size ? data[0] : 0);
	char *spec = fuzz_strndup(size ? data + 1 : data, size ? size - 1 : 0);
	struct evlist l = { 0 };
	if (evlist_parse(&l, spec) == 0) {
		evlist_set_default_excludes(&l, spec[0] & 1);
		for (size_t i = 0; i < l.n; i++)
			(void)evlist_find(&l, l.ev[i].name);
	}
	evlist_free(&l);
	free(spec);
	err_clear();
	return 0;
}
