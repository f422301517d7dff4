/* The picture outputs on the command side: which files report, record, sample and diff were
 * asked for, loading a recording into a stack tree, and writing every requested file. */
#ifndef LPERF_CMD_PICTURES_H
#define LPERF_CMD_PICTURES_H

#include <stdbool.h>

#include "analysis/filter.h"
#include "analysis/stacks.h"

struct pictures_req {
	const char *svg, *html, *speedscope, *firefox, *pprof;
	bool inverted;
	const char *subtitle;
	const double *delta;     /* differential colouring (diff) */
};

bool pictures_requested(const struct pictures_req *r);

/* Reads a recording into st (every event; the Python view with python), keeping the samples the
 * filter (may be NULL) passes. Prints the same warnings report does. Returns -1 when the file
 * cannot be read at all, 1 when it was read only in part (st holds what came before), else 0. */
int pictures_load(struct stacks *st, const char *input, bool python, bool force, const char *symfs,
		  const struct sample_filter *filter, bool quiet);

/* Writes every requested file; says what was written unless quiet. -1 after err_set(). */
int pictures_write(const struct pictures_req *r, const struct stacks *st, bool quiet);

/* report's picture path: load, write, return the exit status. */
int pictures_report(const struct pictures_req *r, const char *input, bool python, bool force,
		    const char *symfs, const struct sample_filter *filter, bool quiet);


/* record --flamegraph: draws the recording just written. -1 after err_set(). */
int pictures_after_record(const char *svg, const char *data, bool python, bool force, bool quiet);

/* sample --flamegraph: a session tool passing each sample on to `next` and into a stack tree. */
struct pictures_tee {
	int (*next)(const struct resolved_sample *rs, void *arg);
	void *next_arg;
	struct stacks st;
};
void pictures_tee_init(struct pictures_tee *t, char **cmd, bool python);
int pictures_tee_sample(const struct resolved_sample *rs, void *arg);
/* Writes the SVG and frees the tree. -1 after err_set(). */
int pictures_tee_finish(struct pictures_tee *t, const char *svg, uint64_t lost, bool quiet);

#endif
