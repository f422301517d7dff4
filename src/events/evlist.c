/* The -e grammar: comma-separated items, one level of {} groups, :u/:k/:h/:p modifiers and
 * WindowsPerf's :PERIOD suffix. Names are looked up by lookup.c. */
#include "events/evlist.h"
#include "events/tracepoint.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/lookup.h"
#include "events/pmu.h"
#include "events/wperf_spell.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define EV_NAME_MAX 1024      /* no event spelling comes near this */
#define EV_SPEC_MAX (1 << 20)
#define EV_MAX_PARTS 16       /* ':'-separated parts of one item */

/* What trails an event name: one set of modifiers and one period, in either order. */
struct suffix {
	char mods[8];
	uint64_t period;
	bool have_mods, have_period;
	bool weak; /* W: a weak group, split up when it cannot be opened as one */
};

/* 1 when part is a modifier set or a period and fits into sfx; 0 otherwise. */
static int suffix_part(const char *part, struct suffix *sfx)
{
	size_t n = strlen(part);
	if (n && strspn(part, "ukhpPW") == n) {
		if (sfx->have_mods || n >= sizeof(sfx->mods))
			return 0;
		size_t np = 0, nw = 0, nP = 0;
		for (const char *c = part; *c; c++) {
			np += *c == 'p';
			nw += *c == 'W';
			nP += *c == 'P';
		}
		if (np > 3 || nw > 1 || nP > 1 || (np && nP))
			return 0;
		sfx->weak = nw;
		memcpy(sfx->mods, part, n + 1);
		sfx->have_mods = true;
		return 1;
	}
	if (!n || !isdigit((unsigned char)part[0]) || sfx->have_period)
		return 0;
	int base = 10;
	const char *digits = part;
	if (part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
		base = 16;
		digits += 2;
	}
	if (!*digits || strspn(digits, base == 16 ? "0123456789abcdefABCDEF" : "0123456789") !=
	    strlen(digits))
		return 0;
	errno = 0;
	uint64_t v = strtoull(digits, NULL, base);
	if (errno || !v)
		return 0;
	sfx->period = v;
	sfx->have_period = true;
	return 1;
}

/* The PMU's caps/max_precise (x86 PMUs have it), else 3: the level :P asks for. */
static unsigned max_precise(const char *pmu)
{
	uint64_t v = 3;
	char *path = xasprintf("%s/bus/event_source/devices/%s/caps/max_precise", sysfs_root(), pmu ? pmu : "cpu");
	if (file_read_u64(path, &v) < 0 || v > 3)
		v = 3;
	err_clear();
	free(path);
	return (unsigned)v;
}

/* perf's get_event_modifier(): the first of u/k/h excludes every level, then each letter
 * includes its own, so :uk counts user and kernel; an event that already excludes some
 * levels (a group member with its own modifier) keeps the union. */
static void apply_mods(struct ev *ev, const char *mods)
{
	struct perf_event_attr *a = &ev->attr;
	int eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	int exclude = eu | ek | eh;
	for (const char *c = mods; *c; c++) {
		if (*c == 'p') {
			if (a->precise_ip < 3)
				a->precise_ip++;
			continue;
		}
		if (*c == 'P') { /* perf's "as precise as the PMU goes" */
			a->precise_ip = max_precise(ev->pmu);
			continue;
		}
		if (*c == 'W')
			continue; /* a group's property (group_suffix) */
		if (!exclude)
			exclude = eu = ek = eh = 1;
		if (*c == 'u')
			eu = 0;
		else if (*c == 'k')
			ek = 0;
		else if (*c == 'h')
			eh = 0;
		ev->user_mods = true;
	}
	a->exclude_user = eu & 1;
	a->exclude_kernel = ek & 1;
	a->exclude_hv = eh & 1;
}

static void apply_suffix(struct ev *ev, const struct suffix *sfx)
{
	if (sfx->have_mods)
		apply_mods(ev, sfx->mods);
	if (sfx->have_period)
		ev->period = sfx->period;
}

static int bad_modifier(const char *part, const char *item)
{
	return err_set("invalid modifier '%s' in '%s' (modifiers are u, k, h, p, P and W, given once "
		       "as in cycles:uk; a number sets the sampling period, as in ld_spec:100000)",
		       part, item);
}

/* Splits on ':' but keeps libpfm's "pmu::EVENT" separator inside a part. */
static int split_parts(const char *item, char **parts, size_t *n)
{
	*n = 0;
	struct strbuf cur = STRBUF_INIT;
	for (const char *p = item;; p++) {
		if (*p == ':' && p[1] == ':') {
			sb_add(&cur, "::", 2);
			p++;
			continue;
		}
		if (*p && *p != ':') {
			sb_addc(&cur, *p);
			continue;
		}
		if (*n == EV_MAX_PARTS) {
			sb_release(&cur);
			while (*n)
				free(parts[--*n]);
			return err_set("too many ':' in '%s'", item);
		}
		parts[(*n)++] = sb_detach(&cur);
		if (!*p)
			return 0;
	}
}

static char *join(char **parts, size_t k)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < k; i++) {
		if (i)
			sb_addc(&sb, ':');
		sb_adds(&sb, parts[i]);
	}
	return sb_detach(&sb);
}

/* The user's spelling without the period: base plus the modifiers. */
static void set_name(struct ev *ev, const char *base, const struct suffix *sfx, bool colon)
{
	free(ev->name);
	ev->name = sfx->have_mods ? xasprintf("%s%s%s", base, colon ? ":" : "", sfx->mods) :
		   xstrdup(base);
}

static int parse_item(const char *item, struct ev *ev);

/* perf's NAME//MODIFIERS: an event that is not a PMU with an empty term list, "task-clock//u",
 * "cycles//": the event NAME with the modifiers, named as spelled. 1 when item has that form,
 * 0 when it does not (a PMU, or terms), -1 with err_set(). */
static int parse_empty_terms(const char *item, struct ev *ev)
{
	const char *slash = strchr(item, '/');
	if (slash == item || slash[1] != '/' || strchr(slash + 2, '/'))
		return 0;
	char *name = xstrndup(item, (size_t)(slash - item));
	if (pmu_find(name)) {
		free(name);
		return 0;
	}
	const char *mods = slash + 2;
	if (*mods == ':')
		mods++;
	char *plain = *mods ? xasprintf("%s:%s", name, mods) : xstrdup(name);
	free(name);
	int r = parse_item(plain, ev);
	free(plain);
	if (r < 0)
		return -1;
	/* The name as spelled, without a period. */
	struct suffix sfx = { 0 };
	char *copy = xstrdup(slash + 2), *save = NULL;
	for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
		suffix_part(t, &sfx);
	free(copy);
	free(ev->name);
	ev->name = xasprintf("%.*s//%s", (int)(slash - item), item, sfx.have_mods ? sfx.mods : "");
	return 1;
}

/* pmu/terms/ followed by optional modifiers: "cpu/event=0x3c/u", "arm_spe_0//:100". */
static int parse_pmu_item(const char *item, struct ev *ev)
{
	int empty = parse_empty_terms(item, ev);
	if (empty)
		return empty > 0 ? 0 : -1;
	const char *last = strrchr(item, '/');
	if (item[0] == '/' && item[1] && item[1] != '/' && last != item)
		return err_set("'%s': a PMU event is written pmu/event/ (WindowsPerf's /pmu/event "
			       "spelling is not used here)", item);
	if (last == strchr(item, '/'))
		return err_set("malformed PMU event '%s' (expected pmu/event/ or "
			       "pmu/term=value,.../, e.g. armv8_pmuv3_0/event=0x70/)", item);
	const char *tail = last + 1;
	bool colon = *tail == ':';
	struct suffix sfx = { 0 };
	if (colon)
		tail++;
	char *copy = xstrdup(tail), *save = NULL;
	int r = 0;
	if (colon && !*tail)
		r = err_set("empty modifier after '/:' in '%s'", item);
	for (char *t = strtok_r(copy, ":", &save); t && !r; t = strtok_r(NULL, ":", &save))
		if (!suffix_part(t, &sfx))
			r = bad_modifier(t, item);
	free(copy);
	if (r)
		return -1;
	char *base = xstrndup(item, (size_t)(last - item) + 1);
	struct pmu_extra x = { 0 };
	r = ev_lookup_quiet(base, ev, &x);
	if (r == 0)
		r = ev_unknown(base);
	if (r > 0) {
		set_name(ev, base, &sfx, colon);
		if (x.name) {
			free(ev->name);
			ev->name = x.name;
			x.name = NULL;
		}
		if (x.period)
			ev->period = x.period;
		apply_suffix(ev, &sfx);
	}
	free(x.name);
	free(base);
	return r > 0 ? 0 : -1;
}

/* Resolves the longest ':'-prefix of item that names an event and reads the remaining parts
 * as modifiers and period, so that INST_RETIRED:ANY_P:u and sched:sched_switch:1000 work. */
static int parse_item(const char *item, struct ev *ev)
{
	memset(ev, 0, sizeof(*ev));
	size_t len = strlen(item);
	if (!len)
		return err_set("empty event name");
	if (len > EV_NAME_MAX)
		return err_set("event name of %zu characters is too long (at most %d): '%.40s...'",
			       len, EV_NAME_MAX, item);
	if (strchr(item, '/'))
		return parse_pmu_item(item, ev);
	char *parts[EV_MAX_PARTS];
	size_t n;
	if (split_parts(item, parts, &n) < 0)
		return -1;
	int ret = -1;
	for (size_t i = 0; i < n; i++) {
		if (!parts[i][0]) {
			err_set(i ? "empty modifier after ':' in '%s'" :
				    "event name missing before ':' in '%s'", item);
			goto out;
		}
	}
	/* parts[first..n) are all valid suffix parts */
	size_t first = n;
	struct suffix probe = { 0 };
	while (first > 1 && suffix_part(parts[first - 1], &probe))
		first--;
	char hard[1024] = "";
	for (size_t k = n; k >= first && k > 0; k--) {
		char *cand = join(parts, k);
		struct suffix sfx = { 0 };
		for (size_t i = k; i < n; i++)
			suffix_part(parts[i], &sfx);
		int r = ev_lookup_quiet(cand, ev, NULL);
		if (r > 0) {
			set_name(ev, cand, &sfx, true);
			apply_suffix(ev, &sfx);
			free(cand);
			ret = 0;
			goto out;
		}
		if (r < 0 && !hard[0])
			snprintf(hard, sizeof(hard), "%s", err_msg());
		free(cand);
	}
	/* Nothing matched. An event followed by what was meant as a modifier ("cycles:x",
	 * "cycles:u:k"): say so, unless a source gave a more precise reason. */
	const char *bad = first > 1 ? parts[first - 1] : "";
	bool modlike = strlen(bad) <= 8 && strspn(bad, "abcdefghijklmnopqrstuvwxyz0123456789") ==
		       strlen(bad);
	for (size_t k = first - 1; k >= 1 && first > 1 && (modlike || !hard[0]); k--) {
		char *cand = join(parts, k);
		struct ev probe_ev;
		int r = ev_lookup_quiet(cand, &probe_ev, NULL);
		if (r > 0)
			ev_free(&probe_ev);
		free(cand);
		if (r > 0) {
			bad_modifier(bad, item);
			goto out;
		}
	}
	if (hard[0]) {
		err_set("%s", hard);
	} else {
		char *cand = join(parts, first);
		ev_unknown(cand);
		free(cand);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(parts[i]);
	return ret;
}

static void append(struct evlist *l, struct ev *ev)
{
	ALLOC_GROW(l->ev, l->n + 1, l->cap);
	ev->group = -1;
	ev->leader = l->n;
	l->ev[l->n++] = *ev;
}

/* "sched:*" or "sched:sched_w*:u": every tracepoint the glob matches, each with the modifiers
 * after it, as perf expands it. 0 when item is no tracepoint glob, 1 when expanded, -1 on error. */
static int parse_tp_glob(struct evlist *l, const char *item)
{
	const char *c = strchr(item, ':');
	const char *end = c ? strchr(c + 1, ':') : NULL;
	char *glob = end ? xstrndup(item, (size_t)(end - item)) : xstrdup(item);
	if (!tp_is_glob(glob)) {
		free(glob);
		return 0;
	}
	char **names;
	size_t n = tp_glob(glob, &names);
	int ret = n ? 1 : err_set("no tracepoint matches '%s' (see 'lperf list --raw-dump tracepoint')", glob);
	for (size_t i = 0; i < n; i++) {
		char *one = xasprintf("%s%s", names[i], end ? end : "");
		struct ev ev;
		if (ret > 0 && parse_item(one, &ev) == 0)
			append(l, &ev);
		else
			ret = -1;
		free(one);
		free(names[i]);
	}
	free(names);
	free(glob);
	return ret;
}

/* Makes events [start, n) one group. The tool event is measured by lperf, never opened, so
 * it stays outside; the leader is the first event that is opened. */
static int close_group(struct evlist *l, size_t start)
{
	if (start == l->n)
		return err_set("empty group '{}'");
	size_t leader = l->n;
	for (size_t i = start; i < l->n && leader == l->n; i++)
		if (l->ev[i].source != EV_SRC_TOOL)
			leader = i;
	if (leader == l->n)
		return 0;
	int g = l->ngroups++;
	for (size_t i = start; i < l->n; i++) {
		if (l->ev[i].source == EV_SRC_TOOL)
			continue;
		l->ev[i].group = g;
		l->ev[i].leader = leader;
	}
	return 0;
}

static void truncate_list(struct evlist *l, size_t n, int ngroups)
{
	while (l->n > n)
		ev_free(&l->ev[--l->n]);
	l->ngroups = ngroups;
}

static const char *skip_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* The modifiers after a group's '}': "{a,b}:u". */
static int group_suffix(struct evlist *l, size_t start, const char **pp, const char *spec)
{
	const char *p = *pp;
	if (*p != ':') {
		if (*p && *p != ',' && !isspace((unsigned char)*p))
			return err_set("unexpected '%c' after '}' in '%s'", *p, spec);
		return 0;
	}
	const char *s = ++p;
	while (*p && *p != ',' && !isspace((unsigned char)*p))
		p++;
	char *text = xstrndup(s, (size_t)(p - s)), *save = NULL;
	struct suffix sfx = { 0 };
	int r = *text ? 0 : err_set("empty modifier after '}:' in '%s'", spec);
	for (char *t = strtok_r(text, ":", &save); t && !r; t = strtok_r(NULL, ":", &save))
		if (!suffix_part(t, &sfx))
			r = bad_modifier(t, spec);
	free(text);
	if (r)
		return -1;
	/* The name takes the level and precision modifiers; W is the group's. */
	char mods[sizeof(sfx.mods)];
	size_t nm_len = 0;
	for (const char *c = sfx.mods; *c; c++)
		if (*c != 'W')
			mods[nm_len++] = *c;
	mods[nm_len] = 0;
	for (size_t i = start; i < l->n; i++) {
		struct ev *ev = &l->ev[i];
		if (ev->source == EV_SRC_TOOL)
			continue;
		apply_suffix(ev, &sfx);
		ev->weak = sfx.weak;
		if (nm_len) {
			char *nm = xasprintf("%s:%s", ev->name, mods);
			free(ev->name);
			ev->name = nm;
		}
	}
	*pp = p;
	return 0;
}

/* Checks the braces before any name is resolved, so that a structural mistake is reported
 * as such rather than as the first unknown name. */
static int check_braces(const char *spec)
{
	unsigned slashes = 0;
	int depth = 0;
	for (const char *p = spec; *p; p++) {
		if (*p == '/')
			slashes++;
		if (slashes & 1)
			continue;
		if (*p == '{' && depth++ > 0)
			return err_set("nested groups are not supported: '%s'", spec);
		if (*p == '}' && --depth < 0)
			return err_set("unexpected '}' in '%s' (no group was opened with '{')", spec);
	}
	if (depth > 0)
		return err_set("missing '}' in '%s'", spec);
	return 0;
}

int evlist_parse(struct evlist *l, const char *spec)
{
	if (!spec)
		return err_set("no event list given");
	int spell_failed;
	char *spelled = wperf_spell_rewrite(spec, &spell_failed); /* WindowsPerf's SPE/DSU/DMC */
	if (spell_failed)
		return -1;
	if (spelled) {
		int r = evlist_parse(l, spelled);
		free(spelled);
		return r;
	}
	size_t slen = strlen(spec);
	if (slen > EV_SPEC_MAX)
		return err_set("event list of %zu characters is too long", slen);
	size_t start_n = l->n, gstart = 0;
	int start_groups = l->ngroups;
	bool in_group = false;
	const char *p = skip_space(spec);
	if (!*p)
		return err_set("empty event list");
	if (check_braces(spec) < 0)
		return -1;
	for (;;) {
		p = skip_space(p);
		if (*p == '{') {
			if (in_group) {
				err_set("nested groups are not supported: '%s'", spec);
				goto fail;
			}
			in_group = true;
			gstart = l->n;
			p++;
			continue;
		}
		/* An item ends at ',', '{' or '}' outside a pmu/.../ term list. */
		const char *s = p;
		unsigned slashes = 0;
		while (*p && ((slashes & 1) || !strchr(",{}", *p)))
			slashes += *p++ == '/';
		size_t n = (size_t)(p - s);
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		if (*p == '{') {
			err_set(in_group ? "nested groups are not supported: '%s'" :
				"unexpected '{' in '%s' (a group starts at an item: {a,b})", spec);
			goto fail;
		}
		if (!n) {
			if (*p == '}')
				err_set(l->n == gstart && in_group ? "empty group '{}' in '%s'" :
					"empty event before '}' in '%s'", spec);
			else if (*p == ',' || s > spec)
				err_set("empty event in '%s' at offset %zu (two commas, or a comma at "
					"an end)", spec, (size_t)(s - spec));
			else
				err_set("empty event list");
			goto fail;
		}
		char *item = xstrndup(s, n);
		struct ev ev;
		int r = parse_tp_glob(l, item);
		if (r == 0 && (r = parse_item(item, &ev)) == 0)
			append(l, &ev);
		free(item);
		if (r < 0)
			goto fail;
		if (*p == '}') {
			if (!in_group) {
				err_set("unexpected '}' in '%s' (no group was opened with '{')", spec);
				goto fail;
			}
			p++;
			if (group_suffix(l, gstart, &p, spec) < 0 || close_group(l, gstart) < 0)
				goto fail;
			in_group = false;
			p = skip_space(p);
		}
		if (*p == ',') {
			p++;
			if (!*skip_space(p)) {
				err_set("trailing comma in '%s'", spec);
				goto fail;
			}
			continue;
		}
		if (!*p)
			break;
		err_set("unexpected '%c' in '%s' (events are separated by commas)", *p, spec);
		goto fail;
	}
	if (in_group) {
		err_set("missing '}' in '%s'", spec);
		goto fail;
	}
	return 0;
fail:
	truncate_list(l, start_n, start_groups);
	return -1;
}

int evlist_add_metric_events(struct evlist *l, const char *const *names, size_t n,
			     const char *metric, bool group)
{
	size_t start = l->n;
	int start_groups = l->ngroups;
	for (size_t i = 0; i < n; i++) {
		struct ev ev;
		if (!names[i] || parse_item(names[i], &ev) < 0) {
			if (!names[i])
				err_set("metric '%s': missing event name", metric ? metric : "?");
			else
				err_wrap("metric '%s'", metric ? metric : "?");
			truncate_list(l, start, start_groups);
			return -1;
		}
		ev.metric = metric ? xstrdup(metric) : NULL;
		append(l, &ev);
	}
	if (group && n)
		close_group(l, start);
	return 0;
}

long evlist_find(const struct evlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->ev[i].base, name) || !strcasecmp(l->ev[i].name, name))
			return (long)i;
	return -1;
}

void evlist_free(struct evlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		ev_free(&l->ev[i]);
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

/* Tracepoints fire in kernel context: excluding the kernel would count nothing, so they keep
 * what the user asked for. */
void evlist_set_default_excludes(struct evlist *l, bool user_only)
{
	for (size_t i = 0; i < l->n; i++) {
		struct ev *ev = &l->ev[i];
		if (ev->user_mods || ev->source == EV_SRC_TOOL || ev->source == EV_SRC_TRACEPOINT)
			continue;
		ev->attr.exclude_kernel = user_only;
		ev->attr.exclude_hv = user_only;
	}
}
