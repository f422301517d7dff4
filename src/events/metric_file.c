/* User metric files (syntax in metric.h). The whole file is parsed and checked before the
 * set changes, so a bad line leaves the built-ins untouched. */
#include "events/metric.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/metric_builtin.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/xalloc.h"

#define FILE_MAX (1 << 20)
#define LINE_MAX_LEN 8192

struct pending {
	struct metric *m;
	int *mline;
	size_t nm;
	struct metric_group *g;
	int *gline;
	size_t ng;
};

struct ctx {
	const char *path;
	int line;
	struct pending *pd;
};

__attribute__((format(printf, 2, 3)))
static int line_err(const struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	err_set("%s:%d: %s", c->path, c->line, msg ? msg : "error");
	free(msg);
	return -1;
}

static size_t name_len(const char *s)
{
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || (s[n] && strchr("_.-", s[n])))
		n++;
	return n;
}

static int check_name(const struct ctx *c, const char *s, size_t n, const char *what)
{
	if (!n)
		return line_err(c, "expected a %s name at the start of the line", what);
	if (!metric_name_valid(s, n))
		return line_err(c, "'%.*s' is not a valid %s name: it must start with a letter or "
				"'_' and hold letters, digits, '_', '.', '-' (at most %d)",
				n > 64 ? 64 : (int)n, s, what, METRIC_NAME_MAX);
	return 0;
}

static int check_unique(const struct ctx *c, const char *name, bool group)
{
	const struct pending *pd = c->pd;
	size_t n = group ? pd->ng : pd->nm;
	for (size_t i = 0; i < n; i++) {
		const char *other = group ? pd->g[i].name : pd->m[i].name;
		if (!strcasecmp(other, name))
			return line_err(c, "%s '%s' is already defined at line %d",
					group ? "group" : "metric", name,
					group ? pd->gline[i] : pd->mline[i]);
	}
	return 0;
}

static void add_metric(struct ctx *c, struct metric *m)
{
	struct pending *pd = c->pd;
	m->user = true;
	pd->m = xrealloc(pd->m, (pd->nm + 1) * sizeof(*pd->m));
	pd->mline = xrealloc(pd->mline, (pd->nm + 1) * sizeof(int));
	pd->m[pd->nm] = *m;
	pd->mline[pd->nm++] = c->line;
}

/* "name = formula [; unit [; description]]" */
static int parse_formula(struct ctx *c, const char *name, char *rest)
{
	char *unit = NULL, *desc = NULL;
	char *semi = strchr(rest, ';');
	if (semi) {
		*semi = 0;
		unit = semi + 1;
		semi = strchr(unit, ';');
		if (semi) {
			*semi = 0;
			desc = parse_trim(semi + 1);
		}
		unit = parse_trim(unit);
	}
	char *formula = parse_trim(rest);
	char *dflt = NULL;
	if (!desc || !*desc)
		desc = dflt = xasprintf("user metric from %s", c->path);
	struct metric m;
	int r = metric_init(&m, name, formula, unit, desc, METRIC_ANY);
	free(dflt);
	if (r < 0)
		return line_err(c, "metric '%s': %s", name, err_msg());
	add_metric(c, &m);
	return 0;
}

/* The end of one event in an event list: the next ',' outside a pmu/terms,.../ spelling. */
static char *event_end(char *p)
{
	bool in_terms = false;
	for (; *p; p++) {
		if (*p == '/')
			in_terms = !in_terms;
		else if (*p == ',' && !in_terms)
			return p;
	}
	return NULL;
}

/* "name:{ev1,ev2,...}" (braces optional); events are -e spellings, pmu/terms/ included. */
static int parse_event_set(struct ctx *c, const char *name, char *rest)
{
	rest = parse_trim(rest);
	size_t len = strlen(rest);
	if (rest[0] == '{') {
		if (len < 2 || rest[len - 1] != '}')
			return line_err(c, "metric '%s': missing '}' after the event list", name);
		rest[len - 1] = 0;
		rest++;
	}
	char **ev = NULL;
	size_t nev = 0;
	int r = 0;
	for (char *p = rest, *end; r == 0 && p; p = end ? end + 1 : NULL) {
		end = event_end(p);
		if (end)
			*end = 0;
		char *e = parse_trim(p);
		const char *bad = NULL;
		for (const char *q = e; *q && !bad; q++)
			if (!isgraph((unsigned char)*q) || strchr("{};", *q))
				bad = q;
		if (!*e)
			r = line_err(c, "metric '%s': empty event name in the event list", name);
		else if (bad)
			r = line_err(c, "metric '%s': event '%.64s' contains '%c'; event names are "
				     "separated by ',' and sets cannot nest", name, e,
				     isprint((unsigned char)*bad) ? *bad : '?');
		else if (strlen(e) > 256)
			r = line_err(c, "metric '%s': event name longer than 256 characters", name);
		else {
			ev = xrealloc(ev, (nev + 1) * sizeof(char *));
			ev[nev++] = e;
		}
	}
	if (r == 0) {
		char *desc = xasprintf("user event set from %s", c->path);
		struct metric m;
		metric_init_events(&m, name, ev, nev, "", desc);
		free(desc);
		add_metric(c, &m);
	}
	free(ev);
	return r;
}

/* "group NAME = m1,m2,..." */
static int parse_group(struct ctx *c, char *rest)
{
	rest = parse_trim(rest);
	size_t n = name_len(rest);
	if (check_name(c, rest, n, "group") < 0)
		return -1;
	char *name = xstrndup(rest, n);
	char *p = rest + n;
	while (isspace((unsigned char)*p))
		p++;
	int r;
	if (*p != '=') {
		r = line_err(c, "expected '=' after group name '%s' (group NAME = metric1,metric2)",
			     name);
	} else if ((r = check_unique(c, name, true)) == 0) {
		struct metric_group g = { .name = name, .arch = METRIC_ANY, .user = true,
					  .desc = xasprintf("user group from %s", c->path) };
		name = NULL;
		p = parse_trim(p + 1);
		if (!*p)
			r = line_err(c, "group '%s' lists no metrics", g.name);
		else if (metric_group_fill(&g, p) < 0)
			r = line_err(c, "group '%s': %s", g.name, err_msg());
		if (r < 0) {
			metric_group_clear(&g);
		} else {
			struct pending *pd = c->pd;
			pd->g = xrealloc(pd->g, (pd->ng + 1) * sizeof(*pd->g));
			pd->gline = xrealloc(pd->gline, (pd->ng + 1) * sizeof(int));
			pd->g[pd->ng] = g;
			pd->gline[pd->ng++] = c->line;
		}
	}
	free(name);
	return r;
}

static int parse_line(struct ctx *c, char *line)
{
	line = parse_trim(line);
	if (!*line || *line == '#')
		return 0;
	/* "group = ..." and "group:{...}" define a metric that happens to be called group. */
	if (!strncmp(line, "group", 5) && (line[5] == ' ' || line[5] == '\t') &&
	    !strchr("=:", *parse_trim(line + 5)))
		return parse_group(c, line + 5);
	size_t n = name_len(line);
	if (check_name(c, line, n, "metric") < 0)
		return -1;
	char *name = xstrndup(line, n);
	char *p = line + n;
	while (isspace((unsigned char)*p))
		p++;
	int r = check_unique(c, name, false);
	if (r < 0)
		;
	else if (*p == '=')
		r = parse_formula(c, name, p + 1);
	else if (*p == ':')
		r = parse_event_set(c, name, p + 1);
	else
		r = line_err(c, "expected '=' (name = formula) or ':' (name:{events}) after "
			     "metric name '%s'", name);
	free(name);
	return r;
}

static bool known_metric(const struct metric_set *s, const struct pending *pd, const char *n)
{
	for (size_t i = 0; i < pd->nm; i++)
		if (!strcasecmp(pd->m[i].name, n))
			return true;
	return metric_find(s, n) != NULL;
}

/* Group members may name metrics defined further down the file, so they are checked last. */
static int check_groups(const struct metric_set *s, struct ctx *c)
{
	const struct pending *pd = c->pd;
	for (size_t i = 0; i < pd->ng; i++) {
		const struct metric_group *g = &pd->g[i];
		for (size_t j = 0; j < g->nmetrics; j++) {
			if (known_metric(s, pd, g->metrics[j]))
				continue;
			struct suggest sg;
			char hint[256];
			suggest_init(&sg, g->metrics[j]);
			for (size_t k = 0; k < pd->nm; k++)
				suggest_offer(&sg, pd->m[k].name);
			for (size_t k = 0; k < s->n; k++)
				suggest_offer(&sg, s->m[k].name);
			c->line = pd->gline[i];
			return line_err(c, "group '%s': unknown metric '%s'%s", g->name,
					g->metrics[j], suggest_format(&sg, hint, sizeof(hint)));
		}
	}
	return 0;
}

static void pending_free(struct pending *pd)
{
	for (size_t i = 0; i < pd->nm; i++)
		metric_clear(&pd->m[i]);
	for (size_t i = 0; i < pd->ng; i++)
		metric_group_clear(&pd->g[i]);
	free(pd->m);
	free(pd->mline);
	free(pd->g);
	free(pd->gline);
}

int metric_set_load_file(struct metric_set *s, const char *path)
{
	size_t len;
	char *text = file_read(path, FILE_MAX, &len);
	if (!text)
		return err_wrap("metric file");
	if (len >= FILE_MAX) {
		free(text);
		return err_set("%s: metric file larger than %d bytes", path, FILE_MAX);
	}
	if (memchr(text, 0, len)) {
		free(text);
		return err_set("%s: contains a NUL byte; a metric file is text", path);
	}
	struct pending pd = { 0 };
	struct ctx c = { .path = path, .pd = &pd };
	int r = 0;
	for (char *line = text, *next; r == 0 && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		c.line++;
		if (strlen(line) > LINE_MAX_LEN)
			r = line_err(&c, "line longer than %d bytes", LINE_MAX_LEN);
		else
			r = parse_line(&c, line);
	}
	if (r == 0)
		r = check_groups(s, &c);
	if (r == 0) {
		for (size_t i = 0; i < pd.nm; i++)
			metric_set_put(s, &pd.m[i]);
		for (size_t i = 0; i < pd.ng; i++)
			metric_set_put_group(s, &pd.g[i]);
		pd.nm = pd.ng = 0;
	}
	pending_free(&pd);
	free(text);
	return r;
}
