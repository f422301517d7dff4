/* The perf.data writer: files that lperf's reader reads back record for record, and that Linux
 * perf 6.1 reads without a word on stderr (report, report --header-only, script); the temporary
 * file, commit and discard, keeping PATH.old; events perf could not tell apart. */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <inttypes.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>

#include <cmocka.h>

#include "perfdata_test.h"
#include "output/report_out.h"
#include "perfdata/perfdata_stats.h"
#include "sysinfo/buildinfo.h"

static char tmpdir[64];

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/lperf-pdw.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* LPERF_TEST_KEEP=1 keeps the files for a look with perf. */
static int group_teardown(void **state)
{
	if (getenv("LPERF_TEST_KEEP"))
		print_message("kept %s\n", tmpdir);
	else
		pd_run("rm -rf %s", tmpdir);
	return 0;
}

/* The writer's temporaries next to path (util/outfile: "NAME.tmp.PID.RANDOM"). */
static size_t temporaries(const char *path)
{
	char *pat = xasprintf("%s.tmp.%d.*", path, (int)getpid());
	glob_t g;
	size_t n = glob(pat, GLOB_PERIOD, NULL, &g) == 0 ? g.gl_pathc : 0;
	if (n)
		globfree(&g);
	free(pat);
	return n;
}

static char *tmp(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Functions the synthetic samples land in, so that perf has symbols to show. */
static volatile int sink;

__attribute__((noinline)) void lperf_pdw_leaf(void)
{
	for (int i = 0; i < 4; i++)
		sink += i;
}

__attribute__((noinline)) void lperf_pdw_caller(void)
{
	lperf_pdw_leaf();
	sink++;
}

/* The executable mapping of this test binary that holds addr, from /proc/self/maps. */
static void own_mapping(uint64_t addr, struct rec_mmap *m, char *path, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[1024];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min, &ino, &pos) < 7)
			continue;
		if (addr < start || addr >= end || perms[2] != 'x')
			continue;
		snprintf(path, size, "%s", line + pos);
		path[strcspn(path, "\n")] = 0;
		*m = (struct rec_mmap){ .pid = 4242, .tid = 4242, .start = start, .len = end - start, .pgoff = off,
					.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .maj = maj, .min = min,
					.ino = ino, .filename = path, .cpumode = PERF_RECORD_MISC_USER };
		found = true;
	}
	fclose(f);
	assert_true(found);
}

/* The GNU build-id note of an ELF file; 0 when it has none. */
static size_t build_id(const char *path, uint8_t *out)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t n = 0;
	Elf_Scn *scn = NULL;
	while (e && !n && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4) && nh.n_descsz <= 20) {
				memcpy(out, (char *)d->d_buf + doff, nh.n_descsz);
				n = nh.n_descsz;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return n;
}

static struct perf_event_attr sw_attr(uint64_t config)
{
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.read_format = PERF_FORMAT_ID;
	a.sample_id_all = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	return a;
}

static void put(struct perfdata_writer *w, const void *rec, size_t n)
{
	assert_true(n > 0 && n < 8192);
	if (perfdata_writer_write(w, rec, n) < 0)
		fail_msg("%s", err_msg());
}

/* Two events, a process that forks a child, samples of both in this binary's functions (with
 * callchains), exits and a round marker. Returns the samples written. */
static int write_session(struct perfdata_writer *w, const char *exe_path, bool with_buildid)
{
	struct perf_event_attr cpu = sw_attr(PERF_COUNT_SW_CPU_CLOCK), task = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
	cpu.mmap2 = cpu.comm = cpu.comm_exec = cpu.task = 1;
	uint64_t cpu_ids[] = { 1001, 1002 }, task_ids[] = { 2001, 2002 };
	assert_int_equal(perfdata_writer_add_event(w, &cpu, "cpu-clock", cpu_ids, 2), 0);
	assert_int_equal(perfdata_writer_add_event(w, &task, "task-clock", task_ids, 2), 0);
	char *argv[] = { "lperf", "record", "-e", "cpu-clock,task-clock", "--", "./workload" };
	perfdata_writer_set_cmdline(w, 6, argv);

	uint8_t buf[8192] __attribute__((aligned(8)));
	char path[1024];
	struct rec_mmap m;
	uint64_t leaf = (uint64_t)(uintptr_t)lperf_pdw_leaf + 2, caller = (uint64_t)(uintptr_t)lperf_pdw_caller + 2;
	own_mapping(leaf, &m, path, sizeof(path));
	if (with_buildid) {
		uint8_t id[20];
		size_t n = build_id(exe_path, id);
		assert_true(n > 0);
		perfdata_writer_add_buildid(w, -1, PERF_RECORD_MISC_USER, id, n, path);
	}
	put(w, buf, record_build_comm(buf, sizeof(buf), &cpu, 4242, 4242, "lperf-pdw", true));
	put(w, buf, record_build_mmap2(buf, sizeof(buf), &cpu, &m));
	struct rec_task fork = { 4243, 4242, 4243, 4242, 1000 };
	put(w, buf, record_build_task(buf, sizeof(buf), &cpu, PERF_RECORD_FORK, &fork));
	put(w, buf, record_build_comm(buf, sizeof(buf), &cpu, 4243, 4243, "lperf-child", false));
	uint64_t leaf_chain[] = { PERF_CONTEXT_USER, leaf, caller }, caller_chain[] = { PERF_CONTEXT_USER, caller };
	int nsamples = 0;
	for (int i = 0; i < 40; i++) {
		struct perf_sample s = { 0 };
		bool child = i % 4 == 3, in_leaf = i % 5;
		s.id = i % 2 ? 2001 : 1001;
		s.ip = in_leaf ? leaf : caller;
		s.pid = s.tid = child ? 4243 : 4242;
		s.time = 2000 + 1000 * (uint64_t)i;
		s.period = 100000;
		s.cpumode = PERF_RECORD_MISC_USER;
		s.callchain = in_leaf ? leaf_chain : caller_chain;
		s.callchain_nr = in_leaf ? 3 : 2;
		put(w, buf, record_build_sample(buf, sizeof(buf), &cpu, &s));
		nsamples++;
	}
	struct rec_task ex = { 4243, 4242, 4243, 4242, 50000 };
	put(w, buf, record_build_task(buf, sizeof(buf), &cpu, PERF_RECORD_EXIT, &ex));
	ex = (struct rec_task){ 4242, 1, 4242, 1, 51000 };
	put(w, buf, record_build_task(buf, sizeof(buf), &cpu, PERF_RECORD_EXIT, &ex));
	put(w, buf, record_build_marker(buf, sizeof(buf), REC_FINISHED_ROUND));
	return nsamples;
}

static void test_round_trip(void **state)
{
	char *path = tmp("rt.data");
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_non_null(w);
	char exe[1024];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	static const char tracing[] = "\x17\x08\x44tracing0.6 (opaque to the writer)";
	assert_int_equal(perfdata_writer_set_tracing_data(w, tracing, sizeof(tracing)), 0);
	perfdata_writer_add_group(w, NULL, 0, 2);
	int nsamples = write_session(w, exe, true);
	uint64_t bytes = perfdata_writer_bytes(w);
	assert_true(bytes > 104);
	assert_int_equal(temporaries(path), 1);
	assert_false(exists(path));
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	assert_int_equal(temporaries(path), 0);

	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(r.evsels.n, 2);
	assert_string_equal(r.evsels.v[0].name, "cpu-clock");
	assert_string_equal(r.evsels.v[1].name, "task-clock");
	assert_int_equal(r.evsels.v[1].ids[1], 2002);
	assert_int_equal(r.evsels.v[0].attr.size, 128);
	assert_true(r.evsels.v[0].attr.mmap2);
	struct utsname u;
	uname(&u);
	assert_string_equal(r.info.hostname, u.nodename);
	assert_string_equal(r.info.osrelease, u.release);
	assert_string_equal(r.info.arch, u.machine);
	char version[64];
	snprintf(version, sizeof(version), "lperf %s", sysinfo_version());
	assert_string_equal(r.info.version, version);
	assert_int_equal(r.info.ncmdline, 6);
	assert_string_equal(r.info.cmdline[0], exe);
	assert_string_equal(r.info.cmdline[5], "./workload");
	assert_int_equal(r.info.nrcpus_online, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(r.info.nrcpus_avail >= r.info.nrcpus_online);
	assert_true(r.info.total_mem_kb > 0);
	assert_int_equal(r.info.first_sample_time, 2000);
	assert_int_equal(r.info.last_sample_time, 2000 + 39 * 1000);
	assert_int_equal(r.info.nbuildids, 1);
	assert_int_equal(r.info.buildids[0].pid, -1);
	assert_int_equal(r.info.buildids[0].cpumode, PERF_RECORD_MISC_USER);
	assert_true(r.info.has_feature[FEAT_CMDLINE] && r.info.has_feature[FEAT_NRCPUS]);
	assert_false(r.info.has_feature[FEAT_CLOCKID]);
	assert_int_equal(r.info.notes.n, 0);
	assert_int_equal(r.info.tracing_size, sizeof(tracing));
	assert_memory_equal(r.info.tracing_data, tracing, sizeof(tracing));
	assert_int_equal(r.info.ngroups, 1);
	assert_string_equal(r.info.groups[0].name, "{anon_group}");
	assert_int_equal(r.info.groups[0].leader, 0);
	assert_int_equal(r.info.groups[0].nr, 2);
	struct pd_recs recs = { 0 };
	assert_int_equal(perfdata_for_each(&r, pd_collect, &recs), 0);
	assert_int_equal(pd_count_type(&recs, PERF_RECORD_SAMPLE), nsamples);
	assert_int_equal(pd_count_type(&recs, PERF_RECORD_COMM), 2);
	assert_int_equal(recs.v[0]->type, PERF_RECORD_COMM);
	assert_int_equal(recs.v[recs.n - 1]->type, REC_FINISHED_ROUND);
	size_t per[2] = { 0 };
	for (size_t i = 0; i < recs.n; i++) {
		struct perf_sample s;
		if (recs.v[i]->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(sample_parse(&r.evsels, recs.v[i], &s), 0);
		per[s.evsel->idx]++;
	}
	assert_int_equal(per[0], 20);
	assert_int_equal(per[1], 20);
	pd_recs_free(&recs);
	perfdata_close(&r);
	free(path);
}

/* perf copied through the writer: the same records, byte for byte. */
static void test_copy_perf_file(void **state)
{
	char *src = pd_fixture("perf61-two-events.data"), *dst = tmp("copy.data");
	struct perfdata_reader r, back;
	assert_int_equal(perfdata_open(&r, src), 0);
	struct perfdata_writer *w = perfdata_writer_open(dst);
	for (size_t i = 0; i < r.evsels.n; i++)
		assert_int_equal(perfdata_writer_add_event(w, &r.evsels.v[i].attr, r.evsels.v[i].name,
							   r.evsels.v[i].ids, r.evsels.v[i].nids), 0);
	struct pd_recs a = { 0 }, b = { 0 };
	assert_int_equal(perfdata_for_each(&r, pd_collect, &a), 0);
	for (size_t i = 0; i < a.n; i++)
		assert_int_equal(perfdata_writer_write(w, a.v[i], a.v[i]->size), 0);
	for (size_t i = 0; i < r.info.nbuildids; i++)
		perfdata_writer_add_buildid(w, r.info.buildids[i].pid, r.info.buildids[i].cpumode,
					    r.info.buildids[i].id, r.info.buildids[i].size,
					    r.info.buildids[i].filename);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	assert_int_equal(perfdata_open(&back, dst), 0);
	assert_int_equal(back.evsels.n, r.evsels.n);
	for (size_t i = 0; i < r.evsels.n; i++) {
		assert_memory_equal(&back.evsels.v[i].attr, &r.evsels.v[i].attr, sizeof(struct perf_event_attr));
		assert_string_equal(back.evsels.v[i].name, r.evsels.v[i].name);
	}
	assert_int_equal(perfdata_for_each(&back, pd_collect, &b), 0);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++)
		assert_memory_equal(a.v[i], b.v[i], a.v[i]->size);
	/* The sample times the writer saw are perf's. */
	assert_int_equal(back.info.first_sample_time, r.info.first_sample_time);
	assert_int_equal(back.info.last_sample_time, r.info.last_sample_time);
	assert_int_equal(back.info.nbuildids, r.info.nbuildids);
	assert_string_equal(back.info.buildids[3].filename, r.info.buildids[3].filename);
	assert_memory_equal(back.info.buildids[3].id, r.info.buildids[3].id, 20);
	pd_recs_free(&a);
	pd_recs_free(&b);
	perfdata_close(&back);
	perfdata_close(&r);
	free(src);
	free(dst);
}

static char *slurp_text(const char *path)
{
	size_t n;
	uint8_t *b = pd_slurp(path, &n);
	if (!b)
		return xstrdup("");
	b = xrealloc(b, n + 1);
	b[n] = 0;
	return (char *)b;
}

/* Runs perf on the file: exit 0, nothing on stderr, and stdout mentioning every want. */
static void perf_reads(const char *file, const char *args, const char *const *want)
{
	char *out = tmp("perf.out"), *err = tmp("perf.err");
	int rc = pd_run("perf %s -i %s >%s 2>%s", args, file, out, err);
	char *o = slurp_text(out), *e = slurp_text(err);
	if (rc != 0 || e[0])
		fail_msg("perf %s: exit %d, stderr: %s", args, rc, e);
	for (; *want; want++)
		if (!strstr(o, *want))
			fail_msg("perf %s: no '%s' in:\n%s", args, *want, o);
	free(o);
	free(e);
	free(out);
	free(err);
}

static void test_perf_reads_our_files(void **state)
{
	char reason[128];
	if (!pd_have_perf(reason, sizeof(reason))) {
		print_message("skipped: %s\n", reason);
		skip();
	}
	char *path = tmp("compat.data");
	struct perfdata_writer *w = perfdata_writer_open(path);
	char exe[1024];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;
	write_session(w, exe, true);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	struct utsname u;
	uname(&u);
	char host[128];
	snprintf(host, sizeof(host), "# hostname : %s", u.nodename);
	char version[96];
	snprintf(version, sizeof(version), "# perf version : lperf %s", sysinfo_version());
	const char *header[] = { host, version, "# event : name = cpu-clock",
				 "# event : name = task-clock", "# cmdline : ", "record -e cpu-clock,task-clock",
				 NULL };
	perf_reads(path, "report --header-only", header);
	const char *report[] = { "lperf_pdw_leaf", "lperf_pdw_caller", "lperf-pdw", "lperf-child", "cpu-clock",
				 "task-clock", NULL };
	perf_reads(path, "report --stdio", report);
	perf_reads(path, "report --stdio --no-children --sort comm,dso,sym", report);
	const char *script[] = { "lperf-pdw  4242", "lperf-child  4243", "lperf_pdw_leaf+0x2", NULL };
	perf_reads(path, "script", script);
	free(path);
}

/* "-": pipe mode on standard output, which lperf's reader and perf both read. */
static void pipe_mode(bool with_tracing)
{
	char *path = tmp("pipe.data");
	char exe[1024];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;
	fflush(stdout);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(1);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 1);
	close(fd);
	struct perfdata_writer *w = perfdata_writer_open("-");
	static const char tracing[] = "\x17\x08\x44tracing0.6, padded in a pipe";
	if (w && with_tracing)
		perfdata_writer_set_tracing_data(w, tracing, sizeof(tracing));
	if (w) /* not on a pipe: perf 6.1 stops at a feature record it does not know */
		perfdata_writer_set_lost_replaced(w, 7);
	int nsamples = w ? write_session(w, exe, false) : 0;
	int rc = w ? perfdata_writer_close(w, true, false) : -1;
	dup2(saved, 1);
	close(saved);
	assert_int_equal(rc, 0);

	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	assert_true(r.pipe);
	struct pd_recs recs = { 0 };
	assert_int_equal(perfdata_for_each(&r, pd_collect, &recs), 0);
	assert_int_equal(r.evsels.n, 2);
	assert_string_equal(r.evsels.v[1].name, "task-clock");
	assert_int_equal(r.evsels.v[1].ids[0], 2001);
	char version[64];
	snprintf(version, sizeof(version), "lperf %s", sysinfo_version());
	assert_string_equal(r.info.version, version);
	assert_int_equal(r.info.ncmdline, 6);
	assert_false(r.info.has_feature[FEAT_LPERF_LOST]);
	assert_int_equal(pd_count_type(&recs, PERF_RECORD_SAMPLE), nsamples);
	if (with_tracing) { /* a record whose size counts the data after it, padded to 8 */
		assert_int_equal(recs.v[0]->type, REC_TRACING_DATA);
		assert_int_equal(recs.v[0]->size, 16);
		assert_int_equal(r.info.tracing_size, (sizeof(tracing) + 7) & ~(size_t)7);
		assert_memory_equal(r.info.tracing_data, tracing, sizeof(tracing));
	}
	assert_int_equal(recs.v[with_tracing]->type, PERF_RECORD_COMM);
	pd_recs_free(&recs);
	perfdata_close(&r);
	char reason[128];
	if (!with_tracing && pd_have_perf(reason, sizeof(reason))) { /* the blob is no real tracing data */
		const char *report[] = { "lperf_pdw_leaf", "lperf-child", "task-clock", NULL };
		perf_reads(path, "report --stdio", report);
		const char *script[] = { "lperf-pdw  4242", NULL };
		perf_reads(path, "script", script);
	}
	free(path);
}

static void test_pipe_mode(void **state)
{
	pipe_mode(false);
}

static void test_pipe_tracing_data(void **state)
{
	pipe_mode(true);
}

/* CLOCKID holds the resolution of the clock the events use (use_clockid), in ns. */
static void test_clockid(void **state)
{
	char *path = tmp("clock.data");
	struct perfdata_writer *w = perfdata_writer_open(path);
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	assert_int_equal(perfdata_writer_add_event(w, &a, "cpu-clock", NULL, 0), 0);
	perfdata_writer_set_sample_times(w, 5, 6);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	struct timespec res;
	clock_getres(CLOCK_MONOTONIC, &res);
	assert_true(r.info.has_feature[FEAT_CLOCKID]);
	assert_int_equal(r.info.clockid_res_ns, (uint64_t)res.tv_nsec);
	assert_int_equal(r.info.first_sample_time, 5);
	assert_int_equal(r.info.last_sample_time, 6);
	perfdata_close(&r);
	char reason[128];
	if (pd_have_perf(reason, sizeof(reason))) {
		const char *header[] = { "# clockid frequency: ", "use_clockid = 1", NULL };
		perf_reads(path, "report --header-only", header);
	}
	free(path);
}

/* A SAMPLE_TIME whose last time is before its first is damaged: neither time is kept (a span of
 * them would wrap), and the note names the feature. */
static void test_sample_time_reversed(void **state)
{
	char *path = tmp("reversed.data");
	struct perfdata_writer *w = perfdata_writer_open(path);
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(perfdata_writer_add_event(w, &a, "cpu-clock", NULL, 0), 0);
	perfdata_writer_set_sample_times(w, 9000, 5);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	assert_false(r.info.has_feature[FEAT_SAMPLE_TIME]);
	assert_int_equal(r.info.first_sample_time, 0);
	assert_int_equal(r.info.last_sample_time, 0);
	assert_int_equal(r.info.notes.n, 1);
	assert_non_null(strstr(r.info.notes.v[0], "last sample time 5 is before the first, 9000"));
	perfdata_close(&r);
	free(path);
}

/* A writer of path with one event, cpu-clock, and no records. */
static struct perfdata_writer *cpu_clock_writer(const char *path)
{
	struct perfdata_writer *w = perfdata_writer_open(path);
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
	assert_non_null(w);
	assert_int_equal(perfdata_writer_add_event(w, &a, "cpu-clock", NULL, 0), 0);
	return w;
}

/* lperf's own feature bit feat: absent when mark(w, 0) writes nothing, present after mark(w, 1),
 * read back without a note, and perf 6.1 reads the file without a word (it skips the bit). */
static void own_feature(const char *file, int feat, void (*mark)(struct perfdata_writer *w, uint64_t n))
{
	char *path = tmp(file);
	for (uint64_t n = 0; n < 2; n++) {
		struct perfdata_writer *w = cpu_clock_writer(path);
		mark(w, n);
		assert_int_equal(perfdata_writer_close(w, true, false), 0);
		struct perfdata_reader r;
		assert_int_equal(perfdata_open(&r, path), 0);
		assert_int_equal(r.info.has_feature[feat], n == 1);
		assert_int_equal(r.info.notes.n, 0);
		perfdata_close(&r);
	}
	char reason[128];
	if (pd_have_perf(reason, sizeof(reason))) {
		const char *header[] = { "# cmdline : ", NULL };
		perf_reads(path, "report --header-only", header);
		const char *stats[] = { "Aggregated stats:", NULL };
		perf_reads(path, "report --stats", stats);
	}
	free(path);
}

static void mark_wall(struct perfdata_writer *w, uint64_t n)
{
	if (n)
		perfdata_writer_set_wall(w);
}

/* record --wall's mark (LPERF_WALL, bit 254). */
static void test_wall_feature(void **state)
{
	own_feature("wall.data", FEAT_LPERF_WALL, mark_wall);
}

static void mark_lost(struct perfdata_writer *w, uint64_t n)
{
	perfdata_writer_set_lost_replaced(w, n * 5893); /* 0: no section */
}

/* record --python's count of lost samples of paused processes (LPERF_LOST, bit 253), read back. */
static void test_lost_feature(void **state)
{
	own_feature("lost.data", FEAT_LPERF_LOST, mark_lost);
	char *path = tmp("lost.data");
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	assert_int_equal(r.info.lost_replaced, 5893);
	perfdata_close(&r);
	free(path);
}

/* CPUID on Arm is sysfs's MIDR_EL1 as perf prints it, read by sysinfo_read_cpu: a value that is
 * not 32 bits is refused, and the feature is left out as on a machine without the register. */
static char *cpuid_written(const char *midr)
{
	char *dir = tmp("sysfs-midr/devices/system/cpu/cpu0/regs/identification");
	pd_run("mkdir -p %s && printf '%s\\n' >%s/midr_el1", dir, midr, dir);
	char *root = tmp("sysfs-midr");
	setenv("LPERF_SYSFS_ROOT", root, 1);
	char *path = tmp("cpuid.data");
	struct perfdata_writer *w = perfdata_writer_open(path);
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(perfdata_writer_add_event(w, &a, "cpu-clock", NULL, 0), 0);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	unsetenv("LPERF_SYSFS_ROOT");
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	char *cpuid = r.info.cpuid ? xstrdup(r.info.cpuid) : NULL;
	perfdata_close(&r);
	free(path);
	free(root);
	free(dir);
	return cpuid;
}

static void test_arm_cpuid(void **state)
{
	char *id = cpuid_written("0x00000000410fd0c1");
	assert_non_null(id);
	assert_string_equal(id, "0x00000000410fd0c1");
	free(id);
	assert_null(cpuid_written("0x1410fd0c1"));
}

static void test_commit_discard_keep_old(void **state)
{
	char *path = tmp("k.data"), *old = tmp("k.data.old");
	char exe[1024];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;

	/* Discarded: neither the file nor the temporary remains. */
	struct perfdata_writer *w = perfdata_writer_open(path);
	write_session(w, exe, false);
	assert_int_equal(perfdata_writer_close(w, false, true), 0);
	assert_false(exists(path));
	DIR *d = opendir(tmpdir);
	for (struct dirent *de; (de = readdir(d));)
		assert_null(strstr(de->d_name, "k.data.tmp"));
	closedir(d);

	/* Committed twice with keep_old: the first becomes k.data.old. */
	w = perfdata_writer_open(path);
	write_session(w, exe, false);
	assert_int_equal(perfdata_writer_close(w, true, true), 0);
	struct stat first;
	assert_int_equal(stat(path, &first), 0);
	w = perfdata_writer_open(path);
	assert_int_equal(perfdata_writer_add_event(w, &(struct perf_event_attr){ .sample_type = PERF_SAMPLE_IP },
						   "x", NULL, 0), 0);
	assert_int_equal(perfdata_writer_close(w, true, true), 0);
	struct stat second, kept;
	assert_int_equal(stat(path, &second), 0);
	assert_int_equal(stat(old, &kept), 0);
	assert_int_equal(kept.st_ino, first.st_ino);
	assert_true(second.st_size < first.st_size);
	/* An empty recording is still a valid file. */
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	assert_int_equal(r.data_size, 8);  /* one FINISHED_ROUND, so that perf does not warn */
	assert_string_equal(r.evsels.v[0].name, "x");
	perfdata_close(&r);

	/* Without keep_old the file is replaced. */
	w = perfdata_writer_open(path);
	write_session(w, exe, false);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	assert_int_equal(stat(old, &kept), 0);
	assert_int_equal(kept.st_ino, first.st_ino);

	assert_null(perfdata_writer_open("/nonexistent-dir/x.data"));
	assert_non_null(strstr(err_msg(), "cannot write '/nonexistent-dir/x.data': No such file or directory"));
	free(path);
	free(old);
}

static void test_events_perf_cannot_tell_apart(void **state)
{
	char *path = tmp("bad.data");
	struct perfdata_writer *w = perfdata_writer_open(path);
	struct perf_event_attr a = sw_attr(0), b = sw_attr(1);
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
	assert_int_equal(perfdata_writer_add_event(w, &a, "cpu-clock", NULL, 0), 0);
	assert_int_equal(perfdata_writer_add_event(w, &b, "task-clock", NULL, 0), 0);
	uint8_t buf[64] __attribute__((aligned(8)));
	size_t n = record_build_marker(buf, sizeof(buf), REC_FINISHED_ROUND);
	assert_int_equal(perfdata_writer_write(w, buf, n), -1);
	assert_non_null(strstr(err_msg(), "PERF_SAMPLE_IDENTIFIER"));
	assert_non_null(strstr(err_msg(), "cpu-clock lacks it"));
	assert_int_equal(perfdata_writer_add_event(w, &a, "late", NULL, 0), -1);
	assert_int_equal(perfdata_writer_close(w, true, false), -1);
	assert_false(exists(path));

	/* Events added after the first record are refused. */
	w = perfdata_writer_open(path);
	assert_int_equal(perfdata_writer_add_event(w, &b, "task-clock", NULL, 0), 0);
	assert_int_equal(perfdata_writer_write(w, buf, n), 0);
	assert_int_equal(perfdata_writer_add_event(w, &a, "late", NULL, 0), -1);
	assert_non_null(strstr(err_msg(), "before the first record"));
	assert_int_equal(perfdata_writer_close(w, false, false), 0);
	free(path);
}

/* report --stats / --task's walk over a written session: records by type, samples by event,
 * and the task tree perf prints (output/report_stats.c). */
static void test_stats_and_tasks(void **state)
{
	char *path = tmp("st.data");
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_non_null(w);
	char exe[1024];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	int nsamples = write_session(w, exe, false);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	struct perfdata_stats st;
	assert_int_equal(perfdata_stats(&r, &st), 0);
	assert_int_equal(st.types[PERF_RECORD_SAMPLE], nsamples);
	assert_int_equal(st.types[PERF_RECORD_COMM], 2);
	assert_int_equal(st.types[PERF_RECORD_FORK], 1);
	assert_int_equal(st.types[PERF_RECORD_EXIT], 2);
	assert_int_equal(st.types[PERF_RECORD_MMAP2], 1);
	assert_true(st.total >= (uint64_t)nsamples + 6);
	assert_int_equal(st.nev, 2);
	assert_int_equal(st.ev_samples[0], nsamples / 2);
	assert_int_equal(st.ev_samples[1], nsamples / 2);
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	report_print_stats(f, &st, &r.evsels);
	fclose(f);
	assert_non_null(strstr(buf, "\nAggregated stats:\n           TOTAL events: "));
	assert_non_null(strstr(buf, "          SAMPLE events:         40  ("));
	assert_non_null(strstr(buf, "cpu-clock stats:\n          SAMPLE events:         20\n"));
	free(buf);
	perfdata_stats_free(&st);
	perfdata_close(&r);

	assert_int_equal(perfdata_open(&r, path), 0);
	struct perfdata_tasks t;
	assert_int_equal(perfdata_tasks(&r, &t), 0);
	f = open_memstream(&buf, &size);
	report_print_tasks(f, &t);
	fclose(f);
	assert_string_equal(buf, "#      pid      tid     ppid  comm\n"
				 "         0        0       -1 |swapper\n"
				 "      4242     4242       -1 |lperf-pdw\n"
				 "      4243     4243     4242 | lperf-child\n");
	free(buf);
	perfdata_tasks_free(&t);
	perfdata_close(&r);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_stats_and_tasks),
		cmocka_unit_test(test_copy_perf_file),
		cmocka_unit_test(test_perf_reads_our_files),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_pipe_tracing_data),
		cmocka_unit_test(test_clockid),
		cmocka_unit_test(test_wall_feature),
		cmocka_unit_test(test_lost_feature),
		cmocka_unit_test(test_sample_time_reversed),
		cmocka_unit_test(test_arm_cpuid),
		cmocka_unit_test(test_commit_discard_keep_old),
		cmocka_unit_test(test_events_perf_cannot_tell_apart),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
