#include "kernel/ringbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fileio.h"

/* "CPU 3 (fd 7)", "task 1234 (fd 7)" or "fd 7": which buffer a message is about. */
static const char *rb_name(const struct ringbuf *rb, char *buf, size_t size)
{
	if (rb->cpu >= 0)
		snprintf(buf, size, "CPU %d (fd %d)", rb->cpu, rb->fd);
	else if (rb->pid > 0)
		snprintf(buf, size, "task %d (fd %d)", rb->pid, rb->fd);
	else
		snprintf(buf, size, "fd %d", rb->fd);
	return buf;
}

static int map_error(int e, size_t bytes, size_t pages, long page)
{
	size_t kib = bytes / 1024;
	if (e == EPERM || e == ENOMEM) {
		long mlock_kb;
		char limit[64] = "unreadable";
		size_t fit = 0;
		if (file_read_int("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb) == 0 && mlock_kb > 0) {
			snprintf(limit, sizeof(limit), "%ld KiB", mlock_kb);
			/* The largest power of two whose map (plus the control page) fits one CPU's
			 * share. */
			size_t budget = (size_t)mlock_kb * 1024 / (size_t)page;
			for (fit = 1; fit * 2 + 1 <= budget; fit *= 2)
				;
			if (fit + 1 > budget || fit >= pages)
				fit = 0;
		}
		if (!fit)
			fit = pages > 1 ? pages / 2 : 1;
		/* The kernel charges ring buffers to kernel.perf_event_mlock_kb (per CPU, per user)
		 * and then to RLIMIT_MEMLOCK; root or CAP_IPC_LOCK bypasses both. */
		return err_set("cannot map the ring buffer (%zu KiB, %zu data pages): %s; the "
			       "locked-memory budget for perf buffers is kernel.perf_event_mlock_kb "
			       "(%s per CPU) plus 'ulimit -l'; use a smaller -m (e.g. -m %zu), or raise "
			       "kernel.perf_event_mlock_kb, or run as root",
			       kib, pages, strerror(e), limit, fit);
	}
	return err_set("cannot map the ring buffer (%zu KiB, %zu data pages): %s", kib, pages,
		       strerror(e));
}

int ringbuf_map(struct ringbuf *rb, int fd, size_t pages)
{
	rb->fd = fd;
	rb->base = NULL;
	rb->data = NULL;
	rb->map_size = 0;
	rb->data_size = 0;
	rb->cpu = -1;
	rb->pid = -1;
	if (pages == 0 || (pages & (pages - 1)))
		return err_set("ring buffer size: %zu pages is not a power of two (-m takes 1, 2, 4, "
			       "8, ... pages)", pages);
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		page = 4096;
	if (pages > (SIZE_MAX / (size_t)page) - 1)
		return err_set("ring buffer size: %zu pages is too large", pages);
	size_t size = (1 + pages) * (size_t)page;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return map_error(errno, size, pages, page);

	struct perf_event_mmap_page *pg = p;
	uint64_t off = pg->data_offset, len = pg->data_size;
	/* Kernels before 4.1 leave data_offset/data_size 0: the data starts at page 1. */
	if (off == 0 && len == 0) {
		off = (uint64_t)page;
		len = pages * (uint64_t)page;
	}
	if (off < sizeof(*pg) || len == 0 || (len & (len - 1)) || off > size || len > size - off) {
		munmap(p, size);
		return err_set("ring buffer: the kernel reports data offset %llu, size %llu for a "
			       "%zu-byte map", (unsigned long long)off, (unsigned long long)len, size);
	}
	rb->base = p;
	rb->map_size = size;
	rb->data = (uint8_t *)p + off;
	rb->data_size = len;
	return 0;
}

/* Copies n bytes starting at stream position pos, wrapping at the end of the data area. */
static void copy_out(const struct ringbuf *rb, uint64_t pos, void *dst, size_t n)
{
	uint64_t mask = rb->data_size - 1;
	size_t off = (size_t)(pos & mask);
	size_t first = n;
	if (first > rb->data_size - off)
		first = (size_t)(rb->data_size - off);
	memcpy(dst, rb->data + off, first);
	memcpy((uint8_t *)dst + first, rb->data, n - first);
}

long ringbuf_drain(struct ringbuf *rb, record_cb cb, void *arg)
{
	struct perf_event_mmap_page *pg = rb->base;
	if (!pg || !rb->data || rb->data_size < 8)
		return 0;
	uint64_t mask = rb->data_size - 1;
	/* Acquire pairs with the kernel's store of data_head: the records before head are
	 * visible once head is. */
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail; /* only we write it */
	char name[64];

	if (head - tail > rb->data_size) {
		err_set("ring buffer of %s: corrupt positions (head %llu, tail %llu, size %llu)",
			rb_name(rb, name, sizeof(name)), (unsigned long long)head,
			(unsigned long long)tail, (unsigned long long)rb->data_size);
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
		return -1;
	}

	long n = 0;
	int ret = 0;
	while (tail != head) {
		struct perf_event_header h;
		uint64_t avail = head - tail;
		if (avail < sizeof(h)) {
			ret = err_set("ring buffer of %s: %llu stray bytes at offset %llu (position %llu)",
				      rb_name(rb, name, sizeof(name)), (unsigned long long)avail,
				      (unsigned long long)(tail & mask), (unsigned long long)tail);
			tail = head;
			break;
		}
		copy_out(rb, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > avail) {
			ret = err_set("ring buffer of %s: corrupt record at offset %llu (position %llu): "
				      "type %u, size %u, %llu bytes available",
				      rb_name(rb, name, sizeof(name)), (unsigned long long)(tail & mask),
				      (unsigned long long)tail, h.type, h.size, (unsigned long long)avail);
			tail = head;
			break;
		}
		size_t off = (size_t)(tail & mask);
		const struct perf_event_header *rec;
		if (off + h.size <= rb->data_size) {
			rec = (const void *)(rb->data + off);
		} else {
			copy_out(rb, tail, rb->bounce, h.size);
			rec = (const void *)rb->bounce;
		}
		tail += h.size;
		n++;
		if (cb(rec, arg) != 0) {
			ret = -1;
			break;
		}
	}
	/* Release: our reads of the records happen before the kernel may reuse their space. */
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return ret < 0 ? -1 : n;
}

void ringbuf_unmap(struct ringbuf *rb)
{
	if (rb->base)
		munmap(rb->base, rb->map_size);
	rb->base = NULL;
	rb->data = NULL;
	rb->map_size = 0;
	rb->data_size = 0;
}
