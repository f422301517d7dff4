/* Pictures and viewer formats of a stack tree (analysis/stacks.h): lperf's own SVG flame graph
 * and HTML report, and the files speedscope, the Firefox Profiler and pprof read. Each writer
 * covers every event of the tree (one graph or profile per event).
 *
 * Writers to a FILE leave errors to the caller's fclose/ferror; the gzipped writers open the
 * path themselves and return -1 after err_set() when it cannot be written. */
#ifndef LPERF_OUTPUT_PICTURES_H
#define LPERF_OUTPUT_PICTURES_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/stacks.h"
#include "resolve/resolve.h"
#include "util/notes.h"

struct picture_opts {
	bool inverted;           /* icicle: roots at the top */
	int width;               /* pixels; 0 = 1200 */
	const double *delta;     /* differential flame graph: per node, new share - old share in
				  * percentage points (lperf diff); NULL for kind colours */
	const char *subtitle;    /* a second title line, e.g. "diff: OLD -> NEW"; may be NULL */
};

/* flamegraph_svg.c. standalone: a whole SVG document with its script; otherwise an <svg>
 * element for embedding, driven by flamegraph_js() from the embedding page. */
void flamegraph_svg_write(FILE *f, const struct stacks *st, const struct picture_opts *o, bool standalone);
/* The script that makes a flame graph interactive: defines window.lperfFlame(svgElement), which
 * returns { zoom(frameElement), reset(), search(regexString) -> [{hits, matched, total, share}] }. */
const char *flamegraph_js(void);

/* html.c: one self-contained page (no network). */
void html_write(FILE *f, const struct stacks *st, const struct picture_opts *o);

/* speedscope.c: speedscope's JSON file format, one sampled profile per event and thread. */
void speedscope_write(FILE *f, const struct stacks *st);

/* firefox.c: the Firefox Profiler's processed profile format, gzipped; one thread per tid and
 * event. */
int firefox_write(const char *path, const struct stacks *st);

/* pprof.c: gzipped profile.proto. */
int pprof_write(const char *path, const struct stacks *st);
/* The same with every sample labelled (record --pprof-dir's profiles, for Pyroscope and Parca):
 * "service" and "host" when set, "pid" (samples split by process) when asked, and "event" (the
 * sample's event); time_ns (wall-clock nanoseconds of the profile's start) when not 0. At most
 * PPROF_EVENTS_MAX events (-1 with err_set beyond). */
#define PPROF_EVENTS_MAX 64
struct pprof_labels {
	const char *service, *host;
	bool pid;
	uint64_t time_ns;
};
int pprof_write_labelled(const char *path, const struct stacks *st, const struct pprof_labels *l);

/* picture_files.c: the files report, record, sample and diff were asked for, written in one go. */
struct pictures_req {
	const char *svg, *html, *speedscope, *firefox, *pprof;  /* paths; "-": standard output */
	bool inverted;
	const char *subtitle;
	const double *delta;     /* differential colouring (diff) */
};
bool pictures_requested(const struct pictures_req *r);
/* Writes every requested file; "wrote FILE" notes go to said. -1 after err_set() naming the
 * file that could not be written. */
int pictures_write(const struct pictures_req *r, const struct stacks *st, struct notes *said);

/* sample --flamegraph: a session tool passing each sample on to `next` and into a stack tree. */
struct pictures_tee {
	int (*next)(const struct resolved_sample *rs, void *arg);
	void *next_arg;
	struct stacks st;
};
void pictures_tee_init(struct pictures_tee *t, char **cmd, bool python);
int pictures_tee_sample(const struct resolved_sample *rs, void *arg);
/* Writes the SVG (its note to said) and frees the tree. -1 after err_set(). */
int pictures_tee_finish(struct pictures_tee *t, const char *svg, uint64_t lost, struct notes *said);

/* picture_util.c: helpers shared by the writers. */
void pic_xml(FILE *f, const char *s);        /* XML/HTML text or attribute, valid UTF-8 */
/* The fill colour of a frame by kind, varied by a hash of its name so neighbours differ. */
void pic_colour(char *buf, size_t size, const char *name, enum stack_kind kind);
/* A colour for a change in percentage points, scaled by the largest change (white to red for
 * growth, to blue for shrinkage). */
void pic_delta_colour(char *buf, size_t size, double delta, double max_abs);
/* Writes buf gzipped to path; -1 with err_set() naming the path. */
int pic_gzip_file(const char *path, const void *buf, size_t len);

#endif
