/* The AUX area of a perf event (Arm SPE, CoreSight, Intel PT), as the kernel documents it in
 * include/uapi/linux/perf_event.h: user space writes aux_offset and aux_size into the ring
 * buffer's control page (aux_offset past the data pages, both page multiples, aux_size a
 * power of two pages), then mmaps the fd at aux_offset. The kernel advances aux_head (read it
 * with acquire ordering); the reader consumes [aux_tail, aux_head) and stores aux_tail (release)
 * to give the space back. A writable mapping keeps the kernel from overwriting unread data:
 * when the area fills, the PMU stops and the kernel emits PERF_RECORD_AUX with the TRUNCATED
 * flag. Each PERF_RECORD_AUX in the ring buffer says which part of the area a new piece of
 * data occupies; record turns each drained piece into a PERF_RECORD_AUXTRACE. */
#ifndef LPERF_KERNEL_AUXBUF_H
#define LPERF_KERNEL_AUXBUF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct auxbuf {
	struct perf_event_mmap_page *pc; /* the event's ring buffer control page */
	uint8_t *data;                   /* the AUX area */
	uint64_t size;                   /* bytes, a power of two pages */
	uint64_t offset;                 /* aux_offset: where it is mapped in the fd */
	bool mapped;                     /* data is our mmap (else memory the caller owns) */
	uint8_t *bounce;                 /* a wrapped piece, made contiguous */
	uint64_t drained;                /* bytes delivered so far */
};

/* Places the AUX area after a ring buffer of 1 + data_pages pages at pc, and maps `pages`
 * pages of it. -1 with err_set(): EPERM/ENOMEM mention perf_event_mlock_kb and -m ,AUX. */
int auxbuf_map(struct auxbuf *a, int fd, struct perf_event_mmap_page *pc, size_t data_pages,
	       size_t pages);
/* An AUX area over memory the caller owns (tests; no mmap). */
void auxbuf_init_mem(struct auxbuf *a, struct perf_event_mmap_page *pc, void *data, uint64_t size);
/* Delivers the data between aux_tail and aux_head as one contiguous piece, with its position
 * (the running aux_tail, which perf stores as the AUXTRACE record's offset), then frees it.
 * Returns the bytes delivered (0: nothing new), or -1: cb returned non-zero, or aux_head is
 * more than the area's size ahead of aux_tail (err_set; the area is resynchronised at head). */
typedef int (*auxbuf_cb)(const uint8_t *data, uint64_t size, uint64_t offset, void *arg);
long auxbuf_drain(struct auxbuf *a, auxbuf_cb cb, void *arg);
void auxbuf_unmap(struct auxbuf *a);

#endif
