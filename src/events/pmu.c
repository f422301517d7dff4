#include "events/pmu.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "events/generic.h"
#include "events/spe_terms.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/xalloc.h"

/* Bounds on what a (possibly hostile or corrupt) sysfs tree may make us hold. */
#define PMU_MAX_PMUS 4096
#define PMU_MAX_EVENTS 65536
#define PMU_MAX_NAME 255
#define PMU_FILE_MAX 4096

static struct pmu_table table;
static char *table_root; /* the sysfs root the table was read from */

static const char *const field_names[PMU_NFIELDS] = { "config", "config1", "config2" };

/* Names come from directory entries: keep to what sysfs uses so that they can be printed and
 * put back into paths safely. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > PMU_MAX_NAME || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return false;
	return true;
}

static char *read_trimmed(const char *path)
{
	char *s = file_read(path, PMU_FILE_MAX, NULL);
	if (!s)
		return NULL;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	size_t lead = strspn(s, " \t\n");
	memmove(s, s + lead, n - lead + 1);
	return s;
}

/* "config:0-7,32-35", "config1:0". Returns 0 or -1 with the reason in *why. */
static int parse_format(const char *text, int *field, uint64_t *mask, char **why)
{
	const char *colon = strchr(text, ':');
	if (!colon) {
		*why = xasprintf("'%s' is not 'configN:bits'", text);
		return -1;
	}
	size_t flen = (size_t)(colon - text);
	*field = -1;
	for (int i = 0; i < PMU_NFIELDS; i++)
		if (strlen(field_names[i]) == flen && !strncmp(text, field_names[i], flen))
			*field = i;
	if (*field < 0) {
		*why = xasprintf("field '%.*s' is not supported (config, config1, config2)",
				 (int)(flen > 32 ? 32 : flen), text);
		return -1;
	}
	*mask = 0;
	const char *p = colon + 1;
	for (;;) {
		char *end;
		if (!isdigit((unsigned char)*p))
			goto bad;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				goto bad;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			goto bad;
		for (unsigned long b = lo; b <= hi; b++)
			*mask |= 1ULL << b;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p)
			goto bad;
		return 0;
	}
bad:
	*why = xasprintf("bad bit range in '%s' (expected e.g. config:0-7,32-35, bits 0-63)", text);
	return -1;
}

/* Encodings are printed through the formats in this order: config before config1, low bits
 * first (event before umask), unusable formats last. */
static int cmp_format(const void *a, const void *b)
{
	const struct pmu_format *x = a, *y = b;
	if (!x->bad != !y->bad)
		return x->bad ? 1 : -1;
	if (x->field != y->field)
		return x->field - y->field;
	int bx = x->mask ? __builtin_ctzll(x->mask) : 64, by = y->mask ? __builtin_ctzll(y->mask) : 64;
	if (bx != by)
		return bx - by;
	return strcmp(x->name, y->name);
}

static void load_formats(struct pmu *p, const char *dir)
{
	char *fdir = xasprintf("%s/format", dir);
	DIR *d = opendir(fdir);
	size_t cap = 0;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) && p->nfmt < PMU_MAX_EVENTS) {
			if (!name_ok(de->d_name))
				continue;
			char *path = xasprintf("%s/%s", fdir, de->d_name);
			char *text = read_trimmed(path);
			ALLOC_GROW(p->fmt, p->nfmt + 1, cap);
			struct pmu_format *f = &p->fmt[p->nfmt++];
			memset(f, 0, sizeof(*f));
			f->name = xstrdup(de->d_name);
			char *why = NULL;
			if (!text)
				why = xstrdup(err_msg());
			else if (parse_format(text, &f->field, &f->mask, &why) == 0)
				why = NULL;
			if (why) {
				f->bad = xasprintf("%s: %s", path, why);
				free(why);
			}
			free(text);
			free(path);
		}
		closedir(d);
	}
	free(fdir);
	if (p->nfmt)
		qsort(p->fmt, p->nfmt, sizeof(*p->fmt), cmp_format);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

static int cmp_event(const void *a, const void *b)
{
	return strcasecmp(((const struct pmu_event *)a)->name,
			  ((const struct pmu_event *)b)->name);
}

static void load_events(struct pmu *p, const char *dir)
{
	static const char *const side[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	char *edir = xasprintf("%s/events", dir);
	DIR *d = opendir(edir);
	size_t cap = 0;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) && p->nev < PMU_MAX_EVENTS) {
			bool skip = !name_ok(de->d_name);
			for (size_t i = 0; i < ARRAY_SIZE(side) && !skip; i++)
				skip = has_suffix(de->d_name, side[i]);
			if (skip)
				continue;
			char *path = xasprintf("%s/%s", edir, de->d_name);
			char *terms = read_trimmed(path);
			free(path);
			if (!terms)
				continue;
			ALLOC_GROW(p->ev, p->nev + 1, cap);
			struct pmu_event *e = &p->ev[p->nev++];
			memset(e, 0, sizeof(*e));
			e->name = xstrdup(de->d_name);
			e->terms = terms;
			e->scale = 1;
			path = xasprintf("%s/%s.unit", edir, de->d_name);
			struct stat st;
			if (!stat(path, &st))
				e->unit = read_trimmed(path);
			free(path);
			path = xasprintf("%s/%s.scale", edir, de->d_name);
			char *sc = stat(path, &st) ? NULL : read_trimmed(path);
			if (sc) {
				char *end;
				double v = strtod(sc, &end);
				if (end != sc && !*end && v > 0)
					e->scale = v;
				free(sc);
			}
			free(path);
		}
		closedir(d);
	}
	free(edir);
	/* Arm cores implement the recommended IMPDEF events (ld_spec, st_spec, ...) that the
	 * kernel does not publish; perf supplies them from its JSON tables, we from ours. */
	if (p->is_arm) {
		size_t n;
		const struct generic_arm_event *t = generic_arm_events(&n);
		for (size_t i = 0; i < n; i++) {
			bool have = false;
			for (size_t j = 0; j < p->nev && !have; j++)
				have = !strcasecmp(p->ev[j].name, t[i].name);
			if (have)
				continue;
			ALLOC_GROW(p->ev, p->nev + 1, cap);
			struct pmu_event *e = &p->ev[p->nev++];
			memset(e, 0, sizeof(*e));
			e->name = xstrdup(t[i].name);
			e->terms = xasprintf("event=0x%04x", t[i].code);
			e->scale = 1;
			e->builtin = true;
		}
	}
	if (p->nev)
		qsort(p->ev, p->nev, sizeof(*p->ev), cmp_event);
}

static bool has_event(const struct pmu *p, const char *name)
{
	for (size_t i = 0; i < p->nev; i++)
		if (!strcasecmp(p->ev[i].name, name))
			return true;
	return false;
}

/* The core-PMU rule: the names the kernel gives to CPU PMUs (x86 "cpu", hybrid "cpu_core" and
 * "cpu_atom", Arm "armv8_*" and "armv9_*"), or any PMU that lists the CPUs it serves in a
 * "cpus" file and publishes a cycles or instructions event (Apple "apple_*_pmu", Arm PMUs with
 * other names). Uncore PMUs publish "cpumask" instead of "cpus", so they never qualify. */
static bool is_core(const char *name, const char *dir, const struct pmu *p)
{
	static const char *const core_events[] = {
		"cpu_cycles", "cycles", "cpu-cycles", "inst_retired", "instructions",
	};
	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom") ||
	    !strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6))
		return true;
	char *path = xasprintf("%s/cpus", dir);
	struct stat st;
	bool cpus = !stat(path, &st);
	free(path);
	if (!cpus)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(core_events); i++)
		if (has_event(p, core_events[i]))
			return true;
	return false;
}

static void pmu_free(struct pmu *p)
{
	for (size_t i = 0; i < p->nfmt; i++) {
		free(p->fmt[i].name);
		free(p->fmt[i].bad);
	}
	for (size_t i = 0; i < p->nev; i++) {
		free(p->ev[i].name);
		free(p->ev[i].terms);
		free(p->ev[i].unit);
	}
	free(p->fmt);
	free(p->ev);
	free(p->name);
	free(p->cpus);
}

static int cmp_pmu(const void *a, const void *b)
{
	const struct pmu *x = a, *y = b;
	if (x->is_core != y->is_core)
		return x->is_core ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool load_pmu(struct pmu *p, const char *devices, const char *name)
{
	memset(p, 0, sizeof(*p));
	char *dir = xasprintf("%s/%s", devices, name);
	char *path = xasprintf("%s/type", dir);
	uint64_t type;
	int r = file_read_u64(path, &type);
	free(path);
	if (r < 0 || type > UINT32_MAX) {
		free(dir);
		return false; /* a PMU without a usable type cannot be opened */
	}
	p->name = xstrdup(name);
	p->type = (uint32_t)type;
	p->is_arm = !strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6);
	struct stat st;
	path = xasprintf("%s/cpus", dir);
	if (stat(path, &st)) {
		free(path);
		path = xasprintf("%s/cpumask", dir);
	}
	bool cpumask = strstr(path, "/cpumask") != NULL;
	if (!stat(path, &st))
		p->cpus = read_trimmed(path);
	else
		cpumask = false;
	free(path);
	load_formats(p, dir);
	load_events(p, dir);
	p->is_core = is_core(name, dir, p);
	p->uncore = cpumask && !p->is_core;
	free(dir);
	return true;
}

void pmu_table_reset(void)
{
	for (size_t i = 0; i < table.n; i++)
		pmu_free(&table.p[i]);
	free(table.p);
	memset(&table, 0, sizeof(table));
	free(table_root);
	table_root = NULL;
}

const struct pmu_table *pmu_table(void)
{
	const char *root = sysfs_root();
	if (table_root && !strcmp(table_root, root))
		return &table;
	pmu_table_reset();
	table_root = xstrdup(root);
	char *devices = xasprintf("%s/bus/event_source/devices", root);
	DIR *d = opendir(devices);
	size_t cap = 0;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) && table.n < PMU_MAX_PMUS) {
			if (!name_ok(de->d_name))
				continue;
			ALLOC_GROW(table.p, table.n + 1, cap);
			if (load_pmu(&table.p[table.n], devices, de->d_name))
				table.n++;
		}
		closedir(d);
	}
	free(devices);
	if (table.n)
		qsort(table.p, table.n, sizeof(*table.p), cmp_pmu);
	return &table;
}

const struct pmu *pmu_find(const char *name)
{
	const struct pmu_table *t = pmu_table();
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->p[i].name, name))
			return &t->p[i];
	for (size_t i = 0; i < t->n; i++)
		if (!strcasecmp(t->p[i].name, name))
			return &t->p[i];
	return NULL;
}

const struct pmu_event *pmu_find_event(const struct pmu *p, const char *name)
{
	for (size_t i = 0; i < p->nev; i++)
		if (!strcasecmp(p->ev[i].name, name))
			return &p->ev[i];
	return NULL;
}

const struct pmu_format *pmu_find_format(const struct pmu *p, const char *name)
{
	for (size_t i = 0; i < p->nfmt; i++)
		if (!strcasecmp(p->fmt[i].name, name))
			return &p->fmt[i];
	return NULL;
}

bool pmu_lookup_event(const char *name, const struct pmu **pmu, const struct pmu_event **ev)
{
	const struct pmu_table *t = pmu_table();
	for (size_t i = 0; i < t->n; i++) {
		const struct pmu_event *e = pmu_find_event(&t->p[i], name);
		if (e) {
			*pmu = &t->p[i];
			*ev = e;
			return true;
		}
	}
	return false;
}

const struct pmu *pmu_single_core(void)
{
	const struct pmu_table *t = pmu_table();
	const struct pmu *core = NULL;
	for (size_t i = 0; i < t->n; i++) {
		if (!t->p[i].is_core)
			continue;
		if (core)
			return NULL;
		core = &t->p[i];
	}
	return core;
}

bool pmu_have_core(void)
{
	const struct pmu_table *t = pmu_table();
	return t->n && t->p[0].is_core; /* sorted core first */
}

bool pmu_is_software(const char *name)
{
	static const char *const sw[] = { "software", "tracepoint", "breakpoint", "uprobe", "kprobe" };
	for (size_t i = 0; i < ARRAY_SIZE(sw); i++)
		if (!strcmp(name, sw[i]))
			return true;
	return false;
}

/* Scatters value into the bits of mask, low to high, as perf's pmu_format_value() does. */
static uint64_t scatter(uint64_t mask, uint64_t value)
{
	uint64_t out = 0;
	unsigned vbit = 0;
	for (unsigned b = 0; b < 64; b++) {
		if (!(mask & (1ULL << b)))
			continue;
		if (vbit < 64 && (value >> vbit) & 1)
			out |= 1ULL << b;
		vbit++;
	}
	return out;
}

static unsigned popcount64(uint64_t m)
{
	return (unsigned)__builtin_popcountll(m);
}

/* perf's term values: 0x hex or decimal (a leading 0 is not octal). */
static int parse_value(const char *s, uint64_t *v)
{
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static __u64 *field_ptr(struct perf_event_attr *attr, int field)
{
	return field == PMU_CONFIG ? &attr->config :
	       field == PMU_CONFIG1 ? &attr->config1 : &attr->config2;
}

char *pmu_terms_list(const struct pmu *p)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < p->nfmt; i++)
		if (!p->fmt[i].bad)
			sb_addf(&sb, "%s, ", p->fmt[i].name);
	sb_adds(&sb, "config, config1, config2, period, name");
	if (p->nev)
		sb_addf(&sb, " or an event name such as %s", p->ev[0].name);
	return sb_detach(&sb);
}

static int unknown_term(const struct pmu *p, const char *term)
{
	struct suggest s;
	suggest_init(&s, term);
	for (size_t i = 0; i < p->nfmt; i++)
		suggest_offer(&s, p->fmt[i].name);
	for (size_t i = 0; i < p->nev; i++)
		suggest_offer(&s, p->ev[i].name);
	char hint[256];
	suggest_format(&s, hint, sizeof(hint));
	char *valid = pmu_terms_list(p);
	err_set("PMU '%s' has no term or event '%s'%s (valid terms: %s)", p->name, term, hint, valid);
	free(valid);
	return -1;
}

static int encode(const struct pmu *p, const char *terms, struct perf_event_attr *attr,
		  struct pmu_extra *x, int depth);

static int apply_term(const struct pmu *p, const char *key, const char *val,
		      struct perf_event_attr *attr, struct pmu_extra *x, int depth)
{
	uint64_t v = 1; /* a bare term ("edge") means term=1, as in perf */
	const struct pmu_format *f = pmu_find_format(p, key);
	const struct pmu_event *e = f ? NULL : pmu_find_event(p, key);
	if (!f && !e && spe_term_alias(p->name, key)) /* WindowsPerf's ld, st, b, ts, min */
		f = pmu_find_format(p, spe_term_alias(p->name, key));
	if (e && val)
		return err_set("'%s' is an event of PMU '%s' and takes no value ('%s=%s')", e->name,
			       p->name, key, val);
	if (e && depth == 0) {
		if (encode(p, e->terms, attr, NULL, depth + 1) < 0)
			return err_wrap("event '%s' of PMU '%s' ('%s')", e->name, p->name, e->terms);
		if (x && !x->event)
			x->event = e->name;
		return 0;
	}
	if (!strcasecmp(key, "name") && !f) {
		if (!val || !*val)
			return err_set("term 'name' needs a value (name=label)");
		if (x) {
			free(x->name);
			x->name = xstrdup(val);
		}
		return 0;
	}
	if (val && !strcmp(val, "?"))
		return err_set("term '%s' needs a value from you (%s=N)", key, key);
	if (val && parse_value(val, &v) < 0)
		return err_set("term '%s': '%s' is not a number (use decimal or 0x hex)", key, val);
	if (f) {
		if (f->bad)
			return err_set("cannot use term '%s': %s", key, f->bad);
		unsigned width = popcount64(f->mask);
		if (width < 64 && v >> width)
			return err_set("value 0x%llx of term '%s' is too wide for PMU '%s' "
				       "(%s has %u bit%s, at most 0x%llx)",
				       (unsigned long long)v, key, p->name, key, width,
				       width == 1 ? "" : "s",
				       (unsigned long long)((1ULL << width) - 1));
		__u64 *dst = field_ptr(attr, f->field);
		*dst = (*dst & ~f->mask) | scatter(f->mask, v);
		return 0;
	}
	for (int i = 0; i < PMU_NFIELDS; i++) {
		if (!strcasecmp(key, field_names[i])) {
			*field_ptr(attr, i) = v;
			return 0;
		}
	}
	if (!strcasecmp(key, "period")) {
		if (!v)
			return err_set("term 'period' must be positive");
		if (x)
			x->period = v;
		return 0;
	}
	return unknown_term(p, key);
}

static int encode(const struct pmu *p, const char *terms, struct perf_event_attr *attr,
		  struct pmu_extra *x, int depth)
{
	char *copy = xstrdup(terms), *save = NULL;
	int r = 0;
	size_t len = strlen(copy);
	if (len && (copy[0] == ',' || copy[len - 1] == ',' || strstr(copy, ",,"))) {
		free(copy);
		return err_set("empty term in '%s'", terms);
	}
	for (char *t = strtok_r(copy, ",", &save); t && r == 0; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		size_t n = strlen(t);
		while (n && isspace((unsigned char)t[n - 1]))
			t[--n] = 0;
		if (!n) {
			r = err_set("empty term in '%s'", terms);
			break;
		}
		char *eq = strchr(t, '=');
		char *val = NULL;
		if (eq) {
			*eq = 0;
			val = eq + 1;
			if (!*t || !*val) {
				r = err_set("term '%s=%s' needs a name and a value", t, val);
				break;
			}
		}
		r = apply_term(p, t, val, attr, x, depth);
	}
	free(copy);
	return r;
}

int pmu_encode(const struct pmu *p, const char *terms, struct perf_event_attr *attr,
	       struct pmu_extra *x)
{
	return encode(p, terms, attr, x, 0);
}
