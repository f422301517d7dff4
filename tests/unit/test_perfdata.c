/* The perf.data reader against files Linux perf 6.1 wrote (fixtures, and fresh recordings when
 * perf is installed): events and their names, features, records, every sample; the same files
 * byte-swapped, in pipe mode and on standard input. Damaged files: test_perfdata_damage.c. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <cmocka.h>

#include "perfdata_test.h"
#include "record/recutil.h"

static char tmpdir[64];
static bool have_perf;
static char no_perf[128];

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/lperf-pd.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	have_perf = pd_have_perf(no_perf, sizeof(no_perf));
	if (!have_perf)
		return 0;
	/* --no-bpf-event: synthesizing BPF programs costs perf a second per run here. */
	const char *rec = "perf record -q --no-bpf-event -c 20000";
	int rc = pd_run("%s -o %s/a.data -e cpu-clock -- /bin/true >/dev/null 2>&1", rec, tmpdir);
	rc |= pd_run("%s -o %s/b.data -g -e cpu-clock -- /bin/true >/dev/null 2>&1", rec, tmpdir);
	rc |= pd_run("%s -o %s/c.data --call-graph dwarf,4096 -e cpu-clock -- /bin/true >/dev/null 2>&1", rec,
		     tmpdir);
	/* task-clock at 20 us floods the buffers here; at 100 us a few ms of work give each event
	 * samples */
	rc |= pd_run("perf record -q --no-bpf-event -c 100000 -o %s/d.data -e cpu-clock,task-clock -- "
		     "/bin/sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done' >/dev/null 2>&1", tmpdir);
	rc |= pd_run("%s -o - -e cpu-clock -- /bin/true 2>/dev/null | cat > %s/p.data", rec, tmpdir);
	if (rc) {
		have_perf = false;
		snprintf(no_perf, sizeof(no_perf), "perf record failed (perf_event_paranoid?)");
	}
	return 0;
}

static int group_teardown(void **state)
{
	pd_run("rm -rf %s", tmpdir);
	return 0;
}

static char *tmp(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* What every file of `perf record -e cpu-clock ... -- /bin/true` holds. */
static void check_cpu_clock(const char *path, const char *host, uint64_t period)
{
	struct perfdata_reader r;
	open_ok(&r, path);
	assert_false(r.swap);
	if (!r.pipe) {
		assert_int_equal(r.evsels.n, 1);
		assert_true(r.info.has_feature[FEAT_EVENT_DESC]);
		assert_true(r.info.has_feature[FEAT_BUILD_ID]);
		assert_true(r.info.nbuildids >= 2);
	}
	struct walk w;
	walk_ok(&r, &w);
	assert_int_equal(r.evsels.n, 1);
	const struct evsel *e = &r.evsels.v[0];
	assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(e->attr.sample_period, period);
	assert_true(e->attr.sample_id_all);
	assert_string_equal(e->name, "cpu-clock");
	assert_true(e->nids >= 1);
	assert_non_null(r.info.hostname);
	if (host)
		assert_string_equal(r.info.hostname, host);
	assert_non_null(r.info.osrelease);
	assert_non_null(r.info.arch);
	assert_true(r.info.version && !strncmp(r.info.version, "6.", 2));
	assert_true(r.info.nrcpus_online >= 1 && r.info.nrcpus_avail >= r.info.nrcpus_online);
	assert_true(r.info.total_mem_kb > 0);
	assert_true(r.info.ncmdline >= 4);
	assert_non_null(strstr(r.info.cmdline[0], "perf"));
	assert_string_equal(r.info.cmdline[1], "record");
	assert_string_equal(r.info.cmdline[r.info.ncmdline - 1], "/bin/true");
	for (size_t i = 0; i < r.info.nbuildids; i++)
		assert_non_null(r.info.buildids[i].filename);
	/* The counts perf report -D shows for such a file. */
	assert_true(w.samples > 0);
	assert_int_equal(w.by_type[PERF_RECORD_COMM], 2);
	assert_int_equal(w.by_type[PERF_RECORD_MMAP], 1);
	assert_true(w.by_type[PERF_RECORD_MMAP2] >= 3);
	assert_int_equal(w.by_type[PERF_RECORD_EXIT], 1);
	assert_true(w.by_type[REC_FINISHED_ROUND] >= 1);
	assert_int_equal(w.by_type[REC_HEADER_ATTR] + w.by_type[REC_HEADER_FEATURE] + w.by_type[REC_EVENT_UPDATE], 0);
	assert_int_not_equal(w.true_pid, 0);
	assert_int_equal(w.other_pid, 0);
	if (!r.pipe) {
		assert_int_equal(w.tmin, r.info.first_sample_time);
		assert_int_equal(w.tmax, r.info.last_sample_time);
	}
	assert_int_equal(r.info.notes.n, 0);
	perfdata_close(&r);
}

static void test_perf61_cpu_clock(void **state)
{
	char *p = pd_fixture("perf61-cpu-clock.data");
	check_cpu_clock(p, "vm", 20000);
	free(p);
}

static void test_perf61_pipe(void **state)
{
	char *p = pd_fixture("perf61-pipe.data");
	struct perfdata_reader r;
	open_ok(&r, p);
	assert_true(r.pipe);
	assert_int_equal(r.evsels.n, 0);  /* the events arrive as records */
	struct walk w;
	walk_ok(&r, &w);
	walk_ok(&r, &w);  /* a second walk does not add them again */
	assert_int_equal(r.evsels.n, 1);
	perfdata_close(&r);
	check_cpu_clock(p, "vm", 20000);
	free(p);
}

/* perf record -g: every sample has a callchain. */
static void check_callchain(const char *p)
{
	struct perfdata_reader r;
	open_ok(&r, p);
	struct walk w;
	walk_ok(&r, &w);
	assert_true(r.evsels.v[0].attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	assert_true(w.samples > 0);
	assert_int_equal(w.with_callchain, w.samples);
	perfdata_close(&r);
}

static void test_perf61_callchain(void **state)
{
	char *p = pd_fixture("perf61-callchain.data");
	check_callchain(p);
	free(p);
}

/* -e cpu-clock,task-clock: two events named from EVENT_DESC, samples told apart by their id. */
static void check_two_events(const char *p)
{
	struct perfdata_reader r;
	open_ok(&r, p);
	assert_int_equal(r.evsels.n, 2);
	assert_string_equal(r.evsels.v[0].name, "cpu-clock");
	assert_string_equal(r.evsels.v[1].name, "task-clock");
	/* perf picks ID (not IDENTIFIER) when the events' sample_types agree. */
	assert_true(r.evsels.v[0].attr.sample_type & PERF_SAMPLE_ID);
	assert_int_equal(r.evsels.v[0].idx, 0);
	assert_int_equal(r.evsels.v[1].idx, 1);
	assert_ptr_equal(evsel_by_id(&r.evsels, r.evsels.v[1].ids[0]), &r.evsels.v[1]);
	struct walk w;
	walk_ok(&r, &w);
	assert_true(w.per_evsel[0] > 0);
	assert_true(w.per_evsel[1] > 0);
	assert_int_equal(w.per_evsel[0] + w.per_evsel[1], w.samples);
	perfdata_close(&r);
}

static void test_perf61_two_events(void **state)
{
	char *p = pd_fixture("perf61-two-events.data");
	check_two_events(p);
	free(p);
}

static void test_fresh_recordings(void **state)
{
	if (!have_perf) {
		print_message("skipped: %s\n", no_perf);
		skip();
	}
	struct utsname u;
	assert_int_equal(uname(&u), 0);
	char *a = tmp("a.data"), *pp = tmp("p.data"), *b = tmp("b.data"), *c = tmp("c.data"), *d = tmp("d.data");
	check_cpu_clock(a, u.nodename, 20000);
	check_cpu_clock(pp, u.nodename, 20000);
	check_callchain(b);
	check_two_events(d);

	/* DWARF mode: user registers and a 4 KiB copy of the user stack per sample. */
	struct perfdata_reader r;
	open_ok(&r, c);
	const struct perf_event_attr *at = &r.evsels.v[0].attr;
	assert_true(at->sample_type & PERF_SAMPLE_REGS_USER);
	assert_true(at->sample_type & PERF_SAMPLE_STACK_USER);
	assert_int_equal(at->sample_stack_user, 4096);
	struct walk w;
	walk_ok(&r, &w);
	assert_true(w.with_stack > 0);
	perfdata_close(&r);
	free(a);
	free(pp);
	free(b);
	free(c);
	free(d);
}

/* A file read in the other byte order must give the same events, features and records. */
static void check_swapped(const char *path)
{
	size_t n;
	uint8_t *in = pd_slurp(path, &n);
	assert_non_null(in);
	struct perfdata_reader nat, sw;
	assert_int_equal(perfdata_open_mem(&nat, path, in, n), 0);
	struct pd_recs a = { 0 }, b = { 0 };
	assert_int_equal(perfdata_for_each(&nat, pd_collect, &a), 0);
	uint8_t *out = pd_swap_file(in, n, &nat);
	assert_memory_not_equal(in, out, 16);
	if (perfdata_open_mem(&sw, "swapped", out, n) < 0)
		fail_msg("%s swapped: %s", path, err_msg());
	assert_true(sw.swap);
	if (perfdata_for_each(&sw, pd_collect, &b) != 0)
		fail_msg("%s swapped: %s", path, err_msg());
	assert_int_equal(sw.evsels.n, nat.evsels.n);
	for (size_t i = 0; i < nat.evsels.n; i++) {
		assert_memory_equal(&sw.evsels.v[i].attr, &nat.evsels.v[i].attr, sizeof(struct perf_event_attr));
		assert_string_equal(sw.evsels.v[i].name, nat.evsels.v[i].name);
		assert_int_equal(sw.evsels.v[i].nids, nat.evsels.v[i].nids);
		assert_memory_equal(sw.evsels.v[i].ids, nat.evsels.v[i].ids, nat.evsels.v[i].nids * 8);
	}
	assert_string_equal(sw.info.hostname, nat.info.hostname);
	assert_string_equal(sw.info.osrelease, nat.info.osrelease);
	assert_string_equal(sw.info.version, nat.info.version);
	assert_int_equal(sw.info.nrcpus_avail, nat.info.nrcpus_avail);
	assert_int_equal(sw.info.nrcpus_online, nat.info.nrcpus_online);
	assert_int_equal(sw.info.total_mem_kb, nat.info.total_mem_kb);
	assert_int_equal(sw.info.first_sample_time, nat.info.first_sample_time);
	assert_int_equal(sw.info.last_sample_time, nat.info.last_sample_time);
	assert_int_equal(sw.info.ncmdline, nat.info.ncmdline);
	for (size_t i = 0; i < nat.info.ncmdline; i++)
		assert_string_equal(sw.info.cmdline[i], nat.info.cmdline[i]);
	assert_int_equal(sw.info.nbuildids, nat.info.nbuildids);
	for (size_t i = 0; i < nat.info.nbuildids; i++) {
		assert_int_equal(sw.info.buildids[i].pid, nat.info.buildids[i].pid);
		assert_memory_equal(sw.info.buildids[i].id, nat.info.buildids[i].id, 20);
		assert_string_equal(sw.info.buildids[i].filename, nat.info.buildids[i].filename);
	}
	assert_memory_equal(sw.info.has_feature, nat.info.has_feature, sizeof(nat.info.has_feature));
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(a.v[i]->size, b.v[i]->size);
		if (memcmp(a.v[i], b.v[i], a.v[i]->size))
			fail_msg("%s: record %zu (%s) differs after two swaps", path, i,
				 record_type_name(a.v[i]->type));
	}
	pd_recs_free(&a);
	pd_recs_free(&b);
	perfdata_close(&sw);
	perfdata_close(&nat);
	free(out);
	free(in);
}

static void test_swapped_files(void **state)
{
	const char *names[] = { "perf61-cpu-clock.data", "perf61-callchain.data", "perf61-two-events.data",
				"perf61-pipe.data" };
	for (size_t i = 0; i < 4; i++) {
		char *p = pd_fixture(names[i]);
		check_swapped(p);
		free(p);
	}
	if (have_perf) {
		char *c = tmp("c.data");
		check_swapped(c);
		free(c);
	}
}

static uint32_t be32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return bswap_32(v);
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return bswap_64(v);
}

/* Swapping both ways would hide a field that is never swapped; these look at the bytes. */
static void test_swapped_bytes(void **state)
{
	char *path = pd_fixture("perf61-two-events.data");
	size_t n;
	uint8_t *in = pd_slurp(path, &n);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open_mem(&r, path, in, n), 0);
	uint8_t *out = pd_swap_file(in, n, &r);
	assert_memory_equal(out, "2ELIFREP", 8);
	assert_int_equal(be64(out + 8), 104);
	uint64_t attrs = ld64(in + 24);
	assert_int_equal(be32(out + attrs), PERF_TYPE_SOFTWARE);
	assert_int_equal(be32(out + attrs + 4), 128);
	assert_int_equal(be64(out + attrs + 24), r.evsels.v[0].attr.sample_type);
	assert_int_equal(be64(out + attrs + 16), 100000);
	/* The first sample: IP, then pid and tid as two u32s. */
	uint64_t off = r.data_offset;
	struct perf_event_header h;
	for (;; off += h.size) {
		memcpy(&h, in + off, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE)
			break;
	}
	assert_int_equal(be32(out + off), PERF_RECORD_SAMPLE);
	assert_int_equal(be64(out + off + 8), ld64(in + off + 8));
	assert_int_equal(be32(out + off + 16), ld32(in + off + 16));
	assert_int_equal(be32(out + off + 20), ld32(in + off + 20));
	/* Features: HOSTNAME's length, then EVENT_DESC's count and attr size. */
	uint64_t table = r.data_offset + r.data_size, bits;
	memcpy(&bits, in + 72, 8);
	size_t host = (size_t)__builtin_popcountll(bits & ((1ULL << FEAT_HOSTNAME) - 1));
	size_t desc = (size_t)__builtin_popcountll(bits & ((1ULL << FEAT_EVENT_DESC) - 1));
	uint64_t host_off = ld64(in + table + 16 * host), desc_off = ld64(in + table + 16 * desc);
	assert_int_equal(be64(out + table + 16 * host), host_off);
	assert_int_equal(be32(out + host_off), 64);
	assert_memory_equal(out + host_off + 4, "vm", 3);
	assert_int_equal(be32(out + desc_off), 2);
	assert_int_equal(be32(out + desc_off + 4), 128);
	assert_int_equal(be32(out + desc_off + 8), PERF_TYPE_SOFTWARE);
	perfdata_close(&r);
	free(out);
	free(in);
	free(path);
}

static void test_standard_input(void **state)
{
	char *p = pd_fixture("perf61-pipe.data");
	int fd = open(p, O_RDONLY), saved = dup(0);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 0);
	struct perfdata_reader r;
	int rc = perfdata_open(&r, "-");
	dup2(saved, 0);
	close(saved);
	close(fd);
	assert_int_equal(rc, 0);
	assert_true(r.pipe);
	assert_string_equal(r.path, "<stdin>");
	struct walk w;
	walk_ok(&r, &w);
	assert_true(w.samples > 0);
	assert_string_equal(r.info.hostname, "vm");
	perfdata_close(&r);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf61_cpu_clock),
		cmocka_unit_test(test_perf61_pipe),
		cmocka_unit_test(test_perf61_callchain),
		cmocka_unit_test(test_perf61_two_events),
		cmocka_unit_test(test_fresh_recordings),
		cmocka_unit_test(test_swapped_files),
		cmocka_unit_test(test_swapped_bytes),
		cmocka_unit_test(test_standard_input),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
