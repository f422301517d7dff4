/* Fuzz harness: sysfs PMU format and event parsing. The input describes one PMU directory,
 * written under a scratch LPERF_SYSFS_ROOT as bus/event_source/devices/fz/; its parts are
 * separated by NUL bytes:
 *   part 0             a term list for the PMU ("event=0x3c,umask=1,period=1000,name=x")
 *   parts 1,2  3,4 ... pairs of relative path and contents: "type", "cpus", "format/umask",
 *                      "events/cycles", "events/cycles.scale", "caps/slots" (other paths and
 *                      names with characters outside [A-Za-z0-9_.-] are dropped)
 * Then the table is loaded (formats parsed into bit masks, events with .unit/.scale), the term
 * list is encoded (pmu_encode), the same through the -e grammar ("fz/TERMS/"), every event is
 * encoded by name, and pmu_terms_list is built. Seeds: the fixture trees' PMUs (AMD, Arm, VM). */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "events/evlist.h"
#include "events/pmu.h"
#include "fuzz.h"
#include "util/error.h"

static char *root, *dev;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (asprintf(&root, "%s/sysfs", fuzz_tmpdir()) < 0 ||
	    asprintf(&dev, "%s/bus/event_source/devices/fz", root) < 0)
		abort();
	setenv("LPERF_SYSFS_ROOT", root, 1);
	return 0;
}

static int name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

static void put(const char *rel, const uint8_t *data, size_t size)
{
	const char *slash = strchr(rel, '/');
	char *p = NULL;
	if (!slash) {
		if (strcmp(rel, "type") && strcmp(rel, "cpus") && strcmp(rel, "cpumask"))
			return;
	} else if (strncmp(rel, "format/", 7) && strncmp(rel, "events/", 7) && strncmp(rel, "caps/", 5)) {
		return;
	} else if (!name_ok(slash + 1)) {
		return;
	}
	if (asprintf(&p, "%s/%s", dev, rel) < 0)
		abort();
	fuzz_write(p, data, size);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size > 65536)
		return 0;
	fuzz_rmtree(root);
	char *d = NULL;
	const char *dirs[] = { "", "/format", "/events", "/caps" };
	for (size_t i = 0; i < 4; i++) {
		if (asprintf(&d, "%s%s", dev, dirs[i]) < 0)
			abort();
		char *cmd = d;
		for (char *s = cmd + 1; *s; s++)
			if (*s == '/') {
				*s = 0;
				mkdir(cmd, 0700);
				*s = '/';
			}
		mkdir(d, 0700);
		free(d);
	}
	/* Split into parts. */
	const uint8_t *p = data, *end = data + size;
	const uint8_t *q = memchr(p, 0, size);
	char *terms = fuzz_strndup(p, q ? (size_t)(q - p) : size);
	p = q ? q + 1 : end;
	int have_type = 0;
	while (p < end) {
		q = memchr(p, 0, (size_t)(end - p));
		char *rel = fuzz_strndup(p, q ? (size_t)(q - p) : (size_t)(end - p));
		p = q ? q + 1 : end;
		q = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
		const uint8_t *c = p;
		size_t clen = q ? (size_t)(q - p) : (size_t)(end - p);
		p = q ? q + 1 : end;
		have_type |= !strcmp(rel, "type");
		put(rel, c, clen);
		free(rel);
	}
	if (!have_type)
		put("type", (const uint8_t *)"4\n", 2);

	pmu_table_reset();
	(void)pmu_table();
	const struct pmu *pm = pmu_find("fz");
	if (pm) {
		struct perf_event_attr attr = { 0 };
		struct pmu_extra x = { 0 };
		(void)pmu_encode(pm, terms, &attr, &x);
		free(x.name);
		free(pmu_terms_list(pm));
		for (size_t i = 0; i < pm->nev && i < 64; i++) {
			memset(&attr, 0, sizeof(attr));
			struct pmu_extra y = { 0 };
			(void)pmu_encode(pm, pm->ev[i].name, &attr, &y);
			free(y.name);
		}
		(void)pmu_single_core();
		if (strlen(terms) < 1024) {
			char *spec = NULL;
			if (asprintf(&spec, "fz/%s/", terms) < 0)
				abort();
			struct evlist l = { 0 };
			(void)evlist_parse(&l, spec);
			evlist_free(&l);
			free(spec);
		}
	}
	free(terms);
	pmu_table_reset();
	err_clear();
	return 0;
}
