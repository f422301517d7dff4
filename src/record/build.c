/* Builders for the records lperf synthesizes, laid out byte for byte as the kernel and perf
 * write them: strings NUL-padded to 8 bytes, then the sample_id trailer of the attr. */
#include "record/record.h"

#include <string.h>

#include "record/recutil.h"

/* perf_event_header.size is a u16. */
#define REC_MAX 0xffffu

/* A writer that only counts when p is NULL, so one function both sizes and fills a record. */
struct out {
	uint8_t *p;
	size_t off;
};

static void put64(struct out *o, uint64_t v)
{
	if (o->p)
		st64(o->p + o->off, v);
	o->off += 8;
}

static void put32(struct out *o, uint32_t v)
{
	if (o->p)
		st32(o->p + o->off, v);
	o->off += 4;
}

/* n bytes of data (zeros when data is NULL), then zeros up to a multiple of 8 of the field
 * that started at `from`. */
static void put_bytes(struct out *o, const void *data, uint64_t n, size_t from)
{
	size_t pad = (size_t)(REC_ALIGN8(o->off + n - from) - (o->off + n - from));
	if (o->p) {
		if (data && n)
			memcpy(o->p + o->off, data, n);
		else
			memset(o->p + o->off, 0, n);
		memset(o->p + o->off + n, 0, pad);
	}
	o->off += n + pad;
}

static void put_string(struct out *o, const char *s)
{
	put_bytes(o, s, strlen(s) + 1, o->off);
}

static void put_trailer(struct out *o, const struct perf_event_attr *a, uint32_t pid, uint32_t tid)
{
	if (!a || !a->sample_id_all)
		return;
	uint64_t st = a->sample_type;
	if (st & PERF_SAMPLE_TID) {
		put32(o, pid);
		put32(o, tid);
	}
	for (size_t i = rec_trailer_size(st & ~(uint64_t)PERF_SAMPLE_TID) / 8; i; i--)
		put64(o, 0);
}

static void put_header(struct out *o, uint32_t type, uint16_t misc)
{
	if (o->p) {
		struct perf_event_header h = { type, misc, 0 };
		memcpy(o->p, &h, sizeof(h));
	}
	o->off += sizeof(struct perf_event_header);
}

/* Sizes the record with fill(NULL), then fills it if it fits. */
typedef void (*fill_fn)(struct out *o, const void *arg);

static size_t build(void *buf, size_t size, fill_fn fill, const void *arg)
{
	struct out o = { NULL, 0 };
	fill(&o, arg);
	if (o.off > REC_MAX)
		return 0;
	if (o.off > size)
		return o.off;
	o = (struct out){ buf, 0 };
	fill(&o, arg);
	uint16_t sz = (uint16_t)o.off;
	memcpy((uint8_t *)buf + offsetof(struct perf_event_header, size), &sz, sizeof(sz));
	return o.off;
}

struct comm_arg {
	const struct perf_event_attr *attr;
	uint32_t pid, tid;
	const char *comm;
	bool exec;
};

static void fill_comm(struct out *o, const void *arg)
{
	const struct comm_arg *c = arg;
	put_header(o, PERF_RECORD_COMM, PERF_RECORD_MISC_USER | (c->exec ? PERF_RECORD_MISC_COMM_EXEC : 0));
	put32(o, c->pid);
	put32(o, c->tid);
	put_string(o, c->comm);
	put_trailer(o, c->attr, c->pid, c->tid);
}

size_t record_build_comm(void *buf, size_t size, const struct perf_event_attr *attr, uint32_t pid,
			 uint32_t tid, const char *comm, bool exec)
{
	struct comm_arg c = { attr, pid, tid, comm, exec };
	return build(buf, size, fill_comm, &c);
}

struct mmap_arg {
	const struct perf_event_attr *attr;
	const struct rec_mmap *m;
	bool v2;
};

static void fill_mmap(struct out *o, const void *arg)
{
	const struct mmap_arg *a = arg;
	const struct rec_mmap *m = a->m;
	bool bid = a->v2 && m->build_id && m->build_id_size;
	uint16_t misc = (m->cpumode & PERF_RECORD_MISC_CPUMODE_MASK) | (m->data ? PERF_RECORD_MISC_MMAP_DATA : 0) |
			(bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
	put_header(o, a->v2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP, misc);
	put32(o, m->pid);
	put32(o, m->tid);
	put64(o, m->start);
	put64(o, m->len);
	put64(o, m->pgoff);
	if (a->v2) {
		if (bid) {
			uint8_t b[24] = { 0 };
			size_t n = m->build_id_size > 20 ? 20 : m->build_id_size;
			b[0] = (uint8_t)n;
			memcpy(b + 4, m->build_id, n);
			put_bytes(o, b, sizeof(b), o->off);
		} else {
			put32(o, m->maj);
			put32(o, m->min);
			put64(o, m->ino);
			put64(o, m->ino_generation);
		}
		put32(o, m->prot);
		put32(o, m->flags);
	}
	put_string(o, m->filename ? m->filename : "");
	put_trailer(o, a->attr, m->pid, m->tid);
}

size_t record_build_mmap2(void *buf, size_t size, const struct perf_event_attr *attr, const struct rec_mmap *m)
{
	struct mmap_arg a = { attr, m, true };
	return build(buf, size, fill_mmap, &a);
}

size_t record_build_mmap(void *buf, size_t size, const struct perf_event_attr *attr, const struct rec_mmap *m)
{
	struct mmap_arg a = { attr, m, false };
	return build(buf, size, fill_mmap, &a);
}

struct task_arg {
	const struct perf_event_attr *attr;
	uint32_t type;
	const struct rec_task *t;
};

static void fill_task(struct out *o, const void *arg)
{
	const struct task_arg *a = arg;
	put_header(o, a->type, 0);
	put32(o, a->t->pid);
	put32(o, a->t->ppid);
	put32(o, a->t->tid);
	put32(o, a->t->ptid);
	put64(o, a->t->time);
	put_trailer(o, a->attr, a->t->pid, a->t->tid);
}

size_t record_build_task(void *buf, size_t size, const struct perf_event_attr *attr, uint32_t type,
			 const struct rec_task *t)
{
	struct task_arg a = { attr, type, t };
	return build(buf, size, fill_task, &a);
}

struct lost_arg {
	const struct perf_event_attr *attr;
	uint32_t type;
	const struct rec_lost *l;
};

static void fill_lost(struct out *o, const void *arg)
{
	const struct lost_arg *a = arg;
	put_header(o, a->type, 0);
	if (a->type == PERF_RECORD_LOST)
		put64(o, a->l->id);
	put64(o, a->l->lost);
	put_trailer(o, a->attr, 0, 0);
}

size_t record_build_lost(void *buf, size_t size, const struct perf_event_attr *attr, uint32_t type,
			 const struct rec_lost *l)
{
	struct lost_arg a = { attr, type, l };
	return build(buf, size, fill_lost, &a);
}

static void fill_marker(struct out *o, const void *arg)
{
	put_header(o, *(const uint32_t *)arg, 0);
}

size_t record_build_marker(void *buf, size_t size, uint32_t type)
{
	return build(buf, size, fill_marker, &type);
}

struct sample_arg {
	const struct perf_event_attr *attr;
	const struct perf_sample *s;
};

static void put_words(struct out *o, const uint64_t *v, size_t have, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put64(o, v && i < have ? ld64(v + i) : 0);
}

static void put_read(struct out *o, uint64_t rf, const struct perf_sample *s)
{
	size_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t stride = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t words = rf & PERF_FORMAT_GROUP ? 1 + times + (size_t)s->read_nr * stride : times + stride;
	if (s->read_block) {
		put_words(o, s->read_block, words, words);
		return;
	}
	/* No block: the counts and times the sample holds, zero values. */
	if (rf & PERF_FORMAT_GROUP)
		put64(o, s->read_nr);
	else
		put64(o, 0);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put64(o, s->read_time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put64(o, s->read_time_running);
	put_words(o, NULL, 0, rf & PERF_FORMAT_GROUP ? (size_t)s->read_nr * stride : stride - 1);
}

static void put_regs(struct out *o, uint64_t abi, uint64_t mask, const uint64_t *regs, size_t have)
{
	put64(o, abi);
	if (abi)
		put_words(o, regs, have, (size_t)__builtin_popcountll(mask));
}

static void put_tail(struct out *o, const struct perf_event_attr *a, const struct perf_sample *s)
{
	uint64_t st = a->sample_type;
	if (st & PERF_SAMPLE_READ)
		put_read(o, a->read_format, s);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(o, s->callchain_nr);
		put_words(o, s->callchain, s->callchain_nr, s->callchain_nr);
	}
	if (st & PERF_SAMPLE_RAW) {
		size_t from = o->off;
		put32(o, s->raw_size);
		put_bytes(o, s->raw, s->raw_size, from);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		put64(o, s->branch_nr);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			put64(o, s->branch_hw_idx);
		put_bytes(o, s->branches, s->branch_nr * sizeof(struct perf_branch_entry), o->off);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS)
			put_words(o, s->branch_counters, s->branch_counters ? s->branch_nr : 0, s->branch_nr);
	}
	if (st & PERF_SAMPLE_REGS_USER)
		put_regs(o, s->user_abi, a->sample_regs_user, s->user_regs, s->user_nregs);
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t n = REC_ALIGN8(s->user_stack_size);
		put64(o, n);
		if (n) {
			put_bytes(o, s->user_stack, s->user_stack ? s->user_stack_size : 0, o->off);
			put64(o, s->user_stack_dyn_size);
		}
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE)
		put64(o, s->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		put64(o, s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		put64(o, s->transaction);
	if (st & PERF_SAMPLE_REGS_INTR)
		put_regs(o, s->intr_abi, a->sample_regs_intr, s->intr_regs, s->intr_nregs);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		put64(o, s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		put64(o, s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		put64(o, s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		put64(o, s->code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		put64(o, REC_ALIGN8(s->aux_size));
		put_bytes(o, s->aux, s->aux ? s->aux_size : 0, o->off);
	}
}

static void fill_sample(struct out *o, const void *arg)
{
	const struct sample_arg *sa = arg;
	const struct perf_sample *s = sa->s;
	uint64_t st = sa->attr->sample_type;
	put_header(o, PERF_RECORD_SAMPLE, s->cpumode);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(o, s->id);
	if (st & PERF_SAMPLE_IP)
		put64(o, s->ip);
	if (st & PERF_SAMPLE_TID) {
		put32(o, s->pid);
		put32(o, s->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put64(o, s->time);
	if (st & PERF_SAMPLE_ADDR)
		put64(o, s->addr);
	if (st & PERF_SAMPLE_ID)
		put64(o, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(o, s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		put32(o, s->cpu);
		put32(o, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		put64(o, s->period);
	put_tail(o, sa->attr, s);
}

size_t record_build_sample(void *buf, size_t size, const struct perf_event_attr *attr, const struct perf_sample *s)
{
	/* Sizes beyond a record's 64 KiB would wrap the counting writer's arithmetic. */
	if (s->callchain_nr > REC_MAX || s->branch_nr > REC_MAX || s->user_stack_size > REC_MAX ||
	    s->aux_size > REC_MAX || s->raw_size > REC_MAX || s->read_nr > REC_MAX)
		return 0;
	struct sample_arg a = { attr, s };
	return build(buf, size, fill_sample, &a);
}

size_t record_trim_stack(const struct perf_event_header *h, const struct perf_sample *s, void *out)
{
	if (!s->user_stack || s->user_stack_dyn_size >= s->user_stack_size)
		return 0;
	const uint8_t *rec = (const uint8_t *)h;
	size_t data_off = (size_t)(s->user_stack - rec);
	/* At least 8 bytes: a copy of size 0 would have no dyn_size field at all. */
	uint64_t keep = s->user_stack_dyn_size ? REC_ALIGN8(s->user_stack_dyn_size) : 8;
	if (data_off < 8 || data_off + s->user_stack_size + 8 > h->size || keep >= s->user_stack_size)
		return 0;
	size_t tail_off = data_off + s->user_stack_size; /* dyn_size, then the fields after it */
	size_t tail = h->size - tail_off;
	uint8_t *o = out;
	memcpy(o, rec, data_off);
	memcpy(o + data_off - 8, &keep, 8);
	memcpy(o + data_off, s->user_stack, keep);
	memcpy(o + data_off + keep, rec + tail_off, tail);
	size_t size = data_off + keep + tail;
	struct perf_event_header nh = *h;
	nh.size = (uint16_t)size;
	memcpy(o, &nh, sizeof(nh));
	return size;
}

struct ksym_arg {
	const struct perf_event_attr *attr;
	const struct rec_ksymbol *k;
};

static void fill_ksymbol(struct out *o, const void *arg)
{
	const struct ksym_arg *a = arg;
	put_header(o, PERF_RECORD_KSYMBOL, 0);
	put64(o, a->k->addr);
	put32(o, a->k->len);
	if (o->p) {
		st16(o->p + o->off, a->k->ksym_type);
		st16(o->p + o->off + 2, (uint16_t)(a->k->flags | (a->k->unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0)));
	}
	o->off += 4;
	put_string(o, a->k->name ? a->k->name : "");
	put_trailer(o, a->attr, 0, 0);
}

size_t record_build_ksymbol(void *buf, size_t size, const struct perf_event_attr *attr, const struct rec_ksymbol *k)
{
	struct ksym_arg a = { attr, k };
	return build(buf, size, fill_ksymbol, &a);
}

struct bpf_arg {
	const struct perf_event_attr *attr;
	const struct rec_bpf_event *b;
};

static void fill_bpf_event(struct out *o, const void *arg)
{
	const struct bpf_arg *a = arg;
	put_header(o, PERF_RECORD_BPF_EVENT, 0);
	if (o->p) {
		st16(o->p + o->off, a->b->type);
		st16(o->p + o->off + 2, a->b->flags);
	}
	o->off += 4;
	put32(o, a->b->id);
	put_bytes(o, a->b->tag, sizeof(a->b->tag), o->off);
	put_trailer(o, a->attr, 0, 0);
}

size_t record_build_bpf_event(void *buf, size_t size, const struct perf_event_attr *attr,
			      const struct rec_bpf_event *b)
{
	struct bpf_arg a = { attr, b };
	return build(buf, size, fill_bpf_event, &a);
}
