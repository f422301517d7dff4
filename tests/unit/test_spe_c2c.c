/* An SPE recording of false sharing, built from packet streams: two threads of one process on two
 * CPUs store to neighbouring words (offsets 0x0 and 0x8) of one 64-byte cache line and load them
 * back from the peer core's cache (Neoverse data source 0x9), besides loads nobody shares. The
 * c2c and mem analyses must find that line, both offsets and both functions.
 * LPERF_SPE_C2C_OUT=PATH keeps the file for tests/e2e/t71-mem-c2c.sh, which compares
 * lperf c2c/mem report with Linux perf 6.1's on it. */
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

#include "output/mem_out.h"
#include "perfdata/perfdata.h"
#include "record/record.h"
#include "session/session.h"
#include "spe/spe.h"
#include "spe/spe_c2c.h"
#include "spe/spe_mem.h"
#include "spe/spe_perfdata.h"
#include "util/xalloc.h"
#include "selfmap_test.h"

#include "spe_stream.h"

static volatile long shared_line[16] __attribute__((aligned(64)));
__attribute__((noinline)) void c2c_writer_a(void) { shared_line[0]++; shared_line[0]++; }
__attribute__((noinline)) void c2c_writer_b(void) { shared_line[1]++; shared_line[1]++; }

enum { PID = 5000, TID_A = 5001, TID_B = 5002, SPE_TYPE = 11 };
#define LINE 0x7ffd00004000ULL
#define LINE_PA 0x80004000ULL

static struct perf_event_attr spe_attr(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = SPE_TYPE;
	a.config = (1ULL << 32) | (1ULL << 33) | (1ULL << 34); /* branch_filter=0: ld, st, ts */
	a.sample_period = 4096;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return a;
}

/* One thread's records: stores and peer-core loads of its word, then what it does alone. */
static void thread_records(struct sb8 *s, void (*fn)(void), uint32_t tid, uint64_t off, int dram)
{
	uint64_t pc = (uint64_t)(uintptr_t)fn + 4;
	for (int i = 0; i < 3; i++) {
		struct spe_gen st = { pc, 0x49, 0x01, 0x006, 10, 2, 1, LINE + off, LINE_PA + off, -1, 0, tid };
		spe_gen_record(s, &st);
	}
	for (int i = 0; i < 2; i++) {
		struct spe_gen ld = { pc + 8, 0x49, 0x00, 0x00e, (uint16_t)(100 + 20 * off), 4, 1,
				      LINE + off, LINE_PA + off, 0x9, 0, tid };
		spe_gen_record(s, &ld);
	}
	struct spe_gen own = { pc + 8, 0x49, 0x00, dram ? 0x30e : 0x006, dram ? 300 : 4, 2, 1,
			       0x7ffd00008010ULL + 0x1000ULL * (uint64_t)dram,
			       0x80008010ULL + 0x1000ULL * (uint64_t)dram, dram ? 0xe : 0x0, 0, tid };
	spe_gen_record(s, &own);
}

static void write_c2c(const char *path)
{
	struct perf_event_attr spe = spe_attr(), dummy = spe;
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.config = PERF_COUNT_SW_DUMMY;
	dummy.sample_period = 1;
	dummy.mmap = dummy.mmap2 = dummy.comm = dummy.task = 1;
	uint64_t spe_ids[2] = { 100, 101 }, dummy_ids[2] = { 102, 103 };
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_non_null(w);
	assert_int_equal(perfdata_writer_add_event(w, &spe, "arm_spe_0/ts_enable=0,load_filter=1,store_filter=1/",
						   spe_ids, 2), 0);
	assert_int_equal(perfdata_writer_add_event(w, &dummy, "dummy:u", dummy_ids, 2), 0);
	perfdata_writer_set_cpuid(w, "0x00000000410fd0c0"); /* Neoverse N1 */
	uint8_t rec[8192];
	struct spe_auxtrace_info info = { SPE_TYPE, true };
	selfmap_put(w, rec, spe_build_auxtrace_info(rec, sizeof(rec), &info));
	selfmap_put(w, rec, record_build_comm(rec, sizeof(rec), &dummy, PID, PID, "c2c-demo", true));
	selfmap_put(w, rec, record_build_comm(rec, sizeof(rec), &dummy, PID, TID_A, "writer-a", false));
	selfmap_put(w, rec, record_build_comm(rec, sizeof(rec), &dummy, PID, TID_B, "writer-b", false));
	struct rec_mmap m = { 0 };
	char exe[512];
	assert_int_equal(selfmap_text(&m, exe, sizeof(exe)), 0);
	m.pid = m.tid = PID;
	m.prot = 5;
	m.flags = 2;
	m.filename = exe;
	m.cpumode = PERF_RECORD_MISC_USER;
	selfmap_put(w, rec, record_build_mmap2(rec, sizeof(rec), &dummy, &m));
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		struct sb8 *s = xcalloc(1, sizeof(*s));
		thread_records(s, cpu ? c2c_writer_b : c2c_writer_a, cpu ? TID_B : TID_A, 8 * cpu, (int)cpu);
		size_t padded = (s->n + 7) & ~(size_t)7;
		struct spe_auxtrace a = { padded, 0, 0x1000 + cpu, cpu, cpu ? TID_B : TID_A, cpu, NULL };
		size_t n = spe_build_auxtrace(rec, sizeof(rec), &a);
		memcpy(rec + n, s->b, padded);
		selfmap_put(w, rec, n + padded);
		free(s);
	}
	selfmap_put(w, rec, record_build_marker(rec, sizeof(rec), REC_FINISHED_ROUND));
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
}

static void test_write(void **state)
{
	(void)state;
	selfmap_write_kept("LPERF_SPE_C2C_OUT", write_c2c);
}

/* A Neoverse load or store record with data source ds (-1: none) and events ev. */
static struct spe_sample mk(bool store, int ds, uint64_t ev)
{
	struct spe_sample s;
	memset(&s, 0, sizeof(s));
	s.r.valid = SPE_HAS_PC | SPE_HAS_OP | SPE_HAS_VA | SPE_HAS_EVENTS | (ds >= 0 ? SPE_HAS_DS : 0);
	s.r.op_class = SPE_OP_LDST;
	s.r.op = store ? 0x01 : 0x00;
	s.r.events = ev;
	s.r.data_source = ds >= 0 ? (uint64_t)ds : 0;
	s.r.data_va = LINE;
	return s;
}

/* Each Neoverse data source as perf names its level and snoop, and what c2c counts it as. */
static void test_data_sources(void **state)
{
	(void)state;
	static const struct {
		int ds;
		const char *lvl, *snoop;
		size_t field; /* offsetof the c2c counter it raises besides load */
	} t[] = {
		{ 0x0, "L1 or L1 hit", "None", offsetof(struct c2c_stats, ld_l1hit) },
		{ 0x8, "L2 or L2 hit", "None", offsetof(struct c2c_stats, ld_l2hit) },
		{ 0x9, "L2 or L2 hit", "Peer", offsetof(struct c2c_stats, lcl_peer) },
		{ 0xa, "L3 or L3 hit", "Peer", offsetof(struct c2c_stats, lcl_peer) },
		{ 0xb, "L3 or L3 hit", "Hit", offsetof(struct c2c_stats, ld_llchit) },
		{ 0xd, "Remote N/A or N/A", "Peer", offsetof(struct c2c_stats, rmt_peer) },
		{ 0xe, "Local RAM or RAM hit", "None", offsetof(struct c2c_stats, lcl_dram) },
	};
	char a[128], b[64];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct spe_sample s = mk(false, t[i].ds, 1u << SPE_EV_L1D_ACCESS);
		uint64_t v = spe_mem_data_src(&s.r, true);
		assert_string_equal(mem_lvl_str(v, a, sizeof(a)), t[i].lvl);
		assert_string_equal(mem_snoop_str(v, b, sizeof(b)), t[i].snoop);
		assert_string_equal(mem_tlb_str(v, b, sizeof(b)), "N/A");
		assert_string_equal(mem_lock_str(v), "No");
		assert_string_equal(mem_blk_str(v), " N/A");
		struct c2c_stats st = { 0 };
		assert_true(c2c_classify(&s, true, &st));
		assert_int_equal(st.load, 1);
		assert_int_equal(*(const uint64_t *)((const char *)&st + t[i].field), 1);
	}
	/* a store: no level on Neoverse; a TLB walk shows as a walker miss */
	struct spe_sample st = mk(true, 0x9, (1u << SPE_EV_TLB_ACCESS) | (1u << SPE_EV_TLB_WALK));
	uint64_t v = spe_mem_data_src(&st.r, true);
	assert_string_equal(mem_lvl_str(v, a, sizeof(a)), "N/A or N/A");
	assert_string_equal(mem_snoop_str(v, b, sizeof(b)), "N/A");
	assert_string_equal(mem_tlb_str(v, b, sizeof(b)), "Walker miss");
	struct c2c_stats cs = { 0 };
	assert_true(c2c_classify(&st, true, &cs));
	assert_int_equal(cs.store, 1);
	assert_int_equal(cs.st_na, 1);
	/* another core: the level from the events */
	struct spe_sample g = mk(false, -1, (1u << SPE_EV_LLC_ACCESS) | (1u << SPE_EV_LLC_MISS));
	assert_string_equal(mem_lvl_str(spe_mem_data_src(&g.r, false), a, sizeof(a)), "L3 miss");
	/* a branch is no memory access */
	struct spe_sample br = mk(false, -1, 0);
	br.r.op_class = SPE_OP_BRANCH;
	assert_int_equal(spe_mem_data_src(&br.r, true), 0);
	assert_false(c2c_classify(&br, true, &cs));
	assert_true(c2c_cpuid_neoverse("0x00000000410fd0c0"));
	assert_true(c2c_cpuid_neoverse("0x00000000410fd490"));
	assert_false(c2c_cpuid_neoverse("0x00000000410fd070")); /* Cortex-A57 */
	assert_false(c2c_cpuid_neoverse(NULL));
}

/* The known answer through the session: one shared line, both offsets, both functions. */
static void test_c2c_known_answer(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/lperf-c2ck.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *path = xasprintf("%s/c2c.data", dir);
	write_c2c(path);
	struct session ss;
	struct session_tool tool = { 0 };
	struct session_opts so = { 0 };
	assert_int_equal(session_open(&ss, path, &so, &tool), 0);
	/* the NUMA_TOPOLOGY the writer stored, read back: CPU 0 is on node 0 on any machine */
	assert_true(ss.reader->info.has_feature[FEAT_NUMA_TOPOLOGY]);
	assert_true(ss.reader->info.ncpu_node >= 1);
	assert_int_equal(ss.reader->info.cpu_node[0], 0);
	struct spe_data d;
	assert_int_equal(spe_session_load(&ss, SPE_V1P3, NULL, &d), 0);
	assert_int_equal(d.n, 12);
	struct c2c_result r;
	assert_int_equal(c2c_build(&d, c2c_cpuid_neoverse(ss.reader->info.cpuid), C2C_PEER, &r), 0);
	assert_int_equal(r.nshared, 1);
	assert_int_equal(r.nlines, 1);
	assert_true(r.lines[0].addr == LINE);
	assert_int_equal(r.lines[0].st.lcl_peer, 4);
	assert_int_equal(r.lines[0].st.store, 6);
	assert_int_equal(r.lines[0].noffs, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct c2c_off *o = &r.lines[0].offs[i];
		assert_int_equal(o->offset, i < 2 ? 0x0 : 0x8);
		assert_string_equal(o->sym, i < 2 ? "c2c_writer_a" : "c2c_writer_b");
		assert_int_equal(o->cpus[0], i < 2 ? 1 : 2);
	}
	assert_int_equal(r.all.nr_entries, 12);
	assert_int_equal(r.all.ld_l1hit, 1);
	assert_int_equal(r.all.lcl_dram, 1);
	c2c_result_free(&r);
	/* the HITM displays show no line: SPE has no HITM */
	assert_int_equal(c2c_build(&d, true, C2C_TOT_HITM, &r), 0);
	assert_int_equal(r.nlines, 0);
	assert_int_equal(r.nshared, 1);
	c2c_result_free(&r);
	struct spe_mem_section sec[SPE_MEM_NKINDS];
	size_t n;
	assert_int_equal(spe_mem_build(&d, true, sec, &n), 0);
	assert_int_equal(n, 5); /* l1d-miss, l1d-access, llc-miss, llc-access, memory */
	assert_int_equal(sec[n - 1].kind, SPE_MEM_MEMORY);
	assert_int_equal(sec[n - 1].samples, 12);
	assert_int_equal(sec[n - 1].total_weight, 1084);
	assert_int_equal(sec[n - 1].rows[0].weight, 260);
	assert_int_equal(sec[n - 1].rows[0].nr, 2);
	spe_mem_free(sec, n);
	spe_data_free(&d);
	session_close(&ss);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_data_sources),
		cmocka_unit_test(test_c2c_known_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
