/* WindowsPerf's checks of a command line, in its words, which scripts and its test suite match
 * (the messages of wperf/parsers.cpp, user_request.cpp and main.cpp; read, not copied):
 *   at -e (in the order of the line): SPE filters (arm_spe_N/NAME=VALUE,.../), each sampling
 *   interval (EVENT:N, at most 0xFFFFFFFF), the number of sampling events against the counters;
 *   after the line: a sampled process named (record's command or --pe_file), one core for
 *   sampling, cores that exist, and stat's events.
 * lperf's own grammar (events/evlist.c) is looser (a bare `ld` means ld=1, as in perf); these
 * checks are the wperf personality's only. */
#include "wperf/wperf.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/spe_terms.h"
#include "events/wperf_spell.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* WindowsPerf's SPE filters and the largest value each takes (PMSLATFR's MINLAT is 16 bits);
 * the other terms of Linux's arm_spe PMU are lperf's and are checked by the -e grammar. */
static const struct {
	const char *name, *alias;
	long max;
} spe_filters[] = {
	{ "load_filter", "ld", 1 },  { "store_filter", "st", 1 }, { "branch_filter", "b", 1 },
	{ "ts_enable", "ts", 1 },    { "min_latency", "min", 0xffff },
};

/* A non-negative number as C++'s stoll(s, &pos, 0) reads it, but whole; false otherwise. */
static bool spe_value(const char *s, size_t n, long *v)
{
	char buf[32];
	if (!n || n >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	errno = 0;
	long long x = strtoll(buf, &end, 0);
	if (errno || *end || x > INT32_MAX)
		return false;
	*v = (long)x;
	return true;
}

/* One filter of arm_spe_N/.../: NAME=VALUE. */
static int spe_filter(const char *f, size_t n, const char *all, size_t alln)
{
	const char *eq = memchr(f, '=', n);
	if (!eq)
		return err_set("incorrect SPE filter: '%.*s' in %.*s", (int)n, f, (int)alln, all);
	size_t nl = (size_t)(eq - f);
	if (!nl)
		return err_set("incorrect SPE filter name: '%.*s'", (int)n, f);
	long v;
	if (!spe_value(eq + 1, n - nl - 1, &v))
		return err_set("incorrect SPE filter value: %.*s='%.*s'.", (int)nl, f,
			       (int)(n - nl - 1), eq + 1);
	for (size_t i = 0; i < ARRAY_SIZE(spe_filters); i++) {
		if ((strlen(spe_filters[i].name) != nl || strncmp(spe_filters[i].name, f, nl)) &&
		    (strlen(spe_filters[i].alias) != nl || strncmp(spe_filters[i].alias, f, nl)))
			continue;
		if (v > spe_filters[i].max)
			return err_set("SPE filter '%.*s' value out of range, use: 0-%ld", (int)nl, f,
				       spe_filters[i].max);
		return 0;
	}
	char term[64];
	snprintf(term, sizeof(term), "%.*s", (int)nl, f);
	if (!spe_term_info(term) && !spe_term_alias("arm_spe_0", term))
		return err_set("SPE filter '%s' unknown, use: load_filter, store_filter, "
			       "branch_filter, ts_enable, min_latency (ld, st, b, ts, min)", term);
	return 0;
}

/* arm_spe_N/FILTERS/ at p (its extent in *len); 1 when p is no SPE event. */
static int spe_event(const char *p, size_t *len)
{
	if (strncmp(p, "arm_spe", 7))
		return 1;
	const char *open = strchr(p, '/');
	const char *close = open ? strchr(open + 1, '/') : NULL;
	if (!close || memchr(p, ',', (size_t)(open - p)))
		return 1;
	*len = (size_t)(close + 1 - p);
	if (wperf_spe_pmu(NULL) < 0)
		return err_set("SPE is not supported by your hardware: %.*s", (int)*len, p);
	const char *all = open + 1;
	size_t alln = (size_t)(close - all);
	for (const char *f = all; f < close;) {
		const char *e = memchr(f, ',', (size_t)(close - f));
		if (!e)
			e = close;
		if (spe_filter(f, (size_t)(e - f), all, alln) < 0)
			return -1;
		f = e + 1;
	}
	return 0;
}

/* EVENT:INTERVAL's interval as C++'s stoul(s, nullptr, 0) reads it where unsigned long has 32
 * bits (WindowsPerf's), but whole. */
static int sample_interval(const char *s, size_t n)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1), s);
	bool hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
	bool ok = n < sizeof(buf) - 1 && (hex ? isxdigit((unsigned char)buf[2]) : isdigit((unsigned char)buf[0]));
	char *end = buf;
	errno = 0;
	unsigned long long v = ok ? strtoull(buf, &end, 0) : 0;
	if (!ok || *end)
		return err_set("event interval: %s is invalid!", buf);
	if (errno == ERANGE || v > 0xffffffffULL)
		return err_set("event interval: %s is out of range!", buf);
	return 0;
}

int wperf_check_events(const struct wperf_args *a, const char *spec, int counters)
{
	bool sampling = a->cmd && (!strcmp(a->cmd, "sample") || !strcmp(a->cmd, "record"));
	size_t nsample = 0;
	for (const char *p = spec; *p;) {
		while (*p == '{' || *p == ',' || *p == '}')
			p++;
		if (!*p)
			break;
		size_t len;
		int r = spe_event(p, &len);
		if (r < 0)
			return -1;
		if (r == 0) {
			p += len;
			p += strcspn(p, ",");
			continue;
		}
		size_t n = strcspn(p, ",{}");
		if (sampling) {
			/* The interval follows the last ':' outside a PMU's /terms/. */
			const char *slash = NULL, *colon = NULL;
			for (const char *q = p; q < p + n; q++) {
				if (*q == '/')
					slash = q;
				else if (*q == ':')
					colon = q;
			}
			if (colon && (!slash || colon > slash) &&
			    sample_interval(colon + 1, (size_t)(p + n - colon - 1)) < 0)
				return -1;
			nsample++;
		}
		p += n;
	}
	if (counters > 0 && nsample > (size_t)counters)
		return err_set("number of events requested exceeds the number of hardware PMU "
			       "counters(%d)", counters);
	return 0;
}

/* The unique cores of -c (cpuset_parse sorts and merges; a descending range a-b is b-a). */
static int cores_of(const char *list, struct cpuset *set)
{
	char *s = xstrdup(list);
	for (char *tok = s; *tok;) {
		char *comma = tok + strcspn(tok, ",");
		char *dash = memchr(tok, '-', (size_t)(comma - tok));
		if (dash && dash > tok) {
			long lo = strtol(tok, NULL, 10), hi = strtol(dash + 1, NULL, 10);
			if (lo > hi) { /* "3-1" -> "1-3", same length */
				char tmp[64];
				int w = snprintf(tmp, sizeof(tmp), "%ld-%ld", hi, lo);
				if (w == comma - tok)
					memcpy(tok, tmp, (size_t)w);
			}
		}
		tok = *comma ? comma + 1 : comma;
	}
	int r = cpuset_parse(s, set);
	free(s);
	if (r < 0)
		return err_set("option -c format not supported, use comma separated list of integers, "
			       "or range of integers");
	return 0;
}

int wperf_check_request(const struct wperf_args *a, int ncores)
{
	bool sampling = !strcmp(a->cmd, "sample") || !strcmp(a->cmd, "record");
	if (!sampling && strcmp(a->cmd, "stat"))
		return 0;
	if (sampling && !a->command && !a->pe_file)
		return err_set("no pid or process name specified, sample address are not de-ASLRed");
	struct cpuset cores = { 0 };
	if (a->cores && cores_of(a->cores, &cores) < 0)
		return -1;
	size_t n = a->cores ? cores.n : (size_t)ncores;
	int r = 0;
	if (sampling && n != 1)
		r = err_set("you can specify only one core for sampling");
	for (size_t i = 0; r == 0 && !a->dry_run && i < cores.n; i++)
		if (ncores > 0 && cores.cpu[i] >= ncores)
			r = err_set("core index %d not allowed. Use 0-%d, see option -c <n>", cores.cpu[i],
				    ncores - 1);
	cpuset_free(&cores);
	if (r == 0 && !sampling && !a->events.len && !a->metrics.len)
		r = err_set("no event specified");
	return r;
}

char *wperf_cores_list(const char *list)
{
	struct cpuset set = { 0 };
	if (cores_of(list, &set) < 0)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < set.n; i++)
		sb_addf(&sb, "%s%d", i ? "," : "", set.cpu[i]);
	cpuset_free(&set);
	return sb_detach(&sb);
}
