#include "output/json.h"

#include <math.h>

#include "util/utf8.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->depth = 0;
	j->pretty = pretty;
	j->need_comma[0] = false;
}

static void write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else {
				/* Strict UTF-8 only (util/utf8.h): what is not becomes U+FFFD. */
				uint32_t cp;
				bool same;
				size_t n = utf8_next((const char *)p, &cp, &same);
				if (same)
					fwrite(p, 1, n, f);
				else
					fputs("\\ufffd", f);
				p += n - 1;
			}
		}
	}
	fputc('"', f);
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Writes the separator, indentation and key that come before any value. */
static void prefix(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	if (j->depth > 0)
		indent(j);
	j->need_comma[j->depth] = true;
	if (key) {
		write_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	prefix(j, key);
	fputc(c, j->f);
	if (j->depth < 63)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_(struct json *j, char c)
{
	bool had = j->need_comma[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_begin_object(struct json *j, const char *key) { open_(j, key, '{'); }
void json_end_object(struct json *j) { close_(j, '}'); }
void json_begin_array(struct json *j, const char *key) { open_(j, key, '['); }
void json_end_array(struct json *j) { close_(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	prefix(j, key);
	if (val)
		write_string(j->f, val);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	prefix(j, key);
	fprintf(j->f, "%llu", (unsigned long long)val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	prefix(j, key);
	fprintf(j->f, "%lld", (long long)val);
}

void json_double(struct json *j, const char *key, double val)
{
	prefix(j, key);
	if (!isfinite(val))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.6g", val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	prefix(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
