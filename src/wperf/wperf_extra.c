#include "wperf/wperf_extra.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "events/evlist.h"
#include "events/metric.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

/* The raw code of name in extra ("n1:0x12,n2:0x34", newlines allowed), or NULL. */
static const char *extra_code(const char *extra, const char *name, size_t nlen, size_t *clen)
{
	const char *p = extra;
	while (*p) {
		while (*p && (*p == ',' || isspace((unsigned char)*p)))
			p++;
		const char *colon = strchr(p, ':');
		if (!colon)
			return NULL;
		const char *code = colon + 1;
		size_t n = strcspn(code, ",\n\r \t");
		if ((size_t)(colon - p) == nlen && !strncasecmp(p, name, nlen)) {
			*clen = n;
			return code;
		}
		p = code + n;
	}
	return NULL;
}

static int check_extra(const char *extra)
{
	const char *p = extra;
	while (*p) {
		while (*p && (*p == ',' || isspace((unsigned char)*p)))
			p++;
		if (!*p)
			break;
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		const char *colon = strchr(p, ':');
		size_t item = strcspn(p, ",\n");
		if (!colon || (size_t)(colon - p) >= item)
			return err_set("-E: '%.*s' is not NAME:0xHEX", (int)item, p);
		char *end;
		strtoull(colon + 1, &end, 16);
		if (end == colon + 1)
			return err_set("-E: '%.*s': the code is not a hex number", (int)item, p);
		p += item;
	}
	return 0;
}

int wperf_apply_extra(const char *spec, const char *extra, struct strbuf *out)
{
	const char *p = spec;
	while (*p) {
		size_t n = strcspn(p, ",{}:");
		size_t clen;
		const char *code = n ? extra_code(extra, p, n, &clen) : NULL;
		if (code) {
			const char *hex = clen > 2 && code[0] == '0' && (code[1] == 'x' || code[1] == 'X')
						  ? code + 2 : code;
			sb_addf(out, "r%.*s", (int)(clen - (size_t)(hex - code)), hex);
		} else {
			sb_add(out, p, n);
		}
		p += n;
		/* Copy separators; after ':' the modifier/period is copied as is. */
		if (*p == ':') {
			size_t m = strcspn(p, ",{}");
			sb_add(out, p, m);
			p += m;
		} else if (*p) {
			sb_addc(out, *p++);
		}
	}
	return 0;
}

/* Whether the list already has the cycle counter under one of its names. */
static bool names_cycles(const char *spec)
{
	/* Not cpu_cycles: the PMU event 0x11 on a general counter, which wperf counts beside
	 * the fixed cycle counter. */
	static const char *const names[] = { "cycles", "cpu-cycles", "cycle" };
	for (const char *p = spec; *p;) {
		size_t n = strcspn(p, ",{}:");
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			if (n == strlen(names[i]) && !strncasecmp(p, names[i], n))
				return true;
		p += n;
		while (*p && strchr(",{}", *p) == NULL)
			p++;
		if (*p)
			p++;
	}
	return false;
}

static void join(struct strbuf *sb, const char *s)
{
	if (sb->len)
		sb_addc(sb, ',');
	sb_adds(sb, s);
}

int wperf_build_events(const struct wperf_args *a, struct strbuf *events, struct strbuf *metrics)
{
	char *extra = NULL;
	if (a->extra_events) {
		struct stat st;
		if (stat(a->extra_events, &st) == 0 && S_ISREG(st.st_mode)) {
			extra = file_read(a->extra_events, 1 << 20, NULL);
			if (!extra)
				return err_set("-E: cannot read '%s'", a->extra_events);
		} else {
			extra = xstrdup(a->extra_events);
		}
		if (check_extra(extra) < 0) {
			free(extra);
			return -1;
		}
	}
	/* Metrics, the uncore l3_cache and ddr_bw among them, are stat's (events/metric_arm.c). */
	if (a->metrics.len)
		join(metrics, sb_str(&a->metrics));
	if (a->events.len) {
		struct strbuf e = STRBUF_INIT;
		if (extra)
			wperf_apply_extra(sb_str(&a->events), extra, &e);
		else
			sb_adds(&e, sb_str(&a->events));
		join(events, sb_str(&e));
		sb_release(&e);
	}
	free(extra);
	/* wperf always counts the fixed cycle counter (once). */
	if (ev_have_hw_pmu() && (events->len || metrics->len) && !names_cycles(sb_str(events))) {
		struct strbuf e = STRBUF_INIT;
		sb_adds(&e, "cycles");
		if (events->len)
			join(&e, sb_str(events));
		sb_reset(events);
		sb_adds(events, sb_str(&e));
		sb_release(&e);
	}
	return 0;
}

int wperf_counters(void)
{
	struct sysinfo si;
	sysinfo_collect(&si, 0);
	int n = si.gpc_num > 0 ? si.gpc_num : 0;
	sysinfo_free(&si);
	return n;
}

int wperf_schedule(const struct wperf_args *a, int counters, struct evlist *l)
{
	struct strbuf ev = STRBUF_INIT, met = STRBUF_INIT;
	memset(l, 0, sizeof(*l));
	int r = wperf_build_events(a, &ev, &met);
	if (r == 0 && ev.len && evlist_parse(l, sb_str(&ev)) < 0)
		r = -1;
	if (r == 0 && met.len) {
		/* Each metric's events as one group named after it, as stat schedules them. */
		struct metric_set ms = { 0 };
		metric_set_builtin(&ms);
		metric_set_wperf_simple(&ms, counters);
		const struct metric **m = NULL;
		long n = (!a->metric_file || metric_set_load_file(&ms, a->metric_file) == 0)
				 ? metric_expand(&ms, sb_str(&met), &m) : -1;
		for (long i = 0; i < n && r == 0; i++)
			if (evlist_add_metric_events(l, (const char *const *)m[i]->events,
						     m[i]->nevents, m[i]->name, m[i]->nevents > 1) < 0)
				r = -1;
		free(m);
		metric_set_free(&ms);
		if (n < 0)
			r = -1;
	}
	sb_release(&ev);
	sb_release(&met);
	return r;
}
