/* perf.data feature sections (perf's util/header.c process_* functions): the strings, counts,
 * command line, event names and build-ids that lperf reads. Damage in a section is a note in
 * info, never a failure of the whole file. */
#include "perfdata/perfdata_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recutil.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char *const feat_names[] = {
	[FEAT_TRACING_DATA] = "TRACING_DATA", [FEAT_BUILD_ID] = "BUILD_ID", [FEAT_HOSTNAME] = "HOSTNAME",
	[FEAT_OSRELEASE] = "OSRELEASE", [FEAT_VERSION] = "VERSION", [FEAT_ARCH] = "ARCH",
	[FEAT_NRCPUS] = "NRCPUS", [FEAT_CPUDESC] = "CPUDESC", [FEAT_CPUID] = "CPUID",
	[FEAT_TOTAL_MEM] = "TOTAL_MEM", [FEAT_CMDLINE] = "CMDLINE", [FEAT_EVENT_DESC] = "EVENT_DESC",
	[FEAT_CPU_TOPOLOGY] = "CPU_TOPOLOGY", [FEAT_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[FEAT_BRANCH_STACK] = "BRANCH_STACK", [FEAT_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[FEAT_GROUP_DESC] = "GROUP_DESC", [FEAT_AUXTRACE] = "AUXTRACE", [FEAT_STAT] = "STAT",
	[FEAT_CACHE] = "CACHE", [FEAT_SAMPLE_TIME] = "SAMPLE_TIME", [FEAT_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[FEAT_CLOCKID] = "CLOCKID", [FEAT_LPERF_JIT] = "LPERF_JIT", [FEAT_LPERF_WALL] = "LPERF_WALL",
	[FEAT_LPERF_LOST] = "LPERF_LOST", [FEAT_DIR_FORMAT] = "DIR_FORMAT", [FEAT_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[FEAT_BPF_BTF] = "BPF_BTF", [FEAT_COMPRESSED] = "COMPRESSED", [FEAT_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[FEAT_CLOCK_DATA] = "CLOCK_DATA", [FEAT_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[FEAT_PMU_CAPS] = "PMU_CAPS",
};

const char *perfdata_feature_name(int bit)
{
	if (bit >= 0 && (size_t)bit < ARRAY_SIZE(feat_names) && feat_names[bit])
		return feat_names[bit];
	return "unknown feature";
}

void perfdata_info_free(struct perfdata_info *info)
{
	free(info->hostname);
	free(info->osrelease);
	free(info->version);
	free(info->arch);
	free(info->cpudesc);
	free(info->cpuid);
	free(info->cpu_node);
	for (size_t i = 0; i < info->ncmdline; i++)
		free(info->cmdline[i]);
	free(info->cmdline);
	for (size_t i = 0; i < info->nbuildids; i++)
		free(info->buildids[i].filename);
	free(info->buildids);
	for (size_t i = 0; i < info->njit_sources; i++)
		free(info->jit_sources[i].data);
	free(info->jit_sources);
	free(info->tracing_data);
	for (size_t i = 0; i < info->ngroups; i++)
		free(info->groups[i].name);
	free(info->groups);
	notes_clear(&info->notes);
	memset(info, 0, sizeof(*info));
}

struct fcur {
	const uint8_t *p;
	size_t off, end;
};

static int fneed(struct fcur *c, uint64_t n, const char *what)
{
	if (n > c->end - c->off)
		return err_set("%s at byte %zu needs %" PRIu64 " bytes, the section has %zu", what, c->off, n,
			       c->end);
	return 0;
}

static int fu32(struct fcur *c, uint32_t *v, const char *what)
{
	if (fneed(c, 4, what) < 0)
		return -1;
	*v = ld32(c->p + c->off);
	c->off += 4;
	return 0;
}

static int fu64(struct fcur *c, uint64_t *v, const char *what)
{
	if (fneed(c, 8, what) < 0)
		return -1;
	*v = ld64(c->p + c->off);
	c->off += 8;
	return 0;
}

/* perf's do_read_string: u32 length (NUL and padding included), then the bytes. */
static char *fstr(struct fcur *c, const char *what)
{
	uint32_t len;
	if (fu32(c, &len, what) < 0 || fneed(c, len, what) < 0)
		return NULL;
	char *s = xstrndup((const char *)c->p + c->off, len);
	c->off += len;
	return s;
}

static int feat_string(struct fcur *c, char **dst)
{
	char *s = fstr(c, "string");
	if (!s)
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

/* NUMA_TOPOLOGY: u32 count, then per node u32 node, u64 total and free kB, its CPU list; kept as
 * each CPU's node (CPUs 0..4095). */
static int feat_numa(struct fcur *c, struct perfdata_info *info)
{
	uint32_t nr, node;
	uint64_t mem;
	if (fu32(c, &nr, "node count") < 0)
		return -1;
	if (nr > (c->end - c->off) / 24)
		return err_set("%u nodes cannot fit the %zu bytes left", nr, c->end - c->off);
	for (uint32_t i = 0; i < nr; i++) {
		if (fu32(c, &node, "node") < 0 || fu64(c, &mem, "node memory") < 0 || fu64(c, &mem, "free memory") < 0)
			return -1;
		char *list = fstr(c, "node CPU list");
		struct cpuset set = { 0 };
		if (!list || (list[0] && cpuset_parse(list, &set) < 0)) { /* "": a node without CPUs */
			free(list);
			return -1;
		}
		free(list);
		for (size_t k = 0; k < set.n; k++) {
			uint32_t cpu = (uint32_t)set.cpu[k];
			if (cpu >= info->ncpu_node) {
				info->cpu_node = xrealloc(info->cpu_node, (cpu + 1) * sizeof(*info->cpu_node));
				for (uint32_t j = info->ncpu_node; j <= cpu; j++)
					info->cpu_node[j] = -1;
				info->ncpu_node = cpu + 1;
			}
			info->cpu_node[cpu] = (int)node;
		}
		cpuset_free(&set);
	}
	return 0;
}

static int feat_cmdline(struct fcur *c, struct perfdata_info *info)
{
	uint32_t nr;
	if (fu32(c, &nr, "count") < 0)
		return -1;
	if (nr > (c->end - c->off) / 4)
		return err_set("%u strings cannot fit the %zu bytes left", nr, c->end - c->off);
	char **v = xcalloc(nr ? nr : 1, sizeof(*v));
	for (uint32_t i = 0; i < nr; i++) {
		v[i] = fstr(c, "argument");
		if (!v[i]) {
			for (uint32_t j = 0; j < i; j++)
				free(v[j]);
			free(v);
			return -1;
		}
	}
	for (size_t i = 0; i < info->ncmdline; i++)
		free(info->cmdline[i]);
	free(info->cmdline);
	info->cmdline = v;
	info->ncmdline = nr;
	return 0;
}

/* EVENT_DESC: nr, attr_size, then per event attr, nr_ids, name, ids. perf matches the entries
 * to the file's events by position. */
static int feat_event_desc(struct fcur *c, struct evsel_set *evs)
{
	uint32_t nre, sz;
	if (fu32(c, &nre, "event count") < 0 || fu32(c, &sz, "attr size") < 0)
		return -1;
	if (sz < PERF_ATTR_SIZE_VER0)
		return err_set("attr size %u is smaller than %d", sz, PERF_ATTR_SIZE_VER0);
	if (nre > (c->end - c->off) / ((uint64_t)sz + 8))
		return err_set("%u events of %u bytes cannot fit the %zu bytes left", nre, sz, c->end - c->off);
	char **names = xcalloc(nre ? nre : 1, sizeof(*names));
	int ret = 0;
	for (uint32_t i = 0; i < nre && !ret; i++) {
		uint32_t nids;
		c->off += sz;  /* the attr: the file's attrs section is authoritative */
		if (fu32(c, &nids, "id count") < 0 || !(names[i] = fstr(c, "event name")) ||
		    fneed(c, (uint64_t)nids * 8, "ids") < 0)
			ret = -1;
		else
			c->off += (size_t)nids * 8;
	}
	for (uint32_t i = 0; i < nre; i++) {
		if (!ret && i < evs->n && names[i] && names[i][0]) {
			free(evs->v[i].name);
			evs->v[i].name = names[i];
		} else {
			free(names[i]);
		}
	}
	free(names);
	return ret;
}

static int add_buildid(struct perfdata_info *info, const uint8_t *e, size_t esize, bool old)
{
	/* {header; s32 pid; u8 build_id[24]; filename}, or before perf 2.6.34 without the pid */
	size_t bid = old ? 8 : 12, name = bid + 24;
	if (esize < name)
		return err_set("build-id entry of %zu bytes is shorter than %zu", esize, name);
	const char *fn = (const char *)e + name;
	if (!memchr(fn, 0, esize - name))
		return err_set("build-id entry: file name is not NUL-terminated");
	struct perf_event_header h;
	memcpy(&h, e, sizeof(h));
	struct perfdata_buildid b = { 0 };
	b.pid = old ? -1 : (int32_t)ld32(e + 8);
	b.cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	b.size = 20;
	if (!old && h.misc & REC_MISC_BUILD_ID_SIZE)
		b.size = e[bid + 20] > 20 ? 20 : e[bid + 20];
	memcpy(b.id, e + bid, 20);
	b.filename = xstrdup(fn);
	size_t n = info->nbuildids;
	if (!(n & (n - 1)))  /* capacity: the next power of two */
		info->buildids = xrealloc(info->buildids, (n ? 2 * n : 1) * sizeof(*info->buildids));
	info->buildids[info->nbuildids++] = b;
	return 0;
}

int perfdata_buildid_record(struct perfdata_info *info, const struct perf_event_header *h)
{
	if (add_buildid(info, (const uint8_t *)h, h->size, false) < 0)
		return err_wrap("BUILD_ID record");
	return 0;
}

static void drop_buildids(struct perfdata_info *info, size_t keep)
{
	while (info->nbuildids > keep)
		free(info->buildids[--info->nbuildids].filename);
}

static int feat_build_id(struct fcur *c, struct perfdata_info *info, bool old)
{
	size_t start = c->off, had = info->nbuildids;
	while (c->off < c->end) {
		struct perf_event_header h;
		if (fneed(c, sizeof(h), "build-id entry") < 0)
			goto fail;
		memcpy(&h, c->p + c->off, sizeof(h));
		if (h.size < sizeof(h) || h.size > c->end - c->off) {
			err_set("build-id entry at byte %zu: size %u does not fit the section", c->off, h.size);
			goto fail;
		}
		const uint8_t *e = c->p + c->off;
		/* perf's ABI quirk: a table without pids shows "[kernel.kallsyms]" missing its first 4
		 * bytes (where the pid would be) in the first entry. */
		if (!old && c->off == start && h.size >= 12 + 24 + 13 && !memcmp(e + 36, "nel.kallsyms]", 13)) {
			c->off = start;
			return feat_build_id(c, info, true);
		}
		if (add_buildid(info, e, h.size, old) < 0)
			goto fail;
		c->off += h.size;
	}
	return 0;
fail:
	drop_buildids(info, had);
	return -1;
}

/* FEAT_LPERF_JIT: u32 nr; then nr x { u32 kind; i32 pid; u64 size; bytes padded to 8 }. */
static int feat_jit_sources(struct fcur *c, struct perfdata_info *info)
{
	uint32_t nr;
	if (fu32(c, &nr, "JIT source count") < 0)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t kind, pid;
		uint64_t size;
		if (fu32(c, &kind, "JIT source kind") < 0 || fu32(c, &pid, "JIT source pid") < 0 ||
		    fu64(c, &size, "JIT source size") < 0 || fneed(c, size, "JIT source bytes") < 0)
			return -1;
		info->jit_sources = xrealloc(info->jit_sources, (info->njit_sources + 1) * sizeof(*info->jit_sources));
		struct perfdata_jit_source *js = &info->jit_sources[info->njit_sources++];
		js->kind = kind;
		js->pid = (int32_t)pid;
		js->size = (size_t)size;
		js->data = xmalloc(js->size ? js->size : 1);
		memcpy(js->data, c->p + c->off, js->size);
		uint64_t padded = (size + 7) & ~7ULL;
		c->off += padded <= c->end - c->off ? padded : c->end - c->off;
	}
	return 0;
}

/* FEAT_LPERF_LOST: u32 version (1), u32 0, u64 the samples of paused processes among those the
 * LOST records count. A later version may append fields: the first three are read. */
static int feat_lost(struct fcur *c, struct perfdata_info *info)
{
	uint32_t version, pad;
	if (fu32(c, &version, "lost-samples version") < 0 || fu32(c, &pad, "lost-samples padding") < 0)
		return -1;
	if (version < 1)
		return err_set("lost-samples version %u is not 1 or later", version);
	return fu64(c, &info->lost_replaced, "lost samples of paused processes");
}

/* perf's SAMPLE_TIME: the first and last sample times (ns). A last before the first would make
 * every span of them (--time's percentages, the header's duration) wrap: the feature is
 * damaged, and neither time is kept. */
static int feat_sample_time(struct fcur *c, struct perfdata_info *info)
{
	uint64_t first, last;
	if (fu64(c, &first, "first sample time") < 0 || fu64(c, &last, "last sample time") < 0)
		return -1;
	if (last < first)
		return err_set("last sample time %" PRIu64 " is before the first, %" PRIu64, last, first);
	info->first_sample_time = first;
	info->last_sample_time = last;
	return 0;
}

/* perf's GROUP_DESC: u32 count, then per group its name (a string), leader index, members. */
static int feat_group_desc(struct fcur *c, struct perfdata_info *info)
{
	uint32_t nr;
	if (fu32(c, &nr, "group count") < 0)
		return -1;
	if (nr > (c->end - c->off) / 12)
		return err_set("%u groups cannot fit the %zu bytes left", nr, c->end - c->off);
	struct perfdata_group *g = xcalloc(nr ? nr : 1, sizeof(*g));
	for (uint32_t i = 0; i < nr; i++) {
		g[i].name = fstr(c, "group name");
		if (!g[i].name || fu32(c, &g[i].leader, "group leader") < 0 || fu32(c, &g[i].nr, "group members") < 0) {
			for (uint32_t j = 0; j <= i; j++)
				free(g[j].name);
			free(g);
			return -1;
		}
	}
	info->groups = g;
	info->ngroups = nr;
	return 0;
}

void perfdata_keep_tracing(struct perfdata_info *info, const uint8_t *data, size_t size, uint64_t file_off)
{
	if (info->tracing_data)
		return;
	info->tracing_data = xmalloc(size ? size : 1);
	memcpy(info->tracing_data, data, size);
	info->tracing_size = size;
	info->tracing_off = file_off;
}

int perfdata_feat_parse(struct perfdata_reader *r, int feat, const uint8_t *data, size_t size, uint64_t file_off)
{
	struct perfdata_info *info = &r->info;
	struct fcur c = { data, 0, size };
	int ret = 0;
	switch (feat) {
	case FEAT_NUMA_TOPOLOGY:
		ret = feat_numa(&c, info);
		break;
	case FEAT_HOSTNAME:
		ret = feat_string(&c, &info->hostname);
		break;
	case FEAT_OSRELEASE:
		ret = feat_string(&c, &info->osrelease);
		break;
	case FEAT_VERSION:
		ret = feat_string(&c, &info->version);
		break;
	case FEAT_ARCH:
		ret = feat_string(&c, &info->arch);
		break;
	case FEAT_CPUDESC:
		ret = feat_string(&c, &info->cpudesc);
		break;
	case FEAT_CPUID:
		ret = feat_string(&c, &info->cpuid);
		break;
	case FEAT_NRCPUS:
		/* perf writes the available (present) count first */
		ret = fu32(&c, &info->nrcpus_avail, "available CPUs") < 0 ||
		      fu32(&c, &info->nrcpus_online, "online CPUs") < 0 ? -1 : 0;
		break;
	case FEAT_TOTAL_MEM:
		ret = fu64(&c, &info->total_mem_kb, "total memory");
		break;
	case FEAT_CMDLINE:
		ret = feat_cmdline(&c, info);
		break;
	case FEAT_EVENT_DESC:
		ret = feat_event_desc(&c, &r->evsels);
		break;
	case FEAT_BUILD_ID:
		ret = feat_build_id(&c, info, false);
		break;
	case FEAT_SAMPLE_TIME:
		ret = feat_sample_time(&c, info);
		break;
	case FEAT_CLOCKID:
		ret = fu64(&c, &info->clockid_res_ns, "clock resolution");
		break;
	case FEAT_LPERF_JIT:
		ret = feat_jit_sources(&c, info);
		break;
	case FEAT_LPERF_LOST:
		ret = feat_lost(&c, info);
		break;
	case FEAT_GROUP_DESC:
		if (!info->groups)
			ret = feat_group_desc(&c, info);
		break;
	case FEAT_TRACING_DATA:
		perfdata_keep_tracing(info, data, size, file_off);
		break;
	case FEAT_COMPRESSED: {
		uint32_t version;
		ret = fu32(&c, &version, "compression version") < 0 ||
		      fu32(&c, &info->comp_type, "compression type") < 0 ||
		      fu32(&c, &info->comp_level, "compression level") < 0 ||
		      fu32(&c, &info->comp_ratio, "compression ratio") < 0 ? -1 : 0;
		break;
	}
	default:
		break;
	}
	if (feat >= 0 && feat < FEAT_MAX)
		info->has_feature[feat] = !ret;
	if (ret < 0)
		notes_add(&info->notes, "%s: feature %s at offset 0x%" PRIx64 " is damaged and was ignored: %s",
				   r->path, perfdata_feature_name(feat), file_off, err_msg());
	return ret;
}
