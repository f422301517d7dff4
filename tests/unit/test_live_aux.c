/* The live AUX drain: what an AUX area holds comes out through the record callback as
 * PERF_RECORD_AUXTRACE records in perf's layout (checked with the SPE parser), padded to 8,
 * with the ring buffer's CPU and task; areas without SPE events are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spe/spe_perfdata.h"
#include "live/live_aux.h"
#include "util/xalloc.h"

struct got {
	int n;
	struct spe_auxtrace a;
	uint8_t data[64];
};

static int on_rec(const struct perf_event_header *h, void *arg)
{
	struct got *g = arg;
	assert_int_equal(h->type, SPE_REC_AUXTRACE);
	assert_int_equal(spe_parse_auxtrace(h, h->size + 64, &g->a), 0);
	assert_true(g->a.size <= sizeof(g->data));
	memcpy(g->data, g->a.data, g->a.size);
	g->n++;
	return 0;
}

static void test_drain_records(void **state)
{
	struct live l;
	memset(&l, 0, sizeof(l));
	struct ringbuf *rbs = xcalloc(2, sizeof(*rbs));
	rbs[0].cpu = 3;
	rbs[0].pid = -1;
	l.rbs = rbs;
	l.nrbs = 2;
	l.aux = xcalloc(2, sizeof(*l.aux));
	l.naux = 2;
	struct perf_event_mmap_page pc;
	memset(&pc, 0, sizeof(pc));
	uint8_t area[32];
	for (int i = 0; i < 32; i++)
		area[i] = (uint8_t)(0xb0 + i);
	auxbuf_init_mem(&l.aux[0], &pc, area, sizeof(area)); /* aux[1] has no SPE event */
	struct got g = { 0 };
	assert_int_equal(live_aux_drain(&l, on_rec, &g), 0);
	pc.aux_head = 13;
	assert_int_equal(live_aux_drain(&l, on_rec, &g), 1);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.a.size, 16);       /* 13 bytes padded to 8 */
	assert_int_equal(g.a.offset, 0);
	assert_int_equal(g.a.cpu, 3);
	assert_int_equal(g.a.tid, (uint32_t)-1);
	assert_int_equal(g.a.idx, 0);
	assert_int_equal(g.data[12], 0xb0 + 12);
	assert_int_equal(g.data[13], 0);      /* padding: SPE Padding packets */
	pc.aux_head = 40;                     /* wraps: 13..31, then 0..7 */
	assert_int_equal(live_aux_drain(&l, on_rec, &g), 1);
	assert_int_equal(g.a.offset, 13);
	assert_int_equal(g.a.size, 32);
	assert_int_equal(g.data[18], 0xb0 + 31);
	assert_int_equal(g.data[19], 0xb0);
	live_aux_unmap(&l);
	free(rbs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
