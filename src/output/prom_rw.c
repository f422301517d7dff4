#include "output/prom_rw.h"

#include <stdlib.h>
#include <string.h>

#include "output/prom_out.h"
#include "util/error.h"
#include "util/xalloc.h"

#ifdef LPERF_HAVE_RW
#include <dlfcn.h>
#include <snappy-c.h>

#include "prom_rw.pb-c.h"
#endif

const char *const prom_rw_headers[] = {
	"Content-Type: application/x-protobuf",
	"Content-Encoding: snappy",
	"X-Prometheus-Remote-Write-Version: 0.1.0",
	NULL,
};

struct collect {
	struct prom_rw *rw;
	const char *const *extra;
	double *v;
	size_t nv, cap;
};

static int by_name(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	return strcmp(x[0], y[0]);
}

static void add_series(const char *family, const struct prom_label *l, size_t nl, double value, void *arg)
{
	struct collect *c = arg;
	struct prom_rw *rw = c->rw;
	size_t nextra = 0;
	while (c->extra && c->extra[2 * nextra])
		nextra++;
	size_t n = 1 + nl + nextra;
	char *(*pairs)[2] = xcalloc(n, sizeof(*pairs));
	pairs[0][0] = xstrdup("__name__"), pairs[0][1] = xstrdup(family);
	for (size_t i = 0; i < nl; i++)
		pairs[1 + i][0] = xstrdup(l[i].name), pairs[1 + i][1] = xstrdup(l[i].value);
	for (size_t i = 0; i < nextra; i++)
		pairs[1 + nl + i][0] = xstrdup(c->extra[2 * i]), pairs[1 + nl + i][1] = xstrdup(c->extra[2 * i + 1]);
	qsort(pairs, n, sizeof(*pairs), by_name); /* "__name__" sorts first: '_' < 'a' */
	rw->s = xrealloc(rw->s, (rw->n + 1) * sizeof(*rw->s));
	struct prom_rw_series *s = &rw->s[rw->n++];
	s->n = n;
	s->names = xcalloc(n, sizeof(char *));
	s->values = xcalloc(n, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		s->names[i] = pairs[i][0], s->values[i] = pairs[i][1];
	free(pairs);
	(void)value;
}

void prom_rw_init(struct prom_rw *rw, const struct stat_result *r, unsigned labels, const char *const *extra)
{
	memset(rw, 0, sizeof(*rw));
	struct collect c = { rw, extra, NULL, 0, 0 };
	prom_walk(r, labels, add_series, &c);
}

static void add_value(const char *family, const struct prom_label *l, size_t nl, double value, void *arg)
{
	struct collect *c = arg;
	if (c->nv < c->cap)
		c->v[c->nv] = value;
	c->nv++;
	(void)family, (void)l, (void)nl;
}

void prom_rw_values(const struct stat_result *r, unsigned labels, double *v, size_t n)
{
	struct collect c = { NULL, NULL, v, 0, n };
	prom_walk(r, labels, add_value, &c);
}

#ifdef LPERF_HAVE_RW
/* libsnappy is loaded at the first request, not linked: it brings libstdc++ into every lperf
 * command's start-up (util/httpc.c loads libcurl so too). */
static struct {
	void *lib;
	size_t (*max_compressed_length)(size_t);
	snappy_status (*compress)(const char *, size_t, char *, size_t *);
} S;

static int snappy_load(void)
{
	if (S.lib)
		return 0;
	void *l = dlopen("libsnappy.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!l)
		return err_set("cannot load libsnappy (libsnappy.so.1, Debian's libsnappy1v5): %s", dlerror());
	*(void **)&S.max_compressed_length = dlsym(l, "snappy_max_compressed_length");
	*(void **)&S.compress = dlsym(l, "snappy_compress");
	if (!S.max_compressed_length || !S.compress) {
		dlclose(l);
		return err_set("libsnappy.so.1 lacks snappy_compress");
	}
	S.lib = l;
	return 0;
}

int prom_rw_encode(const struct prom_rw *rw, const struct pushq *q, size_t n, char **body, size_t *len)
{
	Lperf__Rw__WriteRequest req = LPERF__RW__WRITE_REQUEST__INIT;
	Lperf__Rw__TimeSeries *ts = xcalloc(rw->n ? rw->n : 1, sizeof(*ts));
	Lperf__Rw__TimeSeries **tsp = xcalloc(rw->n ? rw->n : 1, sizeof(*tsp));
	size_t nlabels = 0;
	for (size_t i = 0; i < rw->n; i++)
		nlabels += rw->s[i].n;
	Lperf__Rw__Label *lab = xcalloc(nlabels ? nlabels : 1, sizeof(*lab));
	Lperf__Rw__Label **labp = xcalloc(nlabels ? nlabels : 1, sizeof(*labp));
	size_t nsamples = rw->n * n + 1;
	Lperf__Rw__Sample *smp = xcalloc(nsamples, sizeof(*smp));
	Lperf__Rw__Sample **smpp = xcalloc(nsamples, sizeof(*smpp));
	size_t li = 0, si = 0, nts = 0;
	for (size_t i = 0; i < rw->n; i++) {
		Lperf__Rw__TimeSeries *t = &ts[nts];
		lperf__rw__time_series__init(t);
		t->labels = labp + li;
		t->n_labels = rw->s[i].n;
		for (size_t k = 0; k < rw->s[i].n; k++, li++) {
			lperf__rw__label__init(&lab[li]);
			lab[li].name = rw->s[i].names[k];
			lab[li].value = rw->s[i].values[k];
			labp[li] = &lab[li];
		}
		t->samples = smpp + si;
		for (size_t k = 0; k < n; k++) {
			const struct pushq_snap *sn = pushq_at(q, k);
			double v = i < q->nvals ? sn->v[i] : 0;
			if (v != v) /* NaN: no sample (an IPC before any cycle) */
				continue;
			lperf__rw__sample__init(&smp[si]);
			smp[si].value = v;
			smp[si].timestamp = sn->ts_ms;
			smpp[si] = &smp[si];
			si++;
			t->n_samples++;
		}
		if (t->n_samples)
			tsp[nts++] = t;
	}
	req.timeseries = tsp;
	req.n_timeseries = nts;
	size_t plen = lperf__rw__write_request__get_packed_size(&req);
	uint8_t *packed = xmalloc(plen ? plen : 1);
	lperf__rw__write_request__pack(&req, packed);
	free(ts), free(tsp), free(lab), free(labp), free(smp), free(smpp);
	if (snappy_load() < 0) {
		free(packed);
		return -1;
	}
	size_t clen = S.max_compressed_length(plen);
	char *out = xmalloc(clen ? clen : 1);
	snappy_status st = S.compress((const char *)packed, plen, out, &clen);
	free(packed);
	if (st != SNAPPY_OK) {
		free(out);
		return err_set("snappy cannot compress a %zu-byte request", plen);
	}
	*body = out;
	*len = clen;
	return 0;
}
#else
int prom_rw_encode(const struct prom_rw *rw, const struct pushq *q, size_t n, char **body, size_t *len)
{
	(void)rw, (void)q, (void)n, (void)body, (void)len;
	return err_set("this lperf was built without libsnappy and libprotobuf-c (no remote write)");
}
#endif

void prom_rw_free(struct prom_rw *rw)
{
	for (size_t i = 0; i < rw->n; i++) {
		for (size_t k = 0; k < rw->s[i].n; k++)
			free(rw->s[i].names[k]), free(rw->s[i].values[k]);
		free(rw->s[i].names);
		free(rw->s[i].values);
	}
	free(rw->s);
	memset(rw, 0, sizeof(*rw));
}
