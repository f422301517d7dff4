/* perf_event records: samples with every sample_type field, bounds on every length, the event
 * of a record (IDENTIFIER, ID, trailer), side-band parsers, builders byte for byte, event names
 * and byte swapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include <elf.h>

#include "record/record.h"
#include "record/regname.h"
#include "record/swap.h"
#include "util/error.h"
#include "util/xalloc.h"

/* A record written field by field, independently of the library's builders. */
struct rb {
	uint8_t b[8192] __attribute__((aligned(8)));
	size_t n;
};

static void rb_init(struct rb *r)
{
	memset(r, 0, sizeof(*r));
	r->n = 8;
}

static void w64(struct rb *r, uint64_t v)
{
	memcpy(r->b + r->n, &v, 8);
	r->n += 8;
}

static void w32(struct rb *r, uint32_t v)
{
	memcpy(r->b + r->n, &v, 4);
	r->n += 4;
}

static void wbytes(struct rb *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static struct perf_event_header *rb_done(struct rb *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, (uint16_t)r->n };
	memcpy(r->b, &h, sizeof(h));
	return (struct perf_event_header *)r->b;
}

/* A heap copy of exactly h->size bytes, so that ASan sees any read past the record. */
static struct perf_event_header *exact_copy(const void *rec, uint16_t size)
{
	struct perf_event_header *h = malloc(size);
	memcpy(h, rec, size);
	h->size = size;
	return h;
}

#define ALL_SAMPLE_BITS                                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |  \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | \
	 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |       \
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |     \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_AUX | PERF_SAMPLE_CGROUP |             \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

static struct perf_event_attr full_attr(void)
{
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.sample_type = ALL_SAMPLE_BITS;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x7;
	a.sample_regs_intr = 0x3;
	a.sample_id_all = 1;
	return a;
}

static uint64_t one_id = 77;

static void one_event(struct evsel_set *s, const struct perf_event_attr *a)
{
	memset(s, 0, sizeof(*s));
	evsel_set_add(s, a, "ev", &one_id, 1);
}

/* Every field in kernel order, with a 5-byte RAW (padded to 16 with its size). */
static struct perf_event_header *full_sample(struct rb *r)
{
	rb_init(r);
	w64(r, 77);                       /* IDENTIFIER */
	w64(r, 0x401000);                 /* IP */
	w32(r, 100);                      /* TID */
	w32(r, 101);
	w64(r, 5000);                     /* TIME */
	w64(r, 0xdead);                   /* ADDR */
	w64(r, 77);                       /* ID */
	w64(r, 78);                       /* STREAM_ID */
	w32(r, 3);                        /* CPU */
	w32(r, 0);
	w64(r, 1000);                     /* PERIOD */
	w64(r, 2);                        /* READ: nr, enabled, running, {value, id, lost} x 2 */
	w64(r, 10);
	w64(r, 9);
	w64(r, 11), w64(r, 77), w64(r, 0);
	w64(r, 22), w64(r, 79), w64(r, 1);
	w64(r, 3);                        /* CALLCHAIN */
	w64(r, PERF_CONTEXT_USER);
	w64(r, 0x401000);
	w64(r, 0x402000);
	w32(r, 5);                        /* RAW */
	wbytes(r, "abcde\0\0\0\0\0\0\0", 12);
	w64(r, 2);                        /* BRANCH_STACK: nr, hw_idx, entries */
	w64(r, 1);
	w64(r, 0x10), w64(r, 0x20), w64(r, 1);
	w64(r, 0x30), w64(r, 0x40), w64(r, 0);
	w64(r, PERF_SAMPLE_REGS_ABI_64);  /* REGS_USER */
	w64(r, 1), w64(r, 2), w64(r, 3);
	w64(r, 16);                       /* STACK_USER */
	wbytes(r, "0123456789abcdef", 16);
	w64(r, 8);
	w64(r, 9);                        /* WEIGHT */
	w64(r, 10);                       /* DATA_SRC */
	w64(r, 11);                       /* TRANSACTION */
	w64(r, PERF_SAMPLE_REGS_ABI_64);  /* REGS_INTR */
	w64(r, 4), w64(r, 5);
	w64(r, 12);                       /* PHYS_ADDR */
	w64(r, 13);                       /* CGROUP */
	w64(r, 4096);                     /* DATA_PAGE_SIZE */
	w64(r, 8192);                     /* CODE_PAGE_SIZE */
	w64(r, 8);                        /* AUX */
	wbytes(r, "AUXDATA!", 8);
	return rb_done(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
}

static void test_sample_every_field(void **state)
{
	struct perf_event_attr a = full_attr();
	struct evsel_set s;
	one_event(&s, &a);
	struct rb r;
	struct perf_event_header *h = full_sample(&r);
	struct perf_sample p;
	assert_int_equal(sample_parse(&s, h, &p), 0);
	assert_ptr_equal(p.evsel, &s.v[0]);
	assert_int_equal(p.cpumode, PERF_RECORD_MISC_USER);
	assert_int_equal(p.id, 77);
	assert_int_equal(p.ip, 0x401000);
	assert_int_equal(p.pid, 100);
	assert_int_equal(p.tid, 101);
	assert_int_equal(p.time, 5000);
	assert_int_equal(p.addr, 0xdead);
	assert_int_equal(p.stream_id, 78);
	assert_int_equal(p.cpu, 3);
	assert_int_equal(p.period, 1000);
	assert_int_equal(p.read_nr, 2);
	assert_int_equal(p.read_time_enabled, 10);
	assert_int_equal(p.read_time_running, 9);
	struct sample_read_value v;
	sample_read_value(&p, 1, &v);
	assert_int_equal(v.value, 22);
	assert_int_equal(v.id, 79);
	assert_int_equal(v.lost, 1);
	sample_read_value(&p, 0, &v);
	assert_int_equal(v.value, 11);
	assert_int_equal(p.callchain_nr, 3);
	assert_int_equal(p.callchain[0], PERF_CONTEXT_USER);
	assert_int_equal(p.callchain[2], 0x402000);
	assert_int_equal(p.raw_size, 5);
	assert_memory_equal(p.raw, "abcde", 5);
	assert_int_equal(p.branch_nr, 2);
	assert_true(p.branch_has_hw_idx);
	assert_int_equal(p.branch_hw_idx, 1);
	assert_int_equal(p.branches[1].from, 0x30);
	assert_int_equal(p.branches[0].mispred, 1);
	assert_int_equal(p.user_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(p.user_nregs, 3);
	assert_int_equal(p.user_regs[2], 3);
	assert_int_equal(p.user_regs_mask, 0x7);
	assert_int_equal(p.user_stack_size, 16);
	assert_int_equal(p.user_stack_dyn_size, 8);
	assert_memory_equal(p.user_stack, "0123456789abcdef", 16);
	assert_int_equal(p.weight, 9);
	assert_int_equal(p.data_src, 10);
	assert_int_equal(p.transaction, 11);
	assert_int_equal(p.intr_nregs, 2);
	assert_int_equal(p.intr_regs[1], 5);
	assert_int_equal(p.phys_addr, 12);
	assert_int_equal(p.cgroup, 13);
	assert_int_equal(p.data_page_size, 4096);
	assert_int_equal(p.code_page_size, 8192);
	assert_int_equal(p.aux_size, 8);
	assert_memory_equal(p.aux, "AUXDATA!", 8);

	/* The builder writes the same bytes back. */
	uint8_t out[8192] __attribute__((aligned(8)));
	size_t n = record_build_sample(out, sizeof(out), &a, &p);
	assert_int_equal(n, h->size);
	assert_memory_equal(out, h, n);
	evsel_set_free(&s);
}

static void test_sample_every_truncation_fails(void **state)
{
	struct perf_event_attr a = full_attr();
	struct evsel_set s;
	one_event(&s, &a);
	struct rb r;
	struct perf_event_header *full = full_sample(&r);
	/* AUX data is last, so cutting any byte leaves some field short. */
	for (uint16_t size = 0; size < full->size; size++) {
		struct perf_event_header *h = exact_copy(full, size < 8 ? 8 : size);
		h->size = size;
		struct perf_sample p;
		assert_int_equal(sample_parse(&s, h, &p), -1);
		free(h);
	}
	evsel_set_free(&s);
}

static void test_sample_huge_counts(void **state)
{
	struct perf_event_attr a = { 0 };
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	struct evsel_set s;
	one_event(&s, &a);
	struct rb r;
	rb_init(&r);
	w64(&r, 1);
	w64(&r, 1ULL << 60);  /* nr * 8 wraps to 0 in 64 bits */
	w64(&r, 2);
	struct perf_sample p;
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), -1);
	assert_non_null(strstr(err_msg(), "CALLCHAIN"));

	a.sample_type = PERF_SAMPLE_BRANCH_STACK;
	evsel_set_free(&s);
	one_event(&s, &a);
	rb_init(&r);
	w64(&r, UINT64_MAX / 3);
	w64(&r, 0);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), -1);

	a.sample_type = PERF_SAMPLE_RAW;
	evsel_set_free(&s);
	one_event(&s, &a);
	rb_init(&r);
	w32(&r, UINT32_MAX);
	w32(&r, 0);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), -1);

	a.sample_type = PERF_SAMPLE_READ;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	evsel_set_free(&s);
	one_event(&s, &a);
	rb_init(&r);
	w64(&r, 1ULL << 62);
	w64(&r, 0);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), -1);
	evsel_set_free(&s);
}

static void test_sample_small_layouts(void **state)
{
	struct perf_event_attr a = { 0 };
	struct evsel_set s;
	struct rb r;
	struct perf_sample p;

	/* RAW of 4 bytes: with its size, exactly 8; the next field follows at once. */
	a.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT;
	a.sample_period = 5000;
	one_event(&s, &a);
	rb_init(&r);
	w32(&r, 4);
	wbytes(&r, "wxyz", 4);
	w64(&r, 42);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), 0);
	assert_int_equal(p.raw_size, 4);
	assert_int_equal(p.weight, 42);
	assert_int_equal(p.period, 5000);  /* -c: the attr's period, as perf takes it */
	evsel_set_free(&s);

	/* Non-group read: value, enabled, id. No registers with ABI 0; no stack with size 0. */
	a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_PERIOD;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	a.sample_regs_user = 0xff;
	one_event(&s, &a);
	rb_init(&r);
	w64(&r, 7);  /* PERIOD */
	w64(&r, 500), w64(&r, 600), w64(&r, 77);
	w64(&r, 0);  /* abi none */
	w64(&r, 0);  /* stack size 0: no data, no dyn_size */
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), 0);
	assert_int_equal(p.read_nr, 1);
	assert_int_equal(p.read_time_enabled, 600);
	struct sample_read_value v;
	sample_read_value(&p, 0, &v);
	assert_int_equal(v.value, 500);
	assert_int_equal(v.id, 77);
	assert_int_equal(p.user_abi, 0);
	assert_null(p.user_regs);
	assert_int_equal(p.user_stack_size, 0);
	assert_int_equal(p.period, 7);

	/* dyn_size larger than the copy is corrupt, as perf says. */
	rb_init(&r);
	w64(&r, 7);
	w64(&r, 500), w64(&r, 600), w64(&r, 77);
	w64(&r, 0);
	w64(&r, 8), w64(&r, 0), w64(&r, 9);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), -1);
	assert_non_null(strstr(err_msg(), "dyn_size"));
	evsel_set_free(&s);
}

static void two_events(struct evsel_set *s, uint64_t st)
{
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = st;
	a.sample_id_all = 1;
	uint64_t ids1[] = { 11, 12 }, ids2[] = { 21, 22 };
	memset(s, 0, sizeof(*s));
	evsel_set_add(s, &a, "first", ids1, 2);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	evsel_set_add(s, &a, "second", ids2, 2);
	evsel_set_index(s);
}

static void test_evsel_by_identifier_and_id(void **state)
{
	struct evsel_set s;
	struct rb r;
	struct perf_sample p;
	two_events(&s, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
	assert_string_equal(evsel_by_id(&s, 22)->name, "second");
	assert_string_equal(evsel_by_id(&s, 0)->name, "first");  /* perf's synthesized records */
	assert_null(evsel_by_id(&s, 99));
	rb_init(&r);
	w64(&r, 21), w64(&r, 0x1234), w64(&r, 99);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), 0);
	assert_string_equal(p.evsel->name, "second");
	assert_int_equal(p.time, 99);
	assert_int_equal(record_time(&s, (struct perf_event_header *)r.b), 99);
	rb_init(&r);
	w64(&r, 55), w64(&r, 0x1234), w64(&r, 99);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), -1);
	assert_non_null(strstr(err_msg(), "55"));
	evsel_set_free(&s);

	/* Without IDENTIFIER the ID field, after IP, TID, TIME and ADDR. */
	two_events(&s, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD);
	rb_init(&r);
	w64(&r, 0x1234), w32(&r, 5), w32(&r, 6), w64(&r, 12), w64(&r, 100);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), 0);
	assert_string_equal(p.evsel->name, "first");
	assert_int_equal(p.id, 12);
	assert_int_equal(p.period, 100);
	evsel_set_free(&s);

	/* Several events and no id at all cannot be told apart. */
	two_events(&s, PERF_SAMPLE_IP);
	rb_init(&r);
	w64(&r, 0x1234);
	assert_int_equal(sample_parse(&s, rb_done(&r, PERF_RECORD_SAMPLE, 0), &p), -1);
	assert_non_null(strstr(err_msg(), "IDENTIFIER"));
	evsel_set_free(&s);

	/* A set built by hand without an index is searched the same way. */
	struct evsel ev[2] = { { .name = "a" }, { .name = "b" } };
	uint64_t ia = 5, ib = 6;
	ev[0].ids = &ia, ev[0].nids = 1, ev[1].ids = &ib, ev[1].nids = 1;
	struct evsel_set hand = { ev, 2, NULL, 0, 0 };
	assert_ptr_equal(evsel_by_id(&hand, 6), &ev[1]);
}

static void test_sample_id_trailer(void **state)
{
	struct evsel_set s;
	struct rb r;
	struct perf_sample p;
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_IP;
	two_events(&s, st);
	rb_init(&r);
	w32(&r, 7), w32(&r, 8);
	wbytes(&r, "bash\0\0\0\0", 8);
	w32(&r, 7), w32(&r, 8);  /* trailer: TID, TIME, ID, CPU, IDENTIFIER */
	w64(&r, 12345);
	w64(&r, 22);
	w32(&r, 1), w32(&r, 0);
	w64(&r, 22);
	struct perf_event_header *h = rb_done(&r, PERF_RECORD_COMM, 0);
	assert_int_equal(sample_id_parse(&s, h, &p), 0);
	assert_string_equal(p.evsel->name, "second");
	assert_int_equal(p.pid, 7);
	assert_int_equal(p.tid, 8);
	assert_int_equal(p.time, 12345);
	assert_int_equal(p.cpu, 1);
	assert_int_equal(p.id, 22);
	assert_int_equal(record_time(&s, h), 12345);
	struct rec_comm c;
	assert_int_equal(record_parse_comm(h, &c), 0);
	assert_string_equal(c.comm, "bash");

	/* Too short for its trailer. */
	struct perf_event_header *cut = exact_copy(h, 24);
	assert_int_equal(sample_id_parse(&s, cut, &p), -1);
	assert_int_equal(record_time(&s, cut), 0);
	free(cut);
	/* perf's own records carry none. */
	rb_init(&r);
	assert_int_equal(sample_id_parse(&s, rb_done(&r, REC_FINISHED_ROUND, 0), &p), 0);
	assert_null(p.evsel);
	evsel_set_free(&s);

	/* Without sample_id_all nothing is read. */
	struct perf_event_attr a = { 0 };
	a.sample_type = st;
	one_event(&s, &a);
	assert_int_equal(sample_id_parse(&s, h, &p), 0);
	assert_null(p.evsel);
	assert_int_equal(record_time(&s, h), 0);
	evsel_set_free(&s);
}

static void test_side_band_parsers(void **state)
{
	struct rb r;
	struct rec_mmap m;
	rb_init(&r);
	w32(&r, 42), w32(&r, 43);
	w64(&r, 0x400000), w64(&r, 0x1000), w64(&r, 0x2000);
	w32(&r, 8), w32(&r, 1), w64(&r, 999), w64(&r, 3);
	w32(&r, PROT_READ | PROT_EXEC), w32(&r, MAP_PRIVATE);
	wbytes(&r, "/bin/ls\0", 8);
	struct perf_event_header *h = rb_done(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	assert_int_equal(record_parse_mmap(h, &m), 0);
	assert_int_equal(m.pid, 42);
	assert_int_equal(m.start, 0x400000);
	assert_int_equal(m.len, 0x1000);
	assert_int_equal(m.pgoff, 0x2000);
	assert_int_equal(m.maj, 8);
	assert_int_equal(m.min, 1);
	assert_int_equal(m.ino, 999);
	assert_int_equal(m.ino_generation, 3);
	assert_int_equal(m.prot, PROT_READ | PROT_EXEC);
	assert_string_equal(m.filename, "/bin/ls");
	assert_int_equal(m.cpumode, PERF_RECORD_MISC_USER);
	assert_null(m.build_id);

	/* The name runs to the end of the record without a NUL. */
	memcpy(r.b + 72, "/bin/lsX", 8);
	assert_int_equal(record_parse_mmap(h, &m), -1);
	assert_non_null(strstr(err_msg(), "NUL"));

	/* MMAP2 with a build-id instead of the device and inode. */
	rb_init(&r);
	w32(&r, 42), w32(&r, 43);
	w64(&r, 0x400000), w64(&r, 0x1000), w64(&r, 0);
	uint8_t bid[24] = { 20, 0, 0, 0, 0xaa, 0xbb };
	wbytes(&r, bid, 24);
	w32(&r, PROT_READ), w32(&r, 0);
	wbytes(&r, "x\0\0\0\0\0\0\0", 8);
	h = rb_done(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID |
						   PERF_RECORD_MISC_MMAP_DATA);
	assert_int_equal(record_parse_mmap(h, &m), 0);
	assert_int_equal(m.build_id_size, 20);
	assert_int_equal(m.build_id[0], 0xaa);
	assert_true(m.data);
	r.b[40] = 21;
	assert_int_equal(record_parse_mmap(h, &m), -1);

	/* Old MMAP: executable unless it maps data. */
	rb_init(&r);
	w32(&r, (uint32_t)-1), w32(&r, 0);
	w64(&r, 0xffffffff81000000ULL), w64(&r, 0x1000000), w64(&r, 0);
	wbytes(&r, "[kernel.kallsyms]_text\0\0", 24);
	h = rb_done(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(record_parse_mmap(h, &m), 0);
	assert_true(m.prot & PROT_EXEC);
	assert_int_equal(m.pid, (uint32_t)-1);
	assert_int_equal(m.cpumode, PERF_RECORD_MISC_KERNEL);
	struct perf_event_header *cut = exact_copy(h, 40);
	assert_int_equal(record_parse_mmap(cut, &m), -1);
	free(cut);

	struct rec_task t;
	rb_init(&r);
	w32(&r, 10), w32(&r, 1), w32(&r, 11), w32(&r, 1), w64(&r, 777);
	h = rb_done(&r, PERF_RECORD_FORK, 0);
	assert_int_equal(record_parse_task(h, &t), 0);
	assert_int_equal(t.pid, 10);
	assert_int_equal(t.ppid, 1);
	assert_int_equal(t.tid, 11);
	assert_int_equal(t.time, 777);
	struct rec_comm c;
	assert_int_equal(record_parse_comm(h, &c), -1);
	assert_non_null(strstr(err_msg(), "COMM"));

	struct rec_lost l;
	rb_init(&r);
	w64(&r, 5), w64(&r, 6);
	assert_int_equal(record_parse_lost(rb_done(&r, PERF_RECORD_LOST, 0), &l), 0);
	assert_int_equal(l.id, 5);
	assert_int_equal(l.lost, 6);
	assert_int_equal(record_parse_lost(rb_done(&r, PERF_RECORD_LOST_SAMPLES, 0), &l), 0);
	assert_int_equal(l.id, 0);
	assert_int_equal(l.lost, 5);
}

static void test_builders_layout(void **state)
{
	struct perf_event_attr a = { 0 };
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	uint8_t buf[8192] __attribute__((aligned(8)));
	struct rb r;

	/* COMM "perf-exec" (10 bytes with the NUL, padded to 16), trailer TID TIME CPU IDENTIFIER. */
	size_t n = record_build_comm(buf, sizeof(buf), &a, 5634, 5634, "perf-exec", false);
	rb_init(&r);
	w32(&r, 5634), w32(&r, 5634);
	wbytes(&r, "perf-exec\0\0\0\0\0\0\0", 16);
	w32(&r, 5634), w32(&r, 5634), w64(&r, 0), w64(&r, 0), w64(&r, 0);
	rb_done(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_USER);
	assert_int_equal(n, r.n);
	assert_memory_equal(buf, r.b, n);
	/* Exactly 8-byte names still get a NUL (and 8 more bytes). */
	n = record_build_comm(buf, sizeof(buf), NULL, 1, 1, "12345678", true);
	assert_int_equal(n, 8 + 8 + 16);
	struct rec_comm c;
	assert_int_equal(record_parse_comm((struct perf_event_header *)buf, &c), 0);
	assert_string_equal(c.comm, "12345678");
	assert_true(c.exec);
	/* Too small a buffer: nothing written, the size needed returned. */
	assert_int_equal(record_build_comm(buf, 10, &a, 1, 1, "x", false), 16 + 8 + 32);

	/* The kernel map as perf synthesizes it. */
	struct rec_mmap m = { .pid = (uint32_t)-1, .start = 0xffffffff81000000ULL, .len = 0x1276508,
			      .pgoff = 0xffffffff81000000ULL, .filename = "[kernel.kallsyms]_text",
			      .cpumode = PERF_RECORD_MISC_KERNEL };
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	n = record_build_mmap(buf, sizeof(buf), &a, &m);
	rb_init(&r);
	w32(&r, (uint32_t)-1), w32(&r, 0);
	w64(&r, m.start), w64(&r, m.len), w64(&r, m.pgoff);
	wbytes(&r, "[kernel.kallsyms]_text\0\0", 24);
	w32(&r, (uint32_t)-1), w32(&r, 0), w64(&r, 0);
	rb_done(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(n, 80);
	assert_memory_equal(buf, r.b, n);

	/* MMAP2 both ways, through the parser. */
	uint8_t id[20] = { 1, 2, 3 };
	struct rec_mmap m2 = { .pid = 9, .tid = 9, .start = 0x1000, .len = 0x2000, .pgoff = 0x3000,
			       .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .maj = 8, .min = 2, .ino = 77,
			       .filename = "/usr/lib/libc.so.6", .cpumode = PERF_RECORD_MISC_USER };
	struct rec_mmap back;
	n = record_build_mmap2(buf, sizeof(buf), &a, &m2);
	assert_int_equal(n, 8 + 64 + 24 + 16);
	assert_int_equal(record_parse_mmap((struct perf_event_header *)buf, &back), 0);
	assert_int_equal(back.ino, 77);
	assert_int_equal(back.maj, 8);
	assert_int_equal(back.pgoff, 0x3000);
	assert_string_equal(back.filename, "/usr/lib/libc.so.6");
	m2.build_id = id;
	m2.build_id_size = 20;
	n = record_build_mmap2(buf, sizeof(buf), &a, &m2);
	assert_int_equal(record_parse_mmap((struct perf_event_header *)buf, &back), 0);
	assert_int_equal(back.build_id_size, 20);
	assert_memory_equal(back.build_id, id, 20);
	assert_int_equal(back.ino, 0);

	struct rec_task t = { 1, 2, 3, 4, 5 }, tb;
	n = record_build_task(buf, sizeof(buf), &a, PERF_RECORD_EXIT, &t);
	assert_int_equal(n, 8 + 24 + 16);
	assert_int_equal(((struct perf_event_header *)buf)->type, PERF_RECORD_EXIT);
	assert_int_equal(record_parse_task((struct perf_event_header *)buf, &tb), 0);
	assert_int_equal(tb.ptid, 4);
	assert_int_equal(tb.time, 5);

	struct rec_lost l = { 3, 4 }, lb;
	n = record_build_lost(buf, sizeof(buf), NULL, PERF_RECORD_LOST, &l);
	assert_int_equal(n, 24);
	assert_int_equal(record_parse_lost((struct perf_event_header *)buf, &lb), 0);
	assert_int_equal(lb.lost, 4);
	assert_int_equal(record_build_marker(buf, sizeof(buf), REC_FINISHED_ROUND), 8);

	/* A name that cannot fit a 64 KiB record. */
	char *big = malloc(70000);
	memset(big, 'a', 69999);
	big[69999] = 0;
	m2.filename = big;
	assert_int_equal(record_build_mmap2(buf, sizeof(buf), &a, &m2), 0);
	free(big);
}

static void test_default_names(void **state)
{
	struct perf_event_attr a = { 0 };
	char *n;
#define NAME_IS(want)                          \
	do {                                   \
		n = evsel_default_name(&a);    \
		assert_string_equal(n, want);  \
		free(n);                       \
	} while (0)
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	NAME_IS("cpu-clock");
	a.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	NAME_IS("minor-faults");
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	NAME_IS("cycles");
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.exclude_kernel = a.exclude_hv = 1;
	NAME_IS("branches:u");
	a.precise_ip = 2;
	NAME_IS("branches:upp");
	a.exclude_kernel = a.exclude_hv = 0;
	a.precise_ip = 0;
	a.type = PERF_TYPE_HW_CACHE;
	a.config = PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
		   PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
	NAME_IS("L1-dcache-load-misses");
	a.config = PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8;
	NAME_IS("LLC-loads");
	a.type = PERF_TYPE_RAW;
	a.config = 0x1b;
	NAME_IS("raw 0x1b");
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_addr = 0x1000;
	a.bp_type = 3;
	NAME_IS("mem:0x1000:rw");
	a.type = 10;
	a.config = 0x70;
	NAME_IS("type 10 config 0x70");
#undef NAME_IS
	assert_string_equal(record_type_name(PERF_RECORD_MMAP2), "MMAP2");
	assert_string_equal(record_type_name(REC_FINISHED_ROUND), "FINISHED_ROUND");
	assert_string_equal(record_type_name(99), "type 99");
}

static void test_swap_round_trip(void **state)
{
	struct perf_event_attr a = full_attr();
	struct evsel_set s;
	one_event(&s, &a);
	struct rb r;
	struct perf_event_header *h = full_sample(&r);
	uint8_t orig[8192];
	size_t n = h->size;
	memcpy(orig, h, n);
	swap_record(&s, h, n, false);
	/* The header, then IDENTIFIER as a u64 and TID as two u32s. */
	assert_int_equal(r.b[3], PERF_RECORD_SAMPLE);
	assert_int_equal(r.b[6], n >> 8);
	assert_int_equal(r.b[7], n & 0xff);
	assert_int_equal(r.b[15], 77);
	assert_int_equal(r.b[27], 100);
	assert_int_equal(r.b[31], 101);
	/* RAW bytes and the stack copy are data, not numbers. */
	assert_memory_equal(memmem(r.b, n, "abcde", 5), "abcde", 5);
	assert_non_null(memmem(r.b, n, "0123456789abcdef", 16));
	assert_memory_not_equal(r.b, orig, n);
	swap_record(&s, h, n, true);
	assert_memory_equal(r.b, orig, n);

	/* attr: numbers byte-swapped, flags moved field by field. */
	struct perf_event_attr x = a, y;
	x.disabled = 1;
	x.precise_ip = 2;
	x.sample_id_all = 1;
	x.clockid = 1;
	y = x;
	swap_attr(&y, sizeof(y), false);
	uint8_t *p = (uint8_t *)&y;
	assert_int_equal(p[7], sizeof(x));        /* size, big-endian */
	assert_int_equal(p[40] & 0x80, 0x80);     /* disabled: the top bit of the flags word */
	swap_attr(&y, sizeof(y), true);
	assert_memory_equal(&x, &y, sizeof(x));
	assert_int_equal(y.precise_ip, 2);

	/* A COMM with its trailer. */
	struct perf_event_attr t = { 0 };
	t.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	t.sample_id_all = 1;
	evsel_set_free(&s);
	one_event(&s, &t);
	uint8_t buf[256] __attribute__((aligned(8))), copy[256];
	n = record_build_comm(buf, sizeof(buf), &t, 0x01020304, 5, "sh", false);
	memcpy(copy, buf, n);
	swap_record(&s, buf, n, false);
	assert_int_equal(buf[8], 1);
	assert_memory_equal(buf + 16, "sh", 3);
	assert_int_equal(buf[24], 1);  /* trailer pid */
	swap_record(&s, buf, n, true);
	assert_memory_equal(buf, copy, n);
	evsel_set_free(&s);
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random bytes, exactly as long as they claim to be: parsers and swappers must stay inside. */
static void test_garbage_records(void **state)
{
	struct perf_event_attr a = full_attr();
	struct evsel_set one, two;
	one_event(&one, &a);
	two_events(&two, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
				 PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	static const uint32_t types[] = { PERF_RECORD_SAMPLE, PERF_RECORD_MMAP, PERF_RECORD_MMAP2, PERF_RECORD_COMM,
					  PERF_RECORD_FORK, PERF_RECORD_EXIT, PERF_RECORD_LOST, PERF_RECORD_READ,
					  PERF_RECORD_NAMESPACES, PERF_RECORD_KSYMBOL, PERF_RECORD_TEXT_POKE,
					  REC_HEADER_ATTR, REC_HEADER_FEATURE, REC_EVENT_UPDATE, REC_THREAD_MAP,
					  REC_AUXTRACE, REC_STAT, 99 };
	for (int i = 0; i < 20000; i++) {
		size_t len = 8 + next_rand() % 320;
		uint64_t *mem = malloc((len + 7) / 8 * 8);
		for (size_t j = 0; j < (len + 7) / 8; j++)
			mem[j] = next_rand() % 4 ? next_rand() % 64 : next_rand();
		struct perf_event_header *h = (struct perf_event_header *)mem;
		h->type = types[next_rand() % ARRAY_SIZE(types)];
		h->size = (uint16_t)(next_rand() % 2 ? len : next_rand() % (len + 1));
		const struct evsel_set *s = i % 2 ? &one : &two;
		struct perf_sample p;
		struct rec_mmap m;
		struct rec_comm c;
		struct rec_task t;
		struct rec_lost l;
		if (h->size >= 8) {
			sample_parse(s, h, &p);
			sample_id_parse(s, h, &p);
			record_time(s, h);
			record_parse_mmap(h, &m);
			record_parse_comm(h, &c);
			record_parse_task(h, &t);
			record_parse_lost(h, &l);
		}
		swap_record(s, mem, len, i % 3 == 0);
		swap_feature((int)(next_rand() % 32), mem, len, i % 3 == 1);
		swap_attr(mem, len, i % 3 == 2);
		free(mem);
	}
	evsel_set_free(&one);
	evsel_set_free(&two);
}

/* perf's register names: numbering, lists and masks (record --intr-regs, script -F iregs) */
static void test_regname(void **state)
{
	(void)state;
	assert_int_equal(regname_machine("x86_64"), EM_X86_64);
	assert_int_equal(regname_machine("arm64"), EM_AARCH64);
	assert_int_equal(regname_machine("riscv64"), 0);
	assert_string_equal(regname(EM_X86_64, 5), "DI");
	assert_string_equal(regname(EM_X86_64, 16), "R8");
	assert_null(regname(EM_X86_64, 12)); /* DS: not sampled in 64-bit mode */
	assert_null(regname(EM_X86_64, 24));
	assert_string_equal(regname(EM_AARCH64, 30), "lr");
	assert_string_equal(regname(EM_AARCH64, 32), "pc");
	uint64_t m;
	assert_int_equal(regname_parse_mask(EM_X86_64, "di,r8", &m), 0);
	assert_int_equal(m, 0x10020);
	assert_int_equal(regname_parse_mask(EM_AARCH64, "X0,LR,sp", &m), 0);
	assert_int_equal(m, 1ULL | 1ULL << 30 | 1ULL << 31);
	assert_int_equal(regname_parse_mask(EM_X86_64, "di,,r8", &m), -1);
	assert_non_null(strstr(err_msg(), "unknown register ''"));
	assert_int_equal(regname_parse_mask(EM_X86_64, "ds", &m), -1);
	assert_int_equal(regname_all(EM_X86_64), 0xff0fffULL);
	assert_int_equal(regname_all(EM_AARCH64), (1ULL << 33) - 1);
	char *l = regname_list(EM_X86_64);
	assert_string_equal(l, "AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 R12 R13 R14 R15");
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regname),
		cmocka_unit_test(test_sample_every_field),
		cmocka_unit_test(test_sample_every_truncation_fails),
		cmocka_unit_test(test_sample_huge_counts),
		cmocka_unit_test(test_sample_small_layouts),
		cmocka_unit_test(test_evsel_by_identifier_and_id),
		cmocka_unit_test(test_sample_id_trailer),
		cmocka_unit_test(test_side_band_parsers),
		cmocka_unit_test(test_builders_layout),
		cmocka_unit_test(test_default_names),
		cmocka_unit_test(test_swap_round_trip),
		cmocka_unit_test(test_garbage_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
