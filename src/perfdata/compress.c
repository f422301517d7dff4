#include "perfdata/compress.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "util/error.h"
#include "util/xalloc.h"

#define REC_MAX 65535u

struct perfdata_decomp {
	const char *name;
	ZSTD_DStream *zs;
	uint8_t *buf;        /* decompressed bytes: a partial record at the start, then new output */
	size_t len, cap;
	uint64_t in, out;
};

struct perfdata_decomp *perfdata_decomp_new(const char *name)
{
	struct perfdata_decomp *d = xcalloc(1, sizeof(*d));
	d->name = name;
	d->zs = ZSTD_createDStream();
	if (!d->zs) {
		free(d);
		err_set("%s: cannot set up zstd decompression (out of memory)", name);
		return NULL;
	}
	ZSTD_initDStream(d->zs);
	return d;
}

/* Hands every whole record at the start of the buffer to cb and keeps the rest. */
static int drain(struct perfdata_decomp *d, uint64_t off, record_cb cb, void *arg)
{
	size_t pos = 0;
	while (d->len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		memcpy(&h, d->buf + pos, sizeof(h));
		if (h.size < sizeof(h)) {
			err_set("%s: COMPRESSED record at offset 0x%" PRIx64 ": a record inside it has size %u, "
				"smaller than its header", d->name, off, h.size);
			return -1;
		}
		if (d->len - pos < h.size)
			break;
		int r;
		if ((pos & 7) == 0) {
			r = cb((const struct perf_event_header *)(d->buf + pos), arg);
		} else {
			uint64_t aligned[REC_MAX / 8 + 1];
			memcpy(aligned, d->buf + pos, h.size);
			r = cb((const struct perf_event_header *)aligned, arg);
		}
		if (r)
			return r;
		pos += h.size;
		d->out += h.size;
	}
	memmove(d->buf, d->buf + pos, d->len - pos);
	d->len -= pos;
	return 0;
}

int perfdata_decomp_feed(struct perfdata_decomp *d, const void *payload, size_t n, uint64_t off, record_cb cb,
			 void *arg)
{
	ZSTD_inBuffer in = { payload, n, 0 };
	d->in += n;
	while (in.pos < in.size) {
		if (d->cap - d->len < 65536) {
			d->cap = d->cap ? d->cap * 2 : 262144;
			d->buf = xrealloc(d->buf, d->cap);
		}
		ZSTD_outBuffer out = { d->buf + d->len, d->cap - d->len, 0 };
		size_t r = ZSTD_decompressStream(d->zs, &out, &in);
		if (ZSTD_isError(r))
			return err_set("%s: COMPRESSED record at offset 0x%" PRIx64 ": %s", d->name, off,
				       ZSTD_getErrorName(r));
		d->len += out.pos;
		int ret = drain(d, off, cb, arg);
		if (ret)
			return ret;
		if (!out.pos && in.pos < in.size && d->len < d->cap)
			return err_set("%s: COMPRESSED record at offset 0x%" PRIx64 ": the zstd stream makes no "
				       "progress", d->name, off);
	}
	return 0;
}

size_t perfdata_decomp_pending(const struct perfdata_decomp *d)
{
	return d->len;
}

void perfdata_decomp_totals(const struct perfdata_decomp *d, uint64_t *in, uint64_t *out)
{
	*in = d->in;
	*out = d->out;
}

void perfdata_decomp_free(struct perfdata_decomp *d)
{
	if (!d)
		return;
	ZSTD_freeDStream(d->zs);
	free(d->buf);
	free(d);
}

/* ---- the compressor ---- */

struct perfdata_comp {
	ZSTD_CCtx *cc;
	uint64_t in, out;
};

struct perfdata_comp *perfdata_comp_new(int level)
{
	struct perfdata_comp *c = xcalloc(1, sizeof(*c));
	c->cc = ZSTD_createCCtx();
	if (!c->cc) {
		free(c);
		err_set("cannot set up zstd compression (out of memory)");
		return NULL;
	}
	ZSTD_CCtx_setParameter(c->cc, ZSTD_c_compressionLevel, level);
	return c;
}

int perfdata_comp_records(struct perfdata_comp *c, const void *buf, size_t n, uint8_t **out, size_t *out_len,
			  size_t *out_cap)
{
	ZSTD_inBuffer in = { buf, n, 0 };
	c->in += n;
	size_t left;
	do {
		/* One COMPRESSED record at a time: header, then as much of the stream as fits. */
		ALLOC_GROW(*out, *out_len + REC_MAX, *out_cap);
		uint8_t *rec = *out + *out_len;
		size_t room = REC_MAX - sizeof(struct perf_event_header);
		ZSTD_outBuffer ob = { rec + sizeof(struct perf_event_header), room, 0 };
		left = ZSTD_compressStream2(c->cc, &ob, &in, ZSTD_e_end);
		if (ZSTD_isError(left))
			return err_set("zstd: %s", ZSTD_getErrorName(left));
		if (!ob.pos)
			continue;
		struct perf_event_header h = { REC_COMPRESSED, 0, (uint16_t)(sizeof(h) + ob.pos) };
		memcpy(rec, &h, sizeof(h));
		*out_len += h.size;
		c->out += h.size;
	} while (left);
	return 0;
}

void perfdata_comp_totals(const struct perfdata_comp *c, uint64_t *in, uint64_t *out)
{
	*in = c->in;
	*out = c->out;
}

void perfdata_comp_free(struct perfdata_comp *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cc);
	free(c);
}
