/* Helpers for unit tests that write recordings of themselves (test_spe_c2c.c, test_mem_x86.c):
 * the test binary's own executable mapping, so that the recording's samples name its functions,
 * and a writer step that must succeed. Include after cmocka.h. */
#ifndef LPERF_TESTS_SELFMAP_TEST_H
#define LPERF_TESTS_SELFMAP_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "record/record.h"
#include "util/xalloc.h"

/* The executable mapping of this process's own file into m (start, len, pgoff) and its path
 * into exe; -1 when /proc/self cannot tell. */
static int selfmap_text(struct rec_mmap *m, char *exe, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t el = readlink("/proc/self/exe", exe, n - 1);
	char line[1024];
	int found = -1;
	if (!f || el <= 0) {
		if (f)
			fclose(f);
		return -1;
	}
	exe[el] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long st, e, off;
		char perms[8], file[512] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &st, &e, perms, &off, file) >= 4 &&
		    perms[2] == 'x' && !strcmp(file, exe)) {
			m->start = st;
			m->len = e - st;
			m->pgoff = off;
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static void selfmap_put(struct perfdata_writer *w, const void *rec, size_t n)
{
	assert_true(n > 0);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
}

/* Writes a recording with write(path): kept at $env when that is set (for an e2e test that
 * compares lperf's reading with perf's), else in a temporary directory removed afterwards. */
static void selfmap_write_kept(const char *env, void (*write)(const char *path))
{
	const char *keep = getenv(env);
	char tmpl[] = "/tmp/lperf-selfmap.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *path = keep && *keep ? xstrdup(keep) : xasprintf("%s/out.data", dir);
	write(path);
	if (!keep || !*keep)
		unlink(path);
	rmdir(dir);
	free(path);
}

#endif
