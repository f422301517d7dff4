/* The side-band record parsers (MMAP/MMAP2, COMM, FORK/EXIT, LOST, KSYMBOL, BPF_EVENT) and record type names.
 * Every string and length is checked against the record's size. */
#include "record/record.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "record/recutil.h"
#include "util/error.h"
#include "util/xalloc.h"

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

int record_parse_ksymbol(const struct perf_event_header *h, struct rec_ksymbol *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (check_type(h, PERF_RECORD_KSYMBOL, PERF_RECORD_KSYMBOL, "KSYMBOL") < 0 || check_size(h, 24) < 0)
		return -1;
	out->addr = ld64(p + 8);
	out->len = ld32(p + 16);
	out->ksym_type = ld16(p + 20);
	out->flags = ld16(p + 22);
	out->unregister = out->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
	if (!out->len)
		return err_set("KSYMBOL record at 0x%llx: length 0", (unsigned long long)out->addr);
	if (out->addr + out->len < out->addr)
		return err_set("KSYMBOL record at 0x%llx: length %u runs past the end of the address space",
			       (unsigned long long)out->addr, out->len);
	out->name = record_string(h, 24, "name");
	return out->name ? 0 : -1;
}

int record_parse_bpf_event(const struct perf_event_header *h, struct rec_bpf_event *out)
{
	const uint8_t *p = (const uint8_t *)h;
	memset(out, 0, sizeof(*out));
	if (check_type(h, PERF_RECORD_BPF_EVENT, PERF_RECORD_BPF_EVENT, "BPF_EVENT") < 0 || check_size(h, 24) < 0)
		return -1;
	out->type = ld16(p + 8);
	out->flags = ld16(p + 10);
	out->id = ld32(p + 12);
	memcpy(out->tag, p + 16, sizeof(out->tag));
	return 0;
}
