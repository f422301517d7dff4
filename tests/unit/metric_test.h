/* Helpers shared by the metric unit tests: named input values for metric_eval and a
 * tolerant comparison of doubles. */
#ifndef LPERF_TESTS_METRIC_TEST_H
#define LPERF_TESTS_METRIC_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Values for lookup, "name=value,name=value" ("#slots=8" and duration_time included). */
struct vars {
	char name[16][64];
	double val[16];
	int n;
};

static inline void vars_set(struct vars *v, const char *spec)
{
	memset(v, 0, sizeof(*v));
	char *copy = xstrdup(spec), *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		assert_non_null(eq);
		assert_true(v->n < 16);
		snprintf(v->name[v->n], sizeof(v->name[0]), "%.*s", (int)(eq - tok), tok);
		v->val[v->n++] = strtod(eq + 1, NULL);
	}
	free(copy);
}

static inline double vars_lookup(const char *name, void *arg)
{
	const struct vars *v = arg;
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->name[i], name))
			return v->val[i];
	return NAN;
}

static inline void assert_near(double got, double want)
{
	double tol = fabs(want) * 1e-12 + 1e-12;
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g", got, want);
}

#endif
