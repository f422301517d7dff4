/* record's SPE capture: the AUX area of each SPE event (kernel/auxbuf.h) drained into
 * PERF_RECORD_AUXTRACE records (spe_perfdata.h) of the recording, after one AUXTRACE_INFO,
 * as perf record writes them for Arm SPE. The PERF_RECORD_AUX and ITRACE_START records come
 * through the ordinary ring buffer and are written as they are. */
#ifndef LPERF_SPE_SPE_CAPTURE_H
#define LPERF_SPE_SPE_CAPTURE_H

#include <stdint.h>

#include "kernel/auxbuf.h"
#include "perfdata/perfdata.h"

struct spe_capture {
	struct auxbuf aux;
	struct perfdata_writer *w;
	uint32_t cpu, tid, idx;   /* the AUXTRACE record's: CPU (-1 per-thread), thread, mmap index */
	uint64_t bytes, pieces;
};

/* Writes the Arm SPE AUXTRACE_INFO (before any AUXTRACE). */
int spe_capture_info(struct perfdata_writer *w, uint32_t pmu_type, bool per_cpu);
/* Drains c's AUX area into AUXTRACE records. Returns bytes written, or -1 (err_set). */
long spe_capture_drain(struct spe_capture *c);

#endif
