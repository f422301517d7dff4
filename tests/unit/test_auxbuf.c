/* The AUX area protocol over memory standing in for the kernel's mapping: aux_head/aux_tail,
 * pieces that wrap, nothing new, a head too far ahead; auxbuf_map refuses bad sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/auxbuf.h"
#include "util/error.h"

struct got {
	uint8_t data[256];
	uint64_t size, offset;
	int calls;
};

static int take(const uint8_t *d, uint64_t size, uint64_t offset, void *arg)
{
	struct got *g = arg;
	memcpy(g->data, d, size);
	g->size = size;
	g->offset = offset;
	g->calls++;
	return 0;
}

static void test_drain(void **state)
{
	struct perf_event_mmap_page pc;
	memset(&pc, 0, sizeof(pc));
	uint8_t area[64];
	for (int i = 0; i < 64; i++)
		area[i] = (uint8_t)i;
	struct auxbuf a;
	auxbuf_init_mem(&a, &pc, area, sizeof(area));
	struct got g = { .calls = 0 };
	assert_int_equal(auxbuf_drain(&a, take, &g), 0);
	assert_int_equal(g.calls, 0);
	pc.aux_head = 40;
	assert_int_equal(auxbuf_drain(&a, take, &g), 40);
	assert_int_equal(g.offset, 0);
	assert_int_equal(g.data[39], 39);
	assert_int_equal(pc.aux_tail, 40);
	/* a piece that wraps: bytes 40..63 then 0..15 */
	pc.aux_head = 80;
	assert_int_equal(auxbuf_drain(&a, take, &g), 40);
	assert_int_equal(g.offset, 40);
	assert_int_equal(g.data[0], 40);
	assert_int_equal(g.data[23], 63);
	assert_int_equal(g.data[24], 0);
	assert_int_equal(g.data[39], 15);
	assert_int_equal(pc.aux_tail, 80);
	/* head more than the area ahead: an error, and the reader moves to head */
	pc.aux_head = 80 + 65;
	assert_int_equal(auxbuf_drain(&a, take, &g), -1);
	assert_non_null(strstr(err_msg(), "lost"));
	assert_int_equal(pc.aux_tail, 145);
	assert_int_equal(a.drained, 80);
	auxbuf_unmap(&a);
}

static int refuse(const uint8_t *d, uint64_t size, uint64_t offset, void *arg)
{
	return err_set("stop");
}

static void test_cb_stops_and_sizes(void **state)
{
	struct perf_event_mmap_page pc;
	memset(&pc, 0, sizeof(pc));
	uint8_t area[32] = { 0 };
	struct auxbuf a;
	auxbuf_init_mem(&a, &pc, area, sizeof(area));
	pc.aux_head = 8;
	assert_int_equal(auxbuf_drain(&a, refuse, NULL), -1);
	assert_int_equal(pc.aux_tail, 8); /* consumed even so: the buffer keeps flowing */
	auxbuf_unmap(&a);
	/* not a power of two: refused before any mmap */
	assert_int_equal(auxbuf_map(&a, -1, &pc, 8, 3), -1);
	assert_non_null(strstr(err_msg(), "power of two"));
	/* a bad fd: the mmap fails with a message, after aux_offset/aux_size were placed */
	assert_int_equal(auxbuf_map(&a, -1, &pc, 8, 4), -1);
	assert_int_equal(pc.aux_offset, 9 * (uint64_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(pc.aux_size, 4 * (uint64_t)sysconf(_SC_PAGESIZE));
	auxbuf_unmap(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_cb_stops_and_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
