/* An x86 memory-sampling recording as perf 6.1's `perf mem record` makes one on an Intel CPU with
 * PEBS load latency (cpu/mem-loads,ldlat=30/P and cpu/mem-stores/P, with -W -d: each sample has
 * its data address, PERF_SAMPLE_DATA_SRC and PERF_SAMPLE_WEIGHT_STRUCT): two threads of one
 * process load and store neighbouring words of one cache line, one served from the other core's
 * modified copy (HITM), besides loads from every level (L1, fill buffer, L2, L3, local and remote
 * RAM, a remote cache), a locked load and a blocked one. The mem and c2c analyses must count each
 * as perf counts it. This VM has no PMU, so no such recording can be made here.
 * LPERF_MEM_X86_OUT=PATH keeps the file for tests/e2e/t71-mem-c2c.sh, which compares lperf mem/c2c
 * report with Linux perf 6.1's on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "perfdata/perfdata.h"
#include "record/record.h"
#include "session/session.h"
#include "spe/spe_c2c.h"
#include "spe/spe_load.h"
#include "spe/spe_mem.h"
#include "util/xalloc.h"
#include "selfmap_test.h"

static volatile long x86_line[16] __attribute__((aligned(64)));
__attribute__((noinline)) void mem_x86_writer_a(void) { x86_line[0]++; }
__attribute__((noinline)) void mem_x86_writer_b(void) { x86_line[1]++; }
__attribute__((noinline)) void mem_x86_walker(void) { x86_line[8]++; }

enum { PID = 6000, TID_A = 6001, TID_B = 6002 };
#define LINE 0x7ffd00014000ULL

static struct perf_event_attr mem_attr(uint64_t config, uint64_t ldlat)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = config;
	a.config1 = ldlat;
	a.sample_period = 4000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.precise_ip = 3;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.mmap = a.comm = a.task = a.mmap2 = a.comm_exec = 1;
	a.mmap_data = 1;
	return a;
}

/* A data source from its parts (linux/perf_event.h's union, bit fields in the kernel's order). */
static uint64_t ds(unsigned op, unsigned lvl, unsigned snoop, unsigned lock, unsigned tlb, unsigned lvl_num,
		   unsigned remote, unsigned snoopx, unsigned blk)
{
	union perf_mem_data_src d;
	d.val = 0;
	d.mem_op = op;
	d.mem_lvl = lvl;
	d.mem_snoop = snoop;
	d.mem_lock = lock;
	d.mem_dtlb = tlb;
	d.mem_lvl_num = lvl_num;
	d.mem_remote = remote;
	d.mem_snoopx = snoopx;
	d.mem_blk = blk;
	return d.val;
}

#define L1HIT_TLB (PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT)
#define L2HIT_TLB (PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT)
#define WALK_TLB (PERF_MEM_TLB_WK | PERF_MEM_TLB_MISS)

struct gen {
	uint64_t off;     /* into LINE or, >= 64, another line */
	int store;
	uint64_t data_src;
	uint32_t weight, ins_lat;
	int fn;           /* 0 writer_a, 1 writer_b, 2 walker */
	int times;
};

/* What the recording holds: per thread, what it loads and stores where. */
static const struct gen *gens(size_t *n)
{
	static struct gen g[16];
	size_t k = 0;
	unsigned ld = PERF_MEM_OP_LOAD, st = PERF_MEM_OP_STORE;
	/* the shared line: each writer stores its word (L1 hit) and loads it from the other core's
	 * modified copy (a local HITM, L3 with snoop HITM) */
	g[k++] = (struct gen){ 0x0, 1, ds(st, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NA, PERF_MEM_LOCK_NA, PERF_MEM_TLB_NA, 0, 0, 0, 0), 0, 0, 0, 3 };
	g[k++] = (struct gen){ 0x8, 1, ds(st, PERF_MEM_LVL_L1 | PERF_MEM_LVL_MISS, PERF_MEM_SNOOP_NA, PERF_MEM_LOCK_NA, PERF_MEM_TLB_NA, 0, 0, 0, 0), 0, 0, 1, 3 };
	g[k++] = (struct gen){ 0x0, 0, ds(ld, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_L3, 0, 0, PERF_MEM_BLK_NA), 120, 131, 0, 2 };
	g[k++] = (struct gen){ 0x8, 0, ds(ld, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_L3, 0, 0, PERF_MEM_BLK_NA), 140, 151, 1, 2 };
	/* the walker: one load of each other kind, on lines nobody shares */
	g[k++] = (struct gen){ 0x80, 0, ds(ld, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_L1, 0, 0, PERF_MEM_BLK_NA), 31, 33, 2, 4 };
	g[k++] = (struct gen){ 0xc0, 0, ds(ld, PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_LFB, 0, 0, PERF_MEM_BLK_NA), 45, 47, 2, 1 };
	g[k++] = (struct gen){ 0x100, 0, ds(ld, PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LOCK_NA, L2HIT_TLB, PERF_MEM_LVLNUM_L2, 0, 0, PERF_MEM_BLK_NA), 52, 54, 2, 1 };
	g[k++] = (struct gen){ 0x140, 0, ds(ld, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_L3, 0, 0, PERF_MEM_BLK_NA), 70, 72, 2, 1 };
	g[k++] = (struct gen){ 0x180, 0, ds(ld, PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_MISS, PERF_MEM_LOCK_NA, WALK_TLB, PERF_MEM_LVLNUM_RAM, 0, 0, PERF_MEM_BLK_NA), 300, 310, 2, 1 };
	g[k++] = (struct gen){ 0x1c0, 0, ds(ld, PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HIT, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_RAM, 1, 0, PERF_MEM_BLK_NA), 420, 430, 2, 1 };
	g[k++] = (struct gen){ 0x200, 0, ds(ld, PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_ANY_CACHE, 1, 0, PERF_MEM_BLK_NA), 510, 520, 2, 1 };
	g[k++] = (struct gen){ 0x240, 0, ds(ld, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LOCK_LOCKED, L1HIT_TLB, PERF_MEM_LVLNUM_L1, 0, 0, PERF_MEM_BLK_NA), 36, 38, 2, 1 };
	g[k++] = (struct gen){ 0x280, 0, ds(ld, PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_L2, 0, 0, PERF_MEM_BLK_DATA), 66, 70, 2, 1 };
	g[k++] = (struct gen){ 0x2c0, 0, ds(ld, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LOCK_NA, L1HIT_TLB, PERF_MEM_LVLNUM_L3, 0, PERF_MEM_SNOOPX_FWD, PERF_MEM_BLK_NA), 90, 95, 2, 1 };
	*n = k;
	return g;
}

static void write_x86(const char *path)
{
	struct perf_event_attr lda = mem_attr(0x1cd, 30), sta = mem_attr(0x82d0, 0);
	uint64_t ld_ids[2] = { 200, 201 }, st_ids[2] = { 202, 203 };
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_non_null(w);
	assert_int_equal(perfdata_writer_add_event(w, &lda, "cpu/mem-loads,ldlat=30/P", ld_ids, 2), 0);
	assert_int_equal(perfdata_writer_add_event(w, &sta, "cpu/mem-stores/P", st_ids, 2), 0);
	perfdata_writer_set_cpuid(w, "GenuineIntel-6-55-4"); /* Skylake server */
	uint8_t rec[8192];
	selfmap_put(w, rec, record_build_comm(rec, sizeof(rec), &lda, PID, PID, "mem-demo", true));
	selfmap_put(w, rec, record_build_comm(rec, sizeof(rec), &lda, PID, TID_A, "writer-a", false));
	selfmap_put(w, rec, record_build_comm(rec, sizeof(rec), &lda, PID, TID_B, "writer-b", false));
	struct rec_mmap m = { 0 };
	char exe[512];
	assert_int_equal(selfmap_text(&m, exe, sizeof(exe)), 0);
	m.pid = m.tid = PID;
	m.prot = 5;
	m.flags = 2;
	m.filename = exe;
	m.cpumode = PERF_RECORD_MISC_USER;
	selfmap_put(w, rec, record_build_mmap2(rec, sizeof(rec), &lda, &m));
	void (*fns[3])(void) = { mem_x86_writer_a, mem_x86_writer_b, mem_x86_walker };
	size_t ng;
	const struct gen *g = gens(&ng);
	uint64_t t = 1000000000ULL;
	for (size_t i = 0; i < ng; i++)
		for (int r = 0; r < g[i].times; r++) {
			struct perf_sample s = { 0 };
			const struct perf_event_attr *a = g[i].store ? &sta : &lda;
			int who = g[i].fn;
			s.ip = (uint64_t)(uintptr_t)fns[who] + 4;
			s.pid = PID;
			s.tid = who == 1 ? TID_B : TID_A;
			s.cpu = who == 1 ? 1 : 0;
			s.time = t += 1000;
			s.addr = LINE + g[i].off;
			s.period = 4000;
			s.id = g[i].store ? st_ids[s.cpu] : ld_ids[s.cpu];
			s.data_src = g[i].data_src;
			s.weight = g[i].weight | ((uint64_t)g[i].ins_lat << 32);
			s.cpumode = PERF_RECORD_MISC_USER;
			selfmap_put(w, rec, record_build_sample(rec, sizeof(rec), a, &s));
		}
	selfmap_put(w, rec, record_build_marker(rec, sizeof(rec), REC_FINISHED_ROUND));
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
}

static void test_write(void **state)
{
	(void)state;
	selfmap_write_kept("LPERF_MEM_X86_OUT", write_x86);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
