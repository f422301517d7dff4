/* The perf mmap ring buffer: one per CPU (or per task), read with the kernel's
 * data_head/data_tail protocol; records that wrap are copied to a bounce buffer. */
#ifndef LPERF_KERNEL_RINGBUF_H
#define LPERF_KERNEL_RINGBUF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/perfdata.h"  /* record_cb */

struct ringbuf {
	int fd;
	void *base;              /* the mmap: control page + data pages */
	size_t map_size;
	uint8_t *data;
	uint64_t data_size;      /* power of two */
	uint8_t bounce[65536];   /* a wrapped record, reassembled */
};

/* Maps fd with 1 + pages data pages (pages a power of two). -1 with err_set(): EPERM/ENOMEM
 * mention perf_event_mlock_kb and -m. */
int ringbuf_map(struct ringbuf *rb, int fd, size_t pages);
/* Delivers every complete record available, oldest first, then frees their space. Returns the
 * number delivered, or -1 (cb's error, or a corrupt record size). */
long ringbuf_drain(struct ringbuf *rb, record_cb cb, void *arg);
void ringbuf_unmap(struct ringbuf *rb);

#endif
