/* perf annotate --stdio's layout: a header per function, then each instruction as
 * "  SAMPLES :   ADDR:   TEXT" (or a percentage), with source rows ("         :  LINE  text")
 * wherever the source line changes and a row naming the inlined function where inlined code
 * starts or ends; also a per-line view (--source-only) and WindowsPerf's --annotate tables. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/annotate_out.h"
#include "output/colour.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *color_of(const struct annot_opts *o, double p)
{
	return colour_pct_begin(o->color, p);
}

static const char *color_end(const struct annot_opts *o, double p)
{
	return colour_pct_end(o->color, p);
}

static void value(FILE *f, const struct annot_opts *o, uint64_t samples, uint64_t period, uint64_t total)
{
	if (!samples) {
		fputs(o->show_nr ? "       0" : "    0.00", f);
		return;
	}
	double p = pct(period, total);
	if (o->show_nr)
		fprintf(f, "%s%8" PRIu64 "%s", color_of(o, p), samples, color_end(o, p));
	else
		fprintf(f, "%s%8.2f%s", color_of(o, p), p, color_end(o, p));
}

/* "annot.c:19  text" or, when the source file cannot be read, "annot.c:19". */
static void source_row(FILE *f, const char *file, unsigned line)
{
	size_t len = 0;
	const char *text = annot_source_line(file, line, &len);
	const char *b = strrchr(file, '/');
	if (text)
		fprintf(f, "         :  %-6u %.*s\n", line, (int)len, text);
	else
		fprintf(f, "         :  %s:%u\n", b ? b + 1 : file, line);
}

static void header(FILE *f, const struct annot_func *fn, const struct annot_opts *o)
{
	double share = pct(fn->period, o->event_period);
	fprintf(f, " %s |\tSource code & Disassembly of %s in %s for %s (%" PRIu64 " samples, %.2f%% of all, "
		"percent: local period)\n", o->show_nr ? "Samples" : "Percent", fn->sym->name,
		fn->dso->short_name ? fn->dso->short_name : "[unknown]", o->event ? o->event : "?", fn->samples,
		share);
	fputs("----------------------------------------------------------------------------------------------\n", f);
}

static void source_only(FILE *f, const struct annot_func *fn, const struct annot_opts *o)
{
	/* In line order, as the source reads. */
	size_t n = fn->nlines;
	const struct annot_line **v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = &fn->lines[i];
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			const struct annot_line *x = v[j - 1], *y = v[j];
			int c = x->file == y->file ? 0 : !x->file ? 1 : !y->file ? -1 : strcmp(x->file, y->file);
			if (c < 0 || (c == 0 && x->line <= y->line))
				break;
			v[j - 1] = y;
			v[j] = x;
		}
	for (size_t i = 0; i < n; i++) {
		value(f, o, v[i]->samples, v[i]->period, fn->period);
		if (!v[i]->file) {
			fputs(" :  (no line information)\n", f);
			continue;
		}
		size_t len = 0;
		const char *text = annot_source_line(v[i]->file, v[i]->line, &len);
		const char *b = strrchr(v[i]->file, '/');
		fprintf(f, " :  %s:%-5u %.*s\n", b ? b + 1 : v[i]->file, v[i]->line, text ? (int)len : 0,
			text ? text : "");
	}
	free(v);
}

static void insn_row(FILE *f, const struct annot_func *fn, const struct annot_insn *in, const struct annot_opts *o)
{
	value(f, o, in->samples, in->period, fn->period);
	fprintf(f, " : %6" PRIx64 ": %c %s", in->addr, in->is_target ? '>' : ' ', in->text);
	if (in->has_target && in->target_inside)
		fprintf(f, " <%s+0x%" PRIx64 ">", fn->sym->name, in->target - fn->sym->start);
	fputc('\n', f);
}

void annotate_text_func(FILE *f, const struct annot_func *fn, const struct annot_opts *o)
{
	header(f, fn, o);
	if (fn->note) {
		fprintf(f, "         :  not annotated: %s\n\n", fn->note);
		return;
	}
	if (o->source_only) {
		source_only(f, fn, o);
		fputc('\n', f);
		return;
	}
	fprintf(f, "         :  %s():\n", fn->sym->name);
	const char *file = NULL, *inl = NULL;
	unsigned line = 0;
	for (size_t i = 0; i < fn->ninsns; i++) {
		const struct annot_insn *in = &fn->insns[i];
		if (!o->no_source && in->inlined != inl) {
			if (in->inlined)
				fprintf(f, "         :  %s() (inlined)\n", in->inlined);
			else
				fprintf(f, "         :  %s():\n", fn->sym->name);
			inl = in->inlined;
			file = NULL;
		}
		if (!o->no_source && in->file && (in->file != file || in->line != line))
			source_row(f, in->file, in->line);
		file = in->file;
		line = in->line;
		insn_row(f, fn, in, o);
	}
	if (fn->unplaced)
		fprintf(f, "         :  %" PRIu64 " samples at addresses that are no instruction start\n", fn->unplaced);
	fputc('\n', f);
}

/* The lowest address among the line's instructions, and how many there are. */
static size_t line_insns(const struct annot_func *fn, const struct annot_line *l, uint64_t *first)
{
	size_t n = 0;
	*first = 0;
	for (size_t k = 0; k < fn->ninsns; k++)
		if (fn->insns[k].file == l->file && fn->insns[k].line == l->line) {
			if (!n++)
				*first = fn->insns[k].addr;
		}
	return n;
}

void annotate_wperf_func(FILE *f, const struct annot_func *fn, const struct annot_opts *o)
{
	fprintf(f, "%s\n", fn->sym->name);
	if (fn->note) {
		fprintf(f, "        not annotated: %s\n\n", fn->note);
		return;
	}
	/* Column widths: WindowsPerf's headings, or the widest file name. */
	size_t wfile = strlen("filename");
	for (size_t i = 0; i < fn->nlines && fn->lines[i].samples; i++) {
		const char *name = fn->lines[i].file ? fn->lines[i].file : "??";
		if (strlen(name) > wfile)
			wfile = strlen(name);
	}
	int wlast = o->disassemble ? (int)wfile : 0; /* no trailing blanks */
	fprintf(f, "        %-11s  %-4s  %-*s", "line_number", "hits", wlast, "filename");
	if (o->disassemble)
		fprintf(f, "  %-19s  %s", "instruction_address", "disassembled_line");
	fprintf(f, "\n        %-11s  %-4s  %-*s", "===========", "====", wlast, "========");
	if (o->disassemble)
		fprintf(f, "  %-19s  %s", "===================", "=================");
	fputc('\n', f);
	int pad = 8 + 11 + 2 + 4 + 2 + (int)wfile + 2 + 19 + 2;
	for (size_t i = 0; i < fn->nlines; i++) {
		const struct annot_line *l = &fn->lines[i];
		if (!l->samples)
			break;
		char num[16];
		snprintf(num, sizeof(num), "%u", l->line);
		fprintf(f, "        %-11s  %-4" PRIu64 "  %-*s", l->file ? num : "?", l->samples, wlast,
			l->file ? l->file : "??");
		if (!o->disassemble) {
			fputc('\n', f);
			continue;
		}
		uint64_t first;
		line_insns(fn, l, &first);
		fprintf(f, "  %-19" PRIx64 "  address  instruction\n", first);
		fprintf(f, "%*s%s\n", pad, "", "=======  ===========");
		for (size_t k = 0; k < fn->ninsns; k++) {
			const struct annot_insn *in = &fn->insns[k];
			if (in->file == l->file && in->line == l->line)
				fprintf(f, "%*s%-7" PRIx64 "  %s\n", pad, "", in->addr, in->text);
		}
	}
	fputc('\n', f);
}

void annotate_view_opts(const struct annot_view *av, const struct evsel_set *evsels,
			const struct annot_func *fn, struct annot_opts *o)
{
	memset(o, 0, sizeof(*o));
	size_t ev = (size_t)fn->evidx;
	o->disassemble = av->disassemble;
	o->event = ev < evsels->n ? evsels->v[ev].name : "?";
	o->event_samples = ev < av->a.nev ? av->a.ev_samples[ev] : 0;
	o->event_period = ev < av->a.nev ? av->a.ev_period[ev] : 0;
	o->max_lines = SIZE_MAX; /* hot lines only: rows with samples */
}

void annotate_view_print(FILE *f, struct annot_view *av, const struct evsel_set *evsels)
{
	annot_view_prepare(av);
	fputs("\nsample source code annotation\n\n", f);
	for (size_t i = 0; i < av->nhot; i++) {
		struct annot_opts o;
		annotate_view_opts(av, evsels, av->hot[i], &o);
		annotate_wperf_func(f, av->hot[i], &o);
	}
	fflush(f);
}
