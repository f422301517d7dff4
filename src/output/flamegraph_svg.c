/* lperf's SVG flame graph: one graph per event, frames sized by samples (a --wall recording's
 * wall-clock event by time: its samples weigh their periods, ns on and off a CPU), kind colours (or
 * change colours for lperf diff), tooltips, click to zoom, reset, search with the matched share.
 * Frames narrower than a pixel are not drawn one by one: each run of them becomes one
 * "[N narrow frames]" box when the run is a pixel or wider, so a profile of any size stays a
 * few thousand elements. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/pictures.h"
#include "util/xalloc.h"

#define FRAME_H 16
#define PAD 10
#define CHAR_W 7.0

struct box {
	uint32_t node;           /* UINT32_MAX: a merged run */
	uint64_t x, w;           /* in samples (ns: by_time) */
	uint32_t depth, merged;
};

struct layout {
	const struct stacks *st;
	double scale;            /* pixels per sample */
	bool by_time;            /* widths are periods (ns), not samples */
	struct box *v;
	size_t n, cap;
	uint32_t maxdepth;
};

/* A node's width: its samples, or its time. */
static uint64_t wid(const struct layout *l, const struct stack_node *nd)
{
	return l->by_time ? nd->period_total : nd->total;
}

static void add_box(struct layout *l, uint32_t node, uint64_t x, uint64_t w, uint32_t depth, uint32_t merged)
{
	ALLOC_GROW(l->v, l->n + 1, l->cap);
	l->v[l->n++] = (struct box){ node, x, w, depth, merged };
	if (depth > l->maxdepth)
		l->maxdepth = depth;
}

static void lay(struct layout *l, uint32_t node, uint64_t x)
{
	const struct stack_node *nd = &l->st->nodes[node];
	add_box(l, node, x, wid(l, nd), nd->depth, 0);
	uint64_t cx = x, run_x = 0, run_w = 0;
	uint32_t run_n = 0;
	for (uint32_t k = 0; k <= nd->nkids; k++) {
		const struct stack_node *kid = k < nd->nkids ? &l->st->nodes[nd->kids[k]] : NULL;
		bool narrow = kid && (double)wid(l, kid) * l->scale < 1.0;
		if (run_n && (!kid || !narrow)) {
			if ((double)run_w * l->scale >= 1.0)
				add_box(l, UINT32_MAX, run_x, run_w, nd->depth + 1, run_n);
			run_n = 0;
			run_w = 0;
		}
		if (!kid)
			break;
		if (narrow) {
			if (!run_n)
				run_x = cx;
			run_n++;
			run_w += wid(l, kid);
		} else {
			lay(l, nd->kids[k], cx);
		}
		cx += wid(l, kid);
	}
}

static double max_abs_delta(const struct stacks *st, const double *delta)
{
	double m = 0;
	for (size_t i = 0; delta && i < st->nnodes; i++)
		if (st->nodes[i].depth > 0 && fabs(delta[i]) > m)
			m = fabs(delta[i]);
	return m;
}

static void label(FILE *f, const char *name, double px)
{
	int fit = (int)((px - 6) / CHAR_W);
	if (fit < 3)
		return;
	if ((int)strlen(name) <= fit) {
		pic_xml(f, name);
		return;
	}
	char *cut = xstrndup(name, (size_t)(fit - 2));
	/* Do not leave half a UTF-8 sequence at the cut. */
	size_t n = strlen(cut);
	while (n && ((unsigned char)cut[n - 1] & 0xc0) == 0x80)
		n--;
	if (n && (unsigned char)cut[n - 1] >= 0xc0)
		n--;
	cut[n] = 0;
	pic_xml(f, cut);
	fputs("..", f);
	free(cut);
}

static void draw_box(FILE *f, const struct layout *l, const struct box *b, double y, double mx, const struct picture_opts *o,
		     double total)
{
	const struct stacks *st = l->st;
	char fill[32], namebuf[64];
	const char *name;
	const struct stack_node *nd = b->node != UINT32_MAX ? &st->nodes[b->node] : NULL;
	if (nd) {
		name = st->frames[nd->frame].name;
		if (o->delta)
			pic_delta_colour(fill, sizeof(fill), o->delta[b->node], mx);
		else
			pic_colour(fill, sizeof(fill), name, st->frames[nd->frame].kind);
	} else {
		snprintf(namebuf, sizeof(namebuf), "[%" PRIu32 " narrow frames]", b->merged);
		name = namebuf;
		snprintf(fill, sizeof(fill), "rgb(200,200,200)");
	}
	double px = (double)b->x * l->scale + PAD, pw = (double)b->w * l->scale;
	fprintf(f, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%" PRIu32 "\" data-k=\"%s\" data-n=\"",
		b->x, b->w, b->depth, nd ? stack_kind_name(st->frames[nd->frame].kind) : "merged");
	pic_xml(f, name);
	/* Python frames are labelled by function, the file in the tooltip; in the Python view by their
	 * label, "func (file.py:LINE)", as py-spy draws them. */
	const char *shown = nd && st->frames[nd->frame].kind == SK_PYTHON && !st->python ? st->frames[nd->frame].func
											  : name;
	if (shown != name) {
		fputs("\" data-l=\"", f);
		pic_xml(f, shown);
	}
	fputs("\"><title>", f);
	pic_xml(f, name);
	if (l->by_time)
		fprintf(f, " (%.3f ms, %.2f%%", (double)b->w / 1e6, total ? 100.0 * (double)b->w / total : 0.0);
	else
		fprintf(f, " (%" PRIu64 " samples, %.2f%%", b->w, total ? 100.0 * (double)b->w / total : 0.0);
	if (nd && nd->self && l->by_time)
		fprintf(f, ", self %.3f ms", (double)nd->period_self / 1e6);
	else if (nd && nd->self)
		fprintf(f, ", self %" PRIu64, nd->self);
	if (nd && o->delta)
		fprintf(f, ", change %+.2f points", o->delta[b->node]);
	fprintf(f, ")</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
		   "<text x=\"%.1f\" y=\"%.0f\">", px, y, pw, FRAME_H - 1, fill, px + 3, y + FRAME_H - 4);
	label(f, shown, pw);
	fputs("</text></g>\n", f);
}

static const char STYLE[] =
	"<style>\n"
	"text{font-family:monospace;font-size:12px;fill:#000}\n"
	".title{font-size:17px;font-family:sans-serif}.sub{font-size:12px;fill:#555;font-family:sans-serif}\n"
	".btn{cursor:pointer;fill:#036;text-decoration:underline}\n"
	"g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}\n"
	"g.f.parent rect{opacity:0.5}\n"
	"</style>\n";

static void legend(FILE *f, double x, double y, bool diff)
{
	if (diff) {
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"rgb(255,60,60)\"/>"
			   "<text x=\"%.0f\" y=\"%.0f\">grew</text>", x, y - 10, x + 16, y);
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"rgb(60,60,255)\"/>"
			   "<text x=\"%.0f\" y=\"%.0f\">shrank</text>\n", x + 60, y - 10, x + 76, y);
		return;
	}
	static const enum stack_kind kinds[] = { SK_NATIVE, SK_PYTHON, SK_KERNEL, SK_JIT };
	for (size_t i = 0; i < 4; i++) {
		char c[32];
		pic_colour(c, sizeof(c), "", kinds[i]);
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" "
			   "y=\"%.0f\">%s</text>", x + 70.0 * (double)i, y - 10, c, x + 70.0 * (double)i + 16, y,
			stack_kind_name(kinds[i]));
	}
	fputc('\n', f);
}

void flamegraph_svg_write(FILE *f, const struct stacks *st, const struct picture_opts *o, bool standalone)
{
	int width = o->width > 0 ? o->width : 1200;
	double pw = width - 2 * PAD;
	struct layout *ls = xcalloc(st->nevents ? st->nevents : 1, sizeof(*ls));
	double height = 70;
	for (size_t e = 0; e < st->nevents; e++) {
		ls[e].st = st;
		ls[e].by_time = st->events[e].wall;
		uint64_t total = wid(&ls[e], &st->nodes[st->events[e].root]);
		ls[e].scale = total ? pw / (double)total : 0;
		lay(&ls[e], st->events[e].root, 0);
		height += 30 + (double)(ls[e].maxdepth + 1) * FRAME_H;
	}
	height += 24;
	if (standalone)
		fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lperf-flame\" width=\"%d\" height=\"%.0f\" "
		   "viewBox=\"0 0 %d %.0f\">\n", width, height, width, height);
	fputs(STYLE, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f8f8f4\"/>\n", width, height);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"22\" text-anchor=\"middle\">", width / 2);
	const char *kind = o->delta ? "Differential flame graph" : o->inverted ? "Icicle graph" : "Flame graph";
	pic_xml(f, kind);
	if (st->command) {
		/* The title's 17px sans-serif is about 9.4px a character: a longer command ends in an
		 * ellipsis (whole in the tooltip) instead of running off both sides. */
		size_t room = (size_t)(width - 2 * PAD) * 10 / 94, len = strlen(st->command);
		size_t keep = room > strlen(kind) + 3 ? room - strlen(kind) - 3 : 1;
		fputs(": ", f);
		if (len <= keep) {
			pic_xml(f, st->command);
		} else {
			while (keep && ((unsigned char)st->command[keep] & 0xc0) == 0x80) /* not inside a UTF-8 character */
				keep--;
			char *cut = xstrndup(st->command, keep);
			pic_xml(f, cut);
			fputs("\xe2\x80\xa6", f); /* ... */
			free(cut);
		}
		fputs("<title>", f);
		pic_xml(f, st->command);
		fputs("</title>", f);
	}
	fputs("</text>\n", f);
	if (o->subtitle) {
		fprintf(f, "<text class=\"sub\" x=\"%d\" y=\"38\" text-anchor=\"middle\">", width / 2);
		pic_xml(f, o->subtitle);
		fputs("</text>\n", f);
	}
	/* Inside the HTML page, the page's search box and reset button are the controls (one set). */
	if (standalone)
		fprintf(f, "<text class=\"btn reset\" x=\"%d\" y=\"58\">Reset Zoom</text>"
			   "<text class=\"btn search\" x=\"%d\" y=\"58\" text-anchor=\"end\">Search</text>"
			   "<text class=\"matched\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
			PAD, width - PAD, width - PAD, height - 8);
	legend(f, PAD + 110, 58, o->delta != NULL);
	double y = 70;
	double mx = max_abs_delta(st, o->delta);
	for (size_t e = 0; e < st->nevents; e++) {
		const struct stack_event *ev = &st->events[e];
		uint64_t itotal = wid(&ls[e], &st->nodes[ev->root]);
		double total = (double)itotal;
		fprintf(f, "<g class=\"graph\" data-total=\"%" PRIu64 "\" data-left=\"%d\" data-pw=\"%.1f\">\n"
			   "<text class=\"sub\" x=\"%d\" y=\"%.0f\">", itotal, PAD, pw, PAD, y + 16);
		pic_xml(f, ev->name);
		fprintf(f, ": %" PRIu64 " samples%s</text>\n", ev->samples, st->python ? " (Python view)" : "");
		y += 26;
		for (size_t i = 0; i < ls[e].n; i++) {
			const struct box *b = &ls[e].v[i];
			double by = o->inverted ? y + (double)b->depth * FRAME_H
						: y + (double)(ls[e].maxdepth - b->depth) * FRAME_H;
			draw_box(f, &ls[e], b, by, mx, o, total);
		}
		y += (double)(ls[e].maxdepth + 1) * FRAME_H + 4;
		fputs("</g>\n", f);
	}
	fprintf(f, "<text class=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n", PAD, height - 8);
	if (standalone)
		fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s\nlperfFlame(document.documentElement);\n]]></script>\n",
			flamegraph_js());
	fputs("</svg>\n", f);
	for (size_t e = 0; e < st->nevents; e++)
		free(ls[e].v);
	free(ls);
}

static const char JS[] =
	"(function(){\n"
	"function num(e,a){return +e.getAttribute(a);}\n"
	"function up(e,sel){while(e&&e.matches&&!e.matches(sel))e=e.parentNode;return e&&e.matches?e:null;}\n"
	"function init(svg){\n"
	" var graphs=svg.querySelectorAll('g.graph'),matched=svg.querySelector('.matched'),details=svg.querySelector('.details');\n"
	" function fit(g){var r=g.querySelector('rect'),t=g.querySelector('text'),w=num(r,'width'),n=g.getAttribute('data-l')||g.getAttribute('data-n'),c=Math.floor((w-6)/7);\n"
	"  t.textContent=c<3?'':(n.length<=c?n:n.substr(0,c-2)+'..');t.setAttribute('x',num(r,'x')+3);}\n"
	" function zoom(f){var gr=up(f,'g.graph'),L=num(gr,'data-left'),PW=num(gr,'data-pw');\n"
	"  var x0=num(f,'data-x'),w0=num(f,'data-w'),d0=num(f,'data-d');if(!w0)return;\n"
	"  gr.querySelectorAll('g.f').forEach(function(g){var x=num(g,'data-x'),w=num(g,'data-w'),d=num(g,'data-d'),r=g.querySelector('rect');\n"
	"   var inside=d>=d0?(x>=x0&&x+w<=x0+w0):(x<=x0&&x+w>=x0+w0);\n"
	"   if(!inside){g.style.display='none';return;}\n"
	"   g.style.display='';if(d<d0)g.classList.add('parent');else g.classList.remove('parent');\n"
	"   var a=Math.max(x,x0),b=Math.min(x+w,x0+w0);\n"
	"   r.setAttribute('x',(L+(a-x0)/w0*PW).toFixed(1));r.setAttribute('width',Math.max(0,(b-a)/w0*PW).toFixed(1));fit(g);});\n"
	"  gr.setAttribute('data-zoomed',d0>0?'1':'0');}\n"
	" function reset(){graphs.forEach(function(gr){var r=gr.querySelector('g.f[data-d=\"0\"]');if(r)zoom(r);});}\n"
	" function search(term){var re=null,out=[];try{re=term?new RegExp(term):null;}catch(e){re=null;}\n"
	"  graphs.forEach(function(gr){var total=num(gr,'data-total'),iv=[],hits=0;\n"
	"   gr.querySelectorAll('g.f').forEach(function(g){var r=g.querySelector('rect'),m=re&&re.test(g.getAttribute('data-n'));\n"
	"    if(m){if(!r.hasAttribute('data-fill'))r.setAttribute('data-fill',r.getAttribute('fill'));r.setAttribute('fill','rgb(230,0,230)');\n"
	"     g.classList.add('hit');hits++;iv.push([num(g,'data-x'),num(g,'data-w')]);}\n"
	"    else{if(r.hasAttribute('data-fill')){r.setAttribute('fill',r.getAttribute('data-fill'));r.removeAttribute('data-fill');}g.classList.remove('hit');}});\n"
	"   iv.sort(function(a,b){return a[0]-b[0]||b[1]-a[1];});var m=0,end=-1;\n"
	"   iv.forEach(function(v){var s=v[0],e=v[0]+v[1];if(s>=end){m+=v[1];end=e;}else if(e>end){m+=e-end;end=e;}});\n"
	"   out.push({hits:hits,matched:m,total:total,share:total?100*m/total:0});});\n"
	"  if(matched)matched.textContent=re?out.map(function(o){return 'Matched: '+o.share.toFixed(1)+'%';}).join('  '):'';\n"
	"  return out;}\n"
	" svg.addEventListener('click',function(e){var g=up(e.target,'g.f');if(g){zoom(g);return;}\n"
	"  if(up(e.target,'.reset'))reset();\n"
	"  if(up(e.target,'.search')){var t=prompt('Search (regular expression)','');if(t!==null)search(t);}});\n"
	" svg.addEventListener('mouseover',function(e){var g=up(e.target,'g.f');if(g&&details)details.textContent=g.querySelector('title').textContent;});\n"
	" return {zoom:zoom,reset:reset,search:search};}\n"
	"window.lperfFlame=init;\n"
	"})();";

const char *flamegraph_js(void)
{
	return JS;
}
