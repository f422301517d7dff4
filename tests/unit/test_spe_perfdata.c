/* SPE in perf.data: AUXTRACE_INFO / AUXTRACE / AUX / ITRACE_START built in perf's layout,
 * written with lperf's perf.data writer around hand-written SPE packet streams, read back by
 * lperf's reader and decoded. LPERF_SPE_OUT=PATH keeps the file for tests/e2e/t70-spe.sh,
 * which decodes the same file with Linux perf 6.1 and compares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <cmocka.h>

#include "spe/spe.h"
#include "spe/spe_capture.h"
#include "spe/spe_perfdata.h"
#include "spe/spe_view.h"
#include "perfdata/perfdata.h"
#include "record/record.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "spe_stream.h"

/* Functions of this binary the records' PCs land in, so both tools have symbols to show. */
static volatile int sink;
__attribute__((noinline)) void spe_demo_load(void) { sink += 1; sink += 2; sink += 3; }
__attribute__((noinline)) void spe_demo_store(void) { sink += 4; sink += 5; sink += 6; }
__attribute__((noinline)) void spe_demo_branch(void) { sink += 7; sink += 8; sink += 9; }

enum { PID = 4242, SPE_TYPE = 11 };

/* The address of instruction k of fn (0: its first), as the hardware would sample it: on an
 * instruction boundary, so that annotate places every record. */
static uint64_t insn_at(void (*fn)(void), size_t k)
{
	uint64_t at = (uint64_t)(uintptr_t)fn;
#if defined(__aarch64__)
	return at + 4 * k;
#else
	csh h;
	cs_insn *insn = NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return at + 4 * k;
	size_t n = cs_disasm(h, (const uint8_t *)(uintptr_t)fn, 64, at, k + 1, &insn);
	uint64_t r = n > k ? insn[k].address : at + 4 * k;
	cs_free(insn, n);
	cs_close(&h);
	return r;
#endif
}

static void gen_records(struct spe_gen *g, size_t *n)
{
	uint64_t ld1 = insn_at(spe_demo_load, 1), ld2 = insn_at(spe_demo_load, 2), ld3 = insn_at(spe_demo_load, 3);
	uint64_t st = insn_at(spe_demo_store, 1);
	uint64_t br = insn_at(spe_demo_branch, 1), br3 = insn_at(spe_demo_branch, 3);
	const struct spe_gen v[] = {
		{ ld1, 0x49, 0x00, 0x016, 9, 4, 1, 0x7ffd00001040, 0x80001040, 0x0, 0, PID },
		{ ld2, 0x49, 0x00, 0x31e, 300, 20, 12, 0x7ffd00002080, 0x80002080, 0xe, 0, PID },
		{ st, 0x49, 0x01, 0x006, 15, 3, 2, 0x7ffd00001048, 0x80001048, 0x8, 0, PID },
		{ br, 0x4a, 0x01, 0x082, 5, 1, 0, 0, 0, -1, br + 0x40, PID },
		{ br3, 0x48, 0x00, 0x002, 2, 1, 0, 0, 0, -1, 0, PID },
		{ ld3, 0x49, 0x00, 0x73e, 900, 30, 200, 0x7ffd00003000, 0x80003000, 0xd, 0, PID },
	};
	memcpy(g, v, sizeof(v));
	*n = sizeof(v) / sizeof(v[0]);
}

/* The r-x mapping of this executable, for an MMAP2 record. */
static int self_text(uint64_t *start, uint64_t *len, uint64_t *pgoff, char *path, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024], exe[512];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (!f || el <= 0) {
		if (f)
			fclose(f);
		return -1;
	}
	exe[el] = 0;
	int found = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], file[512] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &s, &e, perms, &off, file) >= 4 &&
		    perms[2] == 'x' && !strcmp(file, exe)) {
			*start = s;
			*len = e - s;
			*pgoff = off;
			snprintf(path, n, "%s", exe);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static struct perf_event_attr spe_attr(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = SPE_TYPE;
	a.config = 0x1ULL << 33; /* load_filter, as the fixture's format defines */
	a.sample_period = 256;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_PHYS_ADDR |
			PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return a;
}

/* Writes the recording; returns the SPE bytes it stored. */
static size_t write_recording(const char *path, struct sb8 *s)
{
	struct spe_gen g[16];
	size_t ng;
	gen_records(g, &ng);
	s->n = 0;
	for (size_t i = 0; i < ng; i++)
		spe_gen_record(s, &g[i]);
	size_t data = s->n, padded = (data + 7) & ~(size_t)7;
	memset(s->b + data, 0, padded - data);

	struct perf_event_attr spe = spe_attr(), dummy = spe;
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.config = PERF_COUNT_SW_DUMMY;
	dummy.sample_period = 1;
	dummy.mmap = dummy.mmap2 = dummy.comm = dummy.task = 1;
	uint64_t spe_id = 100, dummy_id = 101;
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_non_null(w);
	assert_int_equal(perfdata_writer_add_event(w, &spe, "arm_spe_0/load_filter=1/", &spe_id, 1), 0);
	assert_int_equal(perfdata_writer_add_event(w, &dummy, "dummy:u", &dummy_id, 1), 0);
	perfdata_writer_set_cpuid(w, "0x00000000410fd0c0"); /* Neoverse N1: perf's data sources */

	uint8_t rec[8192];
	struct spe_auxtrace_info info = { SPE_TYPE, true };
	size_t n = spe_build_auxtrace_info(rec, sizeof(rec), &info);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
	n = record_build_comm(rec, sizeof(rec), &dummy, PID, PID, "spe-demo", true);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
	struct rec_mmap m = { 0 };
	char exe[512];
	assert_int_equal(self_text(&m.start, &m.len, &m.pgoff, exe, sizeof(exe)), 0);
	m.pid = m.tid = PID;
	m.prot = 5;
	m.flags = 2;
	m.filename = exe;
	m.cpumode = PERF_RECORD_MISC_USER;
	n = record_build_mmap2(rec, sizeof(rec), &dummy, &m);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
	struct spe_trailer t = { PID, PID, 0, 0, spe_id };
	n = spe_build_itrace_start(rec, sizeof(rec), &spe, PID, PID, &t);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
	n = spe_build_aux(rec, sizeof(rec), &spe, 0, data, 0, &t);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
	struct spe_auxtrace a = { padded, 0, 0x1234, 0, PID, 0, NULL };
	n = spe_build_auxtrace(rec, sizeof(rec), &a);
	memcpy(rec + n, s->b, padded);
	assert_int_equal(perfdata_writer_write(w, rec, n + padded), 0);
	n = record_build_marker(rec, sizeof(rec), REC_FINISHED_ROUND);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	return padded;
}

/* Real SPE bytes (test_spe.c's test_real_recording: two records from an Arm machine, with
 * kernel PCs and timestamps), in a recording of their own for the cross-check with perf. */
static const uint8_t real_bytes[] = {
	0xb0, 0xf4, 0xd3, 0x29, 0x10, 0x00, 0x80, 0xff, 0xa0, 0x99, 0x0b, 0x00, 0x98, 0x0d, 0x00,
	0x52, 0x16, 0x00, 0x49, 0x00, 0xb2, 0xd0, 0x40, 0xd8, 0x70, 0x00, 0x00, 0xff, 0x00,
	0x9a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x71, 0xa5, 0x1f, 0xb3, 0x20, 0x14, 0x00, 0x00, 0x00,
	0xb0, 0x7c, 0xf9, 0x29, 0x10, 0x00, 0x80, 0xff, 0xa0, 0x99, 0x02, 0x00, 0x98, 0x03, 0x00,
	0x52, 0x02, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x71, 0xef, 0x1f, 0xb3, 0x20, 0x14, 0x00,
	0x00, 0x00,
};

static void write_real(const char *path)
{
	struct perf_event_attr spe = spe_attr();
	spe.exclude_kernel = 0;
	uint64_t id = 100;
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_non_null(w);
	assert_int_equal(perfdata_writer_add_event(w, &spe, "arm_spe_0/ts_enable=1/", &id, 1), 0);
	perfdata_writer_set_cpuid(w, "0x00000000410fd0c0");
	uint8_t rec[1024];
	struct spe_auxtrace_info info = { SPE_TYPE, true };
	size_t n = spe_build_auxtrace_info(rec, sizeof(rec), &info);
	assert_int_equal(perfdata_writer_write(w, rec, n), 0);
	size_t padded = (sizeof(real_bytes) + 7) & ~(size_t)7;
	struct spe_auxtrace a = { padded, 0, 0, 0, PID, 0, NULL };
	n = spe_build_auxtrace(rec, sizeof(rec), &a);
	memset(rec + n, 0, padded);
	memcpy(rec + n, real_bytes, sizeof(real_bytes));
	assert_int_equal(perfdata_writer_write(w, rec, n + padded), 0);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
}

struct walk {
	int info, aux, itrace, auxtrace;
	struct spe_auxtrace_info in;
	struct spe_aux_rec ar;
	size_t nrec;
	struct spe_record r[16];
};

static int on_rec(const struct perf_event_header *h, void *arg)
{
	struct walk *wk = arg;
	if (h->type == SPE_REC_AUXTRACE_INFO) {
		assert_int_equal(spe_parse_auxtrace_info(h, &wk->in), 0);
		wk->info++;
	} else if (h->type == PERF_RECORD_AUX) {
		assert_int_equal(spe_parse_aux(h, &wk->ar), 0);
		wk->aux++;
	} else if (h->type == PERF_RECORD_ITRACE_START) {
		wk->itrace++;
	} else if (h->type == SPE_REC_AUXTRACE) {
		struct spe_auxtrace a;
		assert_int_equal(spe_parse_auxtrace(h, h->size + 65536, &a), 0);
		assert_int_equal(a.tid, PID);
		struct spe_decoder d;
		spe_decoder_init(&d, a.data, a.size, SPE_V1P1);
		struct spe_record r;
		while (spe_next_record(&d, &r) == 1 && wk->nrec < 16)
			wk->r[wk->nrec++] = r;
		assert_int_equal(d.errors, 0);
		wk->auxtrace++;
	}
	return 0;
}

static void test_round_trip(void **state)
{
	const char *keep = getenv("LPERF_SPE_OUT");
	char tmpl[] = "/tmp/lperf-spe.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *path = keep && *keep ? xstrdup(keep) : xasprintf("%s/spe.data", dir);
	struct sb8 *s = xcalloc(1, sizeof(*s));
	size_t bytes = write_recording(path, s);

	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	assert_string_equal(r.info.cpuid, "0x00000000410fd0c0");
	struct walk wk = { 0 };
	assert_int_equal(perfdata_for_each(&r, on_rec, &wk), 0);
	perfdata_close(&r);
	assert_int_equal(wk.info, 1);
	assert_int_equal(wk.in.pmu_type, SPE_TYPE);
	assert_true(wk.in.per_cpu);
	assert_int_equal(wk.aux, 1);
	assert_int_equal((wk.ar.aux_size + 7) & ~7ULL, bytes);
	assert_int_equal(wk.itrace, 1);
	assert_int_equal(wk.auxtrace, 1);
	struct spe_gen g[16];
	size_t ng;
	gen_records(g, &ng);
	assert_int_equal(wk.nrec, ng);
	for (size_t i = 0; i < ng; i++) {
		assert_true(wk.r[i].pc == g[i].pc);
		assert_int_equal(wk.r[i].op_class, g[i].op_hdr & 3);
		assert_int_equal(wk.r[i].op, g[i].op);
		assert_int_equal(wk.r[i].events, g[i].events);
		assert_int_equal(wk.r[i].lat_total, g[i].lat_total);
		assert_int_equal(wk.r[i].context, PID);
		if (g[i].ds >= 0)
			assert_int_equal(wk.r[i].data_source, (uint64_t)g[i].ds);
		assert_true(wk.r[i].data_va == g[i].va);
	}
	if (!keep || !*keep)
		unlink(path);
	rmdir(dir);
	free(path);
	free(s);
}

/* What report shows, loaded over the session session_open gives the command: every record, the
 * report's tables; a bad --itrace is a usage error whose reason is the session's note. */
static void test_view_through_session(void **state)
{
	char tmpl[] = "/tmp/lperf-spev.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *path = xasprintf("%s/spe.data", dir);
	struct sb8 *s = xcalloc(1, sizeof(*s));
	write_recording(path, s);
	struct spe_gen g[16];
	size_t ng;
	gen_records(g, &ng);
	struct session ss;
	struct session_tool tool = { 0 };
	struct session_opts so = { 0 };
	assert_int_equal(session_open(&ss, path, &so, &tool), 0);
	assert_true(spe_recording(ss.reader));
	struct spe_view_opts vo = { .report = true };
	struct spe_view v;
	assert_int_equal(spe_view_load(&ss, &vo, &v), 0);
	assert_int_equal(v.d.n, ng);
	assert_true(v.have_rep);
	assert_int_equal(v.rows, 50);
	assert_int_equal(ss.notes.n, 0);
	spe_view_free(&v);
	session_close(&ss);

	assert_int_equal(session_open(&ss, path, &so, &tool), 0);
	struct spe_view_opts bad = { .itrace = "l", .report = true };
	assert_int_equal(spe_view_load(&ss, &bad, &v), -1);
	assert_true(v.bad_itrace);
	assert_int_equal(ss.notes.n, 1);
	assert_non_null(strstr(ss.notes.v[0], "--itrace 'l'"));
	spe_view_free(&v);
	session_close(&ss);
	unlink(path);
	rmdir(dir);
	free(path);
	free(s);
}

static void test_real_bytes(void **state)
{
	const char *keep = getenv("LPERF_SPE_REAL_OUT");
	char tmpl[] = "/tmp/lperf-sper.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *path = keep && *keep ? xstrdup(keep) : xasprintf("%s/real.data", dir);
	write_real(path);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	struct walk wk = { 0 };
	assert_int_equal(perfdata_for_each(&r, on_rec, &wk), 0);
	perfdata_close(&r);
	assert_int_equal(wk.nrec, 2);
	assert_true(wk.r[0].pc == 0xffff80001029d3f4ULL);
	assert_true(wk.r[1].timestamp == 86447955951ULL);
	if (!keep || !*keep)
		unlink(path);
	rmdir(dir);
	free(path);
}

static void test_builders_bounded(void **state)
{
	uint8_t small[16];
	struct spe_auxtrace_info in = { 11, true };
	assert_int_equal(spe_build_auxtrace_info(small, sizeof(small), &in), 0);
	struct perf_event_header h = { SPE_REC_AUXTRACE_INFO, 0, 12 };
	struct spe_auxtrace_info out;
	assert_int_equal(spe_parse_auxtrace_info(&h, &out), -1);
	uint8_t rec[64] = { 0 };
	struct spe_auxtrace a = { 1 << 20, 0, 0, 0, 1, 0, NULL };
	size_t n = spe_build_auxtrace(rec, sizeof(rec), &a);
	assert_int_equal(n, 48);
	struct spe_auxtrace back;
	assert_int_equal(spe_parse_auxtrace((const struct perf_event_header *)rec, 64, &back), -1);
	/* another AUX kind (Intel PT = 1) is not SPE's */
	uint8_t pt[32] = { 0 };
	struct perf_event_header *ph = (struct perf_event_header *)pt;
	ph->type = SPE_REC_AUXTRACE_INFO;
	ph->size = 32;
	pt[8] = 1;
	assert_int_equal(spe_parse_auxtrace_info(ph, &out), 1);
}

/* The capture path over memory standing in for the kernel's AUX mapping: the "kernel" writes
 * the packet stream in two steps, the second wrapping the area; each drain becomes an
 * AUXTRACE record, and the records decode back to the stream's. */
static void test_capture(void **state)
{
	char tmpl[] = "/tmp/lperf-spec.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *path = xasprintf("%s/cap.data", dir);
	struct sb8 *s = xcalloc(1, sizeof(*s));
	struct spe_gen g[16];
	size_t ng;
	gen_records(g, &ng);
	for (size_t i = 0; i < ng; i++)
		spe_gen_record(s, &g[i]);
	struct perf_event_attr spe = spe_attr();
	uint64_t id = 7;
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_int_equal(perfdata_writer_add_event(w, &spe, "arm_spe_0//", &id, 1), 0);
	assert_int_equal(spe_capture_info(w, SPE_TYPE, true), 0);

	struct perf_event_mmap_page pc;
	memset(&pc, 0, sizeof(pc));
	uint8_t area[512] = { 0 };
	struct spe_capture c = { .w = w, .cpu = 0, .tid = PID, .idx = 0 };
	auxbuf_init_mem(&c.aux, &pc, area, sizeof(area));
	size_t first = 0x64;                     /* the first two records */
	size_t base = 400;                       /* start late so the second write wraps */
	pc.aux_head = pc.aux_tail = base;
	memcpy(area + base, s->b, first);
	pc.aux_head = base + first;
	assert_int_equal(spe_capture_drain(&c), (long)first);
	size_t rest = s->n - first;
	for (size_t i = 0; i < rest; i++)
		area[(base + first + i) % sizeof(area)] = s->b[first + i];
	pc.aux_head = base + s->n;
	assert_int_equal(spe_capture_drain(&c), (long)rest);
	assert_int_equal(spe_capture_drain(&c), 0);
	assert_int_equal(c.pieces, 2);
	auxbuf_unmap(&c.aux);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);

	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	struct walk wk = { 0 };
	assert_int_equal(perfdata_for_each(&r, on_rec, &wk), 0);
	perfdata_close(&r);
	assert_int_equal(wk.info, 1);
	assert_int_equal(wk.auxtrace, 2);
	assert_int_equal(wk.nrec, ng);
	for (size_t i = 0; i < ng; i++)
		assert_true(wk.r[i].pc == g[i].pc);
	unlink(path);
	rmdir(dir);
	free(path);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_view_through_session),
		cmocka_unit_test(test_real_bytes),
		cmocka_unit_test(test_builders_bounded),
		cmocka_unit_test(test_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
