/* Helpers for tests that build real ELF files at run time with cc and binutils, and use their
 * tools (nm, readelf, objdump) as the oracle for what lperf reads. */
#ifndef LPERF_TESTS_ELF_TEST_H
#define LPERF_TESTS_ELF_TEST_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

static char et_dir[] = "/tmp/lperf-elf-XXXXXX";

static const char *et_mkdir(void)
{
	if (!mkdtemp(et_dir))
		return NULL;
	return et_dir;
}

static void et_rmdir(void)
{
	char *cmd = xasprintf("rm -rf '%s'", et_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: cannot remove %s\n", et_dir);
	free(cmd);
}

/* A path in the test directory; the caller frees it. */
static char *et_path(const char *name)
{
	return xasprintf("%s/%s", et_dir, name);
}

static int et_write(const char *name, const char *text)
{
	char *p = et_path(name);
	FILE *f = fopen(p, "w");
	free(p);
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Runs a shell command in the test directory; 0 on success. */
static int et_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int et_sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *body = NULL;
	if (vasprintf(&body, fmt, ap) < 0)
		body = NULL;
	va_end(ap);
	if (!body)
		return -1;
	char *cmd = xasprintf("cd '%s' && { %s ; } >/dev/null 2>&1", et_dir, body);
	int r = system(cmd);
	free(cmd);
	free(body);
	return r;
}

/* The first line of a command's output (run in the test directory), trailing newline removed;
 * NULL when it printed nothing. */
static char *et_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *et_out(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *body = NULL;
	if (vasprintf(&body, fmt, ap) < 0)
		body = NULL;
	va_end(ap);
	if (!body)
		return NULL;
	char *cmd = xasprintf("cd '%s' && %s 2>/dev/null", et_dir, body);
	free(body);
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, p);
	pclose(p);
	if (n <= 0) {
		free(line);
		return NULL;
	}
	if (line[n - 1] == '\n')
		line[n - 1] = 0;
	return line;
}

/* A symbol's value per nm (0 when absent). */
static uint64_t et_nm(const char *file, const char *sym)
{
	char *s = et_out("nm '%s' | awk '$3 == \"%s\" { print $1; exit }'", file, sym);
	uint64_t v = s ? strtoull(s, NULL, 16) : 0;
	free(s);
	return v;
}

struct et_load {
	uint64_t offset, vaddr, filesz;
};

/* The PT_LOAD segment holding vaddr, per readelf. */
static int et_load_of(const char *file, uint64_t vaddr, struct et_load *out)
{
	char *cmd = xasprintf("cd '%s' && readelf -lW '%s'", et_dir, file);
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -1;
	char line[512];
	int r = -1;
	while (fgets(line, sizeof(line), p)) {
		uint64_t off, va, pa, fsz, msz;
		if (sscanf(line, " LOAD 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64, &off, &va,
			   &pa, &fsz, &msz) == 5 &&
		    vaddr >= va && vaddr < va + msz && r < 0) {
			*out = (struct et_load){ off, va, fsz };
			r = 0;
		}
	}
	pclose(p);
	return r;
}

#endif
