/* jitinject: a synthetic recording of a process with a jitdump, rewritten as perf inject --jit
 * does, then read back: the marker and the later anonymous mappings gone, one MMAP2 per code
 * load at its time and in its place in the stream, the jitted files and their build-ids, and
 * what happens with a damaged dump or samples on another clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "jitelf_test.h"
#include "perfdata_test.h"
#include "inject/jitinject.h"
#include "perfdata/perfdata.h"
#include "record/record.h"

static char tmpdir[] = "/tmp/lperf-jitinject-XXXXXX";

static int setup(void **state)
{
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

#define PID 4242
#define CODE 0x7f0000010000ull
/* The loads: times and indexes; the code of load i is at CODE + 0x110 * i. */
static const uint64_t load_time[] = { 2000, 5000, 9000, 12000 };

static uint8_t *dump_bytes(size_t *len, bool damaged)
{
	struct jt_buf w = { 0 };
	jt_header(&w, PID);
	for (size_t i = 0; i < ARRAY_SIZE(load_time); i++) {
		if (i == 0)
			jt_unwind(&w, load_time[i], false);
		char *name = xasprintf("py::f%zu:/tmp/x.py", i);
		jt_load(&w, load_time[i], PID, CODE + 0x110 * i, i + 1, name);
		free(name);
	}
	if (damaged)
		w.b[0] ^= 0xff;
	*len = w.len;
	return w.b;
}

/* ---- The input recording ---- */

struct in {
	struct perfdata_writer *w;
	struct perf_event_attr attr;
	uint8_t buf[8192];
};

/* The time goes last in the trailer of this attr (TID, TIME). */
static void put(struct in *in, size_t size, uint64_t time)
{
	assert_true(size >= 8 && size <= sizeof(in->buf));
	if (time && in->buf[0] != PERF_RECORD_SAMPLE)
		memcpy(in->buf + size - 8, &time, 8);
	assert_int_equal(perfdata_writer_write(in->w, in->buf, size), 0);
}

static void mmap2(struct in *in, uint32_t pid, uint64_t start, const char *name, uint64_t time)
{
	struct rec_mmap m = { .pid = pid, .tid = pid, .start = start, .len = 0x1000, .pgoff = 0,
			      .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = name,
			      .cpumode = PERF_RECORD_MISC_USER };
	put(in, record_build_mmap2(in->buf, sizeof(in->buf), &in->attr, &m), time);
}

static void sample(struct in *in, uint64_t ip, uint64_t time)
{
	struct perf_sample s = { .ip = ip, .pid = PID, .tid = PID, .time = time, .period = 1000 };
	put(in, record_build_sample(in->buf, sizeof(in->buf), &in->attr, &s), 0);
}

static void round_end(struct in *in)
{
	put(in, record_build_marker(in->buf, sizeof(in->buf), REC_FINISHED_ROUND), 0);
}

/* A process that maps its jitdump at 1500 and runs its JIT code from 1800 on. */
static char *write_input(bool mono, bool damaged)
{
	char *path = xasprintf("%s/in.data", tmpdir), *marker = xasprintf("%s/jit-%d.dump", tmpdir, PID);
	struct in in = { .attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(struct perf_event_attr),
				   .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
				   .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						  PERF_SAMPLE_PERIOD,
				   .sample_id_all = 1, .mmap = 1, .mmap2 = 1, .comm = 1,
				   .use_clockid = mono, .clockid = mono ? CLOCK_MONOTONIC : 0 } };
	in.w = perfdata_writer_open(path);
	assert_non_null(in.w);
	uint64_t id = 11;
	assert_int_equal(perfdata_writer_add_event(in.w, &in.attr, "cpu-clock", &id, 1), 0);
	char *argv[] = { "lperf", "record", "--", "python3", NULL };
	perfdata_writer_set_cmdline(in.w, 4, argv);
	size_t len;
	uint8_t *dump = dump_bytes(&len, damaged);
	perfdata_writer_add_jit_source(in.w, JIT_SRC_JITDUMP, PID, dump, len);
	free(dump);

	put(&in, record_build_comm(in.buf, sizeof(in.buf), &in.attr, PID, PID, "python3", true), 1000);
	mmap2(&in, PID, 0x7f0000000000ull, "//anon", 1100);   /* before the dump: kept */
	mmap2(&in, PID, 0x7f0000100000ull, marker, 1500);
	mmap2(&in, PID, 0x7f0000200000ull, "//anon", 1600);   /* after: dropped */
	mmap2(&in, PID, 0x7f0000300000ull, "/memfd:jit (deleted)", 1700);
	mmap2(&in, 5555, 0x7f0000400000ull, "//anon", 1750);  /* another process: kept */
	sample(&in, CODE + 3, 1800);
	sample(&in, CODE + 3, 3000);
	round_end(&in);
	sample(&in, CODE + 0x113, 4000);
	sample(&in, CODE + 0x113, 6000);
	round_end(&in);
	sample(&in, CODE + 0x223, 8000);
	sample(&in, CODE + 0x223, 10000);
	assert_int_equal(perfdata_writer_close(in.w, true, false), 0);
	free(marker);
	return path;
}

/* ---- Running inject and reading its output ---- */

struct out {
	struct perfdata_reader r;
	struct pd_recs recs;
	struct jitinject_result res;
};

/* Where the jitted files go: tmpdir (--jit-dir), or NULL for next to a dump that exists. */
static const char *jit_dir = tmpdir;

static void inject(const char *in_path, bool jit, struct out *o)
{
	char *out_path = xasprintf("%s/out.data", tmpdir);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, in_path), 0);
	struct perfdata_writer *w = perfdata_writer_open(out_path);
	assert_non_null(w);
	struct jitinject_opts opts = { .jit = jit, .jit_dir = jit_dir };
	assert_int_equal(jitinject_run(&r, w, &opts, &o->res), 0);
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	perfdata_close(&r);
	assert_int_equal(perfdata_open(&o->r, out_path), 0);
	memset(&o->recs, 0, sizeof(o->recs));
	assert_int_equal(perfdata_for_each(&o->r, pd_collect, &o->recs), 0);
	free(out_path);
}

static void out_free(struct out *o)
{
	pd_recs_free(&o->recs);
	perfdata_close(&o->r);
	jitinject_result_free(&o->res);
}

static const char *mmap_name(const struct perf_event_header *h, struct rec_mmap *m)
{
	if (h->type != PERF_RECORD_MMAP2 || record_parse_mmap(h, m) < 0)
		return NULL;
	return m->filename;
}

/* Where the MMAP2 of a file is in the output, or -1. */
static long find_mmap(const struct out *o, const char *name, struct rec_mmap *m)
{
	for (size_t i = 0; i < o->recs.n; i++) {
		const char *n = mmap_name(o->recs.v[i], m);
		if (n && !strcmp(n, name))
			return (long)i;
	}
	return -1;
}

static size_t count_mmaps(const struct out *o, uint32_t pid, const char *name)
{
	size_t n = 0;
	struct rec_mmap m;
	for (size_t i = 0; i < o->recs.n; i++) {
		const char *fn = mmap_name(o->recs.v[i], &m);
		n += fn && m.pid == pid && !strcmp(fn, name);
	}
	return n;
}

/* ---- Tests ---- */

static void jit_maps(void **state)
{
	char *in_path = write_input(true, false);
	struct out o;
	inject(in_path, true, &o);
	assert_int_equal(o.res.warnings.n, 0);
	assert_int_equal(o.res.stats.dumps, 1);
	assert_int_equal(o.res.stats.elfs, ARRAY_SIZE(load_time));
	assert_int_equal(o.res.stats.markers_dropped, 1);
	assert_int_equal(o.res.stats.anon_dropped, 2);
	assert_int_equal(o.res.notes.n, 1);
	assert_non_null(strstr(o.res.notes.v[0], "stored copy"));

	/* The marker and the process's later anonymous mappings are gone. */
	char *marker = xasprintf("%s/jit-%d.dump", tmpdir, PID);
	struct rec_mmap m;
	assert_int_equal(find_mmap(&o, marker, &m), -1);
	assert_int_equal(count_mmaps(&o, PID, "//anon"), 1);
	assert_int_equal(count_mmaps(&o, PID, "/memfd:jit (deleted)"), 0);
	assert_int_equal(count_mmaps(&o, 5555, "//anon"), 1);

	for (size_t i = 0; i < ARRAY_SIZE(load_time); i++) {
		char *so = xasprintf("%s/jitted-%d-%zu.so", tmpdir, PID, i + 1);
		long at = find_mmap(&o, so, &m);
		assert_true(at >= 0);
		assert_int_equal(m.pid, PID);
		assert_int_equal(m.start, CODE + 0x110 * i);
		/* With unwinding data: the code rounded to 8 plus the mapped size, as perf. */
		assert_int_equal(m.len, i == 0 ? 16 + 80 : sizeof(jt_trampoline));
		assert_int_equal(m.pgoff, JITELF_TEXT_OFFSET);
		assert_int_equal(m.prot, PROT_READ | PROT_EXEC);
		assert_int_equal(m.flags, MAP_SHARED);
		assert_int_equal(m.cpumode, PERF_RECORD_MISC_USER);
		struct stat st;
		assert_int_equal(stat(so, &st), 0);
		assert_int_equal(m.ino, st.st_ino);
		assert_int_equal(m.maj, major(st.st_dev));
		assert_int_equal(m.min, minor(st.st_dev));
		struct perf_sample id;
		assert_int_equal(sample_id_parse(&o.r.evsels, o.recs.v[at], &id), 0);
		assert_int_equal(id.time, load_time[i]);
		assert_int_equal(id.pid, PID);
		/* In time order: after every record before its time, before every one after. */
		for (size_t k = 0; k < o.recs.n; k++) {
			uint64_t t = record_time(&o.r.evsels, o.recs.v[k]);
			if (!t)
				continue;
			if ((long)k < at)
				assert_true(t <= load_time[i]);
			else if ((long)k > at)
				assert_true(t >= load_time[i]);
		}
		/* Its build-id is in the header, naming the file. */
		bool found = false;
		for (size_t k = 0; k < o.r.info.nbuildids; k++)
			found |= !strcmp(o.r.info.buildids[k].filename, so);
		assert_true(found);
		free(so);
	}
	/* The rest came along: samples, command line, the stored dump. */
	assert_int_equal(pd_count_type(&o.recs, PERF_RECORD_SAMPLE), 6);
	assert_int_equal(pd_count_type(&o.recs, REC_FINISHED_ROUND), 2);
	assert_int_equal(pd_count_type(&o.recs, PERF_RECORD_COMM), 1);
	assert_true(o.r.info.ncmdline >= 4);
	assert_string_equal(o.r.info.cmdline[3], "python3");
	assert_int_equal(o.r.info.njit_sources, 1);
	assert_int_equal(o.r.evsels.n, 1);
	assert_int_equal(o.r.evsels.v[0].nids, 1);
	assert_int_equal(o.r.evsels.v[0].ids[0], 11);
	out_free(&o);
	free(marker);
	free(in_path);
}

/* A dump that cannot be read: one warning, the recording as it was. */
static void damaged_dump(void **state)
{
	char *in_path = write_input(true, true);
	struct out o;
	inject(in_path, true, &o);
	assert_int_equal(o.res.warnings.n, 1);
	assert_non_null(strstr(o.res.warnings.v[0], "not a jitdump"));
	assert_int_equal(o.res.stats.elfs, 0);
	char *marker = xasprintf("%s/jit-%d.dump", tmpdir, PID);
	struct rec_mmap m;
	assert_true(find_mmap(&o, marker, &m) >= 0);
	assert_int_equal(count_mmaps(&o, PID, "//anon"), 2);
	assert_int_equal(count_mmaps(&o, PID, "/memfd:jit (deleted)"), 1);
	out_free(&o);
	free(marker);
	free(in_path);
}

/* Without --jit-dir the recording's path alone is not a place to write: the stored copy is
 * used only next to a dump that exists there (a crafted recording sent files anywhere). */
static void no_dump_no_files(void **state)
{
	char *in_path = write_input(true, false);
	char *marker = xasprintf("%s/jit-%d.dump", tmpdir, PID), *so = xasprintf("%s/jitted-%d-1.so", tmpdir, PID);
	unlink(so);
	jit_dir = NULL;
	struct out o;
	inject(in_path, true, &o);
	assert_int_equal(o.res.warnings.n, 1);
	assert_non_null(strstr(o.res.warnings.v[0], "no such jitdump on this machine"));
	assert_int_equal(o.res.stats.elfs, 0);
	assert_int_equal(access(so, F_OK), -1);
	struct rec_mmap m;
	assert_true(find_mmap(&o, marker, &m) >= 0);
	out_free(&o);
	/* The dump there (any regular file: the stored copy is read): the files go next to it. */
	FILE *f = fopen(marker, "w");
	assert_non_null(f);
	fclose(f);
	inject(in_path, true, &o);
	assert_int_equal(o.res.warnings.n, 0);
	assert_true(o.res.stats.elfs > 0);
	assert_int_equal(access(so, F_OK), 0);
	out_free(&o);
	unlink(marker);
	jit_dir = tmpdir;
	free(so);
	free(marker);
	free(in_path);
}

/* Samples not on the dumps' clock: the maps hold from the marker on, right after it. */
static void other_clock(void **state)
{
	char *in_path = write_input(false, false);
	struct out o;
	inject(in_path, true, &o);
	assert_int_equal(o.res.warnings.n, 1);
	assert_non_null(strstr(o.res.warnings.v[0], "CLOCK_MONOTONIC"));
	char *so = xasprintf("%s/jitted-%d-4.so", tmpdir, PID);
	struct rec_mmap m;
	long at = find_mmap(&o, so, &m);
	assert_true(at >= 0);
	struct perf_sample id;
	assert_int_equal(sample_id_parse(&o.r.evsels, o.recs.v[at], &id), 0);
	assert_int_equal(id.time, 1500);
	/* All four where the marker was: after the //anon of 1100, before the other process's
	 * mapping of 1750 (this process's of 1600 and 1700 are dropped). */
	assert_true(at >= 4);
	assert_int_equal(record_time(&o.r.evsels, o.recs.v[at - 4]), 1100);
	assert_int_equal(record_time(&o.r.evsels, o.recs.v[at + 1]), 1750);
	out_free(&o);
	free(so);
	free(in_path);
}

/* Without -j the records are copied as they are. */
static void plain_copy(void **state)
{
	char *in_path = write_input(true, false);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, in_path), 0);
	struct pd_recs before = { 0 };
	assert_int_equal(perfdata_for_each(&r, pd_collect, &before), 0);
	perfdata_close(&r);
	struct out o;
	inject(in_path, false, &o);
	assert_int_equal(o.recs.n, before.n);
	for (size_t i = 0; i < before.n; i++) {
		assert_int_equal(o.recs.v[i]->size, before.v[i]->size);
		assert_memory_equal(o.recs.v[i], before.v[i], before.v[i]->size);
	}
	assert_int_equal(o.res.stats.elfs, 0);
	pd_recs_free(&before);
	out_free(&o);
	free(in_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jit_maps),
		cmocka_unit_test(damaged_dump),
		cmocka_unit_test(other_clock),
		cmocka_unit_test(no_dump_no_files),
		cmocka_unit_test(plain_copy),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
