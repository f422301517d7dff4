/* Fuzz harness: metric formulas and metric files. The input's first byte picks the mode:
 *   even: a formula (the grammar at the top of src/events/metric.h: + - * / ( ), numbers,
 *         event names, #constants, duration_time): parsed, its events listed, evaluated with counts
 *         derived from the event names (zeros and NaN included, so divisions by zero and
 *         missing inputs are exercised)
 *   odd:  a metric file (name = formula ; unit ; description, name:{events}, group lines,
 *         comments), then a -m list after the first NUL byte of the input, expanded over the
 *         built-in metrics and the file's.
 * Seeds: the metric files of tests/fixtures/metrics and formulas of the built-in tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/metric.h"
#include "fuzz.h"
#include "util/error.h"

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (asprintf(&path, "%s/metrics.txt", fuzz_tmpdir()) < 0)
		abort();
	return 0;
}

static double lookup(const char *name, void *arg)
{
	(void)arg;
	size_t h = 0;
	for (const char *p = name; *p; p++)
		h = h * 31 + (unsigned char)*p;
	switch (h % 5) {
	case 0: return 0;
	case 1: return NAN;
	case 2: return 1e300;
	default: return (double)(h % 100000);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path)
		LLVMFuzzerInitialize(NULL, NULL);
	if (!size || size > 65536)
		return 0;
	if (!(data[0] & 1)) {
		char *f = fuzz_strndup(data + 1, size - 1);
		struct metric_expr *e = metric_parse(f);
		if (e) {
			char **names = NULL;
			size_t n = 0;
			metric_expr_events(e, &names, &n);
			for (size_t i = 0; i < n; i++)
				free(names[i]);
			free(names);
			(void)metric_eval(e, lookup, NULL);
			metric_expr_free(e);
		}
		free(f);
		err_clear();
		return 0;
	}
	const uint8_t *nul = memchr(data + 1, 0, size - 1);
	size_t flen = nul ? (size_t)(nul - data - 1) : size - 1;
	fuzz_write(path, data + 1, flen);
	char *list = nul ? fuzz_strndup(nul + 1, size - (size_t)(nul + 1 - data)) : NULL;
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	if (metric_set_load_file(&s, path) == 0 && list) {
		const struct metric **out = NULL;
		long n = metric_expand(&s, list, &out);
		for (long i = 0; i < n; i++)
			if (out[i]->expr)
				(void)metric_eval(out[i]->expr, lookup, NULL);
		free(out);
	}
	metric_set_free(&s);
	free(list);
	err_clear();
	return 0;
}
