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

#include "perfdata/perfdata.h"
#include "record/record.h"
#include "spe/spe.h"
#include "spe/spe_perfdata.h"
#include "util/xalloc.h"

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

static int self_text(struct rec_mmap *m, char *exe, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t el = readlink("/proc/self/exe", exe, n - 1);
	char line[1024];
	int found = -1;
	if (!f || el <= 0) {
		if (f)
			fclose(f);
		return -1;
	}
	exe[el] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long st, e, off;
		char perms[8], file[512] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &st, &e, perms, &off, file) >= 4 &&
		    perms[2] == 'x' && !strcmp(file, exe)) {
			m->start = st;
			m->len = e - st;
			m->pgoff = off;
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static void put(struct perfdata_writer *w, const void *rec, size_t n)
{
	assert_true(n > 0);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
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
	put(w, rec, spe_build_auxtrace_info(rec, sizeof(rec), &info));
	put(w, rec, record_build_comm(rec, sizeof(rec), &dummy, PID, PID, "c2c-demo", true));
	put(w, rec, record_build_comm(rec, sizeof(rec), &dummy, PID, TID_A, "writer-a", false));
	put(w, rec, record_build_comm(rec, sizeof(rec), &dummy, PID, TID_B, "writer-b", false));
	struct rec_mmap m = { 0 };
	char exe[512];
	assert_int_equal(self_text(&m, exe, sizeof(exe)), 0);
	m.pid = m.tid = PID;
	m.prot = 5;
	m.flags = 2;
	m.filename = exe;
	m.cpumode = PERF_RECORD_MISC_USER;
	put(w, rec, record_build_mmap2(rec, sizeof(rec), &dummy, &m));
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		struct sb8 *s = xcalloc(1, sizeof(*s));
		thread_records(s, cpu ? c2c_writer_b : c2c_writer_a, cpu ? TID_B : TID_A, 8 * cpu, (int)cpu);
		size_t padded = (s->n + 7) & ~(size_t)7;
		struct spe_auxtrace a = { padded, 0, 0x1000 + cpu, cpu, cpu ? TID_B : TID_A, cpu, NULL };
		size_t n = spe_build_auxtrace(rec, sizeof(rec), &a);
		memcpy(rec + n, s->b, padded);
		put(w, rec, n + padded);
		free(s);
	}
	put(w, rec, record_build_marker(rec, sizeof(rec), REC_FINISHED_ROUND));
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
}

static void test_write(void **state)
{
	(void)state;
	const char *keep = getenv("LPERF_SPE_C2C_OUT");
	char tmpl[] = "/tmp/lperf-c2c.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *path = keep && *keep ? xstrdup(keep) : xasprintf("%s/c2c.data", dir);
	write_c2c(path);
	if (!keep || !*keep)
		unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
