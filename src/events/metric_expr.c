/* Metric formulas: a recursive-descent parser that emits postfix code, and a stack evaluator.
 * Postfix keeps evaluation free of recursion, so a long "a + b + c + ..." chain costs no C
 * stack; only parentheses recurse in the parser, and their depth is capped. */
#include "events/metric.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/metric_builtin.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAX_PAREN_DEPTH 64
#define MAX_NAME 256

enum op { OP_NUM, OP_VAR, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV };

struct insn {
	enum op op;
	double num;  /* OP_NUM */
	size_t var;  /* OP_VAR: index into vars */
};

struct metric_expr {
	struct insn *code;
	size_t ncode, capcode;
	char **vars;  /* distinct names in order of first use, events and specials alike */
	size_t nvars, capvars;
	size_t maxstack;
};

struct parser {
	const char *src;
	size_t pos;
	int depth;
	size_t stack, maxstack;
	struct metric_expr *e;
	bool failed;
};

/* Names the evaluator resolves itself rather than as counted events. */
static bool is_special(const char *name)
{
	return name[0] == '#' || !strcasecmp(name, "duration_time");
}

/* The formula as an error message shows it: one line, printable, not too long. */
static void quote_formula(struct strbuf *sb, const char *src)
{
	size_t n = 0;
	for (const char *p = src; *p && n < 60; p++, n++)
		sb_addc(sb, isprint((unsigned char)*p) ? *p : '?');
	if (strlen(src) > 60)
		sb_adds(sb, "...");
}

__attribute__((format(printf, 3, 4)))
static void fail(struct parser *p, size_t at, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "formula '");
	quote_formula(&sb, p->src);
	sb_addf(&sb, "': column %zu: ", at + 1);
	va_list ap;
	va_start(ap, fmt);
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	sb_adds(&sb, msg ? msg : "parse error");
	free(msg);
	err_set("%s", sb_str(&sb));
	sb_release(&sb);
}

static void emit(struct parser *p, enum op op, double num, size_t var)
{
	struct metric_expr *e = p->e;
	ALLOC_GROW(e->code, e->ncode + 1, e->capcode);
	e->code[e->ncode++] = (struct insn){ .op = op, .num = num, .var = var };
	if (op == OP_NUM || op == OP_VAR) {
		if (++p->stack > p->maxstack)
			p->maxstack = p->stack;
	} else if (op != OP_NEG) {
		p->stack--;
	}
}

static size_t var_index(struct metric_expr *e, const char *name, size_t len)
{
	for (size_t i = 0; i < e->nvars; i++)
		if (strlen(e->vars[i]) == len && !strncasecmp(e->vars[i], name, len))
			return i;
	ALLOC_GROW(e->vars, e->nvars + 1, e->capvars);
	e->vars[e->nvars] = xstrndup(name, len);
	return e->nvars++;
}

static void skip_space(struct parser *p)
{
	while (p->src[p->pos] == ' ' || p->src[p->pos] == '\t')
		p->pos++;
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Length of the event name starting at s (see the grammar in metric.h). */
static size_t scan_name(const char *s)
{
	size_t n = 0;
	if (!name_start(s[0]))
		return 0;
	for (;;) {
		if (name_char(s[n]))
			n++;
		else if ((s[n] == '-' && name_start(s[n + 1])) ||
			 ((s[n] == '.' || s[n] == ':') && name_char(s[n + 1])))
			n += 2;
		else
			return n;
	}
}

/* Length of the decimal number at s: digits [. digits] [e [+-] digits]. */
static size_t scan_number(const char *s)
{
	size_t n = 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	if (s[n] == '.') {
		n++;
		while (isdigit((unsigned char)s[n]))
			n++;
	}
	if (n == 1 && s[0] == '.')
		return 0;
	if (s[n] == 'e' || s[n] == 'E') {
		size_t m = n + 1;
		if (s[m] == '+' || s[m] == '-')
			m++;
		if (isdigit((unsigned char)s[m])) {
			while (isdigit((unsigned char)s[m]))
				m++;
			n = m;
		}
	}
	return n;
}

static const char *describe(const char *s, char *buf, size_t size)
{
	unsigned char c = (unsigned char)*s;
	if (!c)
		return "the end of the formula";
	if (isprint(c))
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
	return buf;
}

static void parse_expr(struct parser *p);

static void parse_primary(struct parser *p)
{
	skip_space(p);
	const char *s = p->src + p->pos;
	size_t at = p->pos, n;
	char buf[16];

	if (*s == '(') {
		if (++p->depth > MAX_PAREN_DEPTH) {
			fail(p, at, "parentheses nested deeper than %d", MAX_PAREN_DEPTH);
			return;
		}
		p->pos++;
		parse_expr(p);
		p->depth--;
		if (p->failed)
			return;
		skip_space(p);
		if (p->src[p->pos] != ')')
			fail(p, p->pos, "expected ')' to close the '(' at column %zu, found %s",
			     at + 1, describe(p->src + p->pos, buf, sizeof(buf)));
		else
			p->pos++;
	} else if ((n = scan_number(s)) > 0) {
		if (name_start(s[n]) || s[n] == '.') {
			fail(p, at + n, "unexpected %s after the number '%.*s'",
			     describe(s + n, buf, sizeof(buf)), (int)n, s);
			return;
		}
		char *num = xstrndup(s, n);
		double v = strtod(num, NULL);
		free(num);
		if (!isfinite(v)) {
			fail(p, at, "number '%.*s' is out of range", (int)n, s);
			return;
		}
		emit(p, OP_NUM, v, 0);
		p->pos += n;
	} else if ((n = scan_name(s)) > 0 || (*s == '#' && (n = scan_name(s + 1)) > 0)) {
		bool hash = *s == '#';
		size_t len = n + hash;
		if (len > MAX_NAME) {
			fail(p, at, "event name longer than %d characters", MAX_NAME);
			return;
		}
		if (hash && !(n == 5 && !strncasecmp(s + 1, "slots", 5))) {
			fail(p, at, "unknown constant '%.*s'; the only one is #slots", (int)len, s);
			return;
		}
		emit(p, OP_VAR, 0, var_index(p->e, s, len));
		p->pos += len;
	} else if (*s == ')') {
		fail(p, at, "expected an event name, a number or '(' before ')'");
	} else if (!*s || strchr("+-*/", *s)) {
		fail(p, at, "expected an event name, a number or '(', found %s",
		     describe(s, buf, sizeof(buf)));
	} else {
		fail(p, at, "unexpected character %s; expected an event name, a number or '('",
		     describe(s, buf, sizeof(buf)));
	}
}

/* Signs are counted in a loop, not by recursion, so "- - - ... x" cannot exhaust the stack. */
static void parse_unary(struct parser *p)
{
	bool neg = false;
	for (;;) {
		skip_space(p);
		char c = p->src[p->pos];
		if (c != '-' && c != '+')
			break;
		if (c == '-')
			neg = !neg;
		p->pos++;
	}
	parse_primary(p);
	if (neg && !p->failed)
		emit(p, OP_NEG, 0, 0);
}

static void parse_term(struct parser *p)
{
	parse_unary(p);
	while (!p->failed) {
		skip_space(p);
		char c = p->src[p->pos];
		if (c != '*' && c != '/')
			return;
		p->pos++;
		parse_unary(p);
		if (!p->failed)
			emit(p, c == '*' ? OP_MUL : OP_DIV, 0, 0);
	}
}

static void parse_expr(struct parser *p)
{
	parse_term(p);
	while (!p->failed) {
		skip_space(p);
		char c = p->src[p->pos];
		if (c != '+' && c != '-')
			return;
		p->pos++;
		parse_term(p);
		if (!p->failed)
			emit(p, c == '+' ? OP_ADD : OP_SUB, 0, 0);
	}
}

struct metric_expr *metric_parse(const char *formula)
{
	if (!formula) {
		err_set("no formula given");
		return NULL;
	}
	size_t len = strnlen(formula, METRIC_FORMULA_MAX + 1);
	if (len > METRIC_FORMULA_MAX) {
		err_set("formula is longer than %d bytes", METRIC_FORMULA_MAX);
		return NULL;
	}
	struct parser p = { .src = formula, .e = xcalloc(1, sizeof(struct metric_expr)) };
	skip_space(&p);
	if (!formula[p.pos]) {
		fail(&p, p.pos, "the formula is empty; expected an expression such as 'a / b'");
	} else {
		parse_expr(&p);
		skip_space(&p);
		char c = formula[p.pos];
		char buf[16];
		if (p.failed)
			;
		else if (c == ')')
			fail(&p, p.pos, "unexpected ')' with no matching '('");
		else if (name_start(c) || isdigit((unsigned char)c) || c == '.' || c == '#' ||
			 c == '(')
			fail(&p, p.pos, "expected an operator (+ - * /) before %s",
			     describe(formula + p.pos, buf, sizeof(buf)));
		else if (c)
			fail(&p, p.pos, "unexpected character %s; expected an operator (+ - * /)",
			     describe(formula + p.pos, buf, sizeof(buf)));
	}
	if (p.failed) {
		metric_expr_free(p.e);
		return NULL;
	}
	p.e->maxstack = p.maxstack;
	return p.e;
}

void metric_expr_events(const struct metric_expr *e, char ***names, size_t *n)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nvars; i++) {
		const char *v = e->vars[i];
		bool seen = is_special(v);
		for (size_t j = 0; j < *n && !seen; j++)
			seen = !strcasecmp((*names)[j], v);
		if (seen)
			continue;
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(v);
	}
}

void metric_expr_free(struct metric_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nvars; i++)
		free(e->vars[i]);
	free(e->vars);
	free(e->code);
	free(e);
}

static double resolve(const char *name, metric_lookup_fn lookup, void *arg)
{
	double v = lookup ? lookup(name, arg) : NAN;
	if (isnan(v) && !strcasecmp(name, "#slots"))
		v = metric_arm_slots();
	return v;
}

double metric_eval(const struct metric_expr *e, metric_lookup_fn lookup, void *arg)
{
	if (!e || !e->ncode)
		return NAN;
	/* Each input is looked up once, however often the formula names it. */
	double *val = xmalloc((e->nvars + e->maxstack) * sizeof(double));
	double *st = val + e->nvars;
	size_t sp = 0;
	for (size_t i = 0; i < e->nvars; i++)
		val[i] = resolve(e->vars[i], lookup, arg);
	for (size_t i = 0; i < e->ncode; i++) {
		const struct insn *in = &e->code[i];
		double b;
		switch (in->op) {
		case OP_NUM:
			st[sp++] = in->num;
			break;
		case OP_VAR:
			st[sp++] = val[in->var];
			break;
		case OP_NEG:
			st[sp - 1] = -st[sp - 1];
			break;
		case OP_ADD:
			b = st[--sp];
			st[sp - 1] += b;
			break;
		case OP_SUB:
			b = st[--sp];
			st[sp - 1] -= b;
			break;
		case OP_MUL:
			b = st[--sp];
			st[sp - 1] *= b;
			break;
		case OP_DIV:
			b = st[--sp];
			st[sp - 1] = b == 0 ? NAN : st[sp - 1] / b;
			break;
		}
	}
	double r = st[0];
	free(val);
	return isfinite(r) ? r : NAN;
}
