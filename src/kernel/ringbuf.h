/* The perf mmap ring buffer: one per CPU (or per task), read with the kernel's
 * data_head/data_tail protocol; records that wrap are copied to a bounce buffer.
 *
 * The map is writable, so the kernel never overwrites unread records: when the reader falls
 * behind it drops records and later reports how many in a PERF_RECORD_LOST. */
#ifndef LPERF_KERNEL_RINGBUF_H
#define LPERF_KERNEL_RINGBUF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"  /* record_cb */

struct ringbuf {
	int fd;
	void *base;              /* the mmap: control page + data pages */
	size_t map_size;
	uint8_t *data;
	uint64_t data_size;      /* power of two */
	int cpu;                 /* for messages: the CPU it serves, or -1 (set by the owner) */
	int pid;                 /* for messages: the task it serves, or -1 */
	/* A wrapped record, reassembled (a record is at most 64 KiB: its size is a u16). */
	uint8_t bounce[65536] __attribute__((aligned(8)));
};

/* Maps fd with 1 + pages data pages (pages a power of two). -1 with err_set(): EPERM/ENOMEM
 * mention perf_event_mlock_kb and -m. cpu and pid start as -1. */
int ringbuf_map(struct ringbuf *rb, int fd, size_t pages);
/* Delivers every complete record available, oldest first, then frees their space. Returns the
 * number delivered, or -1: cb returned non-zero (cb's err_set stands; the records up to and
 * including that one are consumed), or a record size is corrupt (< 8, not 8-aligned, or more
 * than the data available): err_set names the buffer and the offset, and the unreadable rest
 * is discarded so that the buffer keeps flowing. The header cb receives is 8-aligned and valid
 * only during the call. */
long ringbuf_drain(struct ringbuf *rb, record_cb cb, void *arg);
void ringbuf_unmap(struct ringbuf *rb);

#endif
