/* perf_event_attr fields by name and value, in the order perf 6.1 prints them. */
#include "output/attr_text.h"

#include <inttypes.h>
#include <string.h>

struct bit_name {
	uint64_t bit;
	const char *name;
};

static void bits_str(uint64_t v, const struct bit_name *bits, size_t n, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(v & bits[i].bit))
			continue;
		int w = snprintf(buf + len, size - len, "%s%s", len ? "|" : "", bits[i].name);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
}

#define B(prefix, n) { prefix##n, #n }

void attr_sample_type_str(uint64_t v, char *buf, size_t size)
{
	/* perf's order, which is not the bits' */
	static const struct bit_name bits[] = {
		B(PERF_SAMPLE_, IP), B(PERF_SAMPLE_, TID), B(PERF_SAMPLE_, TIME), B(PERF_SAMPLE_, ADDR),
		B(PERF_SAMPLE_, READ), B(PERF_SAMPLE_, CALLCHAIN), B(PERF_SAMPLE_, ID), B(PERF_SAMPLE_, CPU),
		B(PERF_SAMPLE_, PERIOD), B(PERF_SAMPLE_, STREAM_ID), B(PERF_SAMPLE_, RAW),
		B(PERF_SAMPLE_, BRANCH_STACK), B(PERF_SAMPLE_, REGS_USER), B(PERF_SAMPLE_, STACK_USER),
		B(PERF_SAMPLE_, IDENTIFIER), B(PERF_SAMPLE_, REGS_INTR), B(PERF_SAMPLE_, DATA_SRC),
		B(PERF_SAMPLE_, WEIGHT), B(PERF_SAMPLE_, PHYS_ADDR), B(PERF_SAMPLE_, AUX),
		B(PERF_SAMPLE_, CGROUP), B(PERF_SAMPLE_, DATA_PAGE_SIZE), B(PERF_SAMPLE_, CODE_PAGE_SIZE),
		B(PERF_SAMPLE_, WEIGHT_STRUCT),
	};
	bits_str(v, bits, sizeof(bits) / sizeof(bits[0]), buf, size);
}

static void read_format_str(uint64_t v, char *buf, size_t size)
{
	static const struct bit_name bits[] = {
		B(PERF_FORMAT_, TOTAL_TIME_ENABLED), B(PERF_FORMAT_, TOTAL_TIME_RUNNING), B(PERF_FORMAT_, ID),
		B(PERF_FORMAT_, GROUP), { 1ULL << 4, "LOST" },
	};
	bits_str(v, bits, sizeof(bits) / sizeof(bits[0]), buf, size);
}

static void branch_type_str(uint64_t v, char *buf, size_t size)
{
	static const char *const names[] = {
		"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL", "ABORT_TX", "IN_TX",
		"NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL", "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE",
		"HW_INDEX", "PRIV_SAVE",
	};
	struct bit_name bits[sizeof(names) / sizeof(names[0])];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		bits[i] = (struct bit_name){ 1ULL << i, names[i] };
	bits_str(v, bits, sizeof(bits) / sizeof(bits[0]), buf, size);
}

#undef B

enum fmt { U, X, S };

static void bits_field(attr_field_fn each, void *arg, const char *name, uint64_t v,
		       void (*str)(uint64_t, char *, size_t))
{
	char buf[512];
	if (!v)
		return;
	str(v, buf, sizeof(buf));
	each(name, buf, arg);
}

static void num(attr_field_fn each, void *arg, const char *name, uint64_t v, enum fmt f)
{
	char buf[32];
	if (!v)
		return;
	if (f == X)
		snprintf(buf, sizeof(buf), "%#" PRIx64, v);
	else if (f == S)
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)v);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
	each(name, buf, arg);
}

void attr_for_each_field(const struct perf_event_attr *a, attr_field_fn each, void *arg)
{
	num(each, arg, "type", a->type, U);
	num(each, arg, "size", a->size, U);
	num(each, arg, "config", a->config, X);
	num(each, arg, "{ sample_period, sample_freq }", a->sample_period, U);
	bits_field(each, arg, "sample_type", a->sample_type, attr_sample_type_str);
	bits_field(each, arg, "read_format", a->read_format, read_format_str);
	const struct { const char *name; uint64_t v; } flags[] = {
		{ "disabled", a->disabled }, { "inherit", a->inherit }, { "pinned", a->pinned },
		{ "exclusive", a->exclusive }, { "exclude_user", a->exclude_user },
		{ "exclude_kernel", a->exclude_kernel }, { "exclude_hv", a->exclude_hv },
		{ "exclude_idle", a->exclude_idle }, { "mmap", a->mmap }, { "comm", a->comm }, { "freq", a->freq },
		{ "inherit_stat", a->inherit_stat }, { "enable_on_exec", a->enable_on_exec }, { "task", a->task },
		{ "watermark", a->watermark }, { "precise_ip", a->precise_ip }, { "mmap_data", a->mmap_data },
		{ "sample_id_all", a->sample_id_all }, { "exclude_host", a->exclude_host },
		{ "exclude_guest", a->exclude_guest }, { "exclude_callchain_kernel", a->exclude_callchain_kernel },
		{ "exclude_callchain_user", a->exclude_callchain_user }, { "mmap2", a->mmap2 },
		{ "comm_exec", a->comm_exec }, { "use_clockid", a->use_clockid },
		{ "context_switch", a->context_switch }, { "write_backward", a->write_backward },
		{ "namespaces", a->namespaces }, { "ksymbol", a->ksymbol }, { "bpf_event", a->bpf_event },
		{ "aux_output", a->aux_output }, { "cgroup", a->cgroup }, { "text_poke", a->text_poke },
		{ "build_id", a->build_id }, { "inherit_thread", a->inherit_thread },
		{ "remove_on_exec", a->remove_on_exec }, { "sigtrap", a->sigtrap },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		num(each, arg, flags[i].name, flags[i].v, U);
	num(each, arg, "{ wakeup_events, wakeup_watermark }", a->wakeup_events, U);
	num(each, arg, "bp_type", a->bp_type, U);
	num(each, arg, "{ bp_addr, config1 }", a->bp_addr, X);
	num(each, arg, "{ bp_len, config2 }", a->bp_len, X);
	bits_field(each, arg, "branch_sample_type", a->branch_sample_type, branch_type_str);
	num(each, arg, "sample_regs_user", a->sample_regs_user, X);
	num(each, arg, "sample_stack_user", a->sample_stack_user, U);
	num(each, arg, "clockid", (uint64_t)(int64_t)a->clockid, S);
	num(each, arg, "sample_regs_intr", a->sample_regs_intr, X);
	num(each, arg, "aux_watermark", a->aux_watermark, U);
	num(each, arg, "sample_max_stack", a->sample_max_stack, U);
	num(each, arg, "aux_sample_size", a->aux_sample_size, U);
	num(each, arg, "sig_data", a->sig_data, U);
}
