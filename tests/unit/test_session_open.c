/* session_open: the one way to open a recording. The tool's ready step runs once, before any
 * sample, with the events known — in a file at once, in a pipe-mode stream only after its
 * attributes arrived — so a piped recording with call chains resolves them as the file does;
 * session_diagnose's notes for a clean recording; a recording of another kernel (its kallsyms
 * from the build-id cache, else a warning and no kernel symbols); a file that cannot be opened. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfdata/perfdata.h"
#include "perfdata_test.h"
#include "session/session.h"
#include "symbols/buildid_cache.h"
#include "util/xalloc.h"
#include "util/error.h"

struct counts {
	int ready;               /* times the ready step ran */
	size_t events_at_ready;
	bool chains_at_ready;
	uint64_t samples, deep;  /* samples, those with more than one frame */
	bool sample_before_ready;
};

static int count_sample(const struct resolved_sample *rs, void *arg)
{
	struct counts *c = arg;
	c->sample_before_ready |= !c->ready;
	c->samples++;
	c->deep += rs->nframes > 1;
	return 0;
}

static int ready(struct session *ss, void *arg)
{
	struct counts *c = arg;
	c->ready++;
	c->events_at_ready = ss->evsels->n;
	c->chains_at_ready = session_has_callchains(ss);
	ss->tool.callchains = c->chains_at_ready;
	return 0;
}

/* The fixtures were recorded on another kernel: a build-id cache holding a kallsyms for it. */
static char cache_dir[] = "/tmp/lperf-sess-XXXXXX";
static const char fixture_kernel[] = "abf9ec0ec5946600c90641cf5db998472fac410b";

static int setup(void **state)
{
	if (!mkdtemp(cache_dir))
		return -1;
	char *sh = xasprintf("cd %s && mkdir -p 'c/[kernel.kallsyms]/%s' c/.build-id/%.2s empty && "
			     "printf 'ffffffff81000000 T _stext\nffffffff81001000 T fixture_kernel_fn\n' "
			     ">'c/[kernel.kallsyms]/%s/kallsyms' && ln -s '../../[kernel.kallsyms]/%s' c/.build-id/%.2s/%s",
			     cache_dir, fixture_kernel, fixture_kernel, fixture_kernel, fixture_kernel, fixture_kernel,
			     fixture_kernel + 2);
	int r = system(sh);
	free(sh);
	char *c = xasprintf("%s/c", cache_dir);
	buildid_cache_set_dir(c);
	free(c);
	return r == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	buildid_cache_set_dir(NULL);
	char *sh = xasprintf("rm -rf %s", cache_dir);
	int r = system(sh);
	free(sh);
	return r == 0 ? 0 : -1;
}

static void walk(const char *path, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	struct session ss;
	struct session_tool tool = { .sample = count_sample, .ready = ready, .arg = c };
	struct session_opts so = { 0 };
	assert_int_equal(session_open(&ss, path, &so, &tool), 0);
	assert_int_equal(session_run(&ss), 0);
	session_diagnose(&ss, 0);
	for (size_t i = 0; i < ss.notes.n; i++) /* a clean recording: no warning */
		assert_int_equal(notes_level(&ss.notes, i), NOTES_NOTE);
	session_close(&ss);
	assert_int_equal(c->ready, 1);
	assert_false(c->sample_before_ready);
}

struct copy {
	struct perfdata_writer *w;
};

static int copy_rec(const struct perf_event_header *h, void *arg)
{
	struct copy *cp = arg;
	return perfdata_writer_write(cp->w, h, h->size);
}

/* The recording at in rewritten as a pipe-mode stream (perf record -o -) into out. */
static void to_pipe_mode(const char *in, const char *out)
{
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, in), 0);
	int saved = dup(STDOUT_FILENO);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	struct copy cp = { perfdata_writer_open("-") };
	assert_non_null(cp.w);
	for (size_t e = 0; e < r.evsels.n; e++)
		perfdata_writer_add_event(cp.w, &r.evsels.v[e].attr, r.evsels.v[e].name, r.evsels.v[e].ids,
					  r.evsels.v[e].nids);
	assert_int_equal(perfdata_for_each(&r, copy_rec, &cp), 0);
	assert_int_equal(perfdata_writer_close(cp.w, true, false), 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	perfdata_close(&r);
}

static void test_file_ready(void **state)
{
	char *p = pd_fixture("perf61-callchain.data");
	struct counts c;
	walk(p, &c);
	assert_int_equal(c.events_at_ready, 1);
	assert_true(c.chains_at_ready);
	assert_true(c.samples > 0);
	assert_true(c.deep > c.samples / 2);
	free(p);
}

static void test_pipe_ready(void **state)
{
	char *p = pd_fixture("perf61-callchain.data");
	char out[] = "/tmp/lperf-test-session-XXXXXX";
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	to_pipe_mode(p, out);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, out), 0);
	assert_true(r.pipe);
	assert_int_equal(r.evsels.n, 0); /* the events come with the stream */
	perfdata_close(&r);
	struct counts file, pipe;
	walk(p, &file);
	walk(out, &pipe);
	assert_int_equal(pipe.events_at_ready, 1);
	assert_true(pipe.chains_at_ready);
	assert_int_equal(pipe.samples, file.samples);
	assert_int_equal(pipe.deep, file.deep);
	unlink(out);
	free(p);
}

/* Without call chains in the recording (a pipe-mode fixture of perf's), none are resolved. */
static void test_pipe_without_chains(void **state)
{
	char *p = pd_fixture("perf61-pipe.data");
	struct counts c;
	walk(p, &c);
	assert_int_equal(c.events_at_ready, 1);
	assert_false(c.chains_at_ready);
	assert_int_equal(c.deep, 0);
	assert_true(c.samples > 0);
	free(p);
}

/* A feature bit lperf does not know (a newer perf's): its section is skipped and one note says so. */
static void test_unknown_feature(void **state)
{
	char *p = pd_fixture("perf61-cpu-clock.data");
	size_t n;
	uint8_t *buf = pd_slurp(p, &n);
	assert_non_null(buf);
	buf = realloc(buf, n + 16);
	memset(buf + n, 0, 16);     /* its entry in the feature table: an empty section */
	buf[72 + 200 / 8] |= 1;     /* feature bit 200, after every bit the file has */
	char out[] = "/tmp/lperf-test-feature-XXXXXX";
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pd_spit(out, buf, n + 16), 0);
	struct session ss;
	struct counts c = { 0 };
	struct session_tool tool = { .sample = count_sample, .ready = ready, .arg = &c };
	struct session_opts so = { 0 };
	assert_int_equal(session_open(&ss, out, &so, &tool), 0);
	assert_int_equal(ss.reader->info.notes.n, 0);
	assert_int_equal(session_run(&ss), 0);
	assert_true(c.samples > 0);
	session_diagnose(&ss, 0);
	bool said = false;
	for (size_t i = 0; i < ss.notes.n; i++)
		if (strstr(ss.notes.v[i], "feature bit 200 unknown to lperf")) {
			said = true;
			assert_int_equal(notes_level(&ss.notes, i), NOTES_NOTE);
		}
	assert_true(said);
	session_close(&ss);
	unlink(out);
	free(buf);
	free(p);
}

static void test_open_fails(void **state)
{
	struct session ss;
	struct session_tool tool = { .sample = count_sample };
	struct session_opts so = { 0 };
	assert_int_equal(session_open(&ss, "/nonexistent/perf.data", &so, &tool), -1);
	assert_non_null(strstr(err_msg(), "/nonexistent/perf.data"));
}

/* Without a copy of the other kernel's kallsyms: one warning, naming both build-ids, and no
 * kernel symbols (never the running kernel's). With it: the copy's. */
static void test_other_kernel(void **state)
{
	uint8_t now[BUILDID_SIZE];
	if (!buildid_kernel(now)) {
		print_message("skipped: the running kernel's build-id is unknown\n");
		skip();
	}
	char *p = pd_fixture("perf61-callchain.data");
	char *empty = xasprintf("%s/empty", cache_dir), *full = xasprintf("%s/c", cache_dir);
	for (int pass = 0; pass < 2; pass++) {
		buildid_cache_set_dir(pass ? full : empty);
		struct counts c = { 0 };
		struct session ss;
		struct session_tool tool = { .sample = count_sample, .arg = &c };
		struct session_opts so = { 0 };
		assert_int_equal(session_open(&ss, p, &so, &tool), 0);
		assert_int_equal(session_run(&ss), 0);
		struct dso *k = dso_cache_get(&ss.machine.dsos, "[kernel.kallsyms]", NULL, 0);
		dso_load(k);
		session_diagnose(&ss, 0);
		size_t warnings = 0;
		for (size_t i = 0; i < ss.notes.n; i++)
			if (notes_level(&ss.notes, i) != NOTES_NOTE) {
				warnings++;
				assert_non_null(strstr(ss.notes.v[i], "[kernel.kallsyms]: the recording's kernel has build-id abf9ec0e"));
			}
		if (pass) {
			assert_int_equal(warnings, 0);
			assert_non_null(k->cached);
			assert_int_equal(k->nsyms, 2);
		} else {
			assert_int_equal(warnings, 1);
			assert_true(k->mismatch);
			assert_int_equal(k->nsyms, 0);
		}
		session_close(&ss);
	}
	buildid_cache_set_dir(full);
	free(empty);
	free(full);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_ready),
		cmocka_unit_test(test_pipe_ready),
		cmocka_unit_test(test_pipe_without_chains),
		cmocka_unit_test(test_unknown_feature),
		cmocka_unit_test(test_open_fails),
		cmocka_unit_test(test_other_kernel),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
