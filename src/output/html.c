/* lperf's HTML report: one self-contained page (inline style, SVG and script; no network, no
 * other files) with a summary, the hot functions, the interactive flame graph, an expandable call
 * tree (<details>, works without script) and per-thread timelines of samples.
 *
 * Opened with "#selftest" the page checks itself and writes one line into <pre id="selftest">:
 * "SELFTEST PASS frames=N zoomed=NAME ... matched=P%" (or FAIL), so a headless browser's
 * --dump-dom shows that the flame graph is drawn, that a click zooms and that a search
 * highlights. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/pictures.h"
#include "util/xalloc.h"

#define HOT_ROWS 30
#define TREE_MIN_PCT 0.5
#define TREE_MAX_NODES 3000
#define BINS 120

static const char CSS[] =
	"body{font-family:sans-serif;margin:16px;color:#222;background:#fff}\n"
	"h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;text-align:left}\n"
	"table.hot td.n{text-align:right;font-family:monospace}table.hot tr:nth-child(even){background:#f4f4f4}\n"
	".k-python{color:#2a7a2a}.k-kernel{color:#2a5aa0}.k-jit{color:#8030b0}.k-native{color:#a04000}\n"
	"details{margin-left:18px;font-family:monospace;font-size:12px}summary{cursor:pointer}\n"
	"div.leaf{margin-left:30px;font-family:monospace;font-size:12px}.pct{display:inline-block;width:60px}\n"
	".n{color:#777}.controls{margin:6px 0}#selftest{color:#060}\n"
	".tl{font-family:monospace;font-size:12px}.tl svg{vertical-align:middle;background:#f4f4f4}\n";

static void summary(FILE *f, const struct stacks *st)
{
	fputs("<table class=\"summary\">\n<tr><th>Command</th><td>", f);
	pic_xml(f, st->command ? st->command : "(not recorded)");
	fputs("</td></tr>\n<tr><th>Events</th><td>", f);
	uint64_t samples = 0;
	for (size_t e = 0; e < st->nevents; e++) {
		fprintf(f, "%s", e ? ", " : "");
		pic_xml(f, st->events[e].name);
		fprintf(f, " (%" PRIu64 " samples)", st->events[e].samples);
		samples += st->events[e].samples;
	}
	fprintf(f, "</td></tr>\n<tr><th>Duration</th><td>%.3f s</td></tr>\n", st->last_time > st->first_time
		? (double)(st->last_time - st->first_time) / 1e9 : 0.0);
	fprintf(f, "<tr><th>Samples</th><td>%" PRIu64 "</td></tr>\n<tr><th>Lost</th><td>%" PRIu64 "</td></tr>\n",
		samples, st->lost);
	fprintf(f, "<tr><th>Threads</th><td>%zu</td></tr>\n<tr><th>View</th><td>%s</td></tr>\n</table>\n",
		st->nthreads, st->python ? "Python (interpreter frames folded away)" : "all frames");
}

static void hot_table(FILE *f, const struct stacks *st, size_t e)
{
	struct stack_func *fn;
	size_t n = stacks_functions(st, e, &fn);
	double total = (double)st->events[e].samples;
	fputs("<h2>Hot functions: ", f);
	pic_xml(f, st->events[e].name);
	fputs("</h2>\n<table class=\"hot\"><tr><th>Self</th><th>Total</th><th>Samples</th><th>Function</th>"
	      "<th>Kind</th><th>File</th></tr>\n", f);
	for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
		const struct stack_frame *fr = &st->frames[fn[i].frame];
		fprintf(f, "<tr><td class=\"n\">%.2f%%</td><td class=\"n\">%.2f%%</td><td class=\"n\">%" PRIu64
			   "</td><td class=\"k-%s\">", total ? 100.0 * (double)fn[i].self / total : 0.0,
			total ? 100.0 * (double)fn[i].total / total : 0.0, fn[i].self, stack_kind_name(fr->kind));
		pic_xml(f, fr->kind == SK_PYTHON && !st->python ? fr->func : fr->name); /* "f (x.py:12)" */
		fprintf(f, "</td><td>%s</td><td>", stack_kind_name(fr->kind));
		pic_xml(f, fr->file ? fr->file : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(fn);
}

static void tree_node(FILE *f, const struct stacks *st, uint32_t node, double total, size_t *budget)
{
	const struct stack_node *nd = &st->nodes[node];
	const struct stack_frame *fr = &st->frames[nd->frame];
	double pct = total ? 100.0 * (double)nd->total / total : 0;
	size_t shown = 0;
	for (uint32_t k = 0; k < nd->nkids; k++)
		shown += total && 100.0 * (double)st->nodes[nd->kids[k]].total / total >= TREE_MIN_PCT;
	(*budget)--;
	if (shown && *budget)
		fprintf(f, "<details%s><summary>", nd->depth < 3 || pct >= 30 ? " open" : "");
	else
		fputs("<div class=\"leaf\">", f);
	fprintf(f, "<span class=\"pct\">%.1f%%</span> <span class=\"k-%s\">", pct, stack_kind_name(fr->kind));
	pic_xml(f, fr->name);
	fprintf(f, "</span> <span class=\"n\">(%" PRIu64 " samples, self %" PRIu64 ")</span>", nd->total, nd->self);
	if (!shown || !*budget) {
		fputs("</div>\n", f);
		return;
	}
	fputs("</summary>\n", f);
	/* Largest first. */
	uint32_t *kids = xmalloc(nd->nkids * sizeof(uint32_t));
	memcpy(kids, nd->kids, nd->nkids * sizeof(uint32_t));
	for (uint32_t a = 1; a < nd->nkids; a++)
		for (uint32_t b = a; b > 0 && st->nodes[kids[b]].total > st->nodes[kids[b - 1]].total; b--) {
			uint32_t x = kids[b];
			kids[b] = kids[b - 1];
			kids[b - 1] = x;
		}
	for (uint32_t k = 0; k < nd->nkids && *budget; k++)
		if (100.0 * (double)st->nodes[kids[k]].total / total >= TREE_MIN_PCT)
			tree_node(f, st, kids[k], total, budget);
	free(kids);
	fputs("</details>\n", f);
}

static void timelines(FILE *f, const struct stacks *st, size_t e)
{
	const struct stack_event *ev = &st->events[e];
	uint64_t span = st->last_time > st->first_time ? st->last_time - st->first_time : 1;
	uint32_t *bins = xcalloc((st->nthreads + 1) * BINS, sizeof(uint32_t));
	uint32_t max = 1;
	for (size_t i = 0; i < ev->ns; i++) {
		uint64_t t = ev->s[i].time > st->first_time ? ev->s[i].time - st->first_time : 0;
		size_t b = (size_t)((double)t / (double)span * (BINS - 1));
		uint32_t *c = &bins[(size_t)ev->s[i].thread * BINS + (b < BINS ? b : BINS - 1)];
		if (++*c > max)
			max = *c;
	}
	fputs("<h2>Threads: ", f);
	pic_xml(f, ev->name);
	fprintf(f, " (samples over %.3f s)</h2>\n", (double)span / 1e9);
	for (size_t t = 0; t < st->nthreads; t++) {
		uint32_t *row = &bins[t * BINS];
		uint64_t n = 0;
		for (size_t b = 0; b < BINS; b++)
			n += row[b];
		if (!n)
			continue;
		fputs("<div class=\"tl\"><svg width=\"840\" height=\"22\">", f);
		for (size_t b = 0; b < BINS; b++) {
			if (!row[b])
				continue;
			double h = 20.0 * row[b] / max;
			fprintf(f, "<rect x=\"%zu\" y=\"%.1f\" width=\"6\" height=\"%.1f\" fill=\"#d0602a\"/>", b * 7,
				21 - h, h);
		}
		fputs("</svg> ", f);
		pic_xml(f, st->threads[t].comm);
		fprintf(f, " pid %d tid %d: %" PRIu64 " samples</div>\n", st->threads[t].pid, st->threads[t].tid, n);
	}
	free(bins);
}

static const char PAGE_JS[] =
	"var svg=document.querySelector('svg.lperf-flame'),fg=lperfFlame(svg);\n"
	"var q=document.getElementById('q'),share=document.getElementById('share');\n"
	"function show(r){share.textContent=q.value?r.map(function(o){return 'matched '+o.share.toFixed(1)+'% ('+o.hits+' frames)';}).join(', '):'';}\n"
	"q.addEventListener('input',function(){show(fg.search(q.value));});\n"
	"document.getElementById('reset').addEventListener('click',function(){fg.reset();});\n"
	"function esc(s){return s.replace(/[.*+?^${}()|[\\]\\\\]/g,'\\\\$&');}\n"
	"function selftest(){var frames=svg.querySelectorAll('g.f'),gr=svg.querySelector('g.graph');\n"
	" if(!gr||!frames.length){return 'SELFTEST FAIL frames=0';}\n"
	" var PW=+gr.getAttribute('data-pw'),total=+gr.getAttribute('data-total'),best=null;\n"
	" frames.forEach(function(g){var d=+g.getAttribute('data-d'),w=+g.getAttribute('data-w');\n"
	"  if(d>=2&&g.getAttribute('data-k')!='merged'&&w<0.8*total&&(!best||w>+best.getAttribute('data-w')))best=g;});\n"
	" if(!best)return 'SELFTEST FAIL frames='+frames.length+' nothing to zoom';\n"
	" var name=best.getAttribute('data-n');\n"
	" best.querySelector('rect').dispatchEvent(new MouseEvent('click',{bubbles:true}));\n"
	" var rw=+best.querySelector('rect').getAttribute('width'),hidden=0;\n"
	" frames.forEach(function(g){if(g.style.display=='none')hidden++;});\n"
	" var zoomOk=Math.abs(rw-PW)<1&&hidden>0;fg.reset();\n"
	" q.value='^'+esc(name)+'$';q.dispatchEvent(new Event('input'));\n"
	" var hl=svg.querySelectorAll('g.f.hit').length,res=fg.search(q.value),sh=res[0].share;\n"
	" var want=100*(+best.getAttribute('data-w'))/total,searchOk=hl>0&&sh>=want-0.01;\n"
	" return 'SELFTEST '+(zoomOk&&searchOk?'PASS':'FAIL')+' frames='+frames.length+' zoomed='+name+\n"
	"  ' width='+rw.toFixed(1)+' hidden='+hidden+' highlighted='+hl+' matched='+sh.toFixed(2)+'%';}\n"
	"if(location.hash=='#selftest'){var r;try{r=selftest();}catch(e){r='SELFTEST FAIL '+e;}\n"
	" document.getElementById('selftest').textContent=r;}\n";

void html_write(FILE *f, const struct stacks *st, const struct picture_opts *o)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lperf: ", f);
	pic_xml(f, st->command ? st->command : "report");
	fprintf(f, "</title>\n<style>\n%s</style></head>\n<body>\n<h1>lperf report</h1>\n", CSS);
	summary(f, st);
	fputs("<pre id=\"selftest\"></pre>\n", f);
	for (size_t e = 0; e < st->nevents; e++)
		hot_table(f, st, e);
	fputs("<h2>Flame graph</h2>\n<div class=\"controls\"><input id=\"q\" size=\"40\" placeholder=\"search "
	      "(regular expression)\"> <button id=\"reset\">Reset zoom</button> <span id=\"share\"></span> "
	      "<span class=\"n\">click a frame to zoom; hover for details</span></div>\n", f);
	flamegraph_svg_write(f, st, o, false);
	for (size_t e = 0; e < st->nevents; e++) {
		fputs("<h2>Call tree: ", f);
		pic_xml(f, st->events[e].name);
		fputs("</h2>\n", f);
		size_t budget = TREE_MAX_NODES;
		const struct stack_node *root = &st->nodes[st->events[e].root];
		for (uint32_t k = 0; k < root->nkids; k++)
			tree_node(f, st, root->kids[k], (double)root->total, &budget);
	}
	for (size_t e = 0; e < st->nevents; e++)
		timelines(f, st, e);
	fprintf(f, "<script>\n%s\n%s</script>\n</body></html>\n", flamegraph_js(), PAGE_JS);
}
