/* SPE packets: header classification, payload sizes and the field layouts of address and
 * operation-type payloads, per the Arm ARM's "Statistical Profiling Extension packets" tables.
 *
 * Header byte encodings (bits 7..0; s = payload size 2^s bytes, i = index, c = class):
 *   0000 0000  Padding            0000 0001  End
 *   0111 0001  Timestamp (8 B)    0010 00ii  Extended header: index bits [4:3] of the next
 *   0100 ss10  Events             0100 ss11  Data source
 *   0110 01ii  Context (4 B)      0100 10cc  Operation type (1 B)
 *   1011 0iii  Address (8 B)      1001 1iii  Counter (2 B)
 * The extended header is defined for Address and Counter packets only. */
#include <stdio.h>
#include <string.h>

#include "spe/spe.h"
#include "util/error.h"

const char *spe_version_name(enum spe_version v)
{
	switch (v) {
	case SPE_V1: return "FEAT_SPE";
	case SPE_V1P1: return "FEAT_SPEv1p1";
	case SPE_V1P2: return "FEAT_SPEv1p2";
	case SPE_V1P3: return "FEAT_SPEv1p3";
	}
	return "unknown";
}

static uint64_t le_read(const uint8_t *b, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

/* Sets type, index and payload length from a (non-extended) header byte; false if unknown. */
static bool classify(uint8_t h, struct spe_pkt *p)
{
	if (h == 0x00) {
		p->type = SPE_PKT_PAD;
	} else if (h == 0x01) {
		p->type = SPE_PKT_END;
	} else if (h == 0x71) {
		p->type = SPE_PKT_TIMESTAMP;
		p->payload_len = 8;
	} else if ((h & 0xcf) == 0x42 || (h & 0xcf) == 0x43) {
		p->type = (h & 1) ? SPE_PKT_DATA_SOURCE : SPE_PKT_EVENTS;
		p->payload_len = (uint8_t)(1u << ((h >> 4) & 3));
	} else if ((h & 0xfc) == 0x64) {
		p->type = SPE_PKT_CONTEXT;
		p->index = h & 3;
		p->payload_len = 4;
	} else if ((h & 0xfc) == 0x48) {
		p->type = SPE_PKT_OP_TYPE;
		p->index = h & 3;
		p->payload_len = 1;
	} else if ((h & 0xf8) == 0xb0) {
		p->type = SPE_PKT_ADDRESS;
		p->index = h & 7;
		p->payload_len = 8;
	} else if ((h & 0xf8) == 0x98) {
		p->type = SPE_PKT_COUNTER;
		p->index = h & 7;
		p->payload_len = 2;
	} else {
		return false;
	}
	return true;
}

int spe_pkt_decode(const uint8_t *buf, size_t len, struct spe_pkt *p)
{
	memset(p, 0, sizeof(*p));
	if (!len)
		return 0;
	size_t hl = 1;
	uint8_t h = buf[0];
	unsigned ext = 0;
	if ((h & 0xfc) == 0x20) {
		if (len < 2)
			return 0;
		p->extended = true;
		ext = h & 3;
		h = buf[1];
		hl = 2;
	}
	p->header = h;
	if (!classify(h, p)) {
		p->type = SPE_PKT_BAD;
		return err_set("unknown SPE packet header 0x%02x", h);
	}
	if (p->extended) {
		if (p->type != SPE_PKT_ADDRESS && p->type != SPE_PKT_COUNTER) {
			p->type = SPE_PKT_BAD;
			return err_set("extended header before a packet that has none (0x%02x)", h);
		}
		p->index = (uint8_t)(p->index | ext << 3);
	}
	if (len < hl + p->payload_len)
		return 0;
	p->payload = le_read(buf + hl, p->payload_len);
	p->size = (uint8_t)(hl + p->payload_len);
	return p->size;
}

static uint64_t sext56(uint64_t a)
{
	a &= (1ULL << 56) - 1;
	if (a & (1ULL << 55))
		a |= 0xffULL << 56;
	return a;
}

void spe_addr_split(unsigned index, uint64_t v, struct spe_addr *a)
{
	memset(a, 0, sizeof(*a));
	switch (index) {
	case SPE_ADDR_DATA_VA:
		a->tag = (uint8_t)(v >> 56);
		a->addr = sext56(v);
		break;
	case SPE_ADDR_DATA_PA:
		a->ns = (v >> 63) & 1;
		a->ch = (v >> 62) & 1;
		a->tag = (uint8_t)((v >> 56) & 0xf);
		a->addr = v & ((1ULL << 56) - 1);
		break;
	default: /* PC, branch target, previous branch target */
		a->ns = (v >> 63) & 1;
		a->el = (uint8_t)((v >> 61) & 3);
		a->addr = sext56(v);
		break;
	}
}

/* Load/store subclass (payload bits [7:1]); the order of the tests follows the encodings'
 * overlaps: SVE ld/st is x0xx 1x0x, atomics 000x xx1x, the rest exact values. */
void spe_op_split(uint8_t cls, uint8_t v, struct spe_op *o)
{
	memset(o, 0, sizeof(*o));
	o->cls = cls;
	if (cls == SPE_OP_OTHER) {
		o->cond = v & 1;
		if ((v & 0x89) == 0x08) {
			o->sve_op = true;
			o->sve_evl = 32u << ((v >> 4) & 7);
			o->sve_pred = (v >> 2) & 1;
			o->sve_fp = (v >> 1) & 1;
		}
		return;
	}
	if (cls == SPE_OP_BRANCH) {
		o->cond = v & 1;
		o->indirect = (v >> 1) & 1;
		return;
	}
	o->store = v & 1;
	uint8_t sub = v & 0xfe;
	if ((v & 0x0a) == 0x08) {
		o->kind = SPE_LDST_SVE;
		o->sve_sg = (v >> 7) & 1;
		o->sve_evl = 32u << ((v >> 4) & 7);
		o->sve_pred = (v >> 2) & 1;
	} else if ((v & 0xe2) == 0x02) {
		/* atomic (AT, bit 2), exclusive (EXCL, bit 3), acquire/release (AR, bit 4) */
		o->acq_rel = (v >> 4) & 1;
		o->kind = (v & 0x04) ? SPE_LDST_ATOMIC : (v & 0x08) ? SPE_LDST_EXCL : SPE_LDST_OTHER;
	} else if (sub == 0x00) {
		o->kind = SPE_LDST_GP;
	} else if (sub == 0x04) {
		o->kind = SPE_LDST_SIMD_FP;
	} else if (sub == 0x10) {
		o->kind = SPE_LDST_UNSPEC;
	} else if (sub == 0x30) {
		o->kind = SPE_LDST_SYSREG;
	} else if (sub == 0x14) {
		o->kind = SPE_LDST_MTE_TAG;
	} else if (sub == 0x20) {
		o->kind = SPE_LDST_MEMCPY;
	} else if (sub == 0x24) {
		o->kind = SPE_LDST_MEMSET;
	} else {
		o->kind = SPE_LDST_OTHER;
	}
}

static const char *const ldst_names[] = {
	[SPE_LDST_GP] = "GP", [SPE_LDST_SIMD_FP] = "SIMD-FP", [SPE_LDST_SVE] = "SVE",
	[SPE_LDST_UNSPEC] = "UNSPEC-REG", [SPE_LDST_SYSREG] = "NV-SYSREG",
	[SPE_LDST_MTE_TAG] = "MTE-TAG", [SPE_LDST_MEMCPY] = "MEMCPY", [SPE_LDST_MEMSET] = "MEMSET",
	[SPE_LDST_ATOMIC] = "ATOMIC", [SPE_LDST_EXCL] = "EXCL", [SPE_LDST_OTHER] = "OTHER",
};

const char *spe_op_name(uint8_t cls, uint8_t v, char *buf, size_t n)
{
	struct spe_op o;
	spe_op_split(cls, v, &o);
	if (cls == SPE_OP_LDST)
		snprintf(buf, n, "LOAD_STORE_ATOMIC-%s-%s%s", o.store ? "STORE" : "LOAD",
			 ldst_names[o.kind], o.acq_rel ? "-AR" : "");
	else if (cls == SPE_OP_BRANCH)
		snprintf(buf, n, "BRANCH_OR_EXCEPTION-%s-%s", o.cond ? "CONDITIONAL" : "UNCONDITIONAL",
			 o.indirect ? "INDIRECT" : "DIRECT");
	else if (cls == SPE_OP_OTHER && o.sve_op)
		snprintf(buf, n, "OTHER-SVE%s%s", o.sve_fp ? "-FP" : "", o.sve_pred ? "-PRED" : "");
	else if (cls == SPE_OP_OTHER)
		snprintf(buf, n, "OTHER%s", o.cond ? "-CONDITIONAL" : "");
	else
		snprintf(buf, n, "CLASS%u-0x%02x", cls, v);
	return buf;
}

const char *spe_op_short(uint8_t cls, uint8_t v)
{
	if (cls == SPE_OP_LDST)
		return (v & 1) ? "store" : "load";
	if (cls == SPE_OP_BRANCH)
		return "branch";
	return cls == SPE_OP_OTHER ? "other" : "unknown";
}

static const char *const event_names[64] = {
	[SPE_EV_EXCEPTION] = "exception-gen", [SPE_EV_RETIRED] = "retired",
	[SPE_EV_L1D_ACCESS] = "l1d-access", [SPE_EV_L1D_REFILL] = "l1d-refill",
	[SPE_EV_TLB_ACCESS] = "tlb-access", [SPE_EV_TLB_WALK] = "tlb-walk",
	[SPE_EV_NOT_TAKEN] = "not-taken", [SPE_EV_MISPRED] = "mispredicted",
	[SPE_EV_LLC_ACCESS] = "llc-access", [SPE_EV_LLC_MISS] = "llc-miss",
	[SPE_EV_REMOTE] = "remote-access", [SPE_EV_ALIGNMENT] = "alignment",
	[SPE_EV_TRANSACTIONAL] = "transactional", [SPE_EV_PARTIAL_PRED] = "sve-partial-pred",
	[SPE_EV_EMPTY_PRED] = "sve-empty-pred",
};

const char *spe_event_name(unsigned bit)
{
	return bit < 64 ? event_names[bit] : NULL;
}

const char *spe_events_str(uint64_t ev, char *buf, size_t n)
{
	size_t used = 0;
	if (!n)
		return buf;
	buf[0] = 0;
	for (unsigned b = 0; b < 64; b++) {
		if (!(ev & (1ULL << b)))
			continue;
		char tmp[24];
		const char *nm = event_names[b];
		if (!nm) {
			snprintf(tmp, sizeof(tmp), "ev%u", b);
			nm = tmp;
		}
		int w = snprintf(buf + used, n - used, "%s%s", used ? "+" : "", nm);
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
	if (!used)
		snprintf(buf, n, "none");
	return buf;
}

/* Bits 0-7 come with FEAT_SPE; 12-15 are IMPLEMENTATION DEFINED in every version. FEAT_SPEv1p1
 * adds the last-level cache, remote, alignment and SVE predicate events; v1p2 the
 * transactional-state event (with FEAT_TME). v1p3 defines no new Events bits. */
uint64_t spe_events_defined(enum spe_version v)
{
	uint64_t m = 0xffULL | 0xf000ULL;
	if (v >= SPE_V1P1)
		m |= 0xf00ULL | (1ULL << 17) | (1ULL << 18);
	if (v >= SPE_V1P2)
		m |= 1ULL << 16;
	return m;
}

const char *spe_data_source_name(uint64_t ds)
{
	switch (ds) {
	case 0x0: return "l1d";
	case 0x8: return "l2";
	case 0x9: return "peer-core";
	case 0xa: return "local-cluster";
	case 0xb: return "llc";
	case 0xc: return "peer-cluster";
	case 0xd: return "remote";
	case 0xe: return "dram";
	}
	return NULL;
}
