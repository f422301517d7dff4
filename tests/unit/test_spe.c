/* SPE decoding, byte by byte on streams written by hand from the Arm ARM's packet tables:
 * every packet type and size, extended headers, address/op-type field layouts, records, the
 * version differences v1..v1p3, truncated and corrupted streams, and random bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spe/spe.h"
#include "util/error.h"

struct sb8 {
	uint8_t b[4096];
	size_t n;
};

static void put(struct sb8 *s, int count, ...)
{
	va_list ap;
	va_start(ap, count);
	for (int i = 0; i < count; i++)
		s->b[s->n++] = (uint8_t)va_arg(ap, int);
	va_end(ap);
}

static void put_le(struct sb8 *s, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		s->b[s->n++] = (uint8_t)(v >> (8 * i));
}

/* Address packet: header 1011 0iii, 8-byte payload */
static void addr(struct sb8 *s, unsigned idx, uint64_t payload)
{
	put(s, 1, 0xb0 | idx);
	put_le(s, payload, 8);
}

static void counter(struct sb8 *s, unsigned idx, uint16_t v)
{
	put(s, 1, 0x98 | idx);
	put_le(s, v, 2);
}

static void test_packet_headers(void **state)
{
	struct spe_pkt p;
	/* padding, end */
	assert_int_equal(spe_pkt_decode((const uint8_t[]){ 0x00 }, 1, &p), 1);
	assert_int_equal(p.type, SPE_PKT_PAD);
	assert_int_equal(spe_pkt_decode((const uint8_t[]){ 0x01 }, 1, &p), 1);
	assert_int_equal(p.type, SPE_PKT_END);
	/* timestamp: 0x71 + 8 bytes little-endian */
	const uint8_t ts[] = { 0x71, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
	assert_int_equal(spe_pkt_decode(ts, sizeof(ts), &p), 9);
	assert_int_equal(p.type, SPE_PKT_TIMESTAMP);
	assert_true(p.payload == 0x1122334455667788ULL);
	/* events: 0100 ss10, sizes 1, 2, 4, 8 */
	const uint8_t ev1[] = { 0x42, 0x06 };
	assert_int_equal(spe_pkt_decode(ev1, sizeof(ev1), &p), 2);
	assert_int_equal(p.type, SPE_PKT_EVENTS);
	assert_int_equal(p.payload, 0x06);
	const uint8_t ev2[] = { 0x52, 0x16, 0x02 };
	assert_int_equal(spe_pkt_decode(ev2, sizeof(ev2), &p), 3);
	assert_int_equal(p.payload, 0x0216);
	const uint8_t ev4[] = { 0x62, 0x02, 0x00, 0x06, 0x00 };
	assert_int_equal(spe_pkt_decode(ev4, sizeof(ev4), &p), 5);
	assert_int_equal(p.type, SPE_PKT_EVENTS);
	assert_int_equal(p.payload, 0x060002);
	const uint8_t ev8[] = { 0x72, 1, 0, 0, 0, 0, 0, 0, 0x80 };
	assert_int_equal(spe_pkt_decode(ev8, sizeof(ev8), &p), 9);
	assert_true(p.payload == 0x8000000000000001ULL);
	/* data source: 0100 ss11 */
	const uint8_t ds[] = { 0x53, 0x0e, 0x00 };
	assert_int_equal(spe_pkt_decode(ds, sizeof(ds), &p), 3);
	assert_int_equal(p.type, SPE_PKT_DATA_SOURCE);
	assert_int_equal(p.payload, 0x0e);
	const uint8_t ds1[] = { 0x43, 0x09 };
	assert_int_equal(spe_pkt_decode(ds1, sizeof(ds1), &p), 2);
	assert_int_equal(p.type, SPE_PKT_DATA_SOURCE);
	/* context: 0110 01ii, 4 bytes; index 0 = CONTEXTIDR_EL1, 1 = CONTEXTIDR_EL2 */
	const uint8_t ctx[] = { 0x65, 0x39, 0x30, 0x00, 0x00 };
	assert_int_equal(spe_pkt_decode(ctx, sizeof(ctx), &p), 5);
	assert_int_equal(p.type, SPE_PKT_CONTEXT);
	assert_int_equal(p.index, 1);
	assert_int_equal(p.payload, 12345);
	/* operation type: 0100 10cc, 1 byte */
	for (int c = 0; c < 3; c++) {
		const uint8_t op[] = { (uint8_t)(0x48 | c), 0x05 };
		assert_int_equal(spe_pkt_decode(op, sizeof(op), &p), 2);
		assert_int_equal(p.type, SPE_PKT_OP_TYPE);
		assert_int_equal(p.index, c);
		assert_int_equal(p.payload, 5);
	}
	/* address 1011 0iii and counter 1001 1iii, every short index */
	for (int i = 0; i < 8; i++) {
		const uint8_t a[] = { (uint8_t)(0xb0 | i), 1, 2, 3, 4, 5, 6, 7, 8 };
		assert_int_equal(spe_pkt_decode(a, sizeof(a), &p), 9);
		assert_int_equal(p.type, SPE_PKT_ADDRESS);
		assert_int_equal(p.index, i);
		assert_true(p.payload == 0x0807060504030201ULL);
		const uint8_t c[] = { (uint8_t)(0x98 | i), 0x34, 0x12 };
		assert_int_equal(spe_pkt_decode(c, sizeof(c), &p), 3);
		assert_int_equal(p.type, SPE_PKT_COUNTER);
		assert_int_equal(p.index, i);
		assert_int_equal(p.payload, 0x1234);
	}
}

static void test_extended_and_bad_headers(void **state)
{
	struct spe_pkt p;
	/* extended header 0010 00ii gives index bits [4:3] */
	const uint8_t ea[] = { 0x21, 0xb2, 1, 0, 0, 0, 0, 0, 0, 0 };
	assert_int_equal(spe_pkt_decode(ea, sizeof(ea), &p), 10);
	assert_int_equal(p.type, SPE_PKT_ADDRESS);
	assert_true(p.extended);
	assert_int_equal(p.index, 10);
	const uint8_t ec[] = { 0x23, 0x9f, 0xff, 0xff };
	assert_int_equal(spe_pkt_decode(ec, sizeof(ec), &p), 4);
	assert_int_equal(p.type, SPE_PKT_COUNTER);
	assert_int_equal(p.index, 31);
	assert_int_equal(p.payload, 0xffff);
	/* an extended header is only defined for address and counter packets */
	const uint8_t ee[] = { 0x20, 0x52, 0, 0 };
	assert_int_equal(spe_pkt_decode(ee, sizeof(ee), &p), -1);
	assert_non_null(strstr(err_msg(), "extended header"));
	/* headers no version defines */
	const uint8_t bad[] = { 0x02, 0x10, 0x30, 0x4c, 0x68, 0x70, 0x80, 0xa0, 0xc0, 0xff };
	for (size_t i = 0; i < sizeof(bad); i++) {
		assert_int_equal(spe_pkt_decode(bad + i, 1, &p), -1);
		assert_int_equal(p.type, SPE_PKT_BAD);
	}
	/* truncation at every byte of every sized packet */
	const uint8_t ts[] = { 0x71, 1, 2, 3, 4, 5, 6, 7, 8 };
	for (size_t n = 0; n < sizeof(ts); n++)
		assert_int_equal(spe_pkt_decode(ts, n, &p), 0);
	for (size_t n = 0; n < sizeof(ea); n++)
		assert_int_equal(spe_pkt_decode(ea, n, &p), 0);
	const uint8_t ctx[] = { 0x64, 1, 2, 3, 4 };
	for (size_t n = 0; n < sizeof(ctx); n++)
		assert_int_equal(spe_pkt_decode(ctx, n, &p), 0);
}

static void test_address_layouts(void **state)
{
	struct spe_addr a;
	/* PC at EL1, Non-secure: bit 63 NS, bits [62:61] EL, kernel VA sign-extended from bit 55 */
	spe_addr_split(SPE_ADDR_PC, 0xa0ff800010081234ULL, &a);
	assert_true(a.addr == 0xffff800010081234ULL);
	assert_int_equal(a.el, 1);
	assert_true(a.ns);
	/* PC at EL0, secure: no extension */
	spe_addr_split(SPE_ADDR_PC, 0x0000aaaab0001000ULL, &a);
	assert_true(a.addr == 0x0000aaaab0001000ULL);
	assert_int_equal(a.el, 0);
	assert_false(a.ns);
	/* EL2, NS */
	spe_addr_split(SPE_ADDR_BRANCH_TARGET, 0xc000000000400000ULL, &a);
	assert_int_equal(a.el, 2);
	assert_true(a.addr == 0x400000);
	/* data VA: bits [63:56] are the top-byte tag */
	spe_addr_split(SPE_ADDR_DATA_VA, 0x5a0000fffff0d0c8ULL, &a);
	assert_int_equal(a.tag, 0x5a);
	assert_true(a.addr == 0x0000fffff0d0c8ULL);
	/* data PA: NS bit 63, CH bit 62, PAT bits [59:56] */
	spe_addr_split(SPE_ADDR_DATA_PA, 0xc700000080001000ULL, &a);
	assert_true(a.ns);
	assert_true(a.ch);
	assert_int_equal(a.tag, 7);
	assert_true(a.addr == 0x80001000ULL);
}

static void test_op_types(void **state)
{
	char b[64];
	struct spe_op o;
	/* other: COND bit 0; SVE other is 0xxx 1xx0 with EVL in bits [6:4] */
	assert_string_equal(spe_op_name(SPE_OP_OTHER, 0x00, b, sizeof(b)), "OTHER");
	assert_string_equal(spe_op_name(SPE_OP_OTHER, 0x01, b, sizeof(b)), "OTHER-CONDITIONAL");
	spe_op_split(SPE_OP_OTHER, 0x3e, &o); /* EVL 32<<3 = 256, pred, fp */
	assert_true(o.sve_op);
	assert_int_equal(o.sve_evl, 256);
	assert_true(o.sve_pred && o.sve_fp);
	assert_string_equal(spe_op_name(SPE_OP_OTHER, 0x3e, b, sizeof(b)), "OTHER-SVE-FP-PRED");
	/* branches: COND bit 0, indirect bit 1 */
	assert_string_equal(spe_op_name(SPE_OP_BRANCH, 0x00, b, sizeof(b)),
			    "BRANCH_OR_EXCEPTION-UNCONDITIONAL-DIRECT");
	assert_string_equal(spe_op_name(SPE_OP_BRANCH, 0x01, b, sizeof(b)),
			    "BRANCH_OR_EXCEPTION-CONDITIONAL-DIRECT");
	assert_string_equal(spe_op_name(SPE_OP_BRANCH, 0x02, b, sizeof(b)),
			    "BRANCH_OR_EXCEPTION-UNCONDITIONAL-INDIRECT");
	/* load/store subclasses */
	static const struct { uint8_t v; const char *name; } ls[] = {
		{ 0x00, "LOAD_STORE_ATOMIC-LOAD-GP" }, { 0x01, "LOAD_STORE_ATOMIC-STORE-GP" },
		{ 0x04, "LOAD_STORE_ATOMIC-LOAD-SIMD-FP" }, { 0x05, "LOAD_STORE_ATOMIC-STORE-SIMD-FP" },
		{ 0x10, "LOAD_STORE_ATOMIC-LOAD-UNSPEC-REG" },
		{ 0x30, "LOAD_STORE_ATOMIC-LOAD-NV-SYSREG" },
		{ 0x14, "LOAD_STORE_ATOMIC-LOAD-MTE-TAG" }, { 0x20, "LOAD_STORE_ATOMIC-LOAD-MEMCPY" },
		{ 0x25, "LOAD_STORE_ATOMIC-STORE-MEMSET" },
		{ 0x06, "LOAD_STORE_ATOMIC-LOAD-ATOMIC" }, { 0x17, "LOAD_STORE_ATOMIC-STORE-ATOMIC-AR" },
		{ 0x0a, "LOAD_STORE_ATOMIC-LOAD-EXCL" }, { 0x12, "LOAD_STORE_ATOMIC-LOAD-OTHER-AR" },
		{ 0x08, "LOAD_STORE_ATOMIC-LOAD-SVE" }, { 0x8d, "LOAD_STORE_ATOMIC-STORE-SVE" },
	};
	for (size_t i = 0; i < sizeof(ls) / sizeof(ls[0]); i++)
		assert_string_equal(spe_op_name(SPE_OP_LDST, ls[i].v, b, sizeof(b)), ls[i].name);
	spe_op_split(SPE_OP_LDST, 0x8d, &o); /* scatter/gather, pred, EVL 32 */
	assert_true(o.sve_sg && o.sve_pred);
	assert_int_equal(o.sve_evl, 32);
	assert_string_equal(spe_op_short(SPE_OP_LDST, 0x00), "load");
	assert_string_equal(spe_op_short(SPE_OP_LDST, 0x01), "store");
	assert_string_equal(spe_op_short(SPE_OP_BRANCH, 0x00), "branch");
}

static void test_events_and_ds(void **state)
{
	char b[256];
	assert_string_equal(spe_events_str(0x16, b, sizeof(b)), "retired+l1d-access+tlb-access");
	assert_string_equal(spe_events_str(0, b, sizeof(b)), "none");
	assert_string_equal(spe_events_str(1ULL << 40, b, sizeof(b)), "ev40");
	assert_string_equal(spe_data_source_name(0xe), "dram");
	assert_string_equal(spe_data_source_name(0x0), "l1d");
	assert_null(spe_data_source_name(0x3));
	assert_string_equal(spe_version_name(SPE_V1), "FEAT_SPE");
	assert_string_equal(spe_version_name(SPE_V1P3), "FEAT_SPEv1p3");
}

/* A load at EL0 with everything the manual lets a record carry, ended by a timestamp. */
static void load_record(struct sb8 *s)
{
	addr(s, SPE_ADDR_PC, 0x8000aaaab0001234ULL);    /* NS, EL0 */
	counter(s, SPE_CNT_ISSUE, 11);
	counter(s, SPE_CNT_TOTAL, 130);
	put(s, 3, 0x52, 0x0e, 0x02);                   /* retired+l1d-acc+l1d-refill+llc-miss */
	put(s, 2, 0x49, 0x00);                         /* LD GP */
	addr(s, SPE_ADDR_DATA_VA, 0x0000fffff0d0c8ULL);
	counter(s, SPE_CNT_XLAT, 7);
	addr(s, SPE_ADDR_DATA_PA, 0x80000000fedc00c8ULL);
	put(s, 3, 0x53, 0x0e, 0x00);                   /* data source 0xe */
	put(s, 5, 0x64, 0x39, 0x30, 0x00, 0x00);       /* CONTEXTIDR_EL1 = 12345 */
	put(s, 1, 0x71);
	put_le(s, 0x123456789ULL, 8);
}

static void branch_record(struct sb8 *s)
{
	addr(s, SPE_ADDR_PC, 0x8000aaaab0002000ULL);
	counter(s, SPE_CNT_TOTAL, 3);
	put(s, 2, 0x42, 0x82);                         /* retired+mispredicted */
	put(s, 2, 0x4a, 0x03);                         /* B COND INDIRECT */
	addr(s, SPE_ADDR_BRANCH_TARGET, 0x8000aaaab0003000ULL);
	addr(s, SPE_ADDR_PREV_BRANCH, 0x8000aaaab0000ff0ULL);
	put(s, 1, 0x01);                               /* END */
}

static void test_records(void **state)
{
	struct sb8 s = { .n = 0 };
	put(&s, 3, 0x00, 0x00, 0x00); /* leading padding */
	load_record(&s);
	put(&s, 4, 0, 0, 0, 0);
	branch_record(&s);
	struct spe_decoder d;
	struct spe_record r;
	spe_decoder_init(&d, s.b, s.n, SPE_V1P2);
	assert_int_equal(spe_next_record(&d, &r), 1);
	assert_int_equal(r.offset, 3);
	assert_true(r.pc == 0xaaaab0001234ULL);
	assert_int_equal(r.el, 0);
	assert_true(r.ns);
	assert_int_equal(r.lat_total, 130);
	assert_int_equal(r.lat_issue, 11);
	assert_int_equal(r.lat_xlat, 7);
	assert_int_equal(r.events, 0x20e);
	assert_int_equal(r.op_class, SPE_OP_LDST);
	assert_int_equal(r.op, 0);
	assert_true(r.data_va == 0xfffff0d0c8ULL);
	assert_true(r.data_pa == 0xfedc00c8ULL);
	assert_true(r.pa_ns);
	assert_int_equal(r.data_source, 0xe);
	assert_int_equal(r.context, 12345);
	assert_int_equal(r.context_el, 1);
	assert_true(r.timestamp == 0x123456789ULL);
	assert_int_equal(r.unexpected, 0);
	assert_int_equal(r.valid, SPE_HAS_PC | SPE_HAS_VA | SPE_HAS_PA | SPE_HAS_OP |
			 SPE_HAS_EVENTS | SPE_HAS_DS | SPE_HAS_TS | SPE_HAS_CONTEXT |
			 SPE_HAS_LAT_TOTAL | SPE_HAS_LAT_ISSUE | SPE_HAS_LAT_XLAT);
	assert_int_equal(spe_next_record(&d, &r), 1);
	assert_true(r.pc == 0xaaaab0002000ULL);
	assert_int_equal(r.op_class, SPE_OP_BRANCH);
	assert_int_equal(r.events, 0x82);
	assert_true(r.br_target == 0xaaaab0003000ULL);
	assert_true(r.prev_branch == 0xaaaab0000ff0ULL);
	assert_false(r.valid & SPE_HAS_TS);
	assert_int_equal(r.unexpected, 0);
	assert_int_equal(spe_next_record(&d, &r), 0);
	assert_false(d.truncated);
	assert_int_equal(d.errors, 0);
}

static int unexpected_in(const struct sb8 *s, enum spe_version v)
{
	struct spe_decoder d;
	struct spe_record r;
	spe_decoder_init(&d, s->b, s->n, v);
	assert_int_equal(spe_next_record(&d, &r), 1);
	return (int)r.unexpected;
}

static void test_versions(void **state)
{
	/* previous-branch address packets come with v1p2 */
	struct sb8 s = { .n = 0 };
	branch_record(&s);
	assert_int_equal(unexpected_in(&s, SPE_V1), 1);
	assert_int_equal(unexpected_in(&s, SPE_V1P1), 1);
	assert_int_equal(unexpected_in(&s, SPE_V1P2), 0);
	assert_int_equal(unexpected_in(&s, SPE_V1P3), 0);
	/* LLC miss (bit 9) is a v1p1 event */
	s.n = 0;
	load_record(&s);
	assert_int_equal(unexpected_in(&s, SPE_V1), 1);
	assert_int_equal(unexpected_in(&s, SPE_V1P1), 0);
	/* transactional (bit 16) from v1p2; SVE predicate events from v1p1 */
	s.n = 0;
	addr(&s, 0, 0x400000);
	put(&s, 5, 0x62, 0x02, 0x00, 0x01, 0x00);
	put(&s, 1, 0x01);
	assert_int_equal(unexpected_in(&s, SPE_V1P1), 1);
	assert_int_equal(unexpected_in(&s, SPE_V1P2), 0);
	s.n = 0;
	addr(&s, 0, 0x400000);
	put(&s, 5, 0x62, 0x02, 0x00, 0x06, 0x00);
	put(&s, 1, 0x01);
	assert_int_equal(unexpected_in(&s, SPE_V1), 1);
	assert_int_equal(unexpected_in(&s, SPE_V1P1), 0);
	/* SVE operation types from v1p1 */
	s.n = 0;
	addr(&s, 0, 0x400000);
	put(&s, 2, 0x49, 0x08);
	put(&s, 1, 0x01);
	assert_int_equal(unexpected_in(&s, SPE_V1), 1);
	assert_int_equal(unexpected_in(&s, SPE_V1P1), 0);
	s.n = 0;
	addr(&s, 0, 0x400000);
	put(&s, 2, 0x48, 0x0e);
	put(&s, 1, 0x01);
	assert_int_equal(unexpected_in(&s, SPE_V1), 1);
	/* an op class of 3, address index 5 and counter index 3 are undefined in every version */
	s.n = 0;
	addr(&s, 0, 0x400000);
	put(&s, 2, 0x4b, 0x00);
	addr(&s, 5, 0);
	counter(&s, 3, 1);
	put(&s, 1, 0x01);
	assert_int_equal(unexpected_in(&s, SPE_V1P3), 3);
}

static void test_corrupted_stream(void **state)
{
	struct sb8 s = { .n = 0 };
	load_record(&s);
	size_t bad_at = s.n + 9;
	addr(&s, SPE_ADDR_PC, 0x400100);
	put(&s, 3, 0xff, 0xee, 0xdd);  /* undefined header: this record is lost */
	put(&s, 2, 0x49, 0x00);
	put(&s, 1, 0x01);               /* record boundary */
	branch_record(&s);
	struct spe_decoder d;
	struct spe_record r;
	spe_decoder_init(&d, s.b, s.n, SPE_V1P3);
	assert_int_equal(spe_next_record(&d, &r), 1);
	assert_int_equal(spe_next_record(&d, &r), -1);
	char want[64];
	snprintf(want, sizeof(want), "offset 0x%zx", bad_at);
	assert_non_null(strstr(err_msg(), want));
	assert_non_null(strstr(err_msg(), "0xff"));
	assert_int_equal(spe_next_record(&d, &r), 1);
	assert_true(r.pc == 0xaaaab0002000ULL);
	assert_int_equal(spe_next_record(&d, &r), 0);
	assert_int_equal(d.errors, 1);
	assert_int_equal(d.skipped, 5);
}

/* An End byte inside a payload (counter value 1) is a false boundary: the record tail after it
 * has no PC and is skipped, so the next record decoded is the next real one. */
static void test_false_boundary(void **state)
{
	struct sb8 s = { .n = 0 };
	load_record(&s);          /* its translation counter is 7: make it 1 */
	s.b[30] = 0x01;           /* 0x9a 0x07 0x00 at offset 29: XLAT counter payload */
	assert_int_equal(s.b[29], 0x9a);
	s.b[18] = 0xff;           /* corrupt the op-type header 0x49 */
	branch_record(&s);
	struct spe_decoder d;
	struct spe_record r;
	spe_decoder_init(&d, s.b, s.n, SPE_V1P3);
	assert_int_equal(spe_next_record(&d, &r), -1);
	assert_non_null(strstr(err_msg(), "offset 0x12"));
	assert_int_equal(spe_next_record(&d, &r), 1);
	assert_true(r.pc == 0xaaaab0002000ULL);
	assert_int_equal(spe_next_record(&d, &r), 0);
	assert_false(d.resyncing);
}

static void test_truncated_streams(void **state)
{
	struct sb8 s = { .n = 0 };
	load_record(&s);
	size_t first = s.n;
	branch_record(&s);
	/* every cut: the first record survives when whole, nothing is read past the end */
	for (size_t cut = 0; cut < s.n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, s.b, cut);
		struct spe_decoder d;
		struct spe_record r;
		spe_decoder_init(&d, copy, cut, SPE_V1P3);
		int n = 0, rc;
		while ((rc = spe_next_record(&d, &r)) != 0)
			if (rc == 1)
				n++;
		assert_int_equal(n, cut >= first ? 1 : 0);
		assert_int_equal(d.truncated, cut != first && cut != 0);
		assert_int_equal(d.errors, 0);
		free(copy);
	}
}

/* Bytes from real hardware: the start of `perf report --dump-raw-trace` of
 * `perf record -e arm_spe/ts_enable=1,pa_enable=1,pct_enable=1/ dd ...` in a KVM guest with
 * virtual SPE on an Arm host, as posted to qemu-devel ("target/arm: Add vSPE support to KVM
 * guest", Haibo Xu, 2020), with perf's decoding of each packet beside it. Two whole records
 * (timestamp-terminated, kernel PCs at EL1) and the start of a third that the excerpt cuts. */
static void test_real_recording(void **state)
{
	static const uint8_t b[] = {
		0xb0, 0xf4, 0xd3, 0x29, 0x10, 0x00, 0x80, 0xff, 0xa0, /* PC 0xff80001029d3f4 el1 ns=1 */
		0x99, 0x0b, 0x00,                                     /* LAT 11 ISSUE */
		0x98, 0x0d, 0x00,                                     /* LAT 13 TOT */
		0x52, 0x16, 0x00,                   /* EV RETIRED L1D-ACCESS TLB-ACCESS */
		0x49, 0x00,                                           /* LD */
		0xb2, 0xd0, 0x40, 0xd8, 0x70, 0x00, 0x00, 0xff, 0x00, /* VA 0xff000070d840d0 */
		0x9a, 0x01, 0x00,                                     /* LAT 1 XLAT */
		0x00, 0x00, 0x00,                                     /* PAD */
		0x71, 0xa5, 0x1f, 0xb3, 0x20, 0x14, 0x00, 0x00, 0x00, /* TS 86447955877 */
		0xb0, 0x7c, 0xf9, 0x29, 0x10, 0x00, 0x80, 0xff, 0xa0, /* PC 0xff80001029f97c */
		0x99, 0x02, 0x00, 0x98, 0x03, 0x00,                   /* LAT 2 ISSUE, 3 TOT */
		0x52, 0x02, 0x00,                                     /* EV RETIRED */
		0x48, 0x00,                                           /* INSN-OTHER */
		0x00, 0x00, 0x00,                                     /* PAD */
		0x71, 0xef, 0x1f, 0xb3, 0x20, 0x14, 0x00, 0x00, 0x00, /* TS 86447955951 */
		0xb0, 0xf0, 0xe9, 0x29, 0x10, 0x00, 0x80, 0xff, 0xa0, /* PC 0xff80001029e9f0 */
		0x99, 0x02, 0x00, 0x98, 0x03, 0x00, 0x52, 0x02, 0x00, /* (the excerpt ends) */
	};
	struct spe_decoder d;
	struct spe_record r;
	spe_decoder_init(&d, b, sizeof(b), SPE_V1);
	assert_int_equal(spe_next_record(&d, &r), 1);
	/* perf 5.x printed bits 55:0; the kernel VA is their sign extension */
	assert_true(r.pc == 0xffff80001029d3f4ULL);
	assert_int_equal(r.el, 1);
	assert_true(r.ns);
	assert_int_equal(r.lat_issue, 11);
	assert_int_equal(r.lat_total, 13);
	assert_int_equal(r.lat_xlat, 1);
	assert_int_equal(r.events, 0x16);
	assert_int_equal(r.op_class, SPE_OP_LDST);
	assert_int_equal(r.op, 0);
	assert_true(r.data_va == 0xffff000070d840d0ULL);
	assert_int_equal(r.va_tag, 0);
	assert_true(r.timestamp == 86447955877ULL);
	assert_int_equal(r.unexpected, 0);
	assert_int_equal(spe_next_record(&d, &r), 1);
	assert_true(r.pc == 0xffff80001029f97cULL);
	assert_int_equal(r.op_class, SPE_OP_OTHER);
	assert_int_equal(r.events, 0x02);
	assert_true(r.timestamp == 86447955951ULL);
	assert_int_equal(r.offset, 0x2c);
	assert_int_equal(spe_next_record(&d, &r), 0);
	assert_true(d.truncated);
	assert_int_equal(d.errors, 0);
}

static void test_random_bytes(void **state)
{
	uint32_t x = 12345;
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + (size_t)(round * 7 % 300);
		uint8_t *b = malloc(n);
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			b[i] = (uint8_t)(x >> 16);
		}
		struct spe_decoder d;
		struct spe_record r;
		spe_decoder_init(&d, b, n, (enum spe_version)(1 + round % 4));
		int steps = 0, rc;
		while ((rc = spe_next_record(&d, &r)) != 0) {
			assert_true(d.pos <= n);
			assert_true(++steps <= (int)n + 1);
		}
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packet_headers),
		cmocka_unit_test(test_extended_and_bad_headers),
		cmocka_unit_test(test_address_layouts),
		cmocka_unit_test(test_op_types),
		cmocka_unit_test(test_events_and_ds),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_corrupted_stream),
		cmocka_unit_test(test_false_boundary),
		cmocka_unit_test(test_truncated_streams),
		cmocka_unit_test(test_real_recording),
		cmocka_unit_test(test_random_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
