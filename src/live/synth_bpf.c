/* The BPF programs loaded when a recording starts, as PERF_RECORD_KSYMBOL records (one per JITed
 * function) and PERF_RECORD_BPF_EVENT (one per program), as perf 6.1 synthesizes them: the
 * recording names their code itself, since /proc/kallsyms at report time may name other
 * programs at those addresses, or none. Programs loaded later come from the kernel (the
 * tracking event's attr.ksymbol and attr.bpf_event). */
#include "live/live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef LPERF_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#endif

#include "record/record.h"
#include "util/error.h"
#include "util/xalloc.h"

#define KSYM_NAME_MAX 512

struct bsynth {
	const struct perf_event_attr *attr;
	record_cb cb;
	void *arg;
	size_t n;                  /* KSYMBOL records written */
	uint64_t buf[(KSYM_NAME_MAX + 256) / 8];
};

static int emit_ksymbol(struct bsynth *s, uint64_t addr, uint32_t len, const char *name)
{
	struct rec_ksymbol k = { .addr = addr, .len = len, .ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF, .name = name };
	size_t n = record_build_ksymbol(s->buf, sizeof(s->buf), s->attr, &k);
	if (!n || n > sizeof(s->buf))
		return err_set("cannot build the KSYMBOL record of %s (name too long)", name);
	s->n++;
	return s->cb((const struct perf_event_header *)s->buf, s->arg) ? -1 : 0;
}

#ifdef LPERF_HAVE_BPF
struct prog_arrays {
	struct bpf_prog_info info;
	uint64_t *addrs;
	uint32_t *lens;
	uint8_t (*tags)[BPF_TAG_SIZE];
	uint8_t *finfo;
};

static void arrays_free(struct prog_arrays *p)
{
	free(p->addrs);
	free(p->lens);
	free(p->tags);
	free(p->finfo);
}

/* The program's functions: addresses, lengths, tags and BTF function infos (two calls: the
 * counts, then the arrays). -1 when the kernel hides them (no addresses: kptr_restrict). */
static int prog_info(int fd, struct prog_arrays *p)
{
	memset(p, 0, sizeof(*p));
	uint32_t len = sizeof(p->info);
	if (bpf_obj_get_info_by_fd(fd, &p->info, &len) < 0)
		return -1;
	struct bpf_prog_info want = { 0 };
	uint32_t n = p->info.nr_jited_ksyms;
	if (!n || n != p->info.nr_jited_func_lens || n != p->info.nr_prog_tags)
		return -1;
	p->addrs = xcalloc(n, sizeof(*p->addrs));
	p->lens = xcalloc(n, sizeof(*p->lens));
	p->tags = xcalloc(n, sizeof(*p->tags));
	want.nr_jited_ksyms = want.nr_jited_func_lens = want.nr_prog_tags = n;
	want.jited_ksyms = (uint64_t)(uintptr_t)p->addrs;
	want.jited_func_lens = (uint64_t)(uintptr_t)p->lens;
	want.prog_tags = (uint64_t)(uintptr_t)p->tags;
	if (p->info.btf_id && p->info.nr_func_info == n && p->info.func_info_rec_size >= sizeof(struct bpf_func_info)) {
		p->finfo = xcalloc(n, p->info.func_info_rec_size);
		want.nr_func_info = n;
		want.func_info_rec_size = p->info.func_info_rec_size;
		want.func_info = (uint64_t)(uintptr_t)p->finfo;
	}
	len = sizeof(want);
	if (bpf_obj_get_info_by_fd(fd, &want, &len) < 0 || want.nr_jited_ksyms != n || !p->addrs[0])
		return -1;
	if (want.nr_func_info != n) {
		free(p->finfo);
		p->finfo = NULL;
	}
	p->info.id = want.id ? want.id : p->info.id;
	return 0;
}

/* "bpf_prog_<tag>_<function>": the function's BTF name, as the kernel names it in kallsyms; else
 * the program's name for a program of one function; else perf's "F". */
static void prog_name(char *buf, size_t size, const struct prog_arrays *p, const struct btf *btf, uint32_t i)
{
	int k = snprintf(buf, size, "bpf_prog_");
	for (size_t b = 0; b < BPF_TAG_SIZE; b++)
		k += snprintf(buf + k, size - (size_t)k, "%02x", p->tags[i][b]);
	const char *fn = NULL;
	if (btf && p->finfo) {
		const struct bpf_func_info *fi = (const void *)(p->finfo + (size_t)i * p->info.func_info_rec_size);
		const struct btf_type *t = btf__type_by_id(btf, fi->type_id);
		fn = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	} else if (p->info.nr_jited_ksyms == 1) {
		fn = p->info.name[0] ? p->info.name : NULL;
	} else {
		fn = "F";
	}
	if (fn && *fn)
		snprintf(buf + k, size - (size_t)k, "_%s", fn);
}

static int synth_one(struct bsynth *s, int fd, bool bpf_events)
{
	struct prog_arrays p;
	if (prog_info(fd, &p) < 0) {
		arrays_free(&p);
		return 1; /* hidden: the caller falls back to kallsyms */
	}
	struct btf *btf = p.finfo ? btf__load_from_kernel_by_id(p.info.btf_id) : NULL;
	if (btf && libbpf_get_error(btf))
		btf = NULL;
	int rc = 0;
	for (uint32_t i = 0; i < p.info.nr_jited_ksyms && !rc; i++) {
		char name[KSYM_NAME_MAX];
		prog_name(name, sizeof(name), &p, btf, i);
		rc = emit_ksymbol(s, p.addrs[i], p.lens[i], name);
	}
	if (!rc && bpf_events) {
		struct rec_bpf_event b = { .type = PERF_BPF_EVENT_PROG_LOAD, .id = p.info.id };
		memcpy(b.tag, p.info.tag, sizeof(b.tag));
		size_t n = record_build_bpf_event(s->buf, sizeof(s->buf), s->attr, &b);
		if (!n || n > sizeof(s->buf))
			rc = err_set("cannot build the BPF_EVENT record of program %u", b.id);
		else
			rc = s->cb((const struct perf_event_header *)s->buf, s->arg) ? -1 : 0;
	}
	btf__free(btf);
	arrays_free(&p);
	return rc;
}

/* Every loaded program by id. 1 when none could be read (not allowed, hidden addresses). */
static int synth_by_id(struct bsynth *s, bool bpf_events)
{
	uint32_t id = 0;
	bool hidden = false;
	while (bpf_prog_get_next_id(id, &id) == 0) {
		int fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue; /* unloaded meanwhile */
		int rc = synth_one(s, fd, bpf_events);
		close(fd);
		if (rc < 0)
			return -1;
		hidden |= rc > 0;
	}
	if (errno != ENOENT || (hidden && !s->n))
		return 1; /* EPERM, an old kernel: kallsyms */
	return 0;
}
#endif

struct kbpf {
	uint64_t addr;
	char *name;
};

static int cmp_kbpf(const void *a, const void *b)
{
	const struct kbpf *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* From kallsyms' "[bpf]" lines: a program's function runs to the next [bpf] symbol (at most a page). */
int synth_bpf_from_kallsyms(const struct perf_event_attr *attr, const char *path, record_cb cb, void *arg)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	struct kbpf *v = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	while (getline(&line, &lcap, f) > 0) {
		unsigned long long addr;
		char type, name[KSYM_NAME_MAX];
		if (!strstr(line, "\t[bpf]") || sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 || !addr)
			continue; /* trampolines and dispatchers end the program before them */
		ALLOC_GROW(v, n + 1, cap);
		v[n].addr = addr;
		v[n++].name = xstrdup(name);
	}
	free(line);
	fclose(f);
	if (n) /* (qsort of NULL, 0 is undefined: as a normal user kallsyms gives no addresses) */
		qsort(v, n, sizeof(*v), cmp_kbpf);
	struct bsynth *s = xcalloc(1, sizeof(*s));
	*s = (struct bsynth){ .attr = attr, .cb = cb, .arg = arg };
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t len = i + 1 < n ? v[i + 1].addr - v[i].addr : 4096;
		if (len && !strncmp(v[i].name, "bpf_prog_", 9))
			rc = emit_ksymbol(s, v[i].addr, (uint32_t)(len > 4096 ? 4096 : len), v[i].name);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	free(s);
	return rc;
}

int synth_bpf(const struct perf_event_attr *attr, record_cb cb, void *arg)
{
	int rc = 1;
#ifdef LPERF_HAVE_BPF
	struct bsynth *s = xcalloc(1, sizeof(*s));
	*s = (struct bsynth){ .attr = attr, .cb = cb, .arg = arg };
	rc = synth_by_id(s, attr->bpf_event);
	free(s);
#endif
	if (rc > 0) /* without the programs' own information: kallsyms names them */
		rc = synth_bpf_from_kallsyms(attr, "/proc/kallsyms", cb, arg);
	return rc;
}
