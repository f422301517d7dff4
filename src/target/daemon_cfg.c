/* perf's config file, as much of it as perf daemon reads: [daemon] base and [session-NAME] run. */
#include "target/daemon.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/parse.h"
#include "util/fileio.h"
#include "util/xalloc.h"

#define CFG_MAX_BYTES (1 << 20)
#define CFG_MAX_SESSIONS 256

/* A value: surrounding double quotes dropped; tabs become spaces (the answers are tab-separated). */
static char *value_of(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v[n - 1] = 0;
		v++;
	}
	for (char *p = v; *p; p++)
		if (*p == '\t')
			*p = ' ';
	return xstrdup(v);
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

static int cfg_line(struct daemon_config *c, char **section, char *line, const char *path, int lineno)
{
	char *s = parse_trim(line);
	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (!end || parse_trim(end + 1)[0])
			return err_set("%s:%d: a section is [NAME]", path, lineno);
		*end = 0;
		free(*section);
		*section = xstrdup(parse_trim(s + 1));
		return 0;
	}
	char *eq = strchr(s, '=');
	if (!eq)
		return err_set("%s:%d: expected KEY = VALUE", path, lineno);
	*eq = 0;
	char *key = parse_trim(s), *val = parse_trim(eq + 1);
	if (!*section)
		return err_set("%s:%d: '%s' is outside any [section]", path, lineno, key);
	if (!strcmp(*section, "daemon") && !strcmp(key, "base")) {
		free(c->base);
		c->base = value_of(val);
	} else if (!strncmp(*section, "session-", 8) && !strcmp(key, "run")) {
		const char *name = *section + 8;
		if (!valid_name(name))
			return err_set("%s:%d: '%s' is not a session name (letters, digits, - _ .)", path, lineno, name);
		for (size_t i = 0; i < c->n; i++)
			if (!strcmp(c->s[i].name, name)) {
				free(c->s[i].run);
				c->s[i].run = value_of(val);
				return 0;
			}
		if (c->n == CFG_MAX_SESSIONS)
			return err_set("%s:%d: more than %d sessions", path, lineno, CFG_MAX_SESSIONS);
		c->s = xrealloc(c->s, (c->n + 1) * sizeof(*c->s));
		c->s[c->n].name = xstrdup(name);
		c->s[c->n].run = value_of(val);
		c->n++;
	}
	/* other sections and keys belong to other perf commands */
	return 0;
}

int daemon_config_read(const char *path, struct daemon_config *c)
{
	memset(c, 0, sizeof(*c));
	char *text = file_read(path, CFG_MAX_BYTES, NULL);
	if (!text)
		return err_wrap("config");
	char *section = NULL;
	int lineno = 0, rc = 0;
	/* strsep keeps empty lines, so line numbers stay right */
	for (char *p = text, *line; rc == 0 && (line = strsep(&p, "\n")) != NULL;) {
		lineno++;
		rc = cfg_line(c, &section, line, path, lineno);
	}
	free(section);
	free(text);
	if (rc < 0)
		daemon_config_free(c);
	return rc;
}

void daemon_config_free(struct daemon_config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->s[i].name);
		free(c->s[i].run);
	}
	free(c->s);
	free(c->base);
	memset(c, 0, sizeof(*c));
}
