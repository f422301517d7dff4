/* The AUX areas of a live run (Arm SPE events): the attrs as perf's Arm SPE recording sets them,
 * one AUX area per ring buffer that carries an SPE event (mapped through that event's fd: only
 * a PMU with an AUX area accepts the mapping; the control page is the ring buffer's), and the
 * data drained after each ring-buffer pass as PERF_RECORD_AUXTRACE records (header, then the
 * data padded to 8 bytes, the layout perf.data stores) through the same record callback.
 * Not verified on SPE hardware (none here): written to include/uapi/linux/perf_event.h and the
 * kernel's AUX rules; see docs/spe.md. */
#ifndef LPERF_LIVE_AUX_H
#define LPERF_LIVE_AUX_H

#include "live/live.h"

/* Adjusts the attr of event e when it is an SPE event (no frequency mode; the period from -c
 * or the PMU's caps/min_interval). */
void live_aux_attr(struct live *l, size_t e, struct perf_event_attr *a, uint64_t period);
/* Maps the AUX areas after the ring buffers are mapped; aux_pages 0 = perf's default. */
int live_aux_map(struct live *l, size_t aux_pages);
/* AUX pages per buffer: aux_pages (-m ,AUX), else perf's default (4 MiB when privileged,
 * 128 KiB otherwise). */
size_t live_aux_pages(size_t aux_pages);
/* Delivers what the AUX areas hold as AUXTRACE records; the number delivered, or -1. */
long live_aux_drain(struct live *l, record_cb cb, void *arg);
void live_aux_unmap(struct live *l);

#endif
