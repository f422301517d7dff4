/* Arm's per-CPU PMU data (see armdata.h): mapfile.csv names the cores and their directories,
 * common-and-microarch.json and recommended.json hold the Arm ARM's events, each core's
 * directory its events (an "ArchStdEvent" entry takes the architecture's event and may give it
 * the core's own description) and metrics.json its metrics (an "ArchStdEvent" there refers to
 * sbsa.json's). JSON is parsed by json-c, strictly and with UTF-8 checked. */
#include "sysinfo/armdata.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#ifndef LPERF_ARMDATA_DIR
#define LPERF_ARMDATA_DIR "build/arm-data"
#endif
/* Where `make install` puts the cache. */
#define ARMDATA_INSTALLED "/usr/local/share/lperf/arm-data"

#define ARMDATA_MAX_FILE (4u << 20) /* the largest of Linux's files is under 100 KiB */
#define ARMDATA_MAX_FILES 256
/* Linux's files hold a few hundred entries and formulas of a few hundred bytes: far larger ones
 * are refused (they would only cost time). */
#define ARMDATA_MAX_ENTRIES 4096   /* in one file */
#define ARMDATA_MAX_TOTAL 8192     /* events, and metrics, of one CPU */
#define ARMDATA_MAX_FORMULA 8192

/* The Arm ARM's events 0x400C-0x401F (trace buffer, trace unit outputs, cross-trigger outputs,
 * overflow status) come with Armv9's FEAT_TRBE/FEAT_ETE: armv8-a does not have them. */
#define ARMV9_FIRST 0x400c
#define ARMV9_LAST 0x401f

const char *armdata_dir(void)
{
	const char *e = getenv("LPERF_ARM_DATA");
	if (e && *e)
		return e;
	if (access(LPERF_ARMDATA_DIR "/mapfile.csv", F_OK) != 0 &&
	    access(ARMDATA_INSTALLED "/mapfile.csv", F_OK) == 0)
		return ARMDATA_INSTALLED;
	return LPERF_ARMDATA_DIR;
}

/* ---- CPUs ---- */

static void cpu_add(struct armdata_cpus *c, const char *name, const char *dir, bool v9)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].name, name))
			return;
	c->c = xrealloc(c->c, (c->n + 1) * sizeof(*c->c));
	c->c[c->n++] = (struct armdata_cpu){ xstrdup(name), dir ? xstrdup(dir) : NULL, v9 };
}

static int cpu_cmp(const void *a, const void *b)
{
	return strcmp(((const struct armdata_cpu *)a)->name, ((const struct armdata_cpu *)b)->name);
}

/* A directory of mapfile.csv: relative, of plain names. */
static bool safe_dir(const char *d)
{
	if (!*d || *d == '/' || strstr(d, ".."))
		return false;
	for (const char *p = d; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_/.", *p))
			return false;
	return true;
}

/* One line "MIDR,version,dir,type"; rows of unnamed parts and other types are left out. */
static int mapfile_line(struct armdata_cpus *c, char *line, const char *path, unsigned lineno)
{
	char *f[4] = { 0 };
	size_t n = 0;
	for (char *s = line; s && n < 4;)
		f[n++] = strsep(&s, ",");
	if (n < 4)
		return err_set("%s:%u: expected 4 comma-separated fields", path, lineno);
	char *end;
	unsigned long long midr = strtoull(f[0], &end, 16);
	if (end == f[0] || *end)
		return err_set("%s:%u: '%s' is not a MIDR", path, lineno, f[0]);
	f[3][strcspn(f[3], " \t\r")] = 0;
	if (strcmp(f[3], "core"))
		return 0;
	if (!safe_dir(f[2]))
		return err_set("%s:%u: '%s' is not a directory of the data", path, lineno, f[2]);
	const char *name = sysinfo_arm_part_name((unsigned)(midr >> 24) & 0xff,
						 (unsigned)(midr >> 4) & 0xfff);
	if (name)
		cpu_add(c, name, f[2], false);
	/* The directory names the core it describes when its name is a core's: Linux files
	 * Neoverse V3's data (arm/neoverse-v3) under the MIDR of the V3AE (0xd83), a part of the
	 * same design, and the V3's own (0xd84) under none. */
	const char *base = strrchr(f[2], '/');
	base = base ? base + 1 : f[2];
	if (sysinfo_arm_product_known(base))
		cpu_add(c, base, f[2], false);
	return 0;
}

int armdata_cpus(const char *dir, struct armdata_cpus *out)
{
	memset(out, 0, sizeof(*out));
	char *path = xasprintf("%s/mapfile.csv", dir);
	size_t len;
	char *text = file_read(path, ARMDATA_MAX_FILE, &len);
	if (!text) {
		err_wrap("Arm's PMU data is missing (Debian's linux-source, extracted by "
			 "scripts/arm-data.sh; or set LPERF_ARM_DATA)");
		free(path);
		return -1;
	}
	int rc = 0;
	if (strlen(text) != len)
		rc = err_set("%s: contains a NUL byte", path);
	unsigned lineno = 0;
	for (char *p = text, *line; !rc && (line = strsep(&p, "\n"));) {
		lineno++;
		line[strcspn(line, "\r")] = 0;
		if (*line == '#' || !strncmp(line, "Family-model", 12) || !*line)
			continue;
		rc = mapfile_line(out, line, path, lineno);
	}
	free(text);
	free(path);
	if (rc) {
		armdata_cpus_free(out);
		return -1;
	}
	if (out->n)
		qsort(out->c, out->n, sizeof(*out->c), cpu_cmp);
	/* The architecture's two come first. */
	struct armdata_cpus all = { 0 };
	cpu_add(&all, "armv8-a", NULL, false);
	cpu_add(&all, "armv9-a", NULL, true);
	for (size_t i = 0; i < out->n; i++)
		cpu_add(&all, out->c[i].name, out->c[i].dir, false);
	armdata_cpus_free(out);
	*out = all;
	return 0;
}

void armdata_cpus_free(struct armdata_cpus *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->c[i].name);
		free(c->c[i].dir);
	}
	free(c->c);
	c->c = NULL;
	c->n = 0;
}

/* "-rNpM" at the end of name: a revision of the CPU before it. */
static size_t revision_suffix(const char *name)
{
	const char *r = strrchr(name, '-');
	if (!r || r[1] != 'r' || !isdigit((unsigned char)r[2]))
		return 0;
	const char *p = r + 2;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != 'p' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return *p ? 0 : (size_t)(r - name);
}

const struct armdata_cpu *armdata_cpu_find(const struct armdata_cpus *c, const char *name)
{
	size_t base = revision_suffix(name);
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].name, name))
			return &c->c[i];
	for (size_t i = 0; i < c->n && base; i++)
		if (strlen(c->c[i].name) == base && !strncmp(c->c[i].name, name, base))
			return &c->c[i];
	return NULL;
}

char *armdata_cpu_names(const struct armdata_cpus *c)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < c->n; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", c->c[i].name);
	return sb_detach(&sb);
}

/* ---- JSON ---- */

/* The file parsed strictly (UTF-8 checked): an array; NULL with err_set naming the file. */
static struct json_object *parse_file(const char *path)
{
	size_t len;
	char *text = file_read(path, ARMDATA_MAX_FILE, &len);
	if (!text)
		return NULL;
	if (len >= ARMDATA_MAX_FILE) {
		err_set("%s: larger than %u bytes: not Arm's PMU data", path, ARMDATA_MAX_FILE);
		free(text);
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t at = json_tokener_get_parse_end(tok), rest = at;
	while (rest < len && text[rest] && strchr(" \t\r\n", text[rest]))
		rest++;
	if (!o && e == json_tokener_continue)
		err_set("%s: the JSON ends early (truncated?)", path);
	else if (!o)
		err_set("%s: offset %zu: invalid JSON: %s", path, at, json_tokener_error_desc(e));
	else if (rest < len)
		err_set("%s: offset %zu: text after the JSON", path, rest);
	else if (!json_object_is_type(o, json_type_array))
		err_set("%s: expected an array of events or metrics", path);
	else {
		json_tokener_free(tok);
		free(text);
		return o;
	}
	json_object_put(o);
	json_tokener_free(tok);
	free(text);
	return NULL;
}

/* The string member key of o, NULL when absent; *bad when present but not a string. */
static const char *member(struct json_object *o, const char *key, bool *bad)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		*bad = true;
		return NULL;
	}
	return json_object_get_string(v);
}

static char *lower(const char *s)
{
	char *r = xstrdup(s);
	for (char *p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

static void event_free(struct armdata_event *e)
{
	free(e->name);
	free(e->title);
	free(e->desc);
}

static void metric_free(struct armdata_metric *m)
{
	free(m->name);
	free(m->desc);
	free(m->formula);
	free(m->unit);
	free(m->events);
	free(m->groups);
}

static struct armdata_event *event_slot(struct armdata *d, const char *name)
{
	for (size_t i = 0; i < d->nev; i++)
		if (!strcasecmp(d->ev[i].name, name)) {
			event_free(&d->ev[i]);
			return &d->ev[i];
		}
	d->ev = xrealloc(d->ev, (d->nev + 1) * sizeof(*d->ev));
	return &d->ev[d->nev++];
}

static struct armdata_metric *metric_slot(struct armdata *d, const char *name)
{
	for (size_t i = 0; i < d->nm; i++)
		if (!strcasecmp(d->m[i].name, name)) {
			metric_free(&d->m[i]);
			return &d->m[i];
		}
	d->m = xrealloc(d->m, (d->nm + 1) * sizeof(*d->m));
	return &d->m[d->nm++];
}

/* The upper-case names of expr (events; #slots, functions and keywords are lower case), lower
 * cased, each once, in order. */
static char *expr_events(const char *expr)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = expr; *p;) {
		if (!isalpha((unsigned char)*p) && *p != '_' && *p != '#') {
			p++;
			continue;
		}
		const char *s = p++;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		bool upper = *s != '#' && isupper((unsigned char)*s);
		for (const char *q = s; q < p && upper; q++)
			upper = !islower((unsigned char)*q);
		if (!upper)
			continue;
		char *word = xstrndup(s, (size_t)(p - s));
		char *name = lower(word);
		free(word);
		char *padded = xasprintf(",%s,", sb_str(&sb));
		char *needle = xasprintf(",%s,", name);
		if (!strstr(padded, needle))
			sb_addf(&sb, "%s%s", sb.len ? "," : "", name);
		free(padded);
		free(needle);
		free(name);
	}
	return sb_detach(&sb);
}

/* "1percent of operations" -> "percent of operations" (the scale is the number before it). */
static char *unit_text(const char *scale)
{
	if (!scale)
		return xstrdup("");
	const char *p = scale;
	while (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' || *p == '-')
		p++;
	return xstrdup(p);
}

static int add_metric(struct json_object *o, const struct armdata *std, struct armdata *out,
		      const char *path, size_t idx)
{
	bool bad = false;
	const char *ref = member(o, "ArchStdEvent", &bad);
	const struct armdata_metric *base = ref && std ? armdata_metric(std, ref) : NULL;
	const char *name = member(o, "MetricName", &bad);
	const char *expr = member(o, "MetricExpr", &bad);
	const char *desc = member(o, "BriefDescription", &bad);
	const char *pdesc = member(o, "PublicDescription", &bad);
	const char *group = member(o, "MetricGroup", &bad);
	const char *scale = member(o, "ScaleUnit", &bad);
	if (bad)
		return err_set("%s: entry %zu: a field is not a string", path, idx);
	if (!name)
		name = base ? base->name : ref;
	if (!name || !*name)
		return err_set("%s: entry %zu: a metric without a name", path, idx);
	if (expr && strlen(expr) > ARMDATA_MAX_FORMULA)
		return err_set("%s: entry %zu: a formula longer than %u bytes", path, idx,
			       ARMDATA_MAX_FORMULA);
	if (out->nm >= ARMDATA_MAX_TOTAL && !armdata_metric(out, name))
		return err_set("%s: entry %zu: more than %u metrics", path, idx, ARMDATA_MAX_TOTAL);
	struct armdata_metric m = {
		.name = lower(name),
		.desc = xstrdup(pdesc ? pdesc : desc ? desc : base ? base->desc : ""),
		.formula = xstrdup(expr ? expr : base ? base->formula : ""),
		.unit = scale ? unit_text(scale) : xstrdup(base ? base->unit : ""),
		.groups = xstrdup(group ? group : base ? base->groups : ""),
	};
	m.events = expr_events(m.formula);
	*metric_slot(out, m.name) = m;
	return 0;
}

static int add_event(struct json_object *o, const struct armdata *std, struct armdata *out,
		     const char *path, size_t idx)
{
	bool bad = false;
	const char *ref = member(o, "ArchStdEvent", &bad);
	const char *name = member(o, "EventName", &bad);
	const char *code = member(o, "EventCode", &bad);
	const char *brief = member(o, "BriefDescription", &bad);
	const char *pub = member(o, "PublicDescription", &bad);
	if (bad)
		return err_set("%s: entry %zu: a field is not a string", path, idx);
	const struct armdata_event *base = ref && std ? armdata_event(std, ref) : NULL;
	if (!name)
		name = ref;
	if (!name || !*name)
		return err_set("%s: entry %zu: an event without a name", path, idx);
	if (out->nev >= ARMDATA_MAX_TOTAL && !armdata_event(out, name))
		return err_set("%s: entry %zu: more than %u events", path, idx, ARMDATA_MAX_TOTAL);
	unsigned long c = base ? base->code : 0;
	if (code) {
		char *end;
		c = strtoul(code, &end, 0);
		if (end == code || *end || c > 0xffff)
			return err_set("%s: entry %zu: EventCode '%s' is not an event number", path,
				       idx, code);
	}
	struct armdata_event e = {
		.name = lower(name),
		.title = xstrdup(base ? base->title : brief ? brief : ""),
		.desc = xstrdup(pub ? pub : brief ? brief : base ? base->desc : ""),
		.code = (unsigned)c,
	};
	*event_slot(out, e.name) = e;
	return 0;
}

int armdata_load_file(const char *path, const struct armdata *std, struct armdata *out)
{
	struct json_object *a = parse_file(path);
	if (!a)
		return -1;
	size_t n = json_object_array_length(a);
	int rc = 0;
	if (n > ARMDATA_MAX_ENTRIES)
		rc = err_set("%s: %zu entries: more than Arm's PMU data has", path, n);
	for (size_t i = 0; i < n && !rc; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct json_object *v;
		if (!json_object_is_type(o, json_type_object))
			rc = err_set("%s: entry %zu is not an object", path, i);
		else if (json_object_object_get_ex(o, "MetricName", &v) ||
			 json_object_object_get_ex(o, "MetricExpr", &v))
			rc = add_metric(o, std, out, path, i);
		else
			rc = add_event(o, std, out, path, i);
	}
	json_object_put(a);
	return rc;
}

void armdata_free(struct armdata *d)
{
	for (size_t i = 0; i < d->nev; i++)
		event_free(&d->ev[i]);
	for (size_t i = 0; i < d->nm; i++)
		metric_free(&d->m[i]);
	free(d->ev);
	free(d->m);
	memset(d, 0, sizeof(*d));
}

static bool is_json(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".json");
}

/* The architecture's events and sbsa.json's metrics. */
static int load_std(const char *dir, struct armdata *std)
{
	static const char *const files[] = { "common-and-microarch.json", "recommended.json" };
	for (size_t i = 0; i < 2; i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);
		int rc = armdata_load_file(p, NULL, std);
		free(p);
		if (rc < 0)
			return -1;
	}
	char *p = xasprintf("%s/sbsa.json", dir);
	int rc = armdata_load_file(p, NULL, std);
	free(p);
	return rc;
}

int armdata_load(const char *dir, const struct armdata_cpu *cpu, struct armdata *out)
{
	memset(out, 0, sizeof(*out));
	struct armdata std = { 0 };
	if (load_std(dir, &std) < 0) {
		armdata_free(&std);
		return -1;
	}
	if (!cpu->dir) {
		/* The architecture's events: armv8-a without Armv9's. */
		size_t k = 0;
		for (size_t i = 0; i < std.nev; i++) {
			if (!cpu->armv9 && std.ev[i].code >= ARMV9_FIRST && std.ev[i].code <= ARMV9_LAST)
				event_free(&std.ev[i]);
			else
				std.ev[k++] = std.ev[i];
		}
		std.nev = k;
		for (size_t i = 0; i < std.nm; i++)
			metric_free(&std.m[i]);
		free(std.m);
		std.m = NULL;
		std.nm = 0;
		*out = std;
		return 0;
	}
	char *cdir = xasprintf("%s/%s", dir, cpu->dir);
	size_t n;
	char **files = dir_list(cdir, is_json, ARMDATA_MAX_FILES, NULL, &n);
	int rc = files ? 0 : err_set("%s: cannot read the directory of %s's data", cdir, cpu->name);
	for (size_t i = 0; i < n && !rc; i++) {
		char *p = xasprintf("%s/%s", cdir, files[i]);
		rc = armdata_load_file(p, &std, out);
		free(p);
	}
	strv_free(files, n);
	free(cdir);
	armdata_free(&std);
	if (rc)
		armdata_free(out);
	return rc;
}

const struct armdata_event *armdata_event(const struct armdata *d, const char *name)
{
	for (size_t i = 0; i < d->nev; i++)
		if (!strcasecmp(d->ev[i].name, name))
			return &d->ev[i];
	return NULL;
}

const struct armdata_metric *armdata_metric(const struct armdata *d, const char *name)
{
	for (size_t i = 0; i < d->nm; i++)
		if (!strcasecmp(d->m[i].name, name))
			return &d->m[i];
	return NULL;
}

bool armdata_in_group(const struct armdata_metric *m, const char *group)
{
	size_t n = strlen(group);
	for (const char *p = m->groups; *p;) {
		size_t k = strcspn(p, ";");
		if (k == n && !strncasecmp(p, group, n))
			return true;
		p += k + (p[k] == ';');
	}
	return false;
}
