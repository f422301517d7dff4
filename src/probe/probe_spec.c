/* perf probe's probe definitions (probe/probe_spec.c): "[[GROUP:]EVENT=]FUNC[+OFF|%return]
 * [ARG ...]" parsed, its arguments turned into the kernel's fetch arguments (DWARF variables
 * through probe_elf.c), its target in uprobe_events/kprobe_events, perf's prologue skip. */
#include "probe/probe.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Source lines, files and patterns (FUNC:LINE, FILE:LINE, FUNC@FILE, ;PATTERN) need the debug
 * info analysis lperf does not have: perf's words for a perf built without it, on which perf's
 * scripts skip. */
#define NO_DWARF "Debuginfo-analysis is not supported."

static int parse_point(char *p, struct probe_spec *s)
{
	if (strchr(p, ';')) /* a lazy pattern: FUNC;PTN */
		return err_set(NO_DWARF);
	char *eq = strchr(p, '=');
	if (eq) {
		*eq = 0;
		char *colon = strchr(p, ':');
		if (colon) {
			*colon = 0;
			s->group = xstrdup(p);
			p = colon + 1;
		}
		s->event = xstrdup(p);
		p = eq + 1;
	}
	if (strpbrk(p, "@:;"))
		return err_set(NO_DWARF);
	char *pct = strchr(p, '%');
	if (pct) {
		if (strcmp(pct, "%return"))
			return err_set("Semantic error :'%s' is not a valid probe point suffix.", pct);
		*pct = 0;
		s->ret = true;
	}
	char *plus = strchr(p, '+');
	if (plus) {
		char *end;
		*plus = 0;
		s->off = strtoull(plus + 1, &end, 0);
		if (*end || plus[1] == 0)
			return err_set("Semantic error :'%s' is not an offset.", plus + 1);
	}
	if (!*p)
		return err_set("Semantic error :no function in the probe point.");
	s->func = xstrdup(p);
	return 0;
}

int probe_spec_parse(const char *text, struct probe_spec *s)
{
	memset(s, 0, sizeof(*s));
	char *copy = xstrdup(text), *p = copy;
	while (*p == ' ')
		p++;
	char *sp = strchr(p, ' ');
	if (sp) {
		*sp = 0;
		s->args = xstrdup(sp + 1);
	}
	int r = parse_point(p, s);
	free(copy);
	return r;
}

void probe_spec_free(struct probe_spec *s)
{
	free(s->group);
	free(s->event);
	free(s->func);
	free(s->args);
}

/* Fetch arguments go to the kernel as they are; a bare variable name would need DWARF locations. */
static bool is_fetcharg(const char *v)
{
	return strchr("$%@+-0123456789\\", *v) != NULL;
}

/* What the kernel can check before anything is resolved: no variable in a return probe, none
 * in a kprobe (that would need the kernel's debug info). */
int probe_spec_check(const struct probe_spec *s, bool uprobe)
{
	if (!s->args)
		return 0;
	char *copy = xstrdup(s->args), *save = NULL;
	int r = 0;
	for (char *a = strtok_r(copy, " ", &save); a && !r; a = strtok_r(NULL, " ", &save)) {
		const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : a;
		if (s->ret && !is_fetcharg(v))
			r = err_set("Semantic error :You can't specify local variable for kretprobe.");
		else if (!uprobe && !is_fetcharg(v))
			r = err_set(NO_DWARF " ('%s' is a variable: lperf probe takes fetch arguments, "
				    "NAME=%%REG:TYPE, +OFF(%%REG), $retval, $stackN)", a);
	}
	free(copy);
	return r;
}

/* One argument as the kernel takes it, named as perf names it: NAME=, else argN for a fetch
 * argument, the member for VAR->MEMBER, VAR (with _TYPE for VAR:TYPE) for a variable. DWARF
 * variables become registers through file's debug info. */
static char *kernel_arg(const char *file, const struct probe_spec *s, const char *a, int pos, char **shown)
{
	const char *eq = strchr(a, '='), *v = eq ? eq + 1 : a;
	char *name = eq ? xstrndup(a, (size_t)(eq - a)) : NULL, *out = NULL;
	*shown = xstrdup(a);
	if (is_fetcharg(v)) {
		out = xasprintf("%s=%s", name ? name : "", v);
		if (!name) {
			free(out);
			out = xasprintf("arg%d=%s", pos, v);
		}
		free(name);
		return out;
	}
	const char *colon = strchr(v, ':'), *arrow = strstr(v, "->"), *dot = strchr(v, '.');
	char *expr = colon ? xstrndup(v, (size_t)(colon - v)) : xstrdup(v);
	char *fetch = probe_dwarf_fetch(file, s->func, s->off + s->skip, expr);
	if (fetch && colon) { /* VAR:TYPE overrides the type */
		*strrchr(fetch, ':') = 0;
		char *t = xasprintf("%s:%s", fetch, colon + 1);
		free(fetch);
		fetch = t;
	}
	if (fetch && !name) {
		name = xstrdup(arrow ? arrow + 2 : dot ? dot + 1 : v);
		for (char *p = name; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_')
				*p = '_';
		if (arrow || dot) {
			free(*shown);
			*shown = xasprintf("%s=%s", name, a);
		}
	}
	if (fetch)
		out = xasprintf("%s=%s", name, fetch);
	free(fetch);
	free(expr);
	free(name);
	return out;
}

/* s's arguments for the kernel and as the messages show them. -1 with err_set(). */
int probe_spec_args(const char *file, const struct probe_spec *s, char **args, char **shown)
{
	struct strbuf k = STRBUF_INIT, d = STRBUF_INIT;
	char *copy = xstrdup(s->args ? s->args : ""), *save = NULL;
	int pos = 0, r = 0;
	for (char *a = strtok_r(copy, " ", &save); a && !r; a = strtok_r(NULL, " ", &save)) {
		char *sh, *ka = kernel_arg(file, s, a, ++pos, &sh);
		if (!ka)
			r = -1;
		else
			sb_addf(&k, "%s%s", k.len ? " " : "", ka);
		sb_addf(&d, "%s%s", d.len ? " " : "", sh);
		free(ka);
		free(sh);
	}
	free(copy);
	*args = sb_detach(&k);
	*shown = sb_detach(&d);
	return r;
}

/* The names the kernel shows for the arguments ("with i t" in -l). */
char *probe_arg_names(const char *args)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy = xstrdup(args ? args : ""), *save = NULL;
	for (char *a = strtok_r(copy, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(a, '=');
		sb_addf(&sb, "%s%.*s", sb.len ? " " : "", eq ? (int)(eq - a) : (int)strlen(a), a);
	}
	free(copy);
	return sb_detach(&sb);
}

/* perf probes past the prologue only for FUNC with DWARF variables (perf_probe_with_var). */
static bool wants_prologue_skip(const struct probe_spec *s)
{
	if (s->ret || s->off || !s->args)
		return false;
	char *copy = xstrdup(s->args), *save = NULL;
	bool var = false;
	for (char *a = strtok_r(copy, " ", &save); a && !var; a = strtok_r(NULL, " ", &save))
		var = !is_fetcharg(strchr(a, '=') ? strchr(a, '=') + 1 : a);
	free(copy);
	return var;
}

/* The event's target: "PATH:0xOFFSET" for a uprobe, "FUNC[+OFF]" for a kprobe. */
char *probe_spec_target(const char *exec, struct probe_spec *s, char **file)
{
	*file = NULL;
	if (!exec) {
		char *path = probe_events_file(false);
		if (!path)
			return NULL;
		free(path);
		return s->off ? xasprintf("%s+%llu", s->func, (unsigned long long)s->off) : xstrdup(s->func);
	}
	uint64_t off;
	*file = realpath(exec, NULL);
	if (!*file) {
		err_set("Failed to find the path for %s: %s", exec, strerror(errno));
		return NULL;
	}
	if (probe_elf_offset(*file, s->func, &off) < 0)
		return NULL;
	if (wants_prologue_skip(s))
		probe_dwarf_prologue(*file, s->func, &s->skip, &s->entry);
	return xasprintf("%s:0x%016llx", *file, (unsigned long long)(off + s->off + s->skip));
}


