/* Arm Statistical Profiling Extension (SPE): the packet stream the profiling buffer holds, decoded
 * into packets and assembled into records, written from the Arm Architecture Reference Manual
 * (DDI 0487, chapter "Statistical Profiling Extension", section "Packet formats").
 *
 * A record is a run of packets that ends with an End packet or a Timestamp packet; padding (0x00)
 * may appear anywhere between packets. Every packet is a one-byte header, optionally preceded
 * by an extended-header byte (Address and Counter packets with index >= 8), and a payload of 0,
 * 1, 2, 4 or 8 bytes, little-endian.
 *
 * The decoder reads untrusted bytes: it never reads past the buffer, a truncated packet ends the
 * stream, and a malformed packet is reported (with its byte offset) after which decoding resumes
 * at the next record boundary (just after the next End byte, or after the next Timestamp packet;
 * records without a PC address packet met before the first good one are the tail of a record
 * entered in the middle, and are skipped too).
 * Values that the selected SPE version does not define are kept raw and counted in `unexpected`,
 * not rejected: a newer implementation's records still decode. */
#ifndef LPERF_SPE_SPE_H
#define LPERF_SPE_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FEAT_SPE (Armv8.2), FEAT_SPEv1p1 (Armv8.3), FEAT_SPEv1p2 (Armv8.7), FEAT_SPEv1p3 (Armv8.8);
 * the numbers are ID_AA64DFR0_EL1.PMSVer. */
enum spe_version { SPE_V1 = 1, SPE_V1P1 = 2, SPE_V1P2 = 3, SPE_V1P3 = 4 };
const char *spe_version_name(enum spe_version v); /* "FEAT_SPE", "FEAT_SPEv1p1", ... */

enum spe_pkt_type {
	SPE_PKT_BAD, SPE_PKT_PAD, SPE_PKT_END, SPE_PKT_TIMESTAMP, SPE_PKT_ADDRESS,
	SPE_PKT_COUNTER, SPE_PKT_CONTEXT, SPE_PKT_OP_TYPE, SPE_PKT_EVENTS, SPE_PKT_DATA_SOURCE,
};

/* Address packet indexes */
enum { SPE_ADDR_PC = 0, SPE_ADDR_BRANCH_TARGET = 1, SPE_ADDR_DATA_VA = 2, SPE_ADDR_DATA_PA = 3,
       SPE_ADDR_PREV_BRANCH = 4 /* FEAT_SPEv1p2 */ };
/* Counter packet indexes */
enum { SPE_CNT_TOTAL = 0, SPE_CNT_ISSUE = 1, SPE_CNT_XLAT = 2 };
/* Operation type classes (the header's low two bits) */
enum { SPE_OP_OTHER = 0, SPE_OP_LDST = 1, SPE_OP_BRANCH = 2 };

/* Events packet bits */
enum {
	SPE_EV_EXCEPTION = 0, SPE_EV_RETIRED = 1, SPE_EV_L1D_ACCESS = 2, SPE_EV_L1D_REFILL = 3,
	SPE_EV_TLB_ACCESS = 4, SPE_EV_TLB_WALK = 5, SPE_EV_NOT_TAKEN = 6, SPE_EV_MISPRED = 7,
	SPE_EV_LLC_ACCESS = 8, SPE_EV_LLC_MISS = 9, SPE_EV_REMOTE = 10, SPE_EV_ALIGNMENT = 11,
	SPE_EV_TRANSACTIONAL = 16, SPE_EV_PARTIAL_PRED = 17, SPE_EV_EMPTY_PRED = 18,
};

struct spe_pkt {
	enum spe_pkt_type type;
	uint8_t header;      /* the (last) header byte */
	uint8_t index;       /* address/counter index (with the extended header's bits), context
	                      * index, op class */
	uint8_t size;        /* whole packet, headers included */
	uint8_t payload_len; /* 0, 1, 2, 4 or 8 */
	bool extended;       /* an extended header byte came first */
	uint64_t payload;
};

/* Decodes one packet at buf[0..len). Returns its size (> 0); 0 when the packet is truncated
 * (len too short for it); -1 after err_set for a header no SPE version defines. */
int spe_pkt_decode(const uint8_t *buf, size_t len, struct spe_pkt *p);

/* An address packet's payload, split as the manual lays it out per index. */
struct spe_addr {
	uint64_t addr; /* bits [55:0], sign-extended from bit 55 for virtual addresses */
	uint8_t el;    /* PC/branch target/previous branch: exception level of the address */
	bool ns;       /* PC/branch: Non-secure; data PA: Non-secure */
	uint8_t tag;   /* data VA: top-byte tag; data PA: physical address tag (PAT, MTE) */
	bool ch;       /* data PA: checked (MTE) */
};
void spe_addr_split(unsigned index, uint64_t payload, struct spe_addr *a);

enum {
	SPE_HAS_PC = 1u << 0, SPE_HAS_BR_TGT = 1u << 1, SPE_HAS_VA = 1u << 2, SPE_HAS_PA = 1u << 3,
	SPE_HAS_PREV_BR = 1u << 4, SPE_HAS_OP = 1u << 5, SPE_HAS_EVENTS = 1u << 6,
	SPE_HAS_DS = 1u << 7, SPE_HAS_TS = 1u << 8, SPE_HAS_CONTEXT = 1u << 9,
	SPE_HAS_LAT_TOTAL = 1u << 10, SPE_HAS_LAT_ISSUE = 1u << 11, SPE_HAS_LAT_XLAT = 1u << 12,
};

struct spe_record {
	uint64_t offset;      /* byte offset of the record's first packet in the stream */
	unsigned valid;       /* SPE_HAS_* */
	uint64_t pc;
	uint8_t el;           /* exception level of the PC */
	bool ns;
	uint64_t br_target, prev_branch;
	uint64_t data_va, data_pa;
	uint8_t va_tag;
	bool pa_ns, pa_ch;
	uint8_t pa_tag;
	uint8_t op_class;     /* SPE_OP_* */
	uint8_t op;           /* the op type payload byte: subclass and flags */
	uint64_t events;      /* bitmask, SPE_EV_* bits */
	uint32_t lat_total, lat_issue, lat_xlat;
	uint64_t data_source;
	uint64_t timestamp;
	uint32_t context;
	uint8_t context_el;   /* 1: CONTEXTIDR_EL1, 2: CONTEXTIDR_EL2 */
	unsigned unexpected;  /* packets or fields the selected version does not define */
};

struct spe_decoder {
	const uint8_t *buf;
	size_t len, pos;
	enum spe_version ver;
	unsigned errors;      /* malformed packets reported so far */
	bool truncated;       /* the stream ended inside a packet or a record */
	uint64_t skipped;     /* bytes skipped while resynchronising */
	bool resyncing;       /* since the last error, no record with a PC yet */
};

void spe_decoder_init(struct spe_decoder *d, const void *buf, size_t len, enum spe_version ver);
/* The next complete record: 1 with *r filled; 0 at the end of the data (a record cut short by the
 * end is dropped and `truncated` set); -1 after err_set naming the offset of a malformed packet,
 * with the decoder already moved to the next record boundary (call again to go on). */
int spe_next_record(struct spe_decoder *d, struct spe_record *r);

/* Operation type, decoded from class + payload byte. */
enum spe_ldst_kind {
	SPE_LDST_GP, SPE_LDST_SIMD_FP, SPE_LDST_SVE, SPE_LDST_UNSPEC, SPE_LDST_SYSREG,
	SPE_LDST_MTE_TAG, SPE_LDST_MEMCPY, SPE_LDST_MEMSET, SPE_LDST_ATOMIC, SPE_LDST_EXCL,
	SPE_LDST_OTHER,
};
struct spe_op {
	uint8_t cls;
	bool cond;           /* other: conditional select/compare; branch: conditional */
	bool indirect;       /* branch */
	bool store;          /* ld/st: store (else load) */
	enum spe_ldst_kind kind;
	bool acq_rel, sve_pred, sve_fp, sve_sg, sve_op;
	unsigned sve_evl;    /* effective vector length in bits (SVE ld/st, SVE other) */
};
void spe_op_split(uint8_t cls, uint8_t op, struct spe_op *o);
/* WindowsPerf's spelling: "LOAD_STORE_ATOMIC-LOAD-GP", "BRANCH_OR_EXCEPTION-CONDITIONAL-DIRECT",
 * "OTHER"...; written into buf (>= 64 bytes). */
const char *spe_op_name(uint8_t cls, uint8_t op, char *buf, size_t n);
/* Short name for grouping: "load", "store", "branch", "other". */
const char *spe_op_short(uint8_t cls, uint8_t op);
/* One event bit's name ("retired", "l1d-refill"...); NULL for bits with no name. */
const char *spe_event_name(unsigned bit);
/* Events as "retired+l1d-access"; "none" when empty. */
const char *spe_events_str(uint64_t ev, char *buf, size_t n);
/* The bits each version defines in the Events packet. */
uint64_t spe_events_defined(enum spe_version v);
/* Data source: the values are IMPLEMENTATION DEFINED; Arm Neoverse cores use the table behind
 * this ("l1d", "l2", "peer-core", "local-cluster", "llc", "peer-cluster", "remote", "dram");
 * NULL when the value is not one of them. */
const char *spe_data_source_name(uint64_t ds);

/* The SPE version a Linux SPE PMU shows, at least: Linux exposes no PMSVer, so this reads the
 * features that imply one. caps/ernd=1 (PMSIDR.ERnd) implies FEAT_SPEv1p1; an
 * inv_event_filter or discard format term (PMSIDR.FnE, PMBLIMITR.FM) FEAT_SPEv1p2. Nothing
 * in sysfs tells v1p3 apart. formats are term names, caps "name=value" strings. */
enum spe_version spe_version_infer(char *const *formats, size_t nformats, char *const *caps,
				   size_t ncaps);

#endif
