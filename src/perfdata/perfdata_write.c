/* The perf.data writer. The layout is perf's: the 104-byte header, the attrs (each with the
 * offset and size of its ids), the ids, the data section streamed through a buffer, then the
 * feature table and sections. Everything goes to a temporary next to PATH (util/outfile.h: a new
 * file of this user's, never another user's link) renamed into place when complete, so a reader
 * never sees half a file. PATH "-" writes perf's pipe mode to standard
 * output instead (and so does a PATH that is an existing FIFO or device): a 16-byte header, then
 * the events and features as records ahead of the data. */
#include "perfdata/perfdata.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "perfdata/compress.h"
#include "perfdata/perfdata_int.h"
#include "record/recutil.h"
#include "sysinfo/buildinfo.h"
#include "sysinfo/sysinfo.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define WBUF_SIZE (256u << 10)
/* perf_file_attr: the attr as perf 6.1 knows it (128 bytes), then its ids section. */
#define FILE_ATTR_SIZE (sizeof(struct perf_event_attr) + 16)

struct perfdata_writer {
	char *path, *tmp;        /* tmp: the name errors give (the path, or standard output) */
	struct outfile out;      /* the file's temporary (has_out), or a device/FIFO in place */
	bool has_out;
	int fd;
	bool pipe;
	bool started, failed;
	struct evsel_set events;
	uint8_t *buf;
	size_t buflen;
	uint64_t pos;            /* file offset of buf[0] */
	uint64_t data_offset;
	char **cmdline;
	size_t ncmdline;
	struct perfdata_buildid *bids;
	size_t nbids;
	uint64_t first, last;
	bool times_set, times_seen;
	struct perfdata_jit_source *jit;
	size_t njit;
	struct perfdata_comp *comp;  /* -z: records are batched and written as COMPRESSED records */
	int comp_level;
	uint8_t *zbatch, *zout;
	size_t zlen, zcap, zout_len, zout_cap;
	char *cpuid;             /* CPUID feature; Arm SPE decoding reads the MIDR from it */
	struct perfdata_group *groups; /* GROUP_DESC */
	size_t ngroups;
	uint8_t *tracing;        /* TRACING_DATA: the tracepoints' formats (events/tracedata.h) */
	size_t tracing_len;
	bool stat;               /* STAT: a perf stat record file (a flag, no content) */
	bool wall;               /* LPERF_WALL: a record --wall file (u32 version 1) */
	uint64_t lost_replaced;  /* LPERF_LOST when not 0 */
};

/* The most record bytes one COMPRESSED batch holds: perf reads it back into a buffer of the
 * size HEADER_COMPRESSED gives (its mmap_len). */
#define ZBATCH_MAX (512 * 1024)

struct perfdata_writer *perfdata_writer_open(const char *path)
{
	struct perfdata_writer *w = xcalloc(1, sizeof(*w));
	if (!strcmp(path, "-")) {
		w->fd = dup(STDOUT_FILENO);
		if (w->fd < 0) {
			err_set("cannot write to standard output: %s", strerror(errno));
			free(w);
			return NULL;
		}
		w->path = xstrdup("<stdout>");
		w->pipe = true;
	} else {
		/* perf.data holds addresses and command lines: private, as perf makes it. An existing
		 * FIFO or device (/dev/null, /dev/full) is written to in pipe mode, as perf does. */
		if (outfile_open(&w->out, path, 0600) < 0) {
			free(w);
			return NULL;
		}
		w->has_out = true;
		w->fd = w->out.fd;
		w->pipe = outfile_in_place(&w->out);
		w->path = xstrdup(path);
	}
	w->tmp = xstrdup(w->path);
	w->buf = xmalloc(WBUF_SIZE);
	return w;
}

int perfdata_writer_add_event(struct perfdata_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nids)
{
	if (w->started)
		return err_set("%s: events must be added before the first record", w->path);
	evsel_set_add(&w->events, attr, name, ids, nids);
	return 0;
}

static int write_all(struct perfdata_writer *w, const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n) {
		ssize_t got = write(w->fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			w->failed = true;
			return err_set("cannot write '%s': %s", w->tmp, strerror(errno));
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

static int wflush(struct perfdata_writer *w)
{
	if (!w->buflen)
		return 0;
	if (write_all(w, w->buf, w->buflen) < 0)
		return -1;
	w->pos += w->buflen;
	w->buflen = 0;
	return 0;
}

static int wput(struct perfdata_writer *w, const void *data, size_t n)
{
	if (w->failed)
		return err_set("cannot write '%s': an earlier write failed", w->tmp);
	if (!n)
		return 0;
	if (n > WBUF_SIZE - w->buflen && wflush(w) < 0)
		return -1;
	if (n >= WBUF_SIZE) {
		if (write_all(w, data, n) < 0)
			return -1;
		w->pos += n;
		return 0;
	}
	memcpy(w->buf + w->buflen, data, n);
	w->buflen += n;
	return 0;
}

static uint64_t wtell(const struct perfdata_writer *w)
{
	return w->pos + w->buflen;
}

/* perf reads samples of several events only when it can find their id at one place. */
static int check_events(const struct perfdata_writer *w)
{
	const struct evsel_set *s = &w->events;
	if (!s->n)
		return err_set("%s: no events to record", w->path);
	for (size_t i = 1; i < s->n; i++) {
		const struct perf_event_attr *a = &s->v[0].attr, *b = &s->v[i].attr;
		if (a->sample_id_all != b->sample_id_all)
			return err_set("%s: events %s and %s disagree on sample_id_all", w->path, s->v[0].name,
				       s->v[i].name);
		uint64_t x = a->sample_type, y = b->sample_type;
		bool identifier = x & y & PERF_SAMPLE_IDENTIFIER;
		bool same_id = x & y & PERF_SAMPLE_ID && rec_sample_id_off(x) == rec_sample_id_off(y) &&
			       rec_trailer_id_back(x) == rec_trailer_id_back(y);
		if (!identifier && !same_id)
			return err_set("%s: %zu events need PERF_SAMPLE_IDENTIFIER in every sample_type so that "
				       "readers can tell their samples apart (%s lacks it)", w->path, s->n,
				       x & PERF_SAMPLE_IDENTIFIER ? s->v[i].name : s->v[0].name);
	}
	return 0;
}

static int start_pipe(struct perfdata_writer *w);

/* The header is a placeholder until close; the attrs and ids are final. */
static int start(struct perfdata_writer *w)
{
	if (w->started)
		return w->failed ? -1 : 0;
	w->started = true;
	if (check_events(w) < 0) {
		w->failed = true;
		return -1;
	}
	evsel_set_index(&w->events);
	if (w->pipe)
		return start_pipe(w);
	const struct evsel_set *s = &w->events;
	/* Until close writes the final header, the file says what it is: perf.data with a data
	 * size of 0 (as perf leaves a recording that was killed), no features. */
	uint64_t header[PERFDATA_HEADER_SIZE / 8] = {
		PERFDATA_MAGIC, PERFDATA_HEADER_SIZE, FILE_ATTR_SIZE, PERFDATA_HEADER_SIZE,
		s->n * FILE_ATTR_SIZE, 0, 0,
	};
	uint64_t ids_total = 0;
	for (size_t i = 0; i < s->n; i++)
		ids_total += s->v[i].nids * 8;
	header[5] = PERFDATA_HEADER_SIZE + s->n * FILE_ATTR_SIZE + ids_total;
	if (wput(w, header, sizeof(header)) < 0)
		return -1;
	uint64_t ids_off = PERFDATA_HEADER_SIZE + s->n * FILE_ATTR_SIZE;
	for (size_t i = 0; i < s->n; i++) {
		struct perf_event_attr a = s->v[i].attr;
		uint64_t sec[2] = { ids_off, s->v[i].nids * 8 };
		a.size = sizeof(a);
		if (wput(w, &a, sizeof(a)) < 0 || wput(w, sec, sizeof(sec)) < 0)
			return -1;
		ids_off += sec[1];
	}
	for (size_t i = 0; i < s->n; i++)
		if (wput(w, s->v[i].ids, s->v[i].nids * 8) < 0)
			return -1;
	w->data_offset = wtell(w);
	return 0;
}

int perfdata_writer_compress(struct perfdata_writer *w, int level)
{
	if (w->pipe)
		return err_set("%s: compressed records (-z) need a file, not a pipe", w->path);
	if (level < 1 || level > 22)
		return err_set("compression level %d is not 1..22", level);
	if (!w->comp && !(w->comp = perfdata_comp_new(level)))
		return -1;
	w->comp_level = level;
	return 0;
}

/* The batch of records so far, compressed into COMPRESSED records and written. */
static int zflush(struct perfdata_writer *w)
{
	if (!w->zlen)
		return 0;
	w->zout_len = 0;
	if (perfdata_comp_records(w->comp, w->zbatch, w->zlen, &w->zout, &w->zout_len, &w->zout_cap) < 0)
		return err_wrap("%s", w->path);
	w->zlen = 0;
	return wput(w, w->zout, w->zout_len);
}

/* -z: records wait in the batch; a FINISHED_ROUND goes out after the batch, uncompressed, as
 * perf writes it, so that readers order what came before it. */
static int zwrite(struct perfdata_writer *w, const void *rec, size_t size)
{
	const struct perf_event_header *h = rec;
	if (h->type == REC_FINISHED_ROUND)
		return zflush(w) < 0 ? -1 : wput(w, rec, size);
	if (w->zlen + size > ZBATCH_MAX && zflush(w) < 0)
		return -1;
	ALLOC_GROW(w->zbatch, w->zlen + size, w->zcap);
	memcpy(w->zbatch + w->zlen, rec, size);
	w->zlen += size;
	return 0;
}

int perfdata_writer_compression(struct perfdata_writer *w, uint64_t *raw, uint64_t *written)
{
	*raw = *written = 0;
	if (!w->comp)
		return 0;
	int ret = w->started ? zflush(w) : 0;
	perfdata_comp_totals(w->comp, raw, written);
	return ret;
}

int perfdata_writer_write(struct perfdata_writer *w, const void *rec, size_t size)
{
	if (start(w) < 0)
		return -1;
	if (size < sizeof(struct perf_event_header))
		return err_set("%s: a record of %zu bytes is smaller than its header", w->path, size);
	const struct perf_event_header *h = rec;
	if (h->type == PERF_RECORD_SAMPLE && !w->times_set && size >= h->size) {
		uint64_t t = record_time(&w->events, h);
		if (t) {
			if (!w->times_seen || t < w->first)
				w->first = t;
			if (!w->times_seen || t > w->last)
				w->last = t;
			w->times_seen = true;
		}
	}
	return w->comp ? zwrite(w, rec, size) : wput(w, rec, size);
}

uint64_t perfdata_writer_bytes(const struct perfdata_writer *w)
{
	return wtell(w);
}

void perfdata_writer_set_cmdline(struct perfdata_writer *w, int argc, char **argv)
{
	for (size_t i = 0; i < w->ncmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	w->ncmdline = argc > 0 ? (size_t)argc : 1;
	w->cmdline = xcalloc(w->ncmdline, sizeof(*w->cmdline));
	/* perf stores its own path first, then its arguments */
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = 0;
	else
		snprintf(exe, sizeof(exe), "%s", argc > 0 && argv[0] ? argv[0] : "lperf");
	w->cmdline[0] = xstrdup(exe);
	for (int i = 1; i < argc; i++)
		w->cmdline[i] = xstrdup(argv[i] ? argv[i] : "");
}

void perfdata_writer_add_buildid(struct perfdata_writer *w, int32_t pid, uint8_t cpumode,
				 const uint8_t *id, size_t size, const char *filename)
{
	struct perfdata_buildid b = { pid, cpumode, { 0 }, (uint8_t)(size > 20 ? 20 : size), xstrdup(filename) };
	memcpy(b.id, id, b.size);
	w->bids = xrealloc(w->bids, (w->nbids + 1) * sizeof(*w->bids));
	w->bids[w->nbids++] = b;
}

void perfdata_writer_add_jit_source(struct perfdata_writer *w, uint32_t kind, int32_t pid,
				    const void *data, size_t size)
{
	w->jit = xrealloc(w->jit, (w->njit + 1) * sizeof(*w->jit));
	struct perfdata_jit_source *js = &w->jit[w->njit++];
	js->kind = kind;
	js->pid = pid;
	js->size = size;
	js->data = xmalloc(size ? size : 1);
	memcpy(js->data, data, size);
}

void perfdata_writer_set_sample_times(struct perfdata_writer *w, uint64_t first, uint64_t last)
{
	w->first = first;
	w->last = last;
	w->times_set = true;
}

void perfdata_writer_add_group(struct perfdata_writer *w, const char *name, uint32_t leader, uint32_t nr)
{
	w->groups = xrealloc(w->groups, (w->ngroups + 1) * sizeof(*w->groups));
	w->groups[w->ngroups++] = (struct perfdata_group){ xstrdup(name ? name : "{anon_group}"), leader, nr };
}

int perfdata_writer_set_tracing_data(struct perfdata_writer *w, const void *data, size_t len)
{
	if (w->started)
		return err_set("%s: tracing data must be added before the first record", w->path);
	free(w->tracing);
	w->tracing = xmalloc(len ? len : 1);
	memcpy(w->tracing, data, len);
	w->tracing_len = len;
	return 0;
}

void perfdata_writer_set_cpuid(struct perfdata_writer *w, const char *cpuid)
{
	free(w->cpuid);
	w->cpuid = cpuid ? xstrdup(cpuid) : NULL;
}

static void writer_free(struct perfdata_writer *w)
{
	free(w->cpuid);
	free(w->tracing);
	for (size_t i = 0; i < w->ngroups; i++)
		free(w->groups[i].name);
	free(w->groups);
	if (w->has_out)
		outfile_abort(&w->out);
	else if (w->fd >= 0)
		close(w->fd);
	free(w->path);
	free(w->tmp);
	free(w->buf);
	evsel_set_free(&w->events);
	for (size_t i = 0; i < w->ncmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	for (size_t i = 0; i < w->nbids; i++)
		free(w->bids[i].filename);
	free(w->bids);
	for (size_t i = 0; i < w->njit; i++)
		free(w->jit[i].data);
	free(w->jit);
	perfdata_comp_free(w->comp);
	free(w->zbatch);
	free(w->zout);
	free(w);
}

/* Feature sections, in perf's formats (util/header.c write_* functions). */
/* /proc/cpuinfo's "model name" with runs of spaces squashed, as perf's __write_cpudesc; NULL
 * where the line does not exist (perf then leaves the feature out). */
static char *cpu_desc(void)
{
	char *text = file_read("/proc/cpuinfo", 1 << 22, NULL);
	if (!text)
		return NULL;
	char *desc = NULL;
	for (char *line = text; line && *line && !desc;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(line, "model name", 10)) {
			char *v = strchr(line, ':');
			v = v ? v + 1 : line;
			while (*v == ' ' || *v == '\t')
				v++;
			struct strbuf sb = STRBUF_INIT;
			for (; *v; v++)
				if (!(isspace((unsigned char)*v) && sb.len && sb.buf[sb.len - 1] == ' '))
					sb_addc(&sb, isspace((unsigned char)*v) ? ' ' : *v);
			desc = sb_detach(&sb);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return desc;
}

static uint64_t total_mem_kb(void)
{
	char *text = file_read("/proc/meminfo", 1 << 16, NULL);
	uint64_t kb = 0;
	if (text) {
		char *p = strstr(text, "MemTotal:");
		if (p)
			kb = strtoull(p + 9, NULL, 10);
		free(text);
	}
	return kb;
}

/* perf writes the number of present CPUs (highest + 1), then the online count. */
static void nrcpus(uint32_t *avail, uint32_t *online)
{
	long on = sysconf(_SC_NPROCESSORS_ONLN), conf = sysconf(_SC_NPROCESSORS_CONF);
	*online = on > 0 ? (uint32_t)on : 1;
	*avail = conf > 0 ? (uint32_t)conf : *online;
	char *text = sysfs_read("devices/system/cpu/present");
	if (text) {
		text[strcspn(text, "\n")] = 0;
		struct cpuset set;
		if (cpuset_parse(text, &set) == 0 && set.n)
			*avail = (uint32_t)set.cpu[set.n - 1] + 1;
		cpuset_free(&set);
		free(text);
	}
}

static void feat_event_desc(const struct perfdata_writer *w, struct strbuf *sb)
{
	const struct evsel_set *s = &w->events;
	fput32(sb, (uint32_t)s->n);
	fput32(sb, sizeof(struct perf_event_attr));
	for (size_t i = 0; i < s->n; i++) {
		struct perf_event_attr a = s->v[i].attr;
		a.size = sizeof(a);
		sb_add(sb, &a, sizeof(a));
		fput32(sb, (uint32_t)s->v[i].nids);
		fput_string(sb, s->v[i].name ? s->v[i].name : "");
		if (s->v[i].nids)
			sb_add(sb, s->v[i].ids, s->v[i].nids * 8);
	}
}

/* perf's write_buildid: {header (misc = cpumode | BUILD_ID_SIZE, size); pid; build_id[20];
 * size; 3 reserved} and the file name padded to 64. */
static void feat_build_id(const struct perfdata_writer *w, struct strbuf *sb)
{
	static const char zeros[PERFDATA_NAME_ALIGN];
	for (size_t i = 0; i < w->nbids; i++) {
		const struct perfdata_buildid *b = &w->bids[i];
		size_t n = strlen(b->filename) + 1;
		size_t len = (n + PERFDATA_NAME_ALIGN - 1) / PERFDATA_NAME_ALIGN * PERFDATA_NAME_ALIGN;
		struct perf_event_header h = { REC_BUILD_ID, (uint16_t)(b->cpumode | REC_MISC_BUILD_ID_SIZE),
					       (uint16_t)(36 + len) };
		uint8_t id[24] = { 0 };
		memcpy(id, b->id, 20);
		id[20] = b->size;
		sb_add(sb, &h, sizeof(h));
		fput32(sb, (uint32_t)b->pid);
		sb_add(sb, id, sizeof(id));
		sb_add(sb, b->filename, n);
		sb_add(sb, zeros, len - n);
	}
}

static bool uses_clockid(const struct perfdata_writer *w, int *clockid)
{
	for (size_t i = 0; i < w->events.n; i++) {
		if (w->events.v[i].attr.use_clockid) {
			*clockid = w->events.v[i].attr.clockid;
			return true;
		}
	}
	return false;
}

/* perf's CPUID on arm64: MIDR_EL1 as "0x%016lx" (perf's get_cpuid_str), when sysfs shows the
 * register; NULL elsewhere. */
static char *arm_midr_cpuid(void)
{
	struct sysinfo_cpu cpu;
	sysinfo_read_cpu(&cpu, NULL);
	char *r = NULL;
	if (cpu.have_midr && cpu.midr_source && !strcmp(cpu.midr_source, "sysfs midr_el1"))
		r = xasprintf("0x%016llx", (unsigned long long)cpu.midr);
	sysinfo_cpu_free(&cpu);
	return r;
}

struct feature {
	int bit;
	struct strbuf sb;
};

static void features(const struct perfdata_writer *w, struct feature *f, size_t *nf)
{
	struct utsname u;
	bool have_uts = uname(&u) == 0;
	size_t n = 0;
#define FEAT(b) (f[n].bit = (b), f[n].sb = (struct strbuf)STRBUF_INIT, &f[n++].sb)
	if (w->tracing) /* bit 1: the sections go in bit order */
		sb_add(FEAT(FEAT_TRACING_DATA), w->tracing, w->tracing_len);
	if (w->nbids)
		feat_build_id(w, FEAT(FEAT_BUILD_ID));
	if (have_uts) {
		fput_string(FEAT(FEAT_HOSTNAME), u.nodename);
		fput_string(FEAT(FEAT_OSRELEASE), u.release);
	}
	char version[64];
	snprintf(version, sizeof(version), "lperf %s", sysinfo_version());
	fput_string(FEAT(FEAT_VERSION), version);
	if (have_uts)
		fput_string(FEAT(FEAT_ARCH), u.machine);
	uint32_t avail, online;
	nrcpus(&avail, &online);
	struct strbuf *sb = FEAT(FEAT_NRCPUS);
	fput32(sb, avail);
	fput32(sb, online);
	char *desc = cpu_desc();
	if (desc)
		fput_string(FEAT(FEAT_CPUDESC), desc);
	free(desc);
	char *cpuid = w->cpuid ? xstrdup(w->cpuid) : arm_midr_cpuid();
	if (cpuid)
		fput_string(FEAT(FEAT_CPUID), cpuid);
	free(cpuid);
	uint64_t mem = total_mem_kb();
	if (mem)
		fput64(FEAT(FEAT_TOTAL_MEM), mem);
	sb = FEAT(FEAT_CMDLINE);
	if (w->ncmdline) {
		fput32(sb, (uint32_t)w->ncmdline);
		for (size_t i = 0; i < w->ncmdline; i++)
			fput_string(sb, w->cmdline[i]);
	} else {
		fput32(sb, 1);
		fput_string(sb, "lperf");
	}
	feat_event_desc(w, FEAT(FEAT_EVENT_DESC));
	perfdata_numa_feature(FEAT(FEAT_NUMA_TOPOLOGY));
	if (w->ngroups) { /* perf's GROUP_DESC: count, then name, leader index, members each */
		sb = FEAT(FEAT_GROUP_DESC);
		fput32(sb, (uint32_t)w->ngroups);
		for (size_t i = 0; i < w->ngroups; i++) {
			fput_string(sb, w->groups[i].name);
			fput32(sb, w->groups[i].leader);
			fput32(sb, w->groups[i].nr);
		}
	}
	if (w->times_set || w->times_seen) {
		sb = FEAT(FEAT_SAMPLE_TIME);
		fput64(sb, w->first);
		fput64(sb, w->last);
	}
	int clk;
	struct timespec res;
	if (uses_clockid(w, &clk) && clock_getres(clk, &res) == 0)
		fput64(FEAT(FEAT_CLOCKID), (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec);
	if (w->comp) {
		/* perf's layout: version 0, type 1 (zstd), level, ratio, mmap_len (the largest batch). */
		uint64_t raw, written;
		perfdata_comp_totals(w->comp, &raw, &written);
		sb = FEAT(FEAT_COMPRESSED);
		fput32(sb, 0);
		fput32(sb, 1);
		fput32(sb, (uint32_t)w->comp_level);
		fput32(sb, written ? (uint32_t)(raw / written) : 1);
		fput32(sb, ZBATCH_MAX);
	}
	if (w->stat)
		(void)FEAT(FEAT_STAT);
	if (w->wall)
		fput32(FEAT(FEAT_LPERF_WALL), 1);
	if (w->lost_replaced) {
		sb = FEAT(FEAT_LPERF_LOST);
		fput32(sb, 1);
		fput32(sb, 0);
		fput64(sb, w->lost_replaced);
	}
	if (w->njit) {
		sb = FEAT(FEAT_LPERF_JIT);
		fput32(sb, (uint32_t)w->njit);
		for (size_t i = 0; i < w->njit; i++) {
			fput32(sb, w->jit[i].kind);
			fput32(sb, (uint32_t)w->jit[i].pid);
			fput64(sb, w->jit[i].size);
			sb_add(sb, w->jit[i].data, w->jit[i].size);
			static const uint8_t zeros[8];
			sb_add(sb, zeros, (8 - w->jit[i].size % 8) % 8);
		}
	}
#undef FEAT
	*nf = n;
}

/* Pipe mode names events with EVENT_UPDATE records {header; u64 type NAME; u64 id; name padded
 * to 8}: perf 6.1 takes its pipe events' names from them, not from EVENT_DESC. */
static int pipe_names(struct perfdata_writer *w)
{
	static const uint8_t zeros[8];
	for (size_t i = 0; i < w->events.n; i++) {
		const struct evsel *e = &w->events.v[i];
		if (!e->name || !e->name[0] || !e->nids)
			continue;
		size_t n = strlen(e->name) + 1, padded = (n + 7) & ~(size_t)7;
		if (24 + padded > 0xffff)
			continue;
		struct perf_event_header h = { REC_EVENT_UPDATE, 0, (uint16_t)(24 + padded) };
		uint64_t head[2] = { PERFDATA_EVENT_UPDATE_NAME, e->ids[0] };
		if (wput(w, &h, sizeof(h)) < 0 || wput(w, head, sizeof(head)) < 0 || wput(w, e->name, n) < 0 ||
		    wput(w, zeros, padded - n) < 0)
			return -1;
	}
	return 0;
}

/* Pipe mode's tracing data: a HEADER_TRACING_DATA record {header; u32 size; pad} whose size counts
 * the data after it, padded to 8 bytes, as perf writes it and checks it. */
static int pipe_tracing(struct perfdata_writer *w)
{
	static const uint8_t zeros[8];
	size_t padded = (w->tracing_len + 7) & ~(size_t)7;
	if (padded > UINT32_MAX)
		return err_set("%s: %zu bytes of tracing data do not fit a pipe-mode record", w->path, w->tracing_len);
	struct { struct perf_event_header h; uint32_t size, pad; } rec = {
		{ REC_TRACING_DATA, 0, sizeof(rec) }, (uint32_t)padded, 0 };
	if (wput(w, &rec, sizeof(rec)) < 0 || wput(w, w->tracing, w->tracing_len) < 0)
		return -1;
	return wput(w, zeros, padded - w->tracing_len);
}

/* Pipe mode: perf_pipe_file_header, a HEADER_ATTR record per event (attr, then ids) and a
 * HEADER_FEATURE record per feature ({feat_id; content}) that fits a record. */
static int start_pipe(struct perfdata_writer *w)
{
	uint64_t header[2] = { PERFDATA_MAGIC, PERFDATA_PIPE_HEADER_SIZE };
	if (wput(w, header, sizeof(header)) < 0)
		return -1;
	for (size_t i = 0; i < w->events.n; i++) {
		const struct evsel *e = &w->events.v[i];
		size_t size = sizeof(struct perf_event_header) + sizeof(e->attr) + e->nids * 8;
		if (size > 0xffff)
			return err_set("%s: event %s has too many ids (%zu) for a pipe-mode record", w->path,
				       e->name, e->nids);
		struct perf_event_header h = { REC_HEADER_ATTR, 0, (uint16_t)size };
		struct perf_event_attr a = e->attr;
		a.size = sizeof(a);
		if (wput(w, &h, sizeof(h)) < 0 || wput(w, &a, sizeof(a)) < 0 || wput(w, e->ids, e->nids * 8) < 0)
			return -1;
	}
	if (pipe_names(w) < 0 || (w->tracing && pipe_tracing(w) < 0))
		return -1;
	struct feature f[FEAT_MAX];
	size_t nf;
	int ret = 0;
	features(w, f, &nf);
	for (size_t i = 0; i < nf; i++) {
		size_t size = sizeof(struct perf_event_header) + 8 + f[i].sb.len;
		struct perf_event_header h = { REC_HEADER_FEATURE, 0, (uint16_t)size };
		uint64_t feat = (uint64_t)f[i].bit;
		/* On a pipe perf 6.1 stops at a feature id it does not know ("wrong feature ID") and
		 * reads BUILD_ID from the file descriptor itself: neither may go out as a record. */
		bool pipe_safe = f[i].bit != FEAT_LPERF_JIT && f[i].bit != FEAT_LPERF_WALL && f[i].bit != FEAT_LPERF_LOST &&
				 f[i].bit != FEAT_BUILD_ID &&
				 f[i].bit != FEAT_TRACING_DATA; /* a HEADER_TRACING_DATA record instead */
		if (!ret && pipe_safe && size <= 0xffff &&
		    (wput(w, &h, sizeof(h)) < 0 || wput(w, &feat, sizeof(feat)) < 0 || wput(w, f[i].sb.buf, f[i].sb.len) < 0))
			ret = -1;
		sb_release(&f[i].sb);
	}
	w->data_offset = wtell(w);
	return ret;
}

/* The feature table and sections at the end of the data, then the final header at 0. */
static int finish(struct perfdata_writer *w)
{
	if (start(w) < 0 || (w->comp && zflush(w) < 0))
		return -1;
	if (w->pipe)
		return wflush(w);
	/* perf warns about a data size of 0 (a recording killed before its end); a round marker
	 * says "nothing happened" instead. */
	if (wtell(w) == w->data_offset) {
		struct perf_event_header round = { REC_FINISHED_ROUND, 0, sizeof(round) };
		if (wput(w, &round, sizeof(round)) < 0)
			return -1;
	}
	uint64_t data_size = wtell(w) - w->data_offset;
	struct feature f[FEAT_MAX];
	size_t nf;
	features(w, f, &nf);
	uint64_t off = wtell(w) + nf * 16, bits[4] = { 0 };
	int ret = 0;
	for (size_t i = 0; i < nf && !ret; i++) {
		uint64_t sec[2] = { off, f[i].sb.len };
		bits[f[i].bit / 64] |= 1ULL << (f[i].bit % 64);
		off += f[i].sb.len;
		ret = wput(w, sec, sizeof(sec));
	}
	for (size_t i = 0; i < nf; i++) {
		if (!ret)
			ret = wput(w, f[i].sb.buf, f[i].sb.len);
		sb_release(&f[i].sb);
	}
	if (ret || wflush(w) < 0)
		return -1;
	uint64_t h[PERFDATA_HEADER_SIZE / 8] = {
		PERFDATA_MAGIC, PERFDATA_HEADER_SIZE, FILE_ATTR_SIZE,
		PERFDATA_HEADER_SIZE, w->events.n * FILE_ATTR_SIZE,
		w->data_offset, data_size,
		0, 0,
		bits[0], bits[1], bits[2], bits[3],
	};
	if (pwrite(w->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return err_set("cannot write the header of '%s': %s", w->tmp, strerror(errno));
	if (fsync(w->fd) < 0)
		return err_set("cannot sync '%s': %s", w->tmp, strerror(errno));
	return 0;
}

int perfdata_writer_close(struct perfdata_writer *w, bool commit, bool keep_old)
{
	if (!w)
		return 0;
	int ret = commit || w->pipe ? finish(w) : 0;
	if (w->has_out) {
		w->has_out = false;
		w->fd = -1;
		if ((commit || w->pipe) && !ret)
			ret = outfile_commit(&w->out, keep_old && !w->pipe);
		else
			outfile_abort(&w->out);
	} else if (w->fd >= 0 && close(w->fd) < 0 && commit && !ret)
		ret = err_set("cannot close '%s': %s", w->tmp, strerror(errno));
	w->fd = -1;
	writer_free(w);
	return ret;
}

void perfdata_writer_set_wall(struct perfdata_writer *w)
{
	w->wall = true;
}

void perfdata_writer_set_lost_replaced(struct perfdata_writer *w, uint64_t n)
{
	w->lost_replaced = n;
}

void perfdata_writer_set_stat(struct perfdata_writer *w)
{
	w->stat = !w->pipe; /* a file's flag: perf writes no STAT feature on a pipe */
}
