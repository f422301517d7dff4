/* stat --remote-write's requests: the series of a stat_result (output/prom_out.h's walk, with
 * the caller's extra labels such as job and instance) and queued snapshots of their values
 * (util/pushq.h) as one Prometheus remote-write WriteRequest (protobuf, with protoc-c's code for
 * prom_rw.proto and Debian's libprotobuf-c) compressed in one snappy block (libsnappy). */
#ifndef LPERF_OUTPUT_PROM_RW_H
#define LPERF_OUTPUT_PROM_RW_H

#include <stddef.h>

#include "stat/stat_result.h"
#include "util/pushq.h"

struct prom_rw_series {
	char **names, **values; /* sorted by name, __name__ first */
	size_t n;
};

struct prom_rw {
	struct prom_rw_series *s;
	size_t n;
};

/* The headers every request carries. */
extern const char *const prom_rw_headers[];

/* The series of r, each with the extra labels (name, value pairs, NULL-terminated). */
void prom_rw_init(struct prom_rw *rw, const struct stat_result *r, unsigned labels, const char *const *extra);
/* r's values in the order of the series (rw->n of them; the same labels). */
void prom_rw_values(const struct stat_result *r, unsigned labels, double *v, size_t n);
/* The body of a request with q's oldest n snapshots (NaN values left out); free it. -1 with
 * err_set when lperf was built without the libraries. */
int prom_rw_encode(const struct prom_rw *rw, const struct pushq *q, size_t n, char **body, size_t *len);
void prom_rw_free(struct prom_rw *rw);

#endif
