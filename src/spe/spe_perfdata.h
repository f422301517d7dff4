/* SPE in perf.data, in the layout perf writes for Arm SPE (tools/perf/util/arm-spe.h and the
 * kernel's include/uapi/linux/perf_event.h):
 *   AUXTRACE_INFO (70): header, u32 type = 4 (PERF_AUXTRACE_ARM_SPE), u32 reserved,
 *                       u64 priv[2] = { SPE PMU type, per-CPU mmaps }
 *   AUXTRACE (71):      header, u64 size, offset, reference, u32 idx, tid, cpu, reserved;
 *                       then `size` bytes of AUX data (not counted in header.size; size is
 *                       padded to 8 with zeros, which SPE reads as Padding packets)
 *   AUX (11):           header, u64 aux_offset, aux_size, flags, sample_id trailer
 *   ITRACE_START (12):  header, u32 pid, tid, sample_id trailer
 * Builders write these for tests and for record; the readers check every size. */
#ifndef LPERF_SPE_SPE_PERFDATA_H
#define LPERF_SPE_SPE_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SPE_AUXTRACE_ARM_SPE = 4, SPE_REC_AUXTRACE_INFO = 70, SPE_REC_AUXTRACE = 71 };

struct spe_auxtrace_info {
	uint32_t pmu_type;
	bool per_cpu;
};

struct spe_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
	const uint8_t *data; /* size bytes after the record */
};

/* The sample_id trailer values the builders append (attr decides which are written). */
struct spe_trailer {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
};

/* Each returns the record size written into buf (cap bytes), or 0 when it does not fit. */
size_t spe_build_auxtrace_info(void *buf, size_t cap, const struct spe_auxtrace_info *in);
/* The record only; the caller writes size (8-aligned) data bytes after it. */
size_t spe_build_auxtrace(void *buf, size_t cap, const struct spe_auxtrace *a);
size_t spe_build_aux(void *buf, size_t cap, const struct perf_event_attr *attr, uint64_t aux_offset,
		     uint64_t aux_size, uint64_t flags, const struct spe_trailer *t);
size_t spe_build_itrace_start(void *buf, size_t cap, const struct perf_event_attr *attr,
			      uint32_t pid, uint32_t tid, const struct spe_trailer *t);

/* Readers: 0 = parsed, 1 = an AUXTRACE_INFO of another kind (Intel PT, CoreSight...), -1 after
 * err_set for a record too short for its fields. h points at the record, as perfdata_for_each
 * delivers it (AUXTRACE data follows it in memory). */
int spe_parse_auxtrace_info(const struct perf_event_header *h, struct spe_auxtrace_info *out);
int spe_parse_auxtrace(const struct perf_event_header *h, size_t avail, struct spe_auxtrace *out);
struct spe_aux_rec {
	uint64_t aux_offset, aux_size, flags;
};
int spe_parse_aux(const struct perf_event_header *h, struct spe_aux_rec *out);

#endif
