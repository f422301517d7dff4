/* lperf inject --python: the session resolves each sample (with the stored Python stacks joined
 * in); its stack goes back into the copy as a call chain, Python functions as symbols of one
 * synthetic ELF mapped into each process that has them. */
#include "inject/pyinject.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "inject/jitinject.h"
#include "record/recutil.h"
#include "session/session.h"
#include "symbols/jitelf.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

/* perf report's and script's --max-stack default (kernel.perf_event_max_stack's default). */
#define PERF_DEFAULT_MAX_STACK 127

/* The mapping's length: room for every function PYINJECT_MAX_FUNCS allows. */
#define REGION_LEN ((uint64_t)PYINJECT_MAX_FUNCS * PYINJECT_SLOT)

struct pyinj {
	struct perfdata_reader *r;
	struct perfdata_writer *w;
	const struct pyinject_opts *o;
	struct pyinject_result *res;
	struct session ss;
	bool started, overlap_warned, limit_warned;
	struct perf_event_attr *attrs;   /* the copy's events (index = the reader's evsel idx) */
	size_t nattrs;
	struct hashmap funcs;            /* "DSO|name" -> index + 1 (as a pointer-sized integer) */
	char **names, **keys;            /* owned, by index */
	size_t nnames, namecap, keycap;
	struct hashmap mapped;           /* pid -> 1: the ELF is mapped there (until an exec) */
	/* The chain the sample callback built for the record that follows it. */
	uint64_t *chain;
	size_t nchain, chaincap;
	uint64_t ip;
	bool ready, has_py;
	size_t deep;                     /* samples whose chain perf cuts by default */
	uint8_t *buf;
	size_t bufcap;
};

static void warn(struct pyinj *j, char *msg)
{
	notes_take(&j->res->warnings, msg);
}

char *pyinject_elf_path(const char *output, const char *dir)
{
	bool pipe = !strcmp(output, "-");
	if (pipe && !dir) {
		err_set("--python with pipe output (-o -) needs --jit-dir DIR for the file of Python symbols");
		return NULL;
	}
	char *copy = xstrdup(output), *copy2 = xstrdup(output);
	const char *d = dir ? dir : dirname(copy);
	const char *base = pipe ? "python-inject" : basename(copy2);
	char real[PATH_MAX];
	char *ret = NULL;
	if (!realpath(d, real))
		err_set("%s: %s", d, strerror(errno));
	else
		ret = xasprintf("%s/%s.python.so", strcmp(real, "/") ? real : "", base);
	free(copy);
	free(copy2);
	return ret;
}

/* ---- Python functions ---- */

static bool is_python(const struct frame *f)
{
	return f->loc.sym && f->loc.sym->name && !strncmp(f->loc.sym->name, "py::", 4);
}

/* The address of Python function f in the ELF's mapping; 0 past the limit. A function is a
 * row of lperf's Python view: its name in its DSO (code objects of one name and file read from
 * the interpreter are one, the `<module>` of a parent and of its forked child too; each code load
 * of a jitdump is a DSO of its own, as perf inject -j makes it). */
static uint64_t func_addr(struct pyinj *j, const struct frame *f)
{
	char *key = xasprintf("%p|%s", (const void *)f->loc.dso, f->loc.sym->name);
	struct hashmap_entry *e = hashmap_find_str(&j->funcs, key);
	if (e) {
		free(key);
	} else {
		if (j->nnames >= PYINJECT_MAX_FUNCS) {
			if (!j->limit_warned)
				warn(j, xasprintf("more than %u Python functions: the rest are left unnamed",
						  PYINJECT_MAX_FUNCS));
			j->limit_warned = true;
			free(key);
			return 0;
		}
		ALLOC_GROW(j->names, j->nnames + 1, j->namecap);
		ALLOC_GROW(j->keys, j->nnames + 1, j->keycap);
		j->keys[j->nnames] = key;
		j->names[j->nnames++] = xstrdup(f->loc.sym->name);
		bool found;
		e = hashmap_insert_str(&j->funcs, key, &found);
		e->value = (void *)(uintptr_t)j->nnames;
	}
	/* The middle of the function's slot: a caller looked up at its return address - 1 stays in. */
	return PYINJECT_BASE + ((uintptr_t)e->value - 1) * PYINJECT_SLOT + PYINJECT_SLOT / 2;
}

/* ---- Samples ---- */

static void push(struct pyinj *j, uint64_t v)
{
	ALLOC_GROW(j->chain, j->nchain + 1, j->chaincap);
	j->chain[j->nchain++] = v;
}

/* The resolved stack as a call chain with its context markers. */
static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct pyinj *j = arg;
	j->nchain = 0;
	j->has_py = false;
	j->ip = rs->s->ip;
	uint64_t ctx = 0;
	for (size_t i = 0; i < rs->nframes; i++) {
		const struct frame *f = &rs->frames[i];
		uint64_t addr = f->ip;
		bool kernel = f->loc.kernel;
		if (f->inlined)
			continue;
		if (is_python(f)) {
			addr = func_addr(j, f);
			kernel = false;
			j->has_py |= addr != 0;
			if (i == 0 && addr)
				j->ip = addr;
		}
		if (!addr)
			continue; /* a marker ([truncated]) or a function past the limit */
		uint64_t want = kernel ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER;
		if (want != ctx)
			push(j, want);
		ctx = want;
		push(j, addr);
	}
	j->ready = true;
	return 0;
}

/* The ELF's MMAP2 for pid, written ahead of its first sample with Python frames. */
static int map_elf(struct pyinj *j, const struct perf_sample *s)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&j->mapped, s->pid, &found);
	if (found && e->value)
		return 0;
	e->value = (void *)1;
	const struct perf_event_attr *attr = &j->attrs[0];
	struct rec_mmap mm = {
		.pid = s->pid,
		.tid = s->pid,
		.start = PYINJECT_BASE,
		.len = REGION_LEN,
		.pgoff = JITELF_TEXT_OFFSET,
		.prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE,
		.filename = j->o->elf_path,
		.cpumode = PERF_RECORD_MISC_USER,
	};
	size_t need = record_build_mmap2(j->buf, j->bufcap, attr, &mm);
	if (!need || need > j->bufcap)
		return err_set("%s: the path is too long for a record", j->o->elf_path);
	uint64_t st = attr->sample_type;
	if (attr->sample_id_all && (st & PERF_SAMPLE_TIME))
		st64(j->buf + need - rec_trailer_size(st) + (st & PERF_SAMPLE_TID ? 8 : 0), s->time);
	j->res->stats.maps++;
	return perfdata_writer_write(j->w, j->buf, need);
}

static int write_sample(struct pyinj *j, const struct perf_event_header *h)
{
	struct perf_sample s;
	bool ready = j->ready;
	j->ready = false;
	if (sample_parse(&j->r->evsels, h, &s) < 0 || !s.evsel || (size_t)s.evsel->idx >= j->nattrs) {
		j->res->stats.bad_samples++;
		return 0;
	}
	if (!ready) { /* not resolved (a sample the session set aside): its ip alone */
		j->nchain = 0;
		j->has_py = false;
		j->ip = s.ip;
		push(j, s.cpumode == PERF_RECORD_MISC_KERNEL ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER);
		push(j, s.ip);
	}
	if (j->has_py && map_elf(j, &s) < 0)
		return -1;
	s.ip = j->ip;
	s.callchain = j->chain;
	s.callchain_nr = j->nchain;
	const struct perf_event_attr *attr = &j->attrs[s.evsel->idx];
	size_t need = record_build_sample(j->buf, j->bufcap, attr, &s);
	if (need > j->bufcap) {
		free(j->buf);
		j->bufcap = need;
		j->buf = xmalloc(need);
		need = record_build_sample(j->buf, j->bufcap, attr, &s);
	}
	if (!need) {
		j->res->stats.bad_samples++;
		return 0; /* a stack too deep for a record's 64 KiB */
	}
	j->res->stats.samples++;
	j->res->stats.python_samples += j->has_py;
	j->deep += j->nchain > PERF_DEFAULT_MAX_STACK + 2; /* + the two context markers */
	return perfdata_writer_write(j->w, j->buf, need);
}

/* ---- The stream ---- */

/* The copy's events: stack copies and chainless events become call chains. */
static int start(struct pyinj *j)
{
	struct perfdata_reader *r = j->r;
	j->started = true;
	if (!r->evsels.n)
		return err_set("%s: the recording has no events", r->path);
	j->nattrs = r->evsels.n;
	j->attrs = xcalloc(j->nattrs, sizeof(*j->attrs));
	for (size_t i = 0; i < j->nattrs; i++) {
		struct perf_event_attr *a = &j->attrs[i];
		*a = r->evsels.v[i].attr;
		if ((a->sample_type & PERF_SAMPLE_STACK_USER) || !(a->sample_type & PERF_SAMPLE_CALLCHAIN))
			j->res->stats.converted_events++;
		if (a->sample_type & PERF_SAMPLE_STACK_USER) {
			a->sample_type &= ~(uint64_t)(PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_USER);
			a->sample_regs_user = 0;
			a->sample_stack_user = 0;
		}
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 0;
	}
	j->bufcap = 1 << 16;
	j->buf = xmalloc(j->bufcap);
	return jitinject_copy_header(r, j->w, j->attrs, j->o->pipe_output, JIT_SRC_PYSTACKS);
}

/* Mappings in the ELF's range would be shadowed by it: said once. An exec ends the mapping. */
static void watch(struct pyinj *j, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) {
		struct rec_mmap m;
		if (record_parse_mmap(h, &m) == 0 && m.start < PYINJECT_BASE + REGION_LEN &&
		    m.start + m.len > PYINJECT_BASE && !j->overlap_warned) {
			warn(j, xasprintf("process %" PRIu32 " maps %s at 0x%" PRIx64 ", where the Python symbols "
					  "are mapped: perf may name its code after them", m.pid, m.filename, m.start));
			j->overlap_warned = true;
		}
	} else if (h->type == PERF_RECORD_COMM) {
		struct rec_comm c;
		struct hashmap_entry *e;
		if (record_parse_comm(h, &c) == 0 && c.exec && (e = hashmap_find_u64(&j->mapped, c.pid)))
			e->value = NULL;
	}
}

static int on_record(struct session *ss, const struct perf_event_header *h, void *arg)
{
	struct pyinj *j = arg;
	if (!j->started && start(j) < 0)
		return -1;
	if (h->type == PERF_RECORD_SAMPLE)
		return write_sample(j, h);
	if (h->type == REC_TRACING_DATA)
		return 0; /* the writer has it (jitinject_copy_header) */
	watch(j, h);
	j->res->stats.records++;
	return perfdata_writer_write(j->w, h, jitinject_record_bytes(h));
}

/* A build-id for the ELF: three FNV-1a hashes of the names with different seeds. */
static void elf_build_id(const struct pyinj *j, uint8_t id[JITELF_BUILD_ID_SIZE])
{
	static const uint64_t seeds[3] = { 0xcbf29ce484222325ull, 0x6c62272e07bb0142ull, 0x9e3779b97f4a7c15ull };
	uint8_t out[24];
	for (size_t k = 0; k < 3; k++) {
		uint64_t h = seeds[k];
		for (size_t i = 0; i < j->nnames; i++)
			for (const unsigned char *p = (const unsigned char *)j->names[i]; ; p++) {
				h = (h ^ *p) * 0x100000001b3ull;
				if (!*p)
					break;
			}
		h = hashmap_hash_u64(h ^ (j->nnames * (k + 1)));
		memcpy(out + 8 * k, &h, 8);
	}
	memcpy(id, out, JITELF_BUILD_ID_SIZE);
}

static int write_elf(struct pyinj *j)
{
	if (!j->nnames) {
		warn(j, xasprintf("%s: no Python frames (record with --python): the samples are copied with "
				  "their stacks as call chains", j->r->path));
		return 0;
	}
	struct jitelf_sym *syms = xcalloc(j->nnames, sizeof(*syms));
	for (size_t i = 0; i < j->nnames; i++)
		syms[i] = (struct jitelf_sym){ j->names[i], (uint64_t)i * PYINJECT_SLOT, PYINJECT_SLOT, 0 };
	uint8_t id[JITELF_BUILD_ID_SIZE];
	elf_build_id(j, id);
	struct stat st;
	int ret = jitelf_write_syms_file(j->o->elf_path, (uint64_t)j->nnames * PYINJECT_SLOT, syms, j->nnames, id,
					 &st);
	free(syms);
	if (ret == 0 && !j->o->pipe_output)
		perfdata_writer_add_buildid(j->w, -1, PERF_RECORD_MISC_USER, id, sizeof(id), j->o->elf_path);
	j->res->stats.functions = j->nnames;
	return ret;
}

int pyinject_run(struct perfdata_reader *r, struct perfdata_writer *w, const struct pyinject_opts *o,
		 struct pyinject_result *res)
{
	memset(res, 0, sizeof(*res));
	struct pyinj j = { .r = r, .w = w, .o = o, .res = res };
	hashmap_init(&j.funcs, HASHMAP_STR);
	hashmap_init(&j.mapped, HASHMAP_U64);
	struct session_tool tool = { .sample = on_sample, .record = on_record, .arg = &j, .callchains = true,
				   .python_view = o->view };
	struct session_opts so = { .force = o->force };
	session_attach(&j.ss, r, &so, &tool);
	int ret = session_run(&j.ss);
	if (!ret && !j.started)
		ret = start(&j);
	if (!ret)
		ret = write_elf(&j);
	if (!ret && j.deep)
		warn(&j, xasprintf("%zu of %zu samples have stacks deeper than %d frames, where perf report and "
				   "perf script stop unless given --max-stack (e.g. --max-stack 1024)", j.deep,
				   res->stats.samples, PERF_DEFAULT_MAX_STACK));
	session_free(&j.ss);
	hashmap_free(&j.funcs);
	hashmap_free(&j.mapped);
	for (size_t i = 0; i < j.nnames; i++) {
		free(j.names[i]);
		free(j.keys[i]);
	}
	free(j.names);
	free(j.keys);
	free(j.attrs);
	free(j.chain);
	free(j.buf);
	return ret ? -1 : 0;
}

void pyinject_result_free(struct pyinject_result *res)
{
	notes_clear(&res->warnings);
	memset(res, 0, sizeof(*res));
}
