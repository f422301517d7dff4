/* The ring buffer reader: the data_head/data_tail protocol over a fake buffer in ordinary
 * memory (records straddling the end, positions near 2^64, corrupt sizes, callback errors),
 * and mapping a real perf fd, including the locked-memory explanation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/perf_event.h"
#include "kernel/ringbuf.h"
#include "util/error.h"

#define DATA_SIZE 256

struct fake {
	struct ringbuf rb;
	struct perf_event_mmap_page *pg;
	uint8_t *data;
	uint64_t head; /* the writer's position */
};

static struct fake *fake_new(uint64_t start)
{
	struct fake *f = calloc(1, sizeof(*f));
	f->pg = aligned_alloc(4096, 4096);
	memset(f->pg, 0, 4096);
	f->data = aligned_alloc(64, DATA_SIZE);
	memset(f->data, 0xee, DATA_SIZE);
	f->rb.fd = -1;
	f->rb.cpu = 3;
	f->rb.pid = -1;
	f->rb.base = f->pg;
	f->rb.data = f->data;
	f->rb.data_size = DATA_SIZE;
	f->pg->data_head = f->pg->data_tail = f->head = start;
	return f;
}

static void fake_free(struct fake *f)
{
	free(f->pg);
	free(f->data);
	free(f);
}

/* Writes a record (header + payload bytes seq, seq+1, ...) at the writer's position, wrapping
 * like the kernel does, and publishes it. */
static void fake_put(struct fake *f, uint32_t type, uint16_t size, uint8_t seq)
{
	uint8_t rec[512];
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };
	memcpy(rec, &h, sizeof(h));
	for (size_t i = sizeof(h); i < size; i++)
		rec[i] = (uint8_t)(seq + i);
	for (size_t i = 0; i < size; i++)
		f->data[(f->head + i) & (DATA_SIZE - 1)] = rec[i];
	f->head += size;
	f->pg->data_head = f->head;
}

struct got {
	int n;
	uint32_t type[16];
	uint16_t size[16];
	bool intact[16];
	bool aligned[16];
	const void *ptr[16];
	int fail_at; /* return non-zero on this record (1-based), 0 never */
};

static int collect(const struct perf_event_header *h, void *arg)
{
	struct got *g = arg;
	int i = g->n++;
	if (i < 16) {
		g->type[i] = h->type;
		g->size[i] = h->size;
		g->ptr[i] = h;
		g->aligned[i] = ((uintptr_t)h & 7) == 0;
		/* Payload byte k of a record written with seq s is s + k; s is the record type. */
		const uint8_t *p = (const uint8_t *)h;
		g->intact[i] = true;
		for (size_t k = sizeof(*h); k < h->size; k++)
			if (p[k] != (uint8_t)(h->type + k))
				g->intact[i] = false;
	}
	if (g->fail_at && g->n == g->fail_at) {
		err_set("callback refused record %d", g->n);
		return 1;
	}
	return 0;
}

static void test_empty(void **state)
{
	struct fake *f = fake_new(0);
	struct got g = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 0);
	assert_int_equal(g.n, 0);
	fake_free(f);
}

static void test_records_in_order(void **state)
{
	struct fake *f = fake_new(0);
	fake_put(f, 9, 48, 9);
	fake_put(f, 3, 32, 3);
	fake_put(f, 10, 80, 10);
	struct got g = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 3);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.type[0], 9);
	assert_int_equal(g.type[1], 3);
	assert_int_equal(g.type[2], 10);
	assert_int_equal(g.size[2], 80);
	for (int i = 0; i < 3; i++) {
		assert_true(g.intact[i]);
		/* Contiguous records are delivered in place, not copied. */
		assert_true((const uint8_t *)g.ptr[i] >= f->data &&
			    (const uint8_t *)g.ptr[i] < f->data + DATA_SIZE);
	}
	/* The space is given back to the kernel. */
	assert_int_equal(f->pg->data_tail, 160);
	/* Nothing new: nothing delivered. */
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 0);
	fake_free(f);
}

static void test_record_straddling_end(void **state)
{
	/* Start 200 bytes in: a 96-byte record has 56 bytes before the end and 40 after. */
	struct fake *f = fake_new(200);
	fake_put(f, 9, 96, 9);
	fake_put(f, 4, 40, 4);
	struct got g = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 2);
	assert_int_equal(g.type[0], 9);
	assert_int_equal(g.size[0], 96);
	assert_true(g.intact[0]);
	assert_ptr_equal(g.ptr[0], f->rb.bounce);
	assert_true(g.aligned[0]);
	assert_int_equal(g.type[1], 4);
	assert_true(g.intact[1]);
	assert_ptr_equal(g.ptr[1], f->data + 40);
	assert_int_equal(f->pg->data_tail, 336);
	fake_free(f);
}

static void test_buffer_filled_exactly_and_reused(void **state)
{
	/* A full buffer (head - tail == size) is legal; then the space is reused after the wrap. */
	struct fake *f = fake_new(64);
	for (int i = 0; i < 4; i++)
		fake_put(f, (uint32_t)(20 + i), 64, (uint8_t)(20 + i));
	struct got g = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 4);
	for (int i = 0; i < 4; i++)
		assert_true(g.intact[i]);
	fake_put(f, 30, 200, 30); /* straddles again, from offset 64 + 256 */
	memset(&g, 0, sizeof(g));
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 1);
	assert_true(g.intact[0]);
	fake_free(f);
}

static void test_positions_near_2_64(void **state)
{
	/* Positions are free-running u64 counters; their wrap must not matter. */
	struct fake *f = fake_new(UINT64_MAX - 31);
	fake_put(f, 9, 48, 9);
	fake_put(f, 5, 24, 5);
	struct got g = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 2);
	assert_true(g.intact[0]);
	assert_true(g.intact[1]);
	assert_int_equal(f->pg->data_tail, 40);
	fake_free(f);
}

static void expect_corrupt(struct fake *f, int delivered_before)
{
	struct got g = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), -1);
	assert_int_equal(g.n, delivered_before);
	assert_non_null(strstr(err_msg(), "CPU 3"));
	assert_non_null(strstr(err_msg(), "offset"));
	/* Not stuck: the unreadable rest is dropped and the next drain is clean. */
	assert_int_equal(f->pg->data_tail, f->pg->data_head);
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), 0);
}

static void test_corrupt_size_zero(void **state)
{
	struct fake *f = fake_new(0);
	fake_put(f, 9, 48, 9);
	fake_put(f, 9, 48, 9);
	/* Overwrite the second header with size 0: a naive reader would loop for ever. */
	struct perf_event_header bad = { .type = 9, .size = 0 };
	memcpy(f->data + 48, &bad, sizeof(bad));
	expect_corrupt(f, 1);
	assert_non_null(strstr(err_msg(), "offset 48"));
	assert_non_null(strstr(err_msg(), "size 0"));
	fake_free(f);
}

static void test_corrupt_size_beyond_data(void **state)
{
	struct fake *f = fake_new(0);
	fake_put(f, 9, 64, 9);
	struct perf_event_header bad = { .type = 9, .size = 200 };
	memcpy(f->data, &bad, sizeof(bad));
	expect_corrupt(f, 0);
	assert_non_null(strstr(err_msg(), "64 bytes available"));
	fake_free(f);
}

static void test_corrupt_size_unaligned_and_short(void **state)
{
	struct fake *f = fake_new(0);
	fake_put(f, 9, 48, 9);
	struct perf_event_header bad = { .type = 9, .size = 12 };
	memcpy(f->data, &bad, sizeof(bad));
	expect_corrupt(f, 0);
	fake_free(f);

	f = fake_new(0);
	bad.size = 4;
	memcpy(f->data, &bad, sizeof(bad));
	f->pg->data_head = 8;
	expect_corrupt(f, 0);
	fake_free(f);
}

static void test_corrupt_positions(void **state)
{
	/* More unread data than the buffer holds cannot be. */
	struct fake *f = fake_new(0);
	f->pg->data_head = DATA_SIZE + 8;
	struct got g = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), -1);
	assert_int_equal(g.n, 0);
	assert_non_null(strstr(err_msg(), "corrupt positions"));
	fake_free(f);
}

static void test_callback_error_stops(void **state)
{
	struct fake *f = fake_new(0);
	fake_put(f, 1, 40, 1);
	fake_put(f, 2, 40, 2);
	fake_put(f, 3, 40, 3);
	struct got g = { .fail_at = 2 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g), -1);
	assert_string_equal(err_msg(), "callback refused record 2");
	/* Records handed over are consumed; the rest comes next time. */
	assert_int_equal(f->pg->data_tail, 80);
	struct got g2 = { 0 };
	assert_int_equal(ringbuf_drain(&f->rb, collect, &g2), 1);
	assert_int_equal(g2.type[0], 3);
	fake_free(f);
}

static int open_dummy(void)
{
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = a.exclude_hv = 1;
	a.mmap = 1;
	return pe_open(&a, 0, -1, -1, 0);
}

static void test_map_real_fd(void **state)
{
	int fd = open_dummy();
	if (fd < 0)
		skip();
	struct ringbuf *rb = calloc(1, sizeof(*rb));
	assert_int_equal(ringbuf_map(rb, fd, 4), 0);
	assert_int_equal(rb->data_size, 4 * (uint64_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(rb->cpu, -1);
	assert_int_equal(ringbuf_drain(rb, collect, &(struct got){ 0 }), 0);
	ringbuf_unmap(rb);
	assert_null(rb->base);
	ringbuf_unmap(rb); /* twice is harmless */

	assert_int_equal(ringbuf_map(rb, fd, 3), -1);
	assert_non_null(strstr(err_msg(), "power of two"));
	assert_int_equal(ringbuf_map(rb, -1, 4), -1);
	assert_non_null(strstr(err_msg(), "cannot map"));
	free(rb);
	close(fd);
}

/* An unprivileged user over the locked-memory budget gets told about perf_event_mlock_kb. */
static void test_map_over_mlock_budget(void **state)
{
	if (geteuid() != 0)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		int fd = open_dummy();
		if (fd < 0)
			_exit(11); /* paranoia 3: no perf at all for users */
		static struct ringbuf rb;
		/* 64 MiB: beyond perf_event_mlock_kb on any machine with < 128 CPUs. */
		if (ringbuf_map(&rb, fd, 16384) == 0)
			_exit(12);
		if (!strstr(err_msg(), "perf_event_mlock_kb") || !strstr(err_msg(), "-m"))
			_exit(13);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 11 || WEXITSTATUS(st) == 10)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_records_in_order),
		cmocka_unit_test(test_record_straddling_end),
		cmocka_unit_test(test_buffer_filled_exactly_and_reused),
		cmocka_unit_test(test_positions_near_2_64),
		cmocka_unit_test(test_corrupt_size_zero),
		cmocka_unit_test(test_corrupt_size_beyond_data),
		cmocka_unit_test(test_corrupt_size_unaligned_and_short),
		cmocka_unit_test(test_corrupt_positions),
		cmocka_unit_test(test_callback_error_stops),
		cmocka_unit_test(test_map_real_fd),
		cmocka_unit_test(test_map_over_mlock_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
