/* PERF_RECORD_SAMPLE and the sample_id trailer of other records. Every length comes from the
 * record and is checked against header.size with divisions, never with sums that can wrap. */
#include "record/record.h"

#include <inttypes.h>
#include <string.h>

#include "record/recutil.h"
#include "util/error.h"

struct cur {
	const uint8_t *base;
	size_t off, end;
};

static size_t left(const struct cur *c)
{
	return c->end - c->off;
}

static int short_err(const struct cur *c, const char *field, uint64_t need)
{
	return err_set("SAMPLE: %s at byte %zu needs %" PRIu64 " bytes but the record has %zu bytes",
		       field, c->off, need, c->end);
}

static int get64(struct cur *c, uint64_t *v, const char *field)
{
	if (left(c) < 8)
		return short_err(c, field, 8);
	*v = ld64(c->base + c->off);
	c->off += 8;
	return 0;
}

static int get32x2(struct cur *c, uint32_t *a, uint32_t *b, const char *field)
{
	if (left(c) < 8)
		return short_err(c, field, 8);
	*a = ld32(c->base + c->off);
	*b = ld32(c->base + c->off + 4);
	c->off += 8;
	return 0;
}

/* An array of n items of isz bytes: checked by division so that n = 2^60 cannot wrap. */
static const void *get_array(struct cur *c, uint64_t n, size_t isz, const char *field)
{
	if (n > left(c) / isz) {
		err_set("SAMPLE: %s of %" PRIu64 " entries at byte %zu does not fit the record's %zu bytes",
			field, n, c->off, c->end);
		return NULL;
	}
	const void *p = c->base + c->off;
	c->off += (size_t)n * isz;
	return p;
}

/* The event a record belongs to, from the id at byte off (0 when the record has none). */
static const struct evsel *pick_evsel(const struct evsel_set *s, const struct perf_event_header *h, size_t off,
				      bool report)
{
	if (!s || !s->n) {
		if (report)
			err_set("%s record but no events are known", record_type_name(h->type));
		return NULL;
	}
	if (s->n == 1)
		return &s->v[0];
	if (!off) {
		if (report)
			err_set("%zu events, but their records carry no id (PERF_SAMPLE_IDENTIFIER or "
				"PERF_SAMPLE_ID) to tell them apart", s->n);
		return NULL;
	}
	if (off + 8 > h->size) {
		if (report)
			err_set("%s record of %u bytes is too short to hold its event id at byte %zu",
				record_type_name(h->type), h->size, off);
		return NULL;
	}
	uint64_t id = ld64((const uint8_t *)h + off);
	const struct evsel *e = evsel_by_id(s, id);
	if (!e && report)
		err_set("%s record: event id %" PRIu64 " belongs to none of the %zu events",
			record_type_name(h->type), id, s->n);
	return e;
}

static const struct evsel *sample_evsel(const struct evsel_set *s, const struct perf_event_header *h, bool report)
{
	size_t off = 0;
	if (s && s->n > 1) {
		uint64_t st = s->v[0].attr.sample_type;
		if (st & PERF_SAMPLE_IDENTIFIER)
			off = sizeof(*h);
		else if (st & PERF_SAMPLE_ID)
			off = rec_sample_id_off(st);
	}
	return pick_evsel(s, h, off, report);
}

/* Non-sample records: the first event's layout finds the id, whose event then gives the
 * layout (perf requires all events to agree). NULL with *none set when there is no trailer. */
static const struct evsel *trailer_evsel(const struct evsel_set *s, const struct perf_event_header *h,
					 bool report, bool *none)
{
	*none = true;
	if (!s || !s->n || h->type >= REC_USER_TYPE_START || !s->v[0].attr.sample_id_all)
		return NULL;
	size_t n = sample_id_size(&s->v[0].attr);
	if (!n)
		return NULL;
	*none = false;
	if (h->size < sizeof(*h) + n) {
		if (report)
			err_set("%s record of %u bytes cannot hold its %zu-byte sample_id trailer",
				record_type_name(h->type), h->size, n);
		return NULL;
	}
	size_t back = rec_trailer_id_back(s->v[0].attr.sample_type);
	const struct evsel *e = pick_evsel(s, h, back ? h->size - back : 0, report);
	if (e && sample_id_size(&e->attr) != n) {
		if (report)
			err_set("%s record: events %s and %s disagree on the sample_id trailer",
				record_type_name(h->type), s->v[0].name ? s->v[0].name : "0",
				e->name ? e->name : "?");
		return NULL;
	}
	return e;
}

size_t sample_id_size(const struct perf_event_attr *attr)
{
	return attr->sample_id_all ? rec_trailer_size(attr->sample_type) : 0;
}

static int parse_read(struct cur *c, uint64_t rf, struct perf_sample *out)
{
	size_t stride = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	out->read_format = rf;
	out->read_block = (const uint64_t *)(c->base + c->off);
	if (rf & PERF_FORMAT_GROUP) {
		if (get64(c, &out->read_nr, "READ nr") < 0)
			return -1;
	} else {
		out->read_nr = 1;
		if (left(c) < 8)
			return short_err(c, "READ value", 8);
		c->off += 8;
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED && get64(c, &out->read_time_enabled, "READ time_enabled") < 0)
		return -1;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING && get64(c, &out->read_time_running, "READ time_running") < 0)
		return -1;
	if (rf & PERF_FORMAT_GROUP)
		return get_array(c, out->read_nr, stride * 8, "READ group") ? 0 : -1;
	return get_array(c, stride - 1, 8, "READ id/lost") ? 0 : -1;
}

void sample_read_value(const struct perf_sample *s, uint64_t i, struct sample_read_value *v)
{
	uint64_t rf = s->read_format;
	const uint64_t *p = s->read_block;
	memset(v, 0, sizeof(*v));
	if (!p || i >= s->read_nr)
		return;
	size_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (rf & PERF_FORMAT_GROUP) {
		size_t stride = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		p += 1 + times + i * stride;
		v->value = ld64(p++);
	} else {
		v->value = ld64(p++);
		p += times;
	}
	if (rf & PERF_FORMAT_ID)
		v->id = ld64(p++);
	if (rf & PERF_FORMAT_LOST)
		v->lost = ld64(p);
}

static int parse_regs(struct cur *c, uint64_t mask, uint64_t *abi, const uint64_t **regs, size_t *nregs,
		      const char *field)
{
	if (get64(c, abi, field) < 0)
		return -1;
	if (!*abi)
		return 0;
	*nregs = (size_t)__builtin_popcountll(mask);
	*regs = get_array(c, *nregs, 8, field);
	return *regs ? 0 : -1;
}

static int parse_branches(struct cur *c, uint64_t bst, struct perf_sample *out)
{
	if (get64(c, &out->branch_nr, "BRANCH_STACK nr") < 0)
		return -1;
	if (bst & PERF_SAMPLE_BRANCH_HW_INDEX) {
		out->branch_has_hw_idx = true;
		if (get64(c, &out->branch_hw_idx, "BRANCH_STACK hw_idx") < 0)
			return -1;
	}
	out->branches = get_array(c, out->branch_nr, sizeof(struct perf_branch_entry), "BRANCH_STACK");
	if (!out->branches)
		return -1;
	if (bst & PERF_SAMPLE_BRANCH_COUNTERS) {
		out->branch_counters = get_array(c, out->branch_nr, 8, "BRANCH_STACK counters");
		if (!out->branch_counters)
			return -1;
	}
	return 0;
}

static int parse_stack(struct cur *c, struct perf_sample *out)
{
	if (get64(c, &out->user_stack_size, "STACK_USER size") < 0)
		return -1;
	if (!out->user_stack_size)
		return 0;
	/* Later fields stay 8-aligned only if the kernel's 8-byte rounding holds. */
	if (out->user_stack_size % 8)
		return err_set("SAMPLE: STACK_USER size %" PRIu64 " at byte %zu is not a multiple of 8",
			       out->user_stack_size, c->off - 8);
	out->user_stack = get_array(c, out->user_stack_size, 1, "STACK_USER");
	if (!out->user_stack || get64(c, &out->user_stack_dyn_size, "STACK_USER dyn_size") < 0)
		return -1;
	if (out->user_stack_dyn_size > out->user_stack_size)
		return err_set("SAMPLE: STACK_USER dyn_size %" PRIu64 " is larger than the %" PRIu64
			       " bytes copied", out->user_stack_dyn_size, out->user_stack_size);
	return 0;
}

static int parse_raw(struct cur *c, struct perf_sample *out)
{
	if (left(c) < 4)
		return short_err(c, "RAW size", 4);
	out->raw_size = ld32(c->base + c->off);
	/* The u32 size and the data together are padded to 8 bytes. */
	uint64_t total = REC_ALIGN8((uint64_t)4 + out->raw_size);
	if (total > left(c))
		return short_err(c, "RAW", total);
	out->raw = c->base + c->off + 4;
	c->off += (size_t)total;
	return 0;
}

static int parse_aux(struct cur *c, struct perf_sample *out)
{
	if (get64(c, &out->aux_size, "AUX size") < 0)
		return -1;
	out->aux = get_array(c, out->aux_size, 1, "AUX");
	return out->aux ? 0 : -1;
}

/* Everything after PERIOD, in the kernel's perf_output_sample() order. */
static int parse_tail(struct cur *c, const struct perf_event_attr *a, struct perf_sample *out)
{
	uint64_t st = a->sample_type;
	if (st & PERF_SAMPLE_READ && parse_read(c, a->read_format, out) < 0)
		return -1;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (get64(c, &out->callchain_nr, "CALLCHAIN nr") < 0)
			return -1;
		out->callchain = get_array(c, out->callchain_nr, 8, "CALLCHAIN");
		if (!out->callchain)
			return -1;
	}
	if (st & PERF_SAMPLE_RAW && parse_raw(c, out) < 0)
		return -1;
	if (st & PERF_SAMPLE_BRANCH_STACK && parse_branches(c, a->branch_sample_type, out) < 0)
		return -1;
	if (st & PERF_SAMPLE_REGS_USER) {
		out->user_regs_mask = a->sample_regs_user;
		if (parse_regs(c, a->sample_regs_user, &out->user_abi, &out->user_regs, &out->user_nregs,
			       "REGS_USER") < 0)
			return -1;
	}
	if (st & PERF_SAMPLE_STACK_USER && parse_stack(c, out) < 0)
		return -1;
	if (st & PERF_SAMPLE_WEIGHT_TYPE && get64(c, &out->weight, "WEIGHT") < 0)
		return -1;
	if (st & PERF_SAMPLE_DATA_SRC && get64(c, &out->data_src, "DATA_SRC") < 0)
		return -1;
	if (st & PERF_SAMPLE_TRANSACTION && get64(c, &out->transaction, "TRANSACTION") < 0)
		return -1;
	if (st & PERF_SAMPLE_REGS_INTR) {
		out->intr_regs_mask = a->sample_regs_intr;
		if (parse_regs(c, a->sample_regs_intr, &out->intr_abi, &out->intr_regs, &out->intr_nregs,
			       "REGS_INTR") < 0)
			return -1;
	}
	if (st & PERF_SAMPLE_PHYS_ADDR && get64(c, &out->phys_addr, "PHYS_ADDR") < 0)
		return -1;
	if (st & PERF_SAMPLE_CGROUP && get64(c, &out->cgroup, "CGROUP") < 0)
		return -1;
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE && get64(c, &out->data_page_size, "DATA_PAGE_SIZE") < 0)
		return -1;
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE && get64(c, &out->code_page_size, "CODE_PAGE_SIZE") < 0)
		return -1;
	if (st & PERF_SAMPLE_AUX && parse_aux(c, out) < 0)
		return -1;
	return 0;
}

int sample_parse(const struct evsel_set *s, const struct perf_event_header *h, struct perf_sample *out)
{
	memset(out, 0, sizeof(*out));
	if (h->type != PERF_RECORD_SAMPLE)
		return err_set("%s record is not a SAMPLE", record_type_name(h->type));
	if (h->size < sizeof(*h))
		return err_set("SAMPLE record of %u bytes is smaller than its header", h->size);
	const struct evsel *e = sample_evsel(s, h, true);
	if (!e)
		return -1;
	const struct perf_event_attr *a = &e->attr;
	uint64_t st = a->sample_type;
	struct cur c = { (const uint8_t *)h, sizeof(*h), h->size };
	out->evsel = e;
	out->sample_type = st;
	out->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	/* a fixed period (-c) need not be in every sample */
	out->period = a->sample_period;
	uint32_t res;
	if (st & PERF_SAMPLE_IDENTIFIER && get64(&c, &out->id, "IDENTIFIER") < 0)
		return -1;
	if (st & PERF_SAMPLE_IP && get64(&c, &out->ip, "IP") < 0)
		return -1;
	if (st & PERF_SAMPLE_TID && get32x2(&c, &out->pid, &out->tid, "TID") < 0)
		return -1;
	if (st & PERF_SAMPLE_TIME && get64(&c, &out->time, "TIME") < 0)
		return -1;
	if (st & PERF_SAMPLE_ADDR && get64(&c, &out->addr, "ADDR") < 0)
		return -1;
	if (st & PERF_SAMPLE_ID && get64(&c, &out->id, "ID") < 0)
		return -1;
	if (st & PERF_SAMPLE_STREAM_ID && get64(&c, &out->stream_id, "STREAM_ID") < 0)
		return -1;
	if (st & PERF_SAMPLE_CPU && get32x2(&c, &out->cpu, &res, "CPU") < 0)
		return -1;
	if (st & PERF_SAMPLE_PERIOD && get64(&c, &out->period, "PERIOD") < 0)
		return -1;
	return parse_tail(&c, a, out);
}

int sample_id_parse(const struct evsel_set *s, const struct perf_event_header *h, struct perf_sample *out)
{
	if (h->type == PERF_RECORD_SAMPLE)
		return sample_parse(s, h, out);
	memset(out, 0, sizeof(*out));
	bool none;
	const struct evsel *e = trailer_evsel(s, h, true, &none);
	if (!e)
		return none ? 0 : -1;
	uint64_t st = e->attr.sample_type;
	struct cur c = { (const uint8_t *)h, h->size - sample_id_size(&e->attr), h->size };
	uint32_t res;
	out->evsel = e;
	out->sample_type = st;
	out->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	/* The size was checked in trailer_evsel, so these reads cannot fail. */
	if (st & PERF_SAMPLE_TID)
		get32x2(&c, &out->pid, &out->tid, "TID");
	if (st & PERF_SAMPLE_TIME)
		get64(&c, &out->time, "TIME");
	if (st & PERF_SAMPLE_ID)
		get64(&c, &out->id, "ID");
	if (st & PERF_SAMPLE_STREAM_ID)
		get64(&c, &out->stream_id, "STREAM_ID");
	if (st & PERF_SAMPLE_CPU)
		get32x2(&c, &out->cpu, &res, "CPU");
	if (st & PERF_SAMPLE_IDENTIFIER)
		get64(&c, &out->id, "IDENTIFIER");
	return 0;
}

uint64_t record_time(const struct evsel_set *s, const struct perf_event_header *h)
{
	if (h->size < sizeof(*h))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		const struct evsel *e = sample_evsel(s, h, false);
		if (!e || !(e->attr.sample_type & PERF_SAMPLE_TIME))
			return 0;
		size_t off = rec_sample_time_off(e->attr.sample_type);
		return off + 8 <= h->size ? ld64((const uint8_t *)h + off) : 0;
	}
	bool none;
	const struct evsel *e = trailer_evsel(s, h, false, &none);
	if (!e || !(e->attr.sample_type & PERF_SAMPLE_TIME))
		return 0;
	size_t off = h->size - sample_id_size(&e->attr) + (e->attr.sample_type & PERF_SAMPLE_TID ? 8 : 0);
	return ld64((const uint8_t *)h + off);
}
