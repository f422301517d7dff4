/* The recorder: what `lperf record` does with each record on its way into a perf.data writer
 * (counting samples and losses, noting the executables, processes and jitdumps it maps) and what
 * it adds at the end (build-ids, the JIT symbol sources, the sample times). */
#include "perfdata/recorder.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbols/buildid_cache.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "symbols/jitdump.h"
#include "symbols/ksnap.h"
#include "symbols/perfmap.h"
#include "util/error.h"
#include "util/xalloc.h"


static void remember_pid(struct recorder *c, pid_t pid)
{
	if (pid <= 0)
		return;
	for (size_t i = c->npids; i-- > 0;)
		if (c->pids[i] == pid)
			return;
	ALLOC_GROW(c->pids, c->npids + 1, c->pidcap);
	c->pids[c->npids++] = pid;
}

static void remember_dump(struct recorder *c, pid_t pid, const char *path)
{
	for (size_t i = 0; i < c->ndumps; i++)
		if (!strcmp(c->dumps[i], path))
			return;
	ALLOC_GROW(c->dumps, c->ndumps + 1, c->dcap);
	c->dump_pids = xrealloc(c->dump_pids, c->dcap * sizeof(pid_t));
	c->dump_pids[c->ndumps] = pid;
	c->dumps[c->ndumps++] = xstrdup(path);
}

/* What a recording stores of JIT symbol files in all: a runtime (or another user) can make them
 * huge, and they are held in memory until the recording is written. */
#define JIT_STORE_MAX ((uint64_t)256 << 20)

/* One JIT symbol file into the recording, within what is left of JIT_STORE_MAX. */
static void store_one(struct recorder *c, uint32_t kind, pid_t pid, const char *path, bool force, uint64_t *left)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return;
	if ((uint64_t)st.st_size > *left) {
		notes_add(&c->warnings, "%s: %llu MiB not stored in the recording (it keeps at most %llu MiB of JIT "
			  "symbol files): reports read the file itself while it is there", path,
			  (unsigned long long)(st.st_size >> 20), (unsigned long long)(JIT_STORE_MAX >> 20));
		return;
	}
	char *buf;
	size_t len;
	int r = perfmap_read_file(path, force, &buf, &len);
	if (r > 0 && len <= *left) {
		perfdata_writer_add_jit_source(c->w, kind, pid, buf, len);
		*left -= len;
	}
	if (r > 0)
		free(buf);
	else if (r < 0)
		notes_add(&c->warnings, "%s (use -f to store it anyway)", err_msg());
}

/* The JIT symbol sources of the recorded processes go into the recording, so that reports give
 * the same names after /tmp is cleaned or the files are rewritten. */
static void store_jit_sources(struct recorder *c, bool force)
{
	uint64_t left = JIT_STORE_MAX;
	for (size_t i = 0; i < c->npids; i++) {
		char *path = perfmap_path(c->pids[i]);
		store_one(c, JIT_SRC_PERFMAP, c->pids[i], path, force, &left);
		free(path);
	}
	for (size_t i = 0; i < c->ndumps; i++)
		store_one(c, JIT_SRC_JITDUMP, c->dump_pids[i], c->dumps[i], force, &left);
}

int recorder_record(const struct perf_event_header *h, void *arg)
{
	struct recorder *c = arg;
	c->records++;
	dsohits_record(&c->hits, &c->evsels, h);
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		c->samples++;
		struct perf_sample s;
		/* Stack copies keep only what the kernel filled (dyn_size): often a small part. */
		if (sample_parse(&c->evsels, h, &s) == 0 && s.user_stack) {
			size_t n = record_trim_stack(h, &s, c->trim);
			if (n) {
				c->trimmed_bytes += h->size - n;
				h = (const struct perf_event_header *)c->trim;
			}
		}
		uint64_t t = record_time(&c->evsels, h);
		if (t && (!c->first_time || t < c->first_time))
			c->first_time = t;
		if (t > c->last_time)
			c->last_time = t;
		break;
	}
	case PERF_RECORD_LOST: {
		struct rec_lost l;
		if (record_parse_lost(h, &l) == 0)
			c->lost += l.lost;
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		struct rec_lost l;
		if (record_parse_lost(h, &l) == 0)
			c->lost_samples += l.lost;
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct rec_mmap m;
		if (record_parse_mmap(h, &m) == 0) {
			if (perfmap_covers_mapping(m.filename, m.prot))
				remember_pid(c, (pid_t)m.pid);
			if (jitdump_is_marker(m.filename, NULL))
				remember_dump(c, (pid_t)m.pid, m.filename);
		}
		break;
	}
	case PERF_RECORD_COMM: {
		struct rec_comm cm;
		if (record_parse_comm(h, &cm) == 0)
			remember_pid(c, (pid_t)cm.pid);
		break;
	}
	default:
		break;
	}
	if (c->watch && h->type != PERF_RECORD_SAMPLE)
		c->watch(c->watch_arg, h);
	size_t size = h->size; /* AUXTRACE (SPE data) carries its data after the record */
	if (h->type == REC_AUXTRACE && h->size >= 16)
		size += (size_t)((const uint64_t *)(const void *)h)[1];
	if (perfdata_writer_write(c->w, h, size) < 0) {
		c->error = 1;
		return -1;
	}
	return 0;
}


struct recorder *recorder_new(struct perfdata_writer *w, const struct evsel_set *evsels)
{
	struct recorder *c = xcalloc(1, sizeof(*c));
	c->w = w;
	c->evsels = *evsels;
	return c;
}

static size_t dso_build_id(const struct dsohit_dso *d, uint8_t id[20])
{
	if (d->cpumode == PERF_RECORD_MISC_KERNEL)
		return buildid_kernel(id);
	if (!strcmp(d->name, "[vdso]"))
		return buildid_vdso(id);
	return buildid_of_file(d->name, id);
}

static void add_buildids(struct recorder *c, bool kernel)
{
	for (size_t i = 0; i < c->hits.ndsos; i++) {
		const struct dsohit_dso *d = &c->hits.dsos[i];
		uint8_t id[20];
		size_t n;
		if ((d->cpumode == PERF_RECORD_MISC_KERNEL) != kernel ||
		    (!d->hit && c->buildids != RECORDER_BUILDIDS_ALL) || !(n = dso_build_id(d, id)))
			continue;
		/* pid -1: the host machine (perf reads any other pid as a guest's) */
		perfdata_writer_add_buildid(c->w, -1, d->cpumode, id, n, d->name);
		if (c->buildid_cache)
			buildid_cache_add(d->name, id, n, NULL, NULL);
	}
}

/* Kernel code was sampled: the report will want the kernel's symbols. */
static bool kernel_hit(const struct recorder *c)
{
	for (size_t i = 0; i < c->hits.ndsos; i++)
		if (c->hits.dsos[i].cpumode == PERF_RECORD_MISC_KERNEL && c->hits.dsos[i].hit)
			return true;
	return false;
}

void recorder_finish(struct recorder *c, bool force)
{
	if (c->buildids != RECORDER_BUILDIDS_NONE) { /* the kernel first, as perf writes them */
		add_buildids(c, true);
		add_buildids(c, false);
	}
	/* The kernel symbol snapshot a report reads instead of /proc/kallsyms, as perf record
	 * stores kallsyms: its first report then starts from it. */
	if (c->buildid_cache && c->buildids != RECORDER_BUILDIDS_NONE && !c->ksnap_checked && kernel_hit(c)) {
		c->ksnap_checked = true;
		ksnap_refresh();
	}
	store_jit_sources(c, force);
	perfdata_writer_set_sample_times(c->w, c->first_time, c->last_time);
	/* The samples the ring buffers lost, as the total perf record writes at its end (a
	 * LOST_SAMPLES record): perf report's '# Total Lost Samples' counts those only. */
	if (c->lost > c->lost_samples && c->evsels.n) {
		uint8_t buf[256] __attribute__((aligned(8)));
		struct rec_lost l = { 0, c->lost - c->lost_samples };
		size_t n = record_build_lost(buf, sizeof(buf), &c->evsels.v[0].attr, PERF_RECORD_LOST_SAMPLES, &l);
		if (n && perfdata_writer_write(c->w, buf, n) == 0)
			c->lost_samples = c->lost;
	}
	/* Which of those the profile did not lose (LPERF_LOST), for report to say what record says. */
	uint64_t lost = c->lost > c->lost_samples ? c->lost : c->lost_samples;
	perfdata_writer_set_lost_replaced(c->w, c->lost_replaced < lost ? c->lost_replaced : lost);
}

void recorder_free(struct recorder *c)
{
	dsohits_free(&c->hits);
	free(c->pids);
	for (size_t i = 0; i < c->ndumps; i++)
		free(c->dumps[i]);
	free(c->dumps);
	free(c->dump_pids);
	notes_clear(&c->warnings);
	free(c);
}
