/* Byte swapping of perf.data contents written on a machine of the other byte order (see
 * swap.h). A cursor walks the fields; a field that does not fit ends the walk. */
#include "record/swap.h"

#include <byteswap.h>
#include <stddef.h>

#include "record/feature.h"
#include "record/recutil.h"

struct sw {
	uint8_t *p;
	size_t off, end;
	bool nat;  /* to_native: values are foreign before the swap */
};

static bool has(const struct sw *w, uint64_t n)
{
	return w->off <= w->end && n <= w->end - w->off;
}

/* Each swaps one field in place and returns its native value. */
static uint64_t s64(struct sw *w)
{
	if (!has(w, 8)) {
		w->off = w->end;
		return 0;
	}
	uint8_t *q = w->p + w->off;
	uint64_t v = ld64(q), x = bswap_64(v);
	st64(q, x);
	w->off += 8;
	return w->nat ? x : v;
}

static uint32_t s32(struct sw *w)
{
	if (!has(w, 4)) {
		w->off = w->end;
		return 0;
	}
	uint8_t *q = w->p + w->off;
	uint32_t v = ld32(q), x = bswap_32(v);
	st32(q, x);
	w->off += 4;
	return w->nat ? x : v;
}

static uint16_t s16(struct sw *w)
{
	if (!has(w, 2)) {
		w->off = w->end;
		return 0;
	}
	uint8_t *q = w->p + w->off;
	uint16_t v = ld16(q), x = bswap_16(v);
	st16(q, x);
	w->off += 2;
	return w->nat ? x : v;
}

static void s64n(struct sw *w, uint64_t n)
{
	for (; n && has(w, 8); n--)
		s64(w);
}

static void skip(struct sw *w, uint64_t n)
{
	w->off = has(w, n) ? w->off + (size_t)n : w->end;
}

/* The native value of the u64 at off, without changing it. */
static uint64_t peek64(const uint8_t *p, size_t off, bool nat)
{
	uint64_t v = ld64(p + off);
	return nat ? bswap_64(v) : v;
}

/* Bitfield words: the C ABIs allocate bitfields from the least significant bit on little-endian
 * machines and from the most significant one on big-endian machines, so after the 64-bit swap
 * each field must move from bit p to bit 64 - p - width. The tables give the field widths in
 * declaration order; bits not yet named count as 1-bit fields (new flags are single bits). */
static const uint8_t attr_flag_widths[] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* disabled .. watermark */
	2,                                           /* precise_ip */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* mmap_data .. sigtrap */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};
static const uint8_t branch_flag_widths[] = {
	1, 1, 1, 1, 16, 4, 2, 4, 3, /* mispred, predicted, in_tx, abort, cycles, type, spec, new_type, priv */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static uint64_t remap(uint64_t v, const uint8_t *widths, size_t n, bool le_to_be)
{
	uint64_t out = 0;
	unsigned p = 0;
	for (size_t i = 0; i < n && p < 64; i++) {
		unsigned k = widths[i];
		uint64_t m = (1ULL << k) - 1;
		unsigned q = 64 - p - k;
		if (le_to_be)
			out |= ((v >> p) & m) << q;
		else
			out |= ((v >> q) & m) << p;
		p += k;
	}
	return out;
}

static void swap_bitfield(struct sw *w, const uint8_t *widths, size_t n)
{
	if (!has(w, 8)) {
		w->off = w->end;
		return;
	}
	bool host_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	uint8_t *q = w->p + w->off;
	uint64_t raw = ld64(q), out;
	if (w->nat)
		out = remap(bswap_64(raw), widths, n, !host_le);
	else
		out = bswap_64(remap(raw, widths, n, host_le));
	st64(q, out);
	w->off += 8;
}

void swap_header(struct perf_event_header *h)
{
	h->type = bswap_32(h->type);
	h->misc = bswap_16(h->misc);
	h->size = bswap_16(h->size);
}

void swap_attr(void *attr, size_t size, bool to_native)
{
	if (size < 8)
		return;
	struct sw w = { attr, 0, size, to_native };
	s32(&w);                    /* type */
	uint32_t asz = s32(&w);     /* size */
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < w.end)
		w.end = asz;
	s64(&w);                    /* config */
	s64(&w);                    /* sample_period */
	s64(&w);                    /* sample_type */
	s64(&w);                    /* read_format */
	swap_bitfield(&w, attr_flag_widths, sizeof(attr_flag_widths));
	s32(&w);                    /* wakeup_events */
	s32(&w);                    /* bp_type */
	s64(&w);                    /* config1 */
	s64(&w);                    /* config2 */
	s64(&w);                    /* branch_sample_type */
	s64(&w);                    /* sample_regs_user */
	s32(&w);                    /* sample_stack_user */
	s32(&w);                    /* clockid */
	s64(&w);                    /* sample_regs_intr */
	s32(&w);                    /* aux_watermark */
	s16(&w);                    /* sample_max_stack */
	s16(&w);                    /* __reserved_2 */
	s32(&w);                    /* aux_sample_size */
	s32(&w);                    /* __reserved_3 */
	s64(&w);                    /* sig_data */
	s64(&w);                    /* config3 (attr size 136) */
}

static void swap_tid(struct sw *w)
{
	s32(w);
	s32(w);
}

static void swap_read_format(struct sw *w, uint64_t rf)
{
	size_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t stride = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = s64(w);
		s64n(w, times);
		if (nr <= (w->end - w->off) / 8 / stride)
			s64n(w, nr * stride);
		else
			w->off = w->end;
	} else {
		s64n(w, times + stride);
	}
}

static void swap_regs(struct sw *w, uint64_t mask)
{
	if (s64(w))
		s64n(w, (uint64_t)__builtin_popcountll(mask));
}

static void swap_sample(struct sw *w, const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s64(w);
	if (st & PERF_SAMPLE_IP)
		s64(w);
	if (st & PERF_SAMPLE_TID)
		swap_tid(w);
	if (st & PERF_SAMPLE_TIME)
		s64(w);
	if (st & PERF_SAMPLE_ADDR)
		s64(w);
	if (st & PERF_SAMPLE_ID)
		s64(w);
	if (st & PERF_SAMPLE_STREAM_ID)
		s64(w);
	if (st & PERF_SAMPLE_CPU)
		swap_tid(w);
	if (st & PERF_SAMPLE_PERIOD)
		s64(w);
	if (st & PERF_SAMPLE_READ)
		swap_read_format(w, a->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN)
		s64n(w, s64(w));
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n = s32(w);
		skip(w, REC_ALIGN8((uint64_t)4 + n) - 4);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = s64(w);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			s64(w);
		uint64_t i;
		for (i = 0; i < nr && has(w, sizeof(struct perf_branch_entry)); i++) {
			s64(w);
			s64(w);
			swap_bitfield(w, branch_flag_widths, sizeof(branch_flag_widths));
		}
		if (i < nr)
			w->off = w->end;
		else if (a->branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS)
			s64n(w, nr);
	}
	if (st & PERF_SAMPLE_REGS_USER)
		swap_regs(w, a->sample_regs_user);
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t n = s64(w);
		if (n) {
			skip(w, n);
			s64(w);
		}
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE)
		s64(w);
	if (st & PERF_SAMPLE_DATA_SRC)
		s64(w);
	if (st & PERF_SAMPLE_TRANSACTION)
		s64(w);
	if (st & PERF_SAMPLE_REGS_INTR)
		swap_regs(w, a->sample_regs_intr);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s64(w);
	if (st & PERF_SAMPLE_CGROUP)
		s64(w);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s64(w);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s64(w);
	if (st & PERF_SAMPLE_AUX)
		skip(w, s64(w));
}

static void swap_trailer(struct sw *w, uint64_t st)
{
	if (st & PERF_SAMPLE_TID)
		swap_tid(w);
	if (st & PERF_SAMPLE_TIME)
		s64(w);
	if (st & PERF_SAMPLE_ID)
		s64(w);
	if (st & PERF_SAMPLE_STREAM_ID)
		s64(w);
	if (st & PERF_SAMPLE_CPU)
		swap_tid(w);
	if (st & PERF_SAMPLE_IDENTIFIER)
		s64(w);
}

/* The event whose layout a record follows: for a SAMPLE the id near the start, for others the
 * trailer id near the end (as sample_parse.c finds it). NULL when unknown. */
static const struct evsel *swap_evsel(const struct evsel_set *s, const uint8_t *p, uint32_t type, size_t end,
				      bool nat)
{
	if (!s || !s->n)
		return NULL;
	if (s->n == 1)
		return &s->v[0];
	uint64_t st = s->v[0].attr.sample_type;
	size_t off = 0;
	if (type == PERF_RECORD_SAMPLE) {
		if (st & PERF_SAMPLE_IDENTIFIER)
			off = sizeof(struct perf_event_header);
		else if (st & PERF_SAMPLE_ID)
			off = rec_sample_id_off(st);
	} else {
		size_t back = rec_trailer_id_back(st);
		off = back && back <= end ? end - back : 0;
	}
	if (!off || off + 8 > end)
		return NULL;
	return evsel_by_id(s, peek64(p, off, nat));
}

static void swap_event_update(struct sw *w)
{
	uint64_t type = s64(w);
	s64(w);  /* id */
	if (type == 1)  /* PERF_EVENT_UPDATE__SCALE: a double */
		s64(w);
}

static void swap_thread_map(struct sw *w)
{
	uint64_t nr = s64(w);
	for (; nr && has(w, 24); nr--) {
		s64(w);       /* pid */
		skip(w, 16);  /* comm */
	}
}

/* A pipe-mode HEADER_ATTR: the attr (its own size field says how long), then its ids. */
static void swap_header_attr(struct sw *w)
{
	size_t at = w->off;
	uint32_t asz = has(w, 8) ? ld32(w->p + at + 4) : 0;
	if (w->nat)
		asz = bswap_32(asz);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (!has(w, asz)) {
		swap_attr(w->p + at, w->end - at, w->nat);
		return;
	}
	swap_attr(w->p + at, asz, w->nat);
	w->off += asz;
	s64n(w, UINT64_MAX);
}

/* The payload of a non-sample record, up to its trailer. */
static void swap_body(const struct evsel_set *s, struct sw *w, uint32_t type, uint16_t misc)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		swap_tid(w);
		s64n(w, 3);
		if (type == PERF_RECORD_MMAP2) {
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				skip(w, 24);
			} else {
				swap_tid(w);  /* maj, min */
				s64n(w, 2);
			}
			swap_tid(w);          /* prot, flags */
		}
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		swap_tid(w);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		swap_tid(w);
		swap_tid(w);
		s64(w);
		break;
	case PERF_RECORD_READ:
		swap_tid(w);
		s64n(w, UINT64_MAX);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_AUX:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
	case REC_ID_INDEX:
	case REC_STAT_CONFIG:
	case REC_STAT_ROUND:
		s64n(w, UINT64_MAX);
		break;
	case PERF_RECORD_NAMESPACES:
		swap_tid(w);
		s64n(w, UINT64_MAX);  /* nr, then {dev, ino} pairs */
		break;
	case PERF_RECORD_KSYMBOL:
		s64(w);
		s32(w);
		s16(w);
		s16(w);
		break;
	case PERF_RECORD_BPF_EVENT:
		s16(w);
		s16(w);
		s32(w);
		break;
	case PERF_RECORD_CGROUP:
	case REC_EVENT_TYPE:
		s64(w);
		break;
	case PERF_RECORD_TEXT_POKE:
		s64(w);
		s16(w);
		s16(w);
		break;
	case REC_HEADER_ATTR:
		swap_header_attr(w);
		break;
	case REC_TRACING_DATA:
		s32(w);
		break;
	case REC_BUILD_ID:
		s32(w);  /* pid */
		break;
	case REC_AUXTRACE_INFO:
		s32(w);
		skip(w, 4);
		s64n(w, UINT64_MAX);
		break;
	case REC_AUXTRACE:
		s64n(w, 3);
		s32(w);
		s32(w);
		s32(w);
		break;
	case REC_THREAD_MAP:
		swap_thread_map(w);
		break;
	case REC_STAT:
		s64(w);
		s32(w);
		s32(w);
		s64n(w, 3);
		break;
	case REC_EVENT_UPDATE:
		swap_event_update(w);
		break;
	case REC_TIME_CONV:
		s64n(w, 5);
		break;
	case REC_HEADER_FEATURE: {
		uint64_t feat = s64(w);
		if (feat < FEAT_MAX)
			swap_feature((int)feat, w->p + w->off, w->end - w->off, w->nat);
		break;
	}
	default:
		/* Unknown layouts (CPU_MAP, AUXTRACE_ERROR, COMPRESSED, newer types) keep their bytes. */
		break;
	}
}

void swap_record(const struct evsel_set *s, void *rec, size_t size, bool to_native)
{
	if (size < sizeof(struct perf_event_header))
		return;
	struct perf_event_header nh, sh;
	memcpy(&nh, rec, sizeof(nh));
	sh = nh;
	swap_header(&sh);
	if (to_native)
		nh = sh;
	size_t end = nh.size < size ? nh.size : size;
	struct sw w = { rec, sizeof(nh), end, to_native };
	if (end < sizeof(nh)) {
		/* a damaged size: only the header can be trusted to be there */
	} else if (nh.type == PERF_RECORD_SAMPLE) {
		const struct evsel *e = swap_evsel(s, rec, nh.type, end, to_native);
		if (e)
			swap_sample(&w, &e->attr);
	} else {
		if (nh.type < REC_USER_TYPE_START && s && s->n && s->v[0].attr.sample_id_all &&
		    sample_id_size(&s->v[0].attr)) {
			/* An id no event has still leaves the layout, which all events share. */
			const struct evsel *e = swap_evsel(s, rec, nh.type, end, to_native);
			if (!e)
				e = &s->v[0];
			size_t n = sample_id_size(&e->attr);
			if (n && n <= end - w.off) {
				struct sw t = { rec, end - n, end, to_native };
				swap_trailer(&t, e->attr.sample_type);
				w.end = end - n;
			} else {
				/* The trailer cannot be found: keep the payload as it is. */
				w.end = w.off;
			}
		}
		swap_body(s, &w, nh.type, nh.misc);
	}
	memcpy(rec, &sh, sizeof(sh));
}

static void swap_string(struct sw *w)
{
	skip(w, s32(w));
}

/* BUILD_ID feature: build_id_event records, each with its header and pid. */
static void swap_build_ids(struct sw *w)
{
	while (has(w, 12)) {
		size_t at = w->off;
		struct perf_event_header nh, sh;
		memcpy(&nh, w->p + at, sizeof(nh));
		sh = nh;
		swap_header(&sh);
		memcpy(w->p + at, &sh, sizeof(sh));
		if (w->nat)
			nh = sh;
		w->off += sizeof(nh);
		s32(w);  /* pid */
		if (nh.size < 12)
			break;
		w->off = at;
		skip(w, nh.size);
	}
}

static void swap_event_desc(struct sw *w)
{
	uint32_t nre = s32(w);
	uint32_t sz = s32(w);
	if (sz < 8)
		return;
	for (uint32_t i = 0; i < nre && has(w, sz); i++) {
		swap_attr(w->p + w->off, sz, w->nat);
		w->off += sz;
		uint32_t nids = s32(w);
		swap_string(w);
		s64n(w, nids);
	}
}

void swap_feature(int feat, void *data, size_t size, bool to_native)
{
	struct sw w = { data, 0, size, to_native };
	switch (feat) {
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
	case FEAT_VERSION:
	case FEAT_ARCH:
	case FEAT_CPUDESC:
	case FEAT_CPUID:
		s32(&w);
		break;
	case FEAT_NRCPUS:
		s32(&w);
		s32(&w);
		break;
	case FEAT_TOTAL_MEM:
	case FEAT_CLOCKID:
		s64(&w);
		break;
	case FEAT_SAMPLE_TIME:
		s64(&w);
		s64(&w);
		break;
	case FEAT_CMDLINE:
		for (uint32_t n = s32(&w); n && has(&w, 4); n--)
			swap_string(&w);
		break;
	case FEAT_EVENT_DESC:
		swap_event_desc(&w);
		break;
	case FEAT_BUILD_ID:
		swap_build_ids(&w);
		break;
	default:
		break;
	}
}
