/* Dynamic events in tracefs: reading, naming, adding and removing uprobes and kprobes as perf
 * probe does (see probe.h). */
#include "probe/probe.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/tracepoint.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

#define EVENTS_MAX (4u << 20)

char *probe_events_file(bool uprobe)
{
	const char *dir = tp_dir();
	const char *name = uprobe ? "uprobe_events" : "kprobe_events";
	if (!dir && tp_denied(name))
		return NULL;
	if (!dir)
		return err_set("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"), NULL;
	char *path = xasprintf("%s/%s", dir, name);
	if (access(path, F_OK) < 0) {
		/* perf's words, its doubled '/' included */
		err_set("%s//%s does not exist.\nPlease rebuild kernel with CONFIG_%s_EVENTS=y.", dir, name,
			uprobe ? "UPROBE" : "KPROBE");
		free(path);
		return NULL;
	}
	return path;
}

/* "p:group/event target args..." -> e; -1 for a line of another shape. */
static int parse_line(char *line, bool uprobe, struct probe_event *e)
{
	char *sp = strchr(line, ' '), *colon = strchr(line, ':'), *slash;
	if (!sp || !colon || colon > sp || !(slash = strchr(colon, '/')) || slash > sp)
		return -1;
	*sp = 0;
	*slash = 0;
	char *target = sp + 1, *args = strchr(target, ' ');
	if (args)
		*args++ = 0;
	e->kind = line[0];
	e->uprobe = uprobe;
	e->group = xstrdup(colon + 1);
	e->event = xstrdup(slash + 1);
	e->target = xstrdup(target);
	e->args = xstrdup(args ? args : "");
	return 0;
}

static void read_file(bool uprobe, struct probe_event **v, size_t *n, size_t *cap)
{
	const char *dir = tp_dir();
	if (!dir)
		return;
	char *path = xasprintf("%s/%s", dir, uprobe ? "uprobe_events" : "kprobe_events");
	char *text = access(path, F_OK) == 0 ? file_read(path, EVENTS_MAX, NULL) : NULL;
	free(path);
	if (!text)
		return;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct probe_event e;
		if (parse_line(l, uprobe, &e) < 0)
			continue;
		ALLOC_GROW(*v, *n + 1, *cap);
		(*v)[(*n)++] = e;
	}
	free(text);
}

int probe_events_read(struct probe_event **v, size_t *n)
{
	size_t cap = 0;
	*v = NULL;
	*n = 0;
	read_file(false, v, n, &cap);
	read_file(true, v, n, &cap);
	return 0;
}

void probe_events_free(struct probe_event *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].group);
		free(v[i].event);
		free(v[i].target);
		free(v[i].args);
	}
	free(v);
}

char *probe_group_for(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strcspn(base, ".");
	char *g = xasprintf("probe_%.*s", (int)len, base);
	for (char *p = g; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	return g;
}

static bool taken(const struct probe_event *v, size_t n, const char *group, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].group, group) && !strcmp(v[i].event, name))
			return true;
	return false;
}

int probe_pick_name(const struct probe_event *v, size_t n, const char *group, const char *base, bool force,
		    char **name)
{
	char *b = xstrdup(base);
	for (char *p = b; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	if (!taken(v, n, group, b)) {
		*name = b;
		return 0;
	}
	if (!force) {
		err_set("event \"%s\" already exists.", b);
		free(b);
		return -1;
	}
	for (int i = 1; i < 1000; i++) {
		char *c = xasprintf("%s_%d", b, i);
		if (!taken(v, n, group, c)) {
			free(b);
			*name = c;
			return 0;
		}
		free(c);
	}
	free(b);
	return err_set("too many duplicates of event \"%s\"", base);
}

static int write_line(bool uprobe, const char *line)
{
	char *path = probe_events_file(uprobe);
	if (!path)
		return -1;
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC), r = 0;
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		r = err_set("Failed to write event: %s (%s)", strerror(errno), line);
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}

int probe_events_add(const struct probe_event *e)
{
	char *line = xasprintf("%c:%s/%s %s%s%s", e->kind, e->group, e->event, e->target, *e->args ? " " : "",
			       e->args);
	int r = write_line(e->uprobe, line);
	free(line);
	return r;
}

int probe_events_del(const struct probe_event *e)
{
	char *line = xasprintf("-:%s/%s", e->group, e->event);
	int r = write_line(e->uprobe, line);
	free(line);
	return r;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int probe_kernel_symbols(char ***names, size_t *n)
{
	size_t len, cap = 0;
	*names = NULL;
	*n = 0;
	char *text = file_read("/proc/kallsyms", 256u << 20, &len);
	if (!text)
		return -1;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char type, name[512];
		/* "ADDR TYPE NAME"; module symbols ("NAME\t[module]") belong to the modules */
		if (sscanf(l, "%*s %c %511s", &type, name) != 2 || strchr(l, '[') || !strchr("TtWwDdBb", type))
			continue;
		ALLOC_GROW(*names, *n + 1, cap);
		(*names)[(*n)++] = xstrdup(name);
	}
	free(text);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_name);
	return 0;
}

/* "GROUP:EVENT" or "EVENT" (any group) against an event. */
bool probe_event_matches(const char *pattern, const struct probe_event *e)
{
	const char *colon = strchr(pattern, ':');
	char *g = colon ? xstrndup(pattern, (size_t)(colon - pattern)) : xstrdup("*");
	bool m = probe_filter_match(g, e->group) && probe_filter_match(colon ? colon + 1 : pattern, e->event);
	free(g);
	return m;
}
