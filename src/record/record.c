/* Events of a recording (evsel sets, names) and the side-band record parsers. Samples are
 * parsed in sample.c, records are built in build.c. */
#include "record/record.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "events/generic.h"
#include "events/tracepoint.h"
#include "record/recutil.h"
#include "util/error.h"
#include "util/xalloc.h"

struct evsel_id {
	uint64_t id;
	size_t idx;
};

static int id_cmp(const void *a, const void *b)
{
	const struct evsel_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

void evsel_set_index(struct evsel_set *s)
{
	free(s->byid);
	s->byid = NULL;
	s->nbyid = 0;
	s->byid_nev = s->n;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].nids;
	if (!n)
		return;
	s->byid = xmalloc(n * sizeof(*s->byid));
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->v[i].nids; j++)
			s->byid[s->nbyid++] = (struct evsel_id){ s->v[i].ids[j], i };
	qsort(s->byid, s->nbyid, sizeof(*s->byid), id_cmp);
}

const struct evsel *evsel_by_id(const struct evsel_set *s, uint64_t id)
{
	if (!s || !s->n)
		return NULL;
	/* perf gives synthesized records (id 0) to the first event, and one event needs no id. */
	if (s->n == 1 || id == 0)
		return &s->v[0];
	if (s->byid && s->byid_nev == s->n) {
		size_t lo = 0, hi = s->nbyid;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->byid[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->nbyid && s->byid[lo].id == id && s->byid[lo].idx < s->n)
			return &s->v[s->byid[lo].idx];
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->v[i].nids; j++)
			if (s->v[i].ids[j] == id)
				return &s->v[i];
	return NULL;
}

struct evsel *evsel_set_add(struct evsel_set *s, const struct perf_event_attr *attr, const char *name,
			    const uint64_t *ids, size_t nids)
{
	/* capacity: the next power of two */
	if (!(s->n & (s->n - 1)))
		s->v = xrealloc(s->v, (s->n ? 2 * s->n : 1) * sizeof(*s->v));
	struct evsel *e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->name = name ? xstrdup(name) : evsel_default_name(attr);
	if (nids) {
		e->ids = xmalloc(nids * sizeof(*ids));
		memcpy(e->ids, ids, nids * sizeof(*ids));
		e->nids = nids;
	}
	e->idx = (int)s->n;
	s->n++;
	return e;
}

void evsel_set_free(struct evsel_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].ids);
	}
	free(s->v);
	free(s->byid);
	memset(s, 0, sizeof(*s));
}

/* perf's evsel__hw_names and evsel__sw_names (util/evsel.c): the names perf shows for an
 * event, which are not always the spellings its parser takes first. */
static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches", "branch-misses",
	"bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

/* perf's evsel__add_modifiers, without the host/guest letters that only matter for KVM. */
static void add_modifiers(char *buf, size_t size, const struct perf_event_attr *a)
{
	char mod[8];
	size_t n = 0;
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mod[n++] = 'k';
		if (!a->exclude_user)
			mod[n++] = 'u';
		if (!a->exclude_hv)
			mod[n++] = 'h';
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		mod[n++] = 'p';
	mod[n] = 0;
	if (n) {
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, ":%s", mod);
	}
}

struct tp_find {
	uint64_t id;
	char *name;
};

static void tp_match(const char *name, uint64_t id, void *arg)
{
	struct tp_find *f = arg;
	if (id == f->id && !f->name)
		f->name = xstrdup(name);
}

char *evsel_default_name(const struct perf_event_attr *a)
{
	char buf[128];
	uint64_t c = a->config;
	buf[0] = 0;
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (c < ARRAY_SIZE(hw_names))
			snprintf(buf, sizeof(buf), "%s", hw_names[c]);
		break;
	case PERF_TYPE_SOFTWARE:
		if (c < ARRAY_SIZE(sw_names))
			snprintf(buf, sizeof(buf), "%s", sw_names[c]);
		break;
	case PERF_TYPE_HW_CACHE: {
		struct generic_cache_name names[64];
		size_t n = generic_cache_names(names, ARRAY_SIZE(names));
		for (size_t i = 0; i < n && i < ARRAY_SIZE(names); i++)
			if (names[i].config == c)
				snprintf(buf, sizeof(buf), "%.*s", (int)sizeof(names[i].name), names[i].name);
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(buf, sizeof(buf), "raw 0x%" PRIx64, (uint64_t)c);
		break;
	case PERF_TYPE_BREAKPOINT: {
		uint32_t t = a->bp_type;
		snprintf(buf, sizeof(buf), "mem:0x%" PRIx64 ":%s%s%s", (uint64_t)a->bp_addr, t & 1 ? "r" : "",
			 t & 2 ? "w" : "", t & 4 ? "x" : "");
		break;
	}
	case PERF_TYPE_TRACEPOINT: {
		/* Without EVENT_DESC the only name is this machine's tracefs; perf says
		 * "unknown tracepoint". */
		struct tp_find f = { c, NULL };
		tp_for_each(tp_match, &f);
		if (f.name) {
			snprintf(buf, sizeof(buf), "%s", f.name);
			free(f.name);
		} else {
			snprintf(buf, sizeof(buf), "tracepoint %" PRIu64, (uint64_t)c);
		}
		break;
	}
	default:
		break;
	}
	if (!buf[0])
		snprintf(buf, sizeof(buf), "type %u config 0x%" PRIx64, a->type, (uint64_t)c);
	add_modifiers(buf, sizeof(buf), a);
	return xstrdup(buf);
}

static const char *const type_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[REC_HEADER_ATTR] = "HEADER_ATTR",
	[REC_EVENT_TYPE] = "EVENT_TYPE",
	[REC_TRACING_DATA] = "TRACING_DATA",
	[REC_BUILD_ID] = "BUILD_ID",
	[REC_FINISHED_ROUND] = "FINISHED_ROUND",
	[REC_ID_INDEX] = "ID_INDEX",
	[REC_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[REC_AUXTRACE] = "AUXTRACE",
	[REC_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[REC_THREAD_MAP] = "THREAD_MAP",
	[REC_CPU_MAP] = "CPU_MAP",
	[REC_STAT_CONFIG] = "STAT_CONFIG",
	[REC_STAT] = "STAT",
	[REC_STAT_ROUND] = "STAT_ROUND",
	[REC_EVENT_UPDATE] = "EVENT_UPDATE",
	[REC_TIME_CONV] = "TIME_CONV",
	[REC_HEADER_FEATURE] = "HEADER_FEATURE",
	[REC_COMPRESSED] = "COMPRESSED",
	[REC_FINISHED_INIT] = "FINISHED_INIT",
};

const char *record_type_name(uint32_t type)
{
	static __thread char buf[24];
	if (type < ARRAY_SIZE(type_names) && type_names[type])
		return type_names[type];
	snprintf(buf, sizeof(buf), "type %u", type);
	return buf;
}

static int check_type(const struct perf_event_header *h, uint32_t a, uint32_t b, const char *what)
{
	if (h->type != a && h->type != b)
		return err_set("%s record expected, got %s", what, record_type_name(h->type));
	return 0;
}

static int check_size(const struct perf_event_header *h, size_t need)
{
	if (h->size < need)
		return err_set("%s record of %u bytes is shorter than its %zu fixed bytes",
			       record_type_name(h->type), h->size, need);
	return 0;
}

/* The string at off must end inside the record (the trailer, if any, follows it). */
static const char *record_string(const struct perf_event_header *h, size_t off, const char *field)
{
	const char *p = (const char *)h + off;
	if (off >= h->size || !memchr(p, 0, h->size - off)) {
		err_set("%s record: %s at byte %zu is not NUL-terminated within the record's %u bytes",
			record_type_name(h->type), field, off, h->size);
		return NULL;
	}
	return p;
}

int record_parse_mmap(const struct perf_event_header *h, struct rec_mmap *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (check_type(h, PERF_RECORD_MMAP, PERF_RECORD_MMAP2, "MMAP or MMAP2") < 0)
		return -1;
	size_t fname = h->type == PERF_RECORD_MMAP ? 40 : 72;
	if (check_size(h, fname) < 0)
		return -1;
	out->pid = ld32(p + 8);
	out->tid = ld32(p + 12);
	out->start = ld64(p + 16);
	out->len = ld64(p + 24);
	out->pgoff = ld64(p + 32);
	out->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	out->data = h->misc & PERF_RECORD_MISC_MMAP_DATA;
	if (h->type == PERF_RECORD_MMAP2) {
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			out->build_id_size = p[40];
			if (out->build_id_size > 20)
				return err_set("MMAP2 record: build-id size %u is larger than 20",
					       out->build_id_size);
			out->build_id = p + 44;
		} else {
			out->maj = ld32(p + 40);
			out->min = ld32(p + 44);
			out->ino = ld64(p + 48);
			out->ino_generation = ld64(p + 56);
		}
		out->prot = ld32(p + 64);
		out->flags = ld32(p + 68);
	} else {
		out->prot = out->data ? PROT_READ : PROT_READ | PROT_EXEC;
	}
	out->filename = record_string(h, fname, "filename");
	return out->filename ? 0 : -1;
}

int record_parse_comm(const struct perf_event_header *h, struct rec_comm *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (check_type(h, PERF_RECORD_COMM, PERF_RECORD_COMM, "COMM") < 0 || check_size(h, 16) < 0)
		return -1;
	out->pid = ld32(p + 8);
	out->tid = ld32(p + 12);
	out->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
	out->comm = record_string(h, 16, "comm");
	return out->comm ? 0 : -1;
}

int record_parse_task(const struct perf_event_header *h, struct rec_task *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (check_type(h, PERF_RECORD_FORK, PERF_RECORD_EXIT, "FORK or EXIT") < 0 || check_size(h, 32) < 0)
		return -1;
	out->pid = ld32(p + 8);
	out->ppid = ld32(p + 12);
	out->tid = ld32(p + 16);
	out->ptid = ld32(p + 20);
	out->time = ld64(p + 24);
	return 0;
}

int record_parse_lost(const struct perf_event_header *h, struct rec_lost *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (check_type(h, PERF_RECORD_LOST, PERF_RECORD_LOST_SAMPLES, "LOST or LOST_SAMPLES") < 0)
		return -1;
	if (h->type == PERF_RECORD_LOST) {
		if (check_size(h, 24) < 0)
			return -1;
		out->id = ld64(p + 8);
		out->lost = ld64(p + 16);
	} else {
		if (check_size(h, 16) < 0)
			return -1;
		out->lost = ld64(p + 8);
	}
	return 0;
}
