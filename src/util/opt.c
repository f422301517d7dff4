#include "util/opt.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"

static const char *roff_summary; /* opt_set_roff: --help writes a manual page */
static int line_argc;            /* opt_set_command_line */
static char **line_argv;

void opt_set_command_line(int argc, char **argv)
{
	line_argc = argc;
	line_argv = argv;
}

char **opt_command_line(int *argc)
{
	static char *none[] = { NULL };
	*argc = line_argv ? line_argc : 0;
	return line_argv ? line_argv : none;
}

void opt_set_roff(const char *summary)
{
	roff_summary = summary;
}

/* s as roff text: '-' and '\\' escaped, a leading '.' or '\'' kept literal. */
static void roff_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\\' ? 'e' : *s, f);
		if ((*s == ',' || *s == '/') && s[1] && s[1] != ' ')
			fputs("\\:", f); /* a place to break a long list of words */
	}
}

static void roff_head(FILE *f, const char *cmd, const char *summary)
{
	fputs(*cmd ? ".TH LPERF\\-" : ".TH LPERF", f);
	for (const char *c = cmd; *c; c++)
		fputs(*c == '-' ? "\\-" : (char[]){ (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c), 0 }, f);
	/* ragged right: lists of words joined by commas break where they can and need no spread */
	fputs(*cmd ? " 1 \"\" \"lperf\" \"lperf Manual\"\n.ad l\n.SH NAME\nlperf\\-" :
	      " 1 \"\" \"lperf\" \"lperf Manual\"\n.ad l\n.SH NAME\nlperf", f);
	roff_text(f, cmd);
	fputs(" \\- ", f);
	roff_text(f, summary);
	fputc('\n', f);
}

void opt_roff_text_page(FILE *f, const char *cmd, const char *summary, const char *text)
{
	roff_head(f, cmd, summary);
	fputs(".SH DESCRIPTION\n.nf\n", f);
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, n);
		roff_text(f, line);
		fputc('\n', f);
		free(line);
		p += n + (nl != NULL);
	}
	fprintf(f, ".fi\n.SH SEE ALSO\n\\fBlperf\\fR(1)\n");
}

/* The manual page lperf-CMD(1) from the same table the parser uses (docs/man.md). */
static void usage_roff(const struct opt_ctx *ctx, FILE *f)
{
	roff_head(f, ctx->cmd, roff_summary);
	fputs(".SH SYNOPSIS\n.nf\n", f);
	for (const char *const *u = ctx->usage; u && *u; u++) {
		roff_text(f, *u);
		fputc('\n', f);
	}
	fputs(".fi\n.SH OPTIONS\n", f);
	for (const struct option *o = ctx->opts; o->type != OPT_END; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		if (o->type == OPT_GROUP) {
			fputs(".SS ", f);
			roff_text(f, o->help);
			fputc('\n', f);
			continue;
		}
		bool optional = o->flags & (OPT_NUMERIC_OPT | OPT_WORD_OPT | OPT_EQ_OPT);
		fputs(".TP\n.B ", f);
		if (o->short_name)
			fprintf(f, "\\-%c%s", o->short_name, o->long_name ? ", " : "");
		if (o->long_name) {
			fputs("\\-\\-", f);
			roff_text(f, o->long_name);
		}
		if (o->argh) {
			fputs(optional ? " [" : " ", f);
			roff_text(f, o->argh);
			fputs(optional ? "]" : "", f);
		}
		fputc('\n', f);
		roff_text(f, o->help ? o->help : "");
		fputc('\n', f);
	}
	fprintf(f, ".SH SEE ALSO\n\\fBlperf\\fR(1); 'lperf %s \\-\\-help' for the short form; docs/%s.md in lperf's sources\n",
		ctx->cmd, ctx->cmd);
}

void opt_usage(const struct opt_ctx *ctx, FILE *f)
{
	if (roff_summary) {
		usage_roff(ctx, f);
		return;
	}
	for (const char *const *u = ctx->usage; u && *u; u++)
		fprintf(f, "%s%s\n", u == ctx->usage ? "usage: " : "   or: ", *u);
	for (const struct option *o = ctx->opts; o->type != OPT_END; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		if (o->type == OPT_GROUP) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (o == ctx->opts)
			fputc('\n', f);
		char left[96];
		int n = snprintf(left, sizeof(left), "    %s%c%s%s%s", o->short_name ? "-" : "",
				 o->short_name ? o->short_name : ' ',
				 o->short_name && o->long_name ? ", " : (o->long_name ? "  " : ""),
				 o->long_name ? "--" : "", o->long_name ? o->long_name : "");
		bool optional = o->flags & (OPT_NUMERIC_OPT | OPT_WORD_OPT | OPT_EQ_OPT);
		if (o->argh && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, " %s%s%s", optional ? "[" : "", o->argh,
				 optional ? "]" : "");
		if (strlen(left) > 28)
			fprintf(f, "%s\n%30s%s\n", left, "", o->help);
		else
			fprintf(f, "%-30s%s\n", left, o->help);
	}
}

void opt_usage_error(const struct opt_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "lperf %s: ", ctx->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nRun 'lperf %s --help' for the list of options.\n", ctx->cmd);
	err_exit(EXIT_USAGE);
}

/* perf's (and git's) parse-options: a long option may be given by a unique prefix of its name
 * ("--comm" for --comms); a prefix of several is a usage error naming them. NULL: none. */
static const struct option *long_prefix(const struct opt_ctx *ctx, const char *name, size_t len)
{
	const struct option *hit = NULL;
	size_t n = 0;
	for (const struct option *o = ctx->opts; o->type != OPT_END; o++)
		if (o->long_name && !(o->flags & OPT_HIDDEN) && strlen(o->long_name) > len &&
		    !strncmp(o->long_name, name, len)) {
			hit = o;
			n++;
		}
	if (n <= 1)
		return hit;
	char list[512] = "";
	size_t used = 0;
	for (const struct option *o = ctx->opts; o->type != OPT_END && used < sizeof(list); o++)
		if (o->long_name && !(o->flags & OPT_HIDDEN) && strlen(o->long_name) > len &&
		    !strncmp(o->long_name, name, len))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s", used ? ", " : "",
						 o->long_name);
	opt_usage_error(ctx, "ambiguous option '--%.*s' (could be %s)", (int)len, name, list);
}

static bool takes_arg(const struct option *o)
{
	switch (o->type) {
	case OPT_STRING:
	case OPT_INT:
		return true;
	case OPT_CALLBACK:
		return !(o->flags & OPT_NOARG);
	default:
		return false;
	}
}

static bool looks_word(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != ',' && *s != '.')
			return false;
	return true;
}

static bool looks_numeric(const char *s)
{
	if (!s || !isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && *s != ',' && *s != '-')
			return false;
	return true;
}

static void apply(const struct opt_ctx *ctx, const struct option *o, const char *arg,
		  const char *spelled)
{
	switch (o->type) {
	case OPT_BOOL:
		*(bool *)o->value = true;
		break;
	case OPT_COUNT:
		(*(int *)o->value)++;
		break;
	case OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case OPT_INT:
		if (parse_int(arg, (int *)o->value) < 0)
			opt_usage_error(ctx, "option '%s': %s", spelled, err_msg());
		break;
	case OPT_CALLBACK:
		if (o->cb(o, arg) < 0)
			opt_usage_error(ctx, "option '%s': %s", spelled, err_msg());
		break;
	default:
		break;
	}
}

static void unknown(const struct opt_ctx *ctx, const char *word)
{
	/* Any two letters are one edit apart: a short option's "closest" ones are noise. */
	if (word[0] == '-' && word[1] != '-')
		opt_usage_error(ctx, "unknown option '%s'", word);
	struct suggest s;
	char buf[256], cand[64][64];
	size_t nc = 0;
	suggest_init(&s, word);
	for (const struct option *o = ctx->opts; o->type != OPT_END && nc < 64; o++) {
		if (o->type == OPT_GROUP || (o->flags & OPT_HIDDEN))
			continue;
		if (o->long_name) {
			snprintf(cand[nc], sizeof(cand[nc]), "--%s", o->long_name);
			suggest_offer(&s, cand[nc++]);
		}
		if (o->short_name && nc < 64) {
			snprintf(cand[nc], sizeof(cand[nc]), "-%c", o->short_name);
			suggest_offer(&s, cand[nc++]);
		}
	}
	opt_usage_error(ctx, "unknown option '%s'%s", word, suggest_format(&s, buf, sizeof(buf)));
}

/* Without stop_at_non_option, positional words may come between options ("list -v cache");
 * they are gathered and moved behind the options, so argv[returned index..] holds them. */
static int finish(char **argv, int argc, int i, char **pos, int npos)
{
	int rest = argc - i;
	/* argv[i..argc) are unparsed trailing words (after "--"); put positionals before them. */
	char **tail = malloc(sizeof(char *) * (size_t)(rest + 1));
	if (!tail)
		abort();
	memcpy(tail, argv + i, sizeof(char *) * (size_t)rest);
	int start = argc - rest - npos;
	memcpy(argv + start, pos, sizeof(char *) * (size_t)npos);
	memcpy(argv + start + npos, tail, sizeof(char *) * (size_t)rest);
	free(tail);
	return start;
}

int opt_parse(const struct opt_ctx *ctx, int argc, char **argv)
{
	int i = 1, npos = 0;
	char **pos = malloc(sizeof(char *) * (size_t)(argc + 1));
	if (!pos)
		abort();
	while (i < argc) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == 0) {
			if (ctx->stop_at_non_option)
				break;
			pos[npos++] = argv[i++];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opt_usage(ctx, stdout);
			err_exit(0);
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct option *o = ctx->opts, *hit = NULL;
			for (; o->type != OPT_END; o++)
				if (o->long_name && strlen(o->long_name) == len &&
				    !strncmp(o->long_name, name, len))
					hit = o;
			if (!hit && len)
				hit = long_prefix(ctx, name, len);
			if (!hit) {
				char word[128];
				snprintf(word, sizeof(word), "--%.*s", (int)len, name);
				unknown(ctx, word);
			}
			const char *arg = NULL;
			if (takes_arg(hit)) {
				if (eq)
					arg = eq + 1;
				else if (hit->flags & OPT_EQ_OPT)
					arg = NULL;
				else if ((hit->flags & OPT_NUMERIC_OPT))
					arg = i + 1 < argc && looks_numeric(argv[i + 1]) ? argv[++i] : NULL;
				else if ((hit->flags & OPT_WORD_OPT))
					arg = i + 1 < argc && looks_word(argv[i + 1]) ? argv[++i] : NULL;
				else if (i + 1 < argc)
					arg = argv[++i];
				else
					opt_usage_error(ctx, "option '--%s' needs a value (%s)", hit->long_name,
							hit->argh ? hit->argh : "value");
			} else if (eq) {
				opt_usage_error(ctx, "option '--%s' takes no value", hit->long_name);
			}
			char spelled[128]; /* the option without its =value, for messages */
			snprintf(spelled, sizeof(spelled), "--%s", hit->long_name);
			apply(ctx, hit, arg, spelled);
			i++;
			continue;
		}
		/* A cluster of short options: -aq, -e cycles, -ecycles, -x, */
		for (const char *p = a + 1; *p; p++) {
			const struct option *o = ctx->opts, *hit = NULL;
			for (; o->type != OPT_END; o++)
				if (o->short_name == *p)
					hit = o;
			if (!hit) {
				char word[8] = { '-', *p, 0 };
				unknown(ctx, word);
			}
			char spelled[3] = { '-', *p, 0 };
			if (!takes_arg(hit)) {
				apply(ctx, hit, NULL, spelled);
				continue;
			}
			const char *arg;
			if (p[1])
				arg = p + 1;
			else if (hit->flags & OPT_EQ_OPT)
				arg = NULL;
			else if (hit->flags & OPT_NUMERIC_OPT)
				arg = i + 1 < argc && looks_numeric(argv[i + 1]) ? argv[++i] : NULL;
			else if (hit->flags & OPT_WORD_OPT)
				arg = i + 1 < argc && looks_word(argv[i + 1]) ? argv[++i] : NULL;
			else if (i + 1 < argc)
				arg = argv[++i];
			else
				opt_usage_error(ctx, "option '-%c' needs a value (%s)", *p,
						hit->argh ? hit->argh : "value");
			apply(ctx, hit, arg, spelled);
			break;
		}
		i++;
	}
	int r = finish(argv, argc, i, pos, npos);
	free(pos);
	return r;
}

int opt_parse_subcommand(const struct opt_ctx *ctx, int argc, char **argv)
{
	int i = opt_parse(ctx, argc, argv);
	if (i >= argc) {
		opt_usage(ctx, stderr);
		err_exit(EXIT_USAGE);
	}
	return i;
}

bool opt_abbrev(const char *word, const char *full, size_t min)
{
	size_t n = strlen(word);
	return n >= min && n <= strlen(full) && !strncmp(word, full, n);
}
