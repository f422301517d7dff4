/* Fuzz harness: Arm SPE packet streams. The input's first byte chooses the SPE version (v1 to
 * v1p3) and whether the rest is also read as an --itrace string; the rest is the bytes of an AUX
 * buffer. Every packet is decoded on its own (spe_pkt_decode, walking the buffer byte by byte
 * after a bad header), then the stream is assembled into records (spe_next_record, resuming after
 * each malformed packet), and each record goes through what the report and script views make of
 * it: address splits, operation type names, event and data source names, the kinds --itrace
 * selects. The records then feed the report's tables (per source, symbol, data source, cache
 * line, latency percentiles). Seeds: the hand-written streams of tests/unit/test_spe.c (every
 * packet type and version difference), whole and cut. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "spe/spe.h"
#include "spe/spe_load.h"
#include "spe/spe_stats.h"
#include "util/error.h"

static void each_packet(const uint8_t *buf, size_t len)
{
	size_t pos = 0;
	while (pos < len) {
		struct spe_pkt p;
		int n = spe_pkt_decode(buf + pos, len - pos, &p);
		if (n == 0)
			break;
		if (n < 0) {
			err_clear();
			pos++;
			continue;
		}
		if (p.type == SPE_PKT_ADDRESS) {
			struct spe_addr a;
			spe_addr_split(p.index, p.payload, &a);
		}
		pos += (size_t)n;
	}
}

static void describe(const struct spe_record *r, const struct spe_itrace *it)
{
	char buf[256];
	struct spe_op o;
	spe_op_split(r->op_class, r->op, &o);
	(void)spe_op_name(r->op_class, r->op, buf, sizeof(buf));
	(void)spe_op_short(r->op_class, r->op);
	(void)spe_events_str(r->events, buf, sizeof(buf));
	(void)spe_data_source_name(r->data_source);
	(void)spe_record_kinds(r, it);
}

/* Records into a spe_data as spe_load would make them (no symbols: every PC unmapped), so the
 * report's tables are built over fuzzed values. */
static void add_sample(struct spe_data *d, const struct spe_record *r)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct spe_sample *v = realloc(d->v, cap * sizeof(*v));
		if (!v)
			abort();
		d->v = v;
		d->cap = cap;
	}
	struct spe_sample *s = &d->v[d->n++];
	memset(s, 0, sizeof(*s));
	s->r = *r;
	s->comm = "fuzz";
	s->sym = (r->pc & 1) ? "sym_a" : NULL;
	s->dso = (r->pc & 2) ? "/fuzz/dso" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum spe_version ver = (enum spe_version)(SPE_V1 + (data[0] & 3));
	const uint8_t *buf = data + 1;
	size_t len = size - 1;

	struct spe_itrace it;
	char *text = NULL;
	if ((data[0] & 4) && len < 64)
		text = fuzz_strndup(buf, len);
	if (spe_itrace_parse(text, &it) < 0) {
		err_clear();
		(void)spe_itrace_parse(NULL, &it);
	}
	free(text);

	each_packet(buf, len);

	struct spe_decoder dec;
	spe_decoder_init(&dec, buf, len, ver);
	struct spe_data d;
	memset(&d, 0, sizeof(d));
	d.ver = ver;
	for (unsigned guard = 0; guard < 1u << 20; guard++) {
		struct spe_record r;
		int ret = spe_next_record(&dec, &r);
		if (ret == 0)
			break;
		if (ret < 0) {
			err_clear();
			continue;
		}
		describe(&r, &it);
		add_sample(&d, &r);
	}
	if (dec.pos > len)
		abort(); /* the decoder must never move past its buffer */

	struct spe_report rep;
	spe_report_build(&d, &it, &rep);
	spe_report_free(&rep);
	free(d.v);
	err_clear();
	return 0;
}
