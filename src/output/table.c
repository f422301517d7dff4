#include "output/table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void table_init(struct table *t, size_t ncols, const char *const *cols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->header = xcalloc(ncols, sizeof(char *));
	t->align = xcalloc(ncols, sizeof(*t->align));
	t->gap = 2;
	for (size_t i = 0; i < ncols; i++) {
		const char *c = cols[i];
		if (c[0] == '>') {
			t->align[i] = TABLE_RIGHT;
			c++;
		}
		t->header[i] = xstrdup(c);
	}
}

void table_row(struct table *t, const char *const *cells)
{
	ALLOC_GROW(t->cells, (t->nrows + 1) * t->ncols, t->cap);
	for (size_t i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = xstrdup(cells[i] ? cells[i] : "");
	t->nrows++;
}

void table_rowv(struct table *t, ...)
{
	const char **cells = xcalloc(t->ncols, sizeof(char *));
	va_list ap;
	va_start(ap, t);
	for (size_t i = 0; i < t->ncols; i++)
		cells[i] = va_arg(ap, const char *);
	va_end(ap);
	table_row(t, cells);
	free(cells);
}

/* Display width of a UTF-8 string (counts code points, not bytes). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void cell(FILE *f, const char *s, size_t w, enum table_align a, bool last)
{
	size_t sw = width(s), pad = w > sw ? w - sw : 0;
	if (a == TABLE_RIGHT)
		fprintf(f, "%*s", (int)pad, "");
	fputs(s, f);
	if (a == TABLE_LEFT && !last)
		fprintf(f, "%*s", (int)pad, "");
}

void table_print(const struct table *t, FILE *f)
{
	size_t *w = xcalloc(t->ncols, sizeof(size_t));
	bool has_header = false;
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->header[c][0])
			has_header = true;
		w[c] = width(t->header[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t cw = width(t->cells[r * t->ncols + c]);
			if (cw > w[c])
				w[c] = cw;
		}
	}
	if (has_header) {
		fprintf(f, "%*s", t->indent, "");
		for (size_t c = 0; c < t->ncols; c++) {
			cell(f, t->header[c], w[c], t->align[c], c + 1 == t->ncols);
			if (c + 1 < t->ncols)
				fprintf(f, "%*s", t->gap, "");
		}
		fputc('\n', f);
		if (t->underline) {
			fprintf(f, "%*s", t->indent, "");
			for (size_t c = 0; c < t->ncols; c++) {
				size_t hw = width(t->header[c]);
				if (t->align[c] == TABLE_RIGHT)
					fprintf(f, "%*s", (int)(w[c] - hw), "");
				for (size_t k = 0; k < hw; k++)
					fputc('=', f);
				if (c + 1 < t->ncols)
					fprintf(f, "%*s", (int)(t->align[c] == TABLE_LEFT ? w[c] - hw + (size_t)t->gap
										     : (size_t)t->gap), "");
			}
			fputc('\n', f);
		}
	}
	for (size_t r = 0; r < t->nrows; r++) {
		fprintf(f, "%*s", t->indent, "");
		for (size_t c = 0; c < t->ncols; c++) {
			cell(f, t->cells[r * t->ncols + c], w[c], t->align[c], c + 1 == t->ncols);
			if (c + 1 < t->ncols)
				fprintf(f, "%*s", t->gap, "");
		}
		fputc('\n', f);
	}
	free(w);
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (size_t c = 0; c < t->ncols; c++)
		free(t->header[c]);
	free(t->cells);
	free(t->header);
	free(t->align);
	memset(t, 0, sizeof(*t));
}

const char *fmt_thousands(unsigned long long v, char *buf, size_t size)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", v);
	size_t o = 0;
	for (int i = 0; i < n && o + 1 < size; i++) {
		if (i > 0 && (n - i) % 3 == 0 && o + 2 < size)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}
