/* The AUX area (see auxbuf.h). */
#include "kernel/auxbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/error.h"
#include "util/xalloc.h"

int auxbuf_map(struct auxbuf *a, int fd, struct perf_event_mmap_page *pc, size_t data_pages,
	       size_t pages)
{
	memset(a, 0, sizeof(*a));
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		page = 4096;
	if (!pages || (pages & (pages - 1)))
		return err_set("AUX area of %zu pages: a power of two is needed", pages);
	a->pc = pc;
	a->offset = (uint64_t)(1 + data_pages) * (uint64_t)page;
	a->size = (uint64_t)pages * (uint64_t)page;
	pc->aux_offset = a->offset;
	pc->aux_size = a->size;
	void *m = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a->offset);
	if (m == MAP_FAILED) {
		int e = errno;
		if (e == EPERM || e == ENOMEM)
			return err_set("cannot map the AUX area (%zu pages): %s; lower -m ,AUXPAGES "
				       "or raise /proc/sys/kernel/perf_event_mlock_kb", pages, strerror(e));
		return err_set("cannot map the AUX area (%zu pages): %s", pages, strerror(e));
	}
	a->data = m;
	a->mapped = true;
	a->bounce = xmalloc(a->size);
	return 0;
}

void auxbuf_init_mem(struct auxbuf *a, struct perf_event_mmap_page *pc, void *data, uint64_t size)
{
	memset(a, 0, sizeof(*a));
	a->pc = pc;
	a->data = data;
	a->size = size;
	a->bounce = xmalloc(size ? size : 1);
}

long auxbuf_drain(struct auxbuf *a, auxbuf_cb cb, void *arg)
{
	uint64_t head = __atomic_load_n(&a->pc->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = a->pc->aux_tail;
	if (head == tail)
		return 0;
	uint64_t len = head - tail;
	if (len > a->size) {
		__atomic_store_n(&a->pc->aux_tail, head, __ATOMIC_RELEASE);
		return err_set("AUX area: aux_head 0x%llx is %llu bytes past aux_tail 0x%llx, more than "
			       "its %llu bytes; the data in between is lost",
			       (unsigned long long)head, (unsigned long long)len,
			       (unsigned long long)tail, (unsigned long long)a->size);
	}
	uint64_t start = tail & (a->size - 1);
	const uint8_t *piece = a->data + start;
	if (start + len > a->size) {
		uint64_t first = a->size - start;
		memcpy(a->bounce, a->data + start, first);
		memcpy(a->bounce + first, a->data, len - first);
		piece = a->bounce;
	}
	int r = cb(piece, len, tail, arg);
	__atomic_store_n(&a->pc->aux_tail, head, __ATOMIC_RELEASE);
	a->drained += len;
	return r ? -1 : (long)len;
}

void auxbuf_unmap(struct auxbuf *a)
{
	if (a->mapped && a->data)
		munmap(a->data, a->size);
	free(a->bounce);
	memset(a, 0, sizeof(*a));
}
