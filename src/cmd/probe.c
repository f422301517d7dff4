/* lperf probe: perf probe's dynamic events. Uprobes (-x BIN) at a function's entry, an offset in
 * it or its return, with fetch arguments as the kernel takes them; kprobes where the kernel has
 * kprobe_events; -l, -d, --funcs. Messages and exit statuses (254 on failure) are perf's, since
 * scripts match them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/probe_out.h"
#include "probe/probe.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define PROBE_FAIL 254   /* perf probe exits with -2 */
#define PROBE_EXISTS 239 /* and -EEXIST when the event exists */
#define DEFAULT_FUNC_FILTER "!_* & !*@plt"

struct probe_opts {
	const char *exec;
	char **add, **del;
	size_t nadd, ndel;
	bool list, funcs, force, quiet;
	int verbose;
	const char *filter;           /* --funcs=FILTER, --list=FILTER */
	const char *vars;             /* -V POINT */
	const char *lines;            /* -L FUNC */
};

static int opt_push(char ***v, size_t *n, const char *arg)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(arg);
	return 0;
}

static int opt_add(const struct option *opt, const char *arg)
{
	struct probe_opts *o = opt->value;
	return opt_push(&o->add, &o->nadd, arg);
}

static int opt_del(const struct option *opt, const char *arg)
{
	struct probe_opts *o = opt->value;
	return opt_push(&o->del, &o->ndel, arg);
}

/* "[[GROUP:]EVENT=]FUNC[+OFF|%return] [ARG ...]". */
/* An event added, as the messages show it. */
struct added {
	char *group, *event, *where, *bin, *args;
};

static void added_free(struct added *a)
{
	free(a->group);
	free(a->event);
	free(a->where);
	free(a->bin);
	free(a->args);
}

static int add_one(const struct probe_opts *o, const char *text, struct added *out)
{
	struct probe_spec s;
	if (probe_spec_parse(text, &s) < 0 || probe_spec_check(&s, o->exec != NULL) < 0) {
		probe_spec_free(&s);
		return -1;
	}
	char *file, *shown = NULL;
	struct probe_event e = { s.ret ? 'r' : 'p', o->exec != NULL, NULL, NULL, probe_spec_target(o->exec, &s, &file), NULL };
	int r = e.target ? 0 : -1;
	if (r == 0 && s.skip && !o->quiet)
		fprintf(stderr, "Target program is compiled without optimization. Skipping prologue.\n"
			"Probe on address 0x%llx to force probing at the function entry.\n\n",
			(unsigned long long)s.entry);
	if (r == 0)
		r = probe_spec_args(file, &s, &e.args, &shown);
	if (r == 0) {
		struct probe_event *v;
		size_t n;
		probe_events_read(&v, &n);
		e.group = s.group ? xstrdup(s.group) : o->exec ? probe_group_for(file) : xstrdup("probe");
		char *base = s.event ? xstrdup(s.event) : s.ret ? xasprintf("%s__return", s.func) : xstrdup(s.func);
		r = probe_pick_name(v, n, e.group, base, o->force, &e.event);
		free(base);
		probe_events_free(v, n);
	}
	if (r == 0)
		r = probe_events_add(&e);
	if (r == 0) {
		char off[32] = "";
		if (s.off)
			snprintf(off, sizeof(off), "+%llu", (unsigned long long)s.off);
		*out = (struct added){ e.group, e.event, xasprintf("%s%s%s", s.func, off, s.ret ? "%return" : ""),
				       file, shown };
		file = shown = NULL;
		e.group = e.event = NULL;
	}
	free(e.group);
	free(e.event);
	free(e.target);
	free(e.args);
	free(file);
	free(shown);
	probe_spec_free(&s);
	return r;
}

static int do_add(const struct probe_opts *o)
{
	struct added *a = xcalloc(o->nadd, sizeof(*a));
	size_t n = 0;
	int r = 0;
	for (size_t i = 0; i < o->nadd && !r; i++)
		if ((r = add_one(o, o->add[i], &a[n])) == 0)
			n++;
	if (n && !o->quiet) {
		probe_print_added_head(stderr, n);
		for (size_t i = 0; i < n; i++)
			probe_print_event(stderr, a[i].group, a[i].event, a[i].where, a[i].bin, a[i].args);
		probe_print_added_tail(stderr, a[n - 1].group, a[n - 1].event);
	}
	for (size_t i = 0; i < n; i++)
		added_free(&a[i]);
	free(a);
	if (r) {
		const char *msg = err_msg();
		bool exists = strstr(msg, "already exists");
		if (exists)
			fprintf(stderr, "Error: %s\n Hint: Remove existing event by 'perf probe -d'\n"
				"       or force duplicates by 'perf probe -f'\n"
				"       or set 'force=yes' in BPF source.\n", msg);
		else
			fprintf(stderr, "%s\n", msg);
		fprintf(stderr, "  Error: %s\n", strncmp(msg, "Semantic error", 14) ? "Failed to add events." :
			"Command Parse Error.");
		return exists ? PROBE_EXISTS : PROBE_FAIL;
	}
	return 0;
}

static int do_del(const struct probe_opts *o)
{
	struct probe_event *v;
	size_t n;
	int ret = 0;
	probe_events_read(&v, &n);
	for (size_t k = 0; k < o->ndel; k++) {
		size_t hits = 0;
		for (size_t i = 0; i < n; i++) {
			if (!v[i].group || !probe_event_matches(o->del[k], &v[i]))
				continue;
			hits++;
			if (probe_events_del(&v[i]) < 0) {
				fprintf(stderr, "%s\n", err_msg());
				ret = PROBE_FAIL;
				continue;
			}
			if (!o->quiet)
				fprintf(stderr, "Removed event: %s:%s\n", v[i].group, v[i].event);
			free(v[i].group); /* gone: not matched again */
			v[i].group = NULL;
		}
		if (!hits) {
			fprintf(stderr, "\"%s\" does not hit any event.\n  Error: Failed to delete events.\n", o->del[k]);
			ret = PROBE_FAIL;
		}
	}
	probe_events_free(v, n);
	return ret;
}

static int cmp_event(const void *a, const void *b)
{
	const struct probe_event *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	return c ? c : strcmp(x->event, y->event);
}

static void do_list(const char *filter)
{
	struct probe_event *v;
	size_t n;
	probe_events_read(&v, &n);
	if (n)
		qsort(v, n, sizeof(*v), cmp_event); /* perf lists them by name */
	for (size_t i = 0; i < n; i++) {
		char *name = xasprintf("%s:%s", v[i].group, v[i].event);
		bool show = !filter || probe_filter_match(filter, name);
		free(name);
		if (!show)
			continue;
		char *bin = NULL, *where = NULL, *args = probe_arg_names(v[i].args);
		const char *colon = v[i].uprobe ? strrchr(v[i].target, ':') : NULL;
		if (colon) {
			bin = xstrndup(v[i].target, (size_t)(colon - v[i].target));
			char *func = probe_elf_name_at(bin, strtoull(colon + 1, NULL, 0));
			char *fname = func ? xstrndup(func, strcspn(func, "+")) : NULL;
			char *src = fname ? probe_elf_source(bin, fname) : NULL;
			free(fname);
			where = xasprintf("%s%s%s%s", func ? func : colon + 1, v[i].kind == 'r' ? "%return" : "",
					  src ? "@" : "", src ? src : "");
			free(func);
			free(src);
		} else {
			where = xasprintf("%s%s", v[i].target, v[i].kind == 'r' ? "%return" : "");
		}
		probe_print_event(stdout, v[i].group, v[i].event, where, bin, args);
		free(bin);
		free(where);
		free(args);
	}
	probe_events_free(v, n);
}

static int do_funcs(const struct probe_opts *o)
{
	char **names;
	size_t n;
	if ((o->exec ? probe_elf_symbols(o->exec, &names, &n) : probe_kernel_symbols(&names, &n)) < 0) {
		fprintf(stderr, "%s\n", err_msg());
		return PROBE_FAIL;
	}
	const char *filter = o->filter ? o->filter : DEFAULT_FUNC_FILTER;
	for (size_t i = 0; i < n; i++) {
		if (probe_filter_match(filter, names[i]))
			printf("%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

static int do_vars(const struct probe_opts *o)
{
	struct probe_spec s;
	char *file = o->exec ? realpath(o->exec, NULL) : NULL, *where = NULL, **lines = NULL;
	size_t n = 0;
	int r = probe_spec_parse(o->vars, &s);
	if (r == 0 && !o->exec)
		r = err_set("Debuginfo-analysis is not supported.");
	else if (r == 0 && !file)
		r = err_set("Failed to find the path for %s: %s", o->exec, strerror(errno));
	else if (r == 0 && probe_elf_offset(file, s.func, &(uint64_t){ 0 }) < 0)
		r = err_set("Failed to find the address of %s", s.func);
	else if (r == 0)
		r = probe_dwarf_vars(file, s.func, s.off, &where, &lines, &n);
	if (r == 0)
		probe_print_vars(stdout, o->vars, where, lines, n);
	else
		fprintf(stderr, "%s\n  Error: Failed to show vars.\n", err_msg());
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(where);
	free(file);
	probe_spec_free(&s);
	return r ? PROBE_FAIL : 0;
}

static int do_lines(const struct probe_opts *o)
{
	char *file = o->exec ? realpath(o->exec, NULL) : NULL;
	struct probe_lines l;
	int r;
	if (!o->exec)
		r = err_set("Debuginfo-analysis is not supported.");
	else if (!file)
		r = err_set("Failed to find the path for %s: %s", o->exec, strerror(errno));
	else
		r = probe_dwarf_lines(file, o->lines, &l);
	if (r == 0) {
		probe_print_lines(stdout, o->lines, l.file, l.text, l.start, l.end, l.numbered);
		probe_dwarf_lines_free(&l);
	} else {
		fprintf(stderr, "%s\n  Error: Failed to show lines.\n", err_msg());
	}
	free(file);
	return r ? PROBE_FAIL : 0;
}

/* perf takes "--funcs=FILTER" and "--list=FILTER"; a word after --funcs/-F is the filter too. */
static void take_attached(struct probe_opts *o, int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strncmp(argv[i], "--funcs=", 8) || !strncmp(argv[i], "--list=", 7)) {
			char *eq = strchr(argv[i], '=');
			o->filter = eq + 1;
			*eq = 0;
		}
	}
}

int cmd_probe(int argc, char **argv)
{
	struct probe_opts o = { 0 };
	static const char *const usage[] = {
		"lperf probe [-x BIN] [-f] -a 'FUNC[+OFF|%return] [ARG ...]'",
		"lperf probe [-x BIN] -d EVENT",
		"lperf probe -l [FILTER]",
		"lperf probe -x BIN --funcs [FILTER]",
		"lperf probe -x BIN -V FUNC[+OFF]",
		"lperf probe -x BIN -L FUNC",
		NULL,
	};
	const struct option opts[] = {
		{ OPT_STRING, 'x', "exec", &o.exec, "BIN", "the binary for user-space probes (uprobes)" },
		{ OPT_CALLBACK, 'a', "add", &o, "PROBE", "add FUNC[+OFF|%return] [NAME=FETCHARG ...]", opt_add },
		{ OPT_CALLBACK, 'd', "del", &o, "EVENT", "delete events ([GROUP:]EVENT, globs)", opt_del },
		{ OPT_BOOL, 'l', "list", &o.list, NULL, "list the probe events ([GROUP:]EVENT filter after it)" },
		{ OPT_BOOL, 'F', "funcs", &o.funcs, NULL, "list the functions of -x BIN (a filter after it; "
		  "default '" DEFAULT_FUNC_FILTER "')" },
		{ OPT_STRING, 'L', "line", &o.lines, "FUNC", "the source lines of FUNC in -x BIN, numbered where "
		  "a probe can go" },
		{ OPT_STRING, 'V', "vars", &o.vars, "POINT", "the variables readable at FUNC[+OFF] (from -x BIN's "
		  "debug info)" },
		{ OPT_BOOL, 'f', "force", &o.force, NULL, "add a duplicate as EVENT_1, EVENT_2..." },
		{ OPT_BOOL, 'q', "quiet", &o.quiet, NULL, "no messages but errors" },
		{ OPT_COUNT, 'v', "verbose", &o.verbose, NULL, "accepted, as perf's" },
		OPT_END_(),
	};
	take_attached(&o, argc, argv);
	const struct opt_ctx ctx = { "probe", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	struct strbuf rest = STRBUF_INIT;
	for (; i < argc; i++)
		sb_addf(&rest, "%s%s", rest.len ? " " : "", argv[i]);
	int ret = 0;
	if ((o.funcs || o.list) && rest.len)
		o.filter = rest.buf;
	else if (rest.len)
		opt_push(&o.add, &o.nadd, rest.buf);
	if (o.lines)
		ret = do_lines(&o);
	else if (o.vars)
		ret = do_vars(&o);
	else if (o.funcs)
		ret = do_funcs(&o);
	else if (o.list)
		do_list(o.filter);
	else if (o.ndel || o.nadd) {
		if (o.ndel)
			ret = do_del(&o);
		if (o.nadd && !ret)
			ret = do_add(&o);
	} else {
		opt_usage(&ctx, stderr);
		ret = EXIT_USAGE;
	}
	for (size_t k = 0; k < o.nadd; k++)
		free(o.add[k]);
	for (size_t k = 0; k < o.ndel; k++)
		free(o.del[k]);
	free(o.add);
	free(o.del);
	sb_release(&rest);
	return ret;
}
