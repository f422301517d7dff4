/* perf inject --jit: the record stream copied, jitdump markers turned into jitted .so files and
 * their MMAP2 records, which wait in a time-ordered queue for their place in the stream. */
#include "inject/jitinject.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "inject/buildinject.h"
#include "record/recutil.h"
#include "symbols/jitdump.h"
#include "symbols/jitelf.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Bounds on what one recording can make inject do. */
#define MAX_DUMPS 4096           /* distinct marker mappings handled */
#define MAX_ELFS 100000u         /* jitted files written (a hostile dump asked for a million) */

struct pending {
	uint64_t time, seq;
	uint8_t *rec;
	size_t size;
};

/* A marker mapping already seen: (pid, path), and whether its dump was used. */
struct marker {
	uint32_t pid;
	char *path;
	bool used;
};

struct tconv {                   /* TIME_CONV: TSC to perf time */
	uint64_t shift, mult, zero, cycles, mask;
	bool short_cycles, have;
};

struct inj {
	struct perfdata_reader *r;
	struct perfdata_writer *w;
	const struct jitinject_opts *o;
	struct jitinject_result *res;
	bool started;
	struct perf_event_attr attr0;         /* the first event's: the trailers' layout */
	const struct perf_event_attr *attr;   /* &attr0 once started */
	bool mono;               /* every event samples CLOCK_MONOTONIC, the dumps' clock */
	bool clock_warned, tsc_warned, limit_warned, markers_warned;
	struct tconv tc;
	struct pending *heap;
	size_t n, cap;
	uint64_t seq, seen_max;
	uint32_t *pids;          /* processes with a jitdump, sorted */
	size_t npids, pidcap;
	struct marker *markers;
	size_t nmarkers, mcap;
	uint8_t *buf;            /* record under construction */
	size_t bufcap;
	struct buildinject *bi;  /* -b */
};

static void warn(struct inj *j, char *msg)
{
	notes_take(&j->res->warnings, msg);
}

static void note(struct inj *j, char *msg)
{
	notes_take(&j->res->notes, msg);
}

/* ---- The queue of MMAP2 records, a min-heap by (time, seq) ---- */

static bool before(const struct pending *a, const struct pending *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static void heap_push(struct inj *j, uint64_t time, const void *rec, size_t size)
{
	ALLOC_GROW(j->heap, j->n + 1, j->cap);
	struct pending p = { time, j->seq++, xmalloc(size), size };
	memcpy(p.rec, rec, size);
	size_t i = j->n++;
	while (i && before(&p, &j->heap[(i - 1) / 2])) {
		j->heap[i] = j->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	j->heap[i] = p;
}

static struct pending heap_pop(struct inj *j)
{
	struct pending top = j->heap[0], last = j->heap[--j->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= j->n)
			break;
		if (c + 1 < j->n && before(&j->heap[c + 1], &j->heap[c]))
			c++;
		if (!before(&j->heap[c], &last))
			break;
		j->heap[i] = j->heap[c];
		i = c;
	}
	if (j->n)
		j->heap[i] = last;
	return top;
}

/* Writes the queued records due at or before limit. */
static int flush_until(struct inj *j, uint64_t limit)
{
	while (j->n && j->heap[0].time <= limit) {
		struct pending p = heap_pop(j);
		int ret = perfdata_writer_write(j->w, p.rec, p.size);
		free(p.rec);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* ---- Processes with a jitdump ---- */

static size_t pid_pos(const struct inj *j, uint32_t pid)
{
	size_t lo = 0, hi = j->npids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool has_jit(const struct inj *j, uint32_t pid)
{
	size_t i = pid_pos(j, pid);
	return i < j->npids && j->pids[i] == pid;
}

static void add_jit_pid(struct inj *j, uint32_t pid)
{
	size_t i = pid_pos(j, pid);
	if (i < j->npids && j->pids[i] == pid)
		return;
	ALLOC_GROW(j->pids, j->npids + 1, j->pidcap);
	memmove(j->pids + i + 1, j->pids + i, (j->npids - i) * sizeof(*j->pids));
	j->pids[i] = pid;
	j->npids++;
}

/* perf's jit_process: what a JIT's code looked like before the jitdump described it. */
static bool anon_name(const char *name)
{
	return !strncmp(name, "//anon", 6) || !strncmp(name, "[anon:", 6) || !strncmp(name, "/memfd:", 7);
}

/* ---- Clocks ---- */

static void time_conv(struct inj *j, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	if (h->size < 32)
		return;
	struct tconv tc = { ld64(p + 8), ld64(p + 16), ld64(p + 24), 0, 0, false, true };
	if (h->size >= 56) {
		tc.cycles = ld64(p + 32);
		tc.mask = ld64(p + 40);
		tc.short_cycles = p[49] != 0;
	}
	if (tc.shift < 64)
		j->tc = tc;
}

/* perf's tsc_to_perf_time. */
static uint64_t tsc_to_time(const struct tconv *tc, uint64_t cyc)
{
	if (tc->short_cycles)
		cyc = tc->cycles + ((cyc - tc->cycles) & tc->mask);
	uint64_t quot = cyc >> tc->shift, rem = cyc & ((1ull << tc->shift) - 1);
	return tc->zero + quot * tc->mult + ((rem * tc->mult) >> tc->shift);
}

/* The time an MMAP2 of code c gets: its load's, on the recording's clock when the two can be
 * related, else the marker's (the map then holds from the marker on). */
static uint64_t code_time(struct inj *j, const struct jitdump *jd, const struct jitdump_code *c,
			  uint64_t marker_time)
{
	if (!(j->attr->sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (jd->flags & JITDUMP_FLAGS_ARCH_TIMESTAMP) {
		if (j->tc.have)
			return tsc_to_time(&j->tc, c->time);
		if (!j->tsc_warned)
			warn(j, xasprintf("a jitdump has TSC timestamps and the recording no TIME_CONV record to "
					  "relate them to samples: its JIT code is mapped from the marker's time on"));
		j->tsc_warned = true;
		return marker_time;
	}
	if (j->mono)
		return c->time;
	if (!j->clock_warned)
		warn(j, xasprintf("the recording's samples are not on CLOCK_MONOTONIC, the jitdumps' clock "
				  "(record with -k mono): JIT code is mapped from the marker's time on, so "
				  "code that reuses an address may be misnamed"));
	j->clock_warned = true;
	return marker_time;
}

/* ---- Build-ids ---- */

/* perf's build_id_event: header (misc: cpumode and BUILD_ID_SIZE), pid, build_id[20], its
 * size and 3 reserved bytes, the file name NUL-padded to 64. */
static int buildid_record(struct perfdata_writer *w, int32_t pid, uint8_t cpumode, const uint8_t *id, size_t size,
			  const char *filename)
{
	size_t n = strlen(filename) + 1, len = (n + 63) / 64 * 64, total = 36 + len;
	if (total > 0xffff)
		return 0; /* a name no record can hold: perf would not find the file either */
	uint8_t *rec = xcalloc(1, total);
	struct perf_event_header h = { REC_BUILD_ID, (uint16_t)(cpumode | REC_MISC_BUILD_ID_SIZE), (uint16_t)total };
	memcpy(rec, &h, sizeof(h));
	st32(rec + 8, (uint32_t)pid);
	memcpy(rec + 12, id, size > 20 ? 20 : size);
	rec[32] = (uint8_t)(size > 20 ? 20 : size);
	memcpy(rec + 36, filename, n);
	int ret = perfdata_writer_write(w, rec, total);
	free(rec);
	return ret;
}

static int writer_buildid(struct perfdata_writer *w, bool pipe, int32_t pid, uint8_t cpumode, const uint8_t *id,
			  size_t size, const char *filename)
{
	if (pipe)
		return buildid_record(w, pid, cpumode, id, size, filename);
	perfdata_writer_add_buildid(w, pid, cpumode, id, size, filename);
	return 0;
}

static int add_buildid(struct inj *j, int32_t pid, uint8_t cpumode, const uint8_t *id, size_t size,
		       const char *filename)
{
	return writer_buildid(j->w, j->o->pipe_output, pid, cpumode, id, size, filename);
}

static int emit_buildid(void *arg, int32_t pid, uint8_t cpumode, const uint8_t *id, size_t n, const char *name)
{
	return add_buildid(arg, pid, cpumode, id, n, name);
}

/* ---- Markers ---- */

/* The stored copy of pid's jitdump, or NULL. */
static const struct perfdata_jit_source *stored_dump(const struct inj *j, uint32_t pid)
{
	const struct perfdata_info *in = &j->r->info;
	for (size_t i = 0; i < in->njit_sources; i++)
		if (in->jit_sources[i].kind == JIT_SRC_JITDUMP && (uint32_t)in->jit_sources[i].pid == pid)
			return &in->jit_sources[i];
	return NULL;
}

/* The dump of a marker: 1 with *out, 0 after a warning (the marker stays as it is). */
static int load_dump(struct inj *j, const struct rec_mmap *m, uint32_t npid, struct jitdump **out, bool *stored)
{
	const struct perfdata_jit_source *s = stored_dump(j, m->pid);
	if (!s)
		s = stored_dump(j, npid);
	*stored = s != NULL;
	if (s) {
		*out = jitdump_parse(s->data, s->size);
		if (!*out)
			warn(j, xasprintf("%s (the copy stored in the recording): %s; its JIT code stays "
					  "unresolved", m->filename, err_msg()));
		return *out != NULL;
	}
	int rc = jitdump_load(m->filename, j->o->force, out);
	if (rc == 0)
		warn(j, xasprintf("%s does not exist and the recording holds no copy: the JIT code of "
				  "process %u stays unresolved", m->filename, m->pid));
	else if (rc < 0)
		warn(j, xasprintf("%s; the JIT code of process %u stays unresolved", err_msg(), m->pid));
	return rc > 0;
}

/* The MMAP2 of one jitted file, queued for its time. */
static int queue_mmap(struct inj *j, const struct rec_mmap *mm, uint64_t time)
{
	size_t need = record_build_mmap2(j->buf, j->bufcap, j->attr, mm);
	if (need > j->bufcap) {
		free(j->buf);
		j->bufcap = need;
		j->buf = xmalloc(need);
		need = record_build_mmap2(j->buf, j->bufcap, j->attr, mm);
	}
	if (!need)
		return -1;
	uint64_t st = j->attr->sample_type;
	if (j->attr->sample_id_all && (st & PERF_SAMPLE_TIME))
		st64(j->buf + need - rec_trailer_size(st) + (st & PERF_SAMPLE_TID ? 8 : 0), time);
	heap_push(j, time, j->buf, need);
	return 0;
}

/* Writes the files of one dump and queues their maps; returns how many, SIZE_MAX when the
 * output cannot be written. */
static size_t emit_dump(struct inj *j, const struct rec_mmap *m, const struct jitdump *jd, const char *dir,
			uint64_t marker_time)
{
	size_t written = 0, failed = 0;
	char *first_error = NULL;
	for (size_t i = 0; i < jd->ncodes; i++) {
		const struct jitdump_code *c = jd->codes[i];
		if (j->res->stats.elfs >= MAX_ELFS) {
			if (!j->limit_warned)
				warn(j, xasprintf("more than %u JIT code loads: inject writes at most %u jitted "
						  "files; the rest stay unresolved", MAX_ELFS, MAX_ELFS));
			j->limit_warned = true;
			break;
		}
		char *path = xasprintf("%s/jitted-%" PRIu32 "-%" PRIu64 ".so", dir, c->pid, c->index);
		uint8_t id[JITELF_BUILD_ID_SIZE];
		jitelf_build_id(c->pid, c, id);
		struct stat st;
		if (jitelf_write_file(path, c, id, &st) < 0) {
			if (!failed++)
				first_error = xstrdup(err_msg());
			free(path);
			continue;
		}
		/* As perf: the load's thread when it is the marker's process (a process in a pid
		 * namespace writes its own pids), the code's address, the mapping's length perf
		 * computes, the file's identity. */
		struct rec_mmap mm = {
			.pid = m->pid,
			.tid = c->pid == m->pid ? c->tid : m->tid,
			.start = c->addr,
			.len = jitelf_map_len(c),
			.pgoff = JITELF_TEXT_OFFSET,
			.prot = PROT_READ | PROT_EXEC,
			.flags = MAP_SHARED,
			.maj = major(st.st_dev),
			.min = minor(st.st_dev),
			.ino = st.st_ino,
			.ino_generation = 1,
			.filename = path,
			.cpumode = PERF_RECORD_MISC_USER,
		};
		if (queue_mmap(j, &mm, code_time(j, jd, c, marker_time)) < 0) {
			if (!failed++)
				first_error = xasprintf("%s: the path is too long for a record", path);
			unlink(path);
			free(path);
			continue;
		}
		int bret = add_buildid(j, -1, PERF_RECORD_MISC_USER, id, sizeof(id), path);
		free(path);
		if (bret < 0)
			return SIZE_MAX;
		written++;
		j->res->stats.elfs++;
	}
	if (failed)
		warn(j, xasprintf("%s: %zu of %zu jitted files could not be written (%s)", m->filename, failed,
				  jd->ncodes, first_error));
	free(first_error);
	return written;
}

/* 1 to keep the marker record, 0 to drop it (its dump became jitted files), -1 when the
 * output cannot be written. */
static int on_marker(struct inj *j, const struct rec_mmap *m, uint32_t npid, uint64_t t)
{
	for (size_t i = 0; i < j->nmarkers; i++)
		if (j->markers[i].pid == m->pid && !strcmp(j->markers[i].path, m->filename))
			return !j->markers[i].used;
	if (j->nmarkers >= MAX_DUMPS) {
		if (!j->markers_warned)
			warn(j, xasprintf("more than %d jitdump markers: the rest are kept as they are", MAX_DUMPS));
		j->markers_warned = true;
		return 1;
	}
	ALLOC_GROW(j->markers, j->nmarkers + 1, j->mcap);
	struct marker *mk = &j->markers[j->nmarkers++];
	*mk = (struct marker){ m->pid, xstrdup(m->filename), false };

	struct jitdump *jd = NULL;
	bool stored;
	if (!load_dump(j, m, npid, &jd, &stored))
		return 1;
	if (jd->error)
		warn(j, xasprintf("%s: %s; the %zu code loads before that are used", m->filename, jd->error,
				  jd->ncodes));
	char *copy = xstrdup(m->filename), *dir = j->o->jit_dir ? (char *)j->o->jit_dir : dirname(copy);
	struct stat st;
	size_t n = 0;
	if (!jd->ncodes)
		; /* nothing to map: the marker stays, harmless */
	else if (!j->o->jit_dir && (lstat(m->filename, &st) < 0 || !S_ISREG(st.st_mode)))
		warn(j, xasprintf("%s: no such jitdump on this machine: the jitted files go next to a dump that "
				  "exists, or into --jit-dir DIR (the stored copy is used then)", m->filename));
	else if (lstat(dir, &st) < 0)
		warn(j, xasprintf("%s: cannot write the jitted files to %s: %s", m->filename, dir, strerror(errno)));
	else if (!S_ISDIR(st.st_mode))
		warn(j, xasprintf("%s: cannot write the jitted files to %s: not a directory", m->filename, dir));
	else
		n = emit_dump(j, m, jd, dir, t);
	if (n == SIZE_MAX) {
		free(copy);
		jitdump_free(jd);
		return -1;
	}
	if (n) {
		note(j, xasprintf("%s%s: %zu code loads, %zu jitted files in %s", m->filename,
				  stored ? " (stored copy)" : "", jd->ncodes, n, dir));
		mk->used = true;
		add_jit_pid(j, m->pid);
		j->res->stats.dumps++;
	}
	free(copy);
	jitdump_free(jd);
	return !n;
}

/* 1 to keep an MMAP/MMAP2 record, 0 to drop it, -1 on a write error. */
static int on_mmap(struct inj *j, const struct perf_event_header *h, uint64_t t)
{
	struct rec_mmap m;
	if (record_parse_mmap(h, &m) < 0)
		return 1; /* not ours to judge: readers say what is wrong with it */
	int npid;
	if (jitdump_is_marker(m.filename, &npid)) {
		/* A marker of another process's dump is some tool reading it, unless the mapping is
		 * executable (a process in a pid namespace names the dump by its own pid). */
		if ((uint32_t)npid != m.pid && m.data)
			return 1;
		int keep = on_marker(j, &m, (uint32_t)npid, t);
		j->res->stats.markers_dropped += keep == 0;
		return keep;
	}
	if (has_jit(j, m.pid) && anon_name(m.filename)) {
		j->res->stats.anon_dropped++;
		return 0;
	}
	return 1;
}

/* ---- The stream ---- */

int jitinject_copy_header(struct perfdata_reader *r, struct perfdata_writer *w, const struct perf_event_attr *attrs,
			  bool pipe_output, uint32_t skip_kind)
{
	const struct perfdata_info *in = &r->info;
	for (size_t i = 0; i < r->evsels.n; i++) {
		const struct evsel *e = &r->evsels.v[i];
		if (perfdata_writer_add_event(w, attrs ? &attrs[i] : &e->attr, e->name, e->ids, e->nids) < 0)
			return -1;
	}
	if (in->ncmdline)
		perfdata_writer_set_cmdline(w, (int)in->ncmdline, in->cmdline);
	if (in->has_feature[FEAT_SAMPLE_TIME])
		perfdata_writer_set_sample_times(w, in->first_sample_time, in->last_sample_time);
	/* The tracepoints' formats: the writer puts them where its mode wants them (a feature, or a
	 * HEADER_TRACING_DATA record), so a pipe's own record is not copied (on_record). */
	if (in->tracing_data && perfdata_writer_set_tracing_data(w, in->tracing_data, in->tracing_size) < 0)
		return -1;
	if (in->has_feature[FEAT_LPERF_LOST]) /* the LOST records go along; the writer keeps it off pipes */
		perfdata_writer_set_lost_replaced(w, in->lost_replaced);
	/* perf 6.1 stops at a pipe-mode feature record it does not know (lperf's 255). */
	for (size_t i = 0; i < in->njit_sources && !pipe_output; i++) {
		const struct perfdata_jit_source *s = &in->jit_sources[i];
		if (s->kind != skip_kind)
			perfdata_writer_add_jit_source(w, s->kind, s->pid, s->data, s->size);
	}
	/* Last: in pipe mode the first build-id record starts the output. */
	for (size_t i = 0; i < in->nbuildids; i++) {
		const struct perfdata_buildid *b = &in->buildids[i];
		if (writer_buildid(w, pipe_output, b->pid, b->cpumode, b->id, b->size, b->filename) < 0)
			return -1;
	}
	return 0;
}

/* The events and features of r, given to w before its first record. */
static int start(struct inj *j)
{
	struct perfdata_reader *r = j->r;
	j->started = true;
	if (!r->evsels.n)
		return err_set("%s: the recording has no events", r->path);
	/* A copy: pipe-mode events live in an array that later events may move. */
	j->attr0 = r->evsels.v[0].attr;
	j->attr = &j->attr0;
	j->mono = true;
	for (size_t i = 0; i < r->evsels.n; i++) {
		const struct evsel *e = &r->evsels.v[i];
		j->mono &= e->attr.use_clockid && e->attr.clockid == CLOCK_MONOTONIC;
	}
	return jitinject_copy_header(r, j->w, NULL, j->o->pipe_output, UINT32_MAX);
}

size_t jitinject_record_bytes(const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	if (h->type == REC_AUXTRACE && h->size >= 16)
		return h->size + (size_t)ld64(p + 8);
	if (h->type == REC_TRACING_DATA && h->size >= 12)
		return h->size + (size_t)ld32(p + 8);
	return h->size;
}

static int on_record(const struct perf_event_header *h, void *arg)
{
	struct inj *j = arg;
	if (!j->started && start(j) < 0)
		return -1;
	j->res->stats.records++;
	uint64_t t = record_time(&j->r->evsels, h);
	/* Maps due by this record's time go before it: every record before them is earlier. */
	if (t && flush_until(j, t) < 0)
		return -1;
	bool mmap = h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2;
	int keep = 1;
	if (h->type == REC_TIME_CONV)
		time_conv(j, h);
	if (j->o->jit && mmap)
		keep = on_mmap(j, h, t);
	if (j->bi && buildinject_record(j->bi, &j->r->evsels, h) < 0)
		return -1;
	if (h->type == REC_TRACING_DATA)
		keep = 0; /* written by the writer (start) */
	if (keep < 0)
		return -1;
	if (keep && perfdata_writer_write(j->w, h, jitinject_record_bytes(h)) < 0)
		return -1;
	if (t > j->seen_max)
		j->seen_max = t;
	/* Maps of code loaded before what the stream has shown already: right here. */
	return mmap && j->n ? flush_until(j, j->seen_max) : 0;
}

int jitinject_run(struct perfdata_reader *r, struct perfdata_writer *w, const struct jitinject_opts *o,
		  struct jitinject_result *res)
{
	memset(res, 0, sizeof(*res));
	struct inj j = { .r = r, .w = w, .o = o, .res = res };
	struct buildinject bi;
	if (o->buildids) {
		buildinject_init(&bi, &r->info, emit_buildid, &j, true);
		j.bi = &bi;
	}
	int ret = perfdata_for_each(r, on_record, &j);
	if (!ret && !j.started)
		ret = start(&j);
	if (!ret)
		ret = flush_until(&j, UINT64_MAX);
	while (j.n)
		free(heap_pop(&j).rec);
	free(j.heap);
	free(j.pids);
	for (size_t i = 0; i < j.nmarkers; i++)
		free(j.markers[i].path);
	free(j.markers);
	free(j.buf);
	if (j.bi) {
		res->stats.buildids = bi.added;
		buildinject_free(&bi);
	}
	return ret ? -1 : 0;
}

void jitinject_result_free(struct jitinject_result *res)
{
	notes_clear(&res->warnings);
	notes_clear(&res->notes);
	memset(res, 0, sizeof(*res));
}
