/* SPE records: packets folded into one struct spe_record per sampled operation, with the
 * version checks and the resynchronisation after a malformed packet (see spe.h). */
#include <string.h>

#include "spe/spe.h"
#include "util/error.h"

void spe_decoder_init(struct spe_decoder *d, const void *buf, size_t len, enum spe_version ver)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->len = len;
	d->ver = ver < SPE_V1 ? SPE_V1 : ver > SPE_V1P3 ? SPE_V1P3 : ver;
}

/* Moves past the next record boundary at or after `from`: an End byte, or a whole Timestamp
 * packet. A payload byte can look like either; the next record then fails or decodes, and
 * either way the decoder has made progress, so it always terminates. */
static void resync(struct spe_decoder *d, size_t from)
{
	size_t i = from;
	while (i < d->len) {
		if (d->buf[i] == 0x01) {
			i++;
			break;
		}
		if (d->buf[i] == 0x71 && d->len - i >= 9) {
			i += 9;
			break;
		}
		i++;
	}
	d->skipped += i - from;
	d->pos = i;
	d->resyncing = true;
}

/* A finished record: after a resynchronisation, records without a PC are the tail of a record
 * entered in the middle (every SPE record carries its PC address packet), and are skipped. */
static bool keep(struct spe_decoder *d, const struct spe_record *r)
{
	if (d->resyncing && !(r->valid & SPE_HAS_PC)) {
		d->skipped += d->pos - r->offset;
		return false;
	}
	d->resyncing = false;
	return true;
}

static void set_addr(struct spe_decoder *d, struct spe_record *r, const struct spe_pkt *p)
{
	struct spe_addr a;
	spe_addr_split(p->index, p->payload, &a);
	switch (p->index) {
	case SPE_ADDR_PC:
		r->pc = a.addr;
		r->el = a.el;
		r->ns = a.ns;
		r->valid |= SPE_HAS_PC;
		break;
	case SPE_ADDR_BRANCH_TARGET:
		r->br_target = a.addr;
		r->valid |= SPE_HAS_BR_TGT;
		break;
	case SPE_ADDR_DATA_VA:
		r->data_va = a.addr;
		r->va_tag = a.tag;
		r->valid |= SPE_HAS_VA;
		break;
	case SPE_ADDR_DATA_PA:
		r->data_pa = a.addr;
		r->pa_ns = a.ns;
		r->pa_ch = a.ch;
		r->pa_tag = a.tag;
		r->valid |= SPE_HAS_PA;
		break;
	case SPE_ADDR_PREV_BRANCH:
		if (d->ver < SPE_V1P2)
			r->unexpected++;
		r->prev_branch = a.addr;
		r->valid |= SPE_HAS_PREV_BR;
		break;
	default:
		r->unexpected++;
		break;
	}
}

static void set_counter(struct spe_record *r, const struct spe_pkt *p)
{
	uint32_t v = (uint32_t)p->payload;
	switch (p->index) {
	case SPE_CNT_TOTAL:
		r->lat_total = v;
		r->valid |= SPE_HAS_LAT_TOTAL;
		break;
	case SPE_CNT_ISSUE:
		r->lat_issue = v;
		r->valid |= SPE_HAS_LAT_ISSUE;
		break;
	case SPE_CNT_XLAT:
		r->lat_xlat = v;
		r->valid |= SPE_HAS_LAT_XLAT;
		break;
	default:
		r->unexpected++;
		break;
	}
}

static void set_op(struct spe_decoder *d, struct spe_record *r, const struct spe_pkt *p)
{
	r->op_class = p->index;
	r->op = (uint8_t)p->payload;
	r->valid |= SPE_HAS_OP;
	if (p->index > SPE_OP_BRANCH) {
		r->unexpected++;
		return;
	}
	struct spe_op o;
	spe_op_split(p->index, r->op, &o);
	/* SVE operations are recorded from FEAT_SPEv1p1 on */
	if ((o.sve_op || (p->index == SPE_OP_LDST && o.kind == SPE_LDST_SVE)) && d->ver < SPE_V1P1)
		r->unexpected++;
}

static void apply(struct spe_decoder *d, struct spe_record *r, const struct spe_pkt *p)
{
	switch (p->type) {
	case SPE_PKT_ADDRESS:
		set_addr(d, r, p);
		break;
	case SPE_PKT_COUNTER:
		set_counter(r, p);
		break;
	case SPE_PKT_CONTEXT:
		r->context = (uint32_t)p->payload;
		r->context_el = (uint8_t)(p->index + 1);
		r->valid |= SPE_HAS_CONTEXT;
		if (p->index > 1)
			r->unexpected++;
		break;
	case SPE_PKT_OP_TYPE:
		set_op(d, r, p);
		break;
	case SPE_PKT_EVENTS:
		r->events = p->payload;
		r->valid |= SPE_HAS_EVENTS;
		if (p->payload & ~spe_events_defined(d->ver))
			r->unexpected++;
		break;
	case SPE_PKT_DATA_SOURCE:
		r->data_source = p->payload;
		r->valid |= SPE_HAS_DS;
		break;
	default:
		break;
	}
}

int spe_next_record(struct spe_decoder *d, struct spe_record *r)
{
	memset(r, 0, sizeof(*r));
	bool started = false;
	while (d->pos < d->len) {
		struct spe_pkt p;
		size_t at = d->pos;
		int n = spe_pkt_decode(d->buf + at, d->len - at, &p);
		if (n == 0) {
			d->truncated = true;
			d->pos = d->len;
			return 0;
		}
		if (n < 0) {
			d->errors++;
			resync(d, at + 1);
			return err_wrap("SPE data offset 0x%zx%s", at,
					started ? " (its record is dropped)" : "");
		}
		d->pos += (size_t)n;
		if (p.type == SPE_PKT_PAD)
			continue;
		if (!started) {
			r->offset = at;
			started = true;
		}
		if (p.type == SPE_PKT_TIMESTAMP) {
			r->timestamp = p.payload;
			r->valid |= SPE_HAS_TS;
		}
		if (p.type == SPE_PKT_END || p.type == SPE_PKT_TIMESTAMP) {
			if (keep(d, r))
				return 1;
			memset(r, 0, sizeof(*r));
			started = false;
			continue;
		}
		apply(d, r, &p);
	}
	if (started)
		d->truncated = true;
	return 0;
}
