/* The perf.data reader: the file is mapped (a pipe is read into memory), every offset and size
 * in it is checked against the map before use, and records are handed out in file order. */
#include "perfdata/perfdata.h"

#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata/compress.h"
#include "perfdata/perfdata_int.h"
#include "record/recutil.h"
#include "record/swap.h"
#include "util/error.h"
#include "util/xalloc.h"

static uint64_t rd64(const struct perfdata_reader *r, uint64_t off)
{
	uint64_t v = ld64(r->map + off);
	return r->swap ? bswap_64(v) : v;
}

static uint32_t rd32(const struct perfdata_reader *r, uint64_t off)
{
	uint32_t v = ld32(r->map + off);
	return r->swap ? bswap_32(v) : v;
}

/* [off, off + size) lies inside the file. */
static bool in_file(const struct perfdata_reader *r, uint64_t off, uint64_t size)
{
	return off <= r->size && size <= r->size - off;
}

static int section_err(const struct perfdata_reader *r, const char *what, uint64_t at, uint64_t off, uint64_t size)
{
	return err_set("%s: %s (header offset 0x%" PRIx64 "): offset 0x%" PRIx64 " size %" PRIu64
		       " lies outside the file of %zu bytes", r->path, what, at, off, size, r->size);
}

static int read_magic(struct perfdata_reader *r)
{
	if (r->size < PERFDATA_PIPE_HEADER_SIZE)
		return err_set("%s: %zu bytes is too short for a perf.data header", r->path, r->size);
	if (!memcmp(r->map, "PERFFILE", 8))
		return err_set("%s: this is a version 1 perf.data file (magic \"PERFFILE\"), which lperf does "
			       "not read; record it again with a current perf", r->path);
	uint64_t magic = ld64(r->map);
	if (magic == PERFDATA_MAGIC)
		return 0;
	if (bswap_64(magic) == PERFDATA_MAGIC) {
		r->swap = true;
		return 0;
	}
	const uint8_t *m = r->map;
	return err_set("%s: not a perf.data file: the magic at offset 0x0 is %02x %02x %02x %02x %02x %02x %02x "
		       "%02x, not \"PERFILE2\"", r->path, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]);
}

static int read_attr(struct perfdata_reader *r, size_t i, uint64_t at, uint64_t attr_size)
{
	uint32_t asz = rd32(r, at + 4);
	uint64_t room = attr_size - 16;
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0)
		return err_set("%s: attr %zu at offset 0x%" PRIx64 ": size %u is smaller than the %d bytes of "
			       "the first perf_event_attr", r->path, i, at, asz, PERF_ATTR_SIZE_VER0);
	if (asz > room)
		return err_set("%s: attr %zu at offset 0x%" PRIx64 ": size %u is larger than the %" PRIu64
			       " bytes the file's attr_size %" PRIu64 " leaves for it", r->path, i, at, asz, room,
			       attr_size);
	uint8_t *buf = xcalloc(1, asz > sizeof(struct perf_event_attr) ? asz : sizeof(struct perf_event_attr));
	memcpy(buf, r->map + at, asz);
	if (r->swap)
		swap_attr(buf, asz, true);
	struct perf_event_attr attr;
	memcpy(&attr, buf, sizeof(attr));
	free(buf);
	/* A larger attr from a newer perf keeps the fields we know; a smaller one has zeros. */
	attr.size = sizeof(attr);

	uint64_t ids_at = at + room, ids_off = rd64(r, ids_at), ids_size = rd64(r, ids_at + 8);
	if (!in_file(r, ids_off, ids_size))
		return section_err(r, "ids section", ids_at, ids_off, ids_size);
	if (ids_size % 8)
		return err_set("%s: attr %zu: ids section size %" PRIu64 " at offset 0x%" PRIx64
			       " is not a multiple of 8", r->path, i, ids_size, ids_at + 8);
	size_t nids = (size_t)(ids_size / 8);
	uint64_t *ids = xmalloc((nids ? nids : 1) * sizeof(*ids));
	for (size_t j = 0; j < nids; j++)
		ids[j] = rd64(r, ids_off + 8 * j);
	/* The name comes from EVENT_DESC, or evsel_default_name() once the features are read. */
	evsel_set_add(&r->evsels, &attr, "", ids, nids);
	free(ids);
	return 0;
}

/* Events perf (features, EVENT_UPDATE) left unnamed get lperf's name for their attr; the id
 * index is rebuilt once for all the events added. */
static void events_ready(struct perfdata_reader *r)
{
	for (size_t i = 0; i < r->evsels.n; i++) {
		struct evsel *e = &r->evsels.v[i];
		if (!e->name || !e->name[0]) {
			free(e->name);
			e->name = evsel_default_name(&e->attr);
		}
	}
	evsel_set_index(&r->evsels);
}

static int read_attrs(struct perfdata_reader *r, uint64_t hsize)
{
	uint64_t attr_size = rd64(r, 16), off = rd64(r, 24), size = rd64(r, 32);
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return err_set("%s: attr_size %" PRIu64 " at offset 0x10 is out of range (%d..4096)", r->path,
			       attr_size, PERF_ATTR_SIZE_VER0 + 16);
	if (!in_file(r, off, size) || off < hsize)
		return section_err(r, "attrs section", 0x18, off, size);
	if (size % attr_size)
		return err_set("%s: attrs section size %" PRIu64 " at offset 0x20 is not a multiple of the "
			       "attr_size %" PRIu64, r->path, size, attr_size);
	if (!size)
		return err_set("%s: the attrs section is empty, so the file describes no events", r->path);
	if (size / attr_size > PERFDATA_MAX_EVENTS)
		return err_set("%s: the attrs section describes %" PRIu64 " events, more than the %d lperf "
			       "reads", r->path, size / attr_size, PERFDATA_MAX_EVENTS);
	for (size_t i = 0; i < size / attr_size; i++)
		if (read_attr(r, i, off + i * attr_size, attr_size) < 0)
			return -1;
	return 0;
}

static bool has_bit(const uint64_t *f, int bit)
{
	return f[bit / 64] >> (bit % 64) & 1;
}

/* perf's guess for the bitmap of an other-endian file (perf_file_header__read): it was written
 * as unsigned longs, so try 64-bit words, then 32-bit ones; the HOSTNAME bit, always set since
 * 2012, tells which is right. */
static void read_feature_bits(struct perfdata_reader *r)
{
	memcpy(r->features, r->map + 72, sizeof(r->features));
	if (!r->swap)
		return;
	uint64_t raw[4];
	memcpy(raw, r->features, sizeof(raw));
	for (int i = 0; i < 4; i++)
		r->features[i] = bswap_64(raw[i]);
	if (has_bit(r->features, FEAT_HOSTNAME))
		return;
	uint32_t w[8];
	memcpy(w, raw, sizeof(w));
	for (int i = 0; i < 8; i++)
		w[i] = bswap_32(w[i]);
	memcpy(r->features, w, sizeof(w));
	if (has_bit(r->features, FEAT_HOSTNAME))
		return;
	memset(r->features, 0, sizeof(r->features));
	r->features[0] = 1ULL << FEAT_BUILD_ID;
}

static void read_features(struct perfdata_reader *r)
{
	uint64_t at = r->data_offset + r->data_size, n = 0;
	for (int i = 0; i < 4; i++)
		n += (uint64_t)__builtin_popcountll(r->features[i]);
	if (!n)
		return;
	if (!in_file(r, at, n * 16)) {
		notes_add(&r->info.notes, "%s: the feature table at offset 0x%" PRIx64 " (%" PRIu64
				   " entries) lies outside the file of %zu bytes; features ignored", r->path, at, n,
				   r->size);
		return;
	}
	for (int bit = 0; bit < FEAT_MAX; bit++) {
		if (!has_bit(r->features, bit))
			continue;
		uint64_t off = rd64(r, at), size = rd64(r, at + 8);
		at += 16;
		if (!in_file(r, off, size)) {
			notes_add(&r->info.notes, "%s: feature %s: section at offset 0x%" PRIx64 " size %" PRIu64
					   " lies outside the file; ignored", r->path, perfdata_feature_name(bit), off,
					   size);
			continue;
		}
		if (!r->swap) {
			perfdata_feat_parse(r, bit, r->map + off, (size_t)size, off);
			continue;
		}
		uint8_t *buf = xmalloc(size ? (size_t)size : 1);
		memcpy(buf, r->map + off, (size_t)size);
		swap_feature(bit, buf, (size_t)size, true);
		perfdata_feat_parse(r, bit, buf, (size_t)size, off);
		free(buf);
	}
}

static int read_header(struct perfdata_reader *r)
{
	if (read_magic(r) < 0)
		return -1;
	uint64_t hsize = rd64(r, 8);
	if (hsize == PERFDATA_PIPE_HEADER_SIZE) {
		r->pipe = true;
		r->data_offset = PERFDATA_PIPE_HEADER_SIZE;
		r->data_size = r->size - PERFDATA_PIPE_HEADER_SIZE;
		return 0;
	}
	if (hsize != PERFDATA_HEADER_SIZE && hsize != PERFDATA_HEADER_OLD)
		return err_set("%s: header size %" PRIu64 " at offset 0x8 is not %d (or %d for old files, %d "
			       "for pipe mode)", r->path, hsize, PERFDATA_HEADER_SIZE, PERFDATA_HEADER_OLD,
			       PERFDATA_PIPE_HEADER_SIZE);
	if (r->size < hsize)
		return err_set("%s: %zu bytes is too short for the %" PRIu64 "-byte header", r->path, r->size,
			       hsize);
	r->data_offset = rd64(r, 40);
	r->data_size = rd64(r, 48);
	bool cut = false;
	if (r->data_offset >= hsize && r->data_offset < r->size && !in_file(r, r->data_offset, r->data_size)) {
		/* A recording cut short (a full disk, a copy interrupted): its records up to the end
		 * of the file are read, as docs/report.md promises; what follows the data is lost. */
		notes_add(&r->info.notes, "%s: truncated: the data section (offset 0x%" PRIx64 ", %" PRIu64
			  " bytes) ends past the end of the file (%zu bytes); the records up to offset 0x%zx "
			  "are read, the feature sections after the data are lost", r->path, r->data_offset,
			  r->data_size, r->size, r->size);
		r->data_size = r->size - r->data_offset;
		r->truncated = true;
		cut = true;
	}
	if (!in_file(r, r->data_offset, r->data_size) || r->data_offset < hsize)
		return section_err(r, "data section", 0x28, r->data_offset, r->data_size);
	uint64_t aoff = rd64(r, 24), asize = rd64(r, 32);
	if (aoff < r->data_offset + r->data_size && r->data_offset < aoff + asize && asize && r->data_size)
		return err_set("%s: the attrs section (offset 0x%" PRIx64 ") and the data section (offset 0x%"
			       PRIx64 ") overlap", r->path, aoff, r->data_offset);
	if (read_attrs(r, hsize) < 0)
		return -1;
	if (!r->data_size)
		notes_add(&r->info.notes, "%s: the data size is 0, as when perf record was killed before "
				   "it finished; there are no records to read", r->path);
	if (hsize == PERFDATA_HEADER_SIZE && !cut) {
		read_feature_bits(r);
		read_features(r);
	}
	events_ready(r);
	return 0;
}

/* Reads exactly n bytes unless the input ends first; the count read, or -1 (errno). */
static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, (uint8_t *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (!k)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* A pipe or standard input. Its first 16 bytes are checked at once, so that /dev/zero or a
 * stream of something else is refused instead of read whole. A pipe-mode stream is then left
 * to perfdata_for_each to read record by record; a file-mode one is read whole. */
static int read_all(struct perfdata_reader *r, int fd)
{
	size_t cap = 1 << 16;
	uint8_t *buf = xmalloc(cap);
	ssize_t got = read_full(fd, buf, PERFDATA_PIPE_HEADER_SIZE);
	if (got < 0) {
		free(buf);
		return err_set("%s: cannot read: %s", r->path, strerror(errno));
	}
	size_t n = (size_t)got;
	r->owned = buf;
	r->map = buf;
	r->size = n;
	if (n == PERFDATA_PIPE_HEADER_SIZE) {
		if (read_magic(r) < 0)
			return -1;
		uint64_t hsize = rd64(r, 8);
		r->swap = false;
		if (hsize == PERFDATA_PIPE_HEADER_SIZE) {
			r->stream = true;
			r->stream_fd = fd;
			return 0;
		}
	}
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			r->owned = NULL;
			r->map = NULL;
			return err_set("%s: cannot read: %s", r->path, strerror(errno));
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	r->owned = buf;
	r->map = buf;
	r->size = n;
	return 0;
}

static int open_fd(struct perfdata_reader *r, bool force)
{
	struct stat st;
	if (fstat(r->fd, &st) < 0)
		return err_set("%s: cannot stat: %s", r->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return read_all(r, r->fd);
	/* As perf: a file someone else wrote may be crafted to mislead (symbols, paths). */
	if (!force && st.st_uid != 0 && st.st_uid != geteuid())
		return err_set("%s: owned by uid %u, neither you nor root; use -f to read it anyway",
			       r->path, (unsigned)st.st_uid);
	if (!st.st_size)
		return err_set("%s: the file is empty (zero-sized data), nothing to read", r->path);
	if ((uint64_t)st.st_size > SIZE_MAX)
		return err_set("%s: the file is too large to map", r->path);
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED)
		return err_set("%s: cannot map %lld bytes: %s", r->path, (long long)st.st_size, strerror(errno));
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	r->map = m;
	r->size = (size_t)st.st_size;
	r->mapped = true;
	return 0;
}

/* "PATH.tmp.PID.RANDOM" (util/outfile.h; "PATH.tmp.PID" before) is where `lperf record -o PATH`
 * writes until it finishes: say so, and whether that process still runs. NULL for other names. */
static char *unfinished_note(const char *path)
{
	const char *t = strstr(path, ".tmp.");
	for (const char *n; t && (n = strstr(t + 1, ".tmp.")); t = n)
		;
	if (!t || t == path)
		return NULL;
	const char *d = t + 5;
	size_t nd = strspn(d, "0123456789");
	if (!nd || (d[nd] && (d[nd] != '.' || !d[nd + 1] || strchr(d + nd + 1, '.'))))
		return NULL;
	long pid = strtol(d, NULL, 10);
	bool running = pid > 0 && pid <= INT32_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
	return xasprintf("the temporary file of an unfinished recording: 'lperf record -o %.*s' (process %ld) "
			 "%s; the recording was never completed", (int)(t - path), path, pid,
			 running ? "is still running" : "was killed before it could finish");
}

int perfdata_open(struct perfdata_reader *r, const char *path)
{
	return perfdata_open_force(r, path, false);
}

int perfdata_open_force(struct perfdata_reader *r, const char *path, bool force)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	if (!strcmp(path, "-")) {
		r->path = "<stdin>";
		/* A copy of its own: a stream is read from it until perfdata_close. */
		r->fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		if (r->fd < 0) {
			err_set("<stdin>: cannot read: %s", strerror(errno));
			goto fail;
		}
		if (read_all(r, r->fd) < 0)
			goto fail;
	} else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0) {
			err_set("%s: cannot open: %s", path, strerror(errno));
			goto fail;
		}
		if (open_fd(r, force) < 0)
			goto fail;
	}
	if (!r->size) {
		err_set("%s: no data (zero-sized input), nothing to read", r->path);
		goto fail;
	}
	if (read_header(r) < 0)
		goto fail;
	if (!r->data_size && !r->pipe) {
		char *note = unfinished_note(path);
		if (note)
			notes_add(&r->info.notes, "%s: %s", path, note);
		free(note);
	}
	return 0;
fail:;
	char *note = unfinished_note(path);
	if (note)
		err_wrap("%s", note);
	free(note);
	perfdata_close(r);
	return -1;
}

int perfdata_open_mem(struct perfdata_reader *r, const char *name, const void *buf, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->path = name;
	r->map = buf;
	r->size = size;
	if (read_header(r) < 0) {
		perfdata_close(r);
		return -1;
	}
	return 0;
}

void perfdata_close(struct perfdata_reader *r)
{
	if (r->mapped && r->map)
		munmap((void *)r->map, r->size);
	free(r->owned);
	if (r->fd >= 0)
		close(r->fd);
	evsel_set_free(&r->evsels);
	perfdata_info_free(&r->info);
	free(r->bounce);
	perfdata_decomp_free(r->decomp);
	perfdata_ring_free(r);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* Bytes that follow a record without being counted in its size. */
static int trailing_data(const struct perfdata_reader *r, uint64_t off, const struct perf_event_header *nh,
			 uint64_t *extra)
{
	*extra = 0;
	if (nh->type == REC_AUXTRACE && nh->size >= 16)
		*extra = rd64(r, off + 8);
	else if (nh->type == REC_TRACING_DATA && nh->size >= 12)
		*extra = rd32(r, off + 8);
	return 0;
}

static int read_compressed(struct perfdata_reader *r, const struct perf_event_header *h, record_cb cb, void *arg);
static void release_behind(struct perfdata_reader *r, uint64_t off);

/* Hands one record (total bytes with its trailing data, at file offset off) to cb after
 * byte-swapping or aligning it, unless it is perf's own description of the recording. */
static int deliver(struct perfdata_reader *r, const struct perf_event_header *h, size_t total, uint64_t off,
		   record_cb cb, void *arg)
{
	if (r->swap || ((uintptr_t)h & 7)) {
		if (total > r->bounce_cap) {
			free(r->bounce);
			r->bounce_cap = total > 65536 ? total : 65536;
			r->bounce = xmalloc(r->bounce_cap);
		}
		memmove(r->bounce, h, total);
		if (r->swap)
			swap_record(&r->evsels, r->bounce, total, true);
		h = (const struct perf_event_header *)r->bounce;
	}
	r->offset = off;
	int c = perfdata_consume(r, h);
	if (c < 0)
		return -1;
	if (!c) {
		if (r->evsels.byid_nev != r->evsels.n)
			events_ready(r);
		int ret = h->type == REC_COMPRESSED ? read_compressed(r, h, cb, arg) : cb(h, arg);
		if (ret)
			return ret;
	}
	if (off + total > r->seen_end)
		r->seen_end = off + total;
	return 0;
}

/* A pipe-mode stream, record by record: memory stays at the largest record. */
static int stream_for_each(struct perfdata_reader *r, record_cb cb, void *arg)
{
	if (r->seen_end)
		return err_set("%s: a stream can be read only once", r->path);
	uint64_t off = PERFDATA_PIPE_HEADER_SIZE;
	r->seen_end = off;
	for (;;) {
		struct perf_event_header nh;
		if (r->bounce_cap < 65536) {
			free(r->bounce);
			r->bounce_cap = 65536;
			r->bounce = xmalloc(r->bounce_cap);
		}
		ssize_t got = read_full(r->stream_fd, r->bounce, sizeof(nh));
		if (got < 0)
			return err_set("%s: cannot read at offset 0x%" PRIx64 ": %s", r->path, off, strerror(errno));
		if (!got)
			return 0;
		if ((size_t)got < sizeof(nh))
			return err_set("%s: record at offset 0x%" PRIx64 ": the stream ends inside its header", r->path,
				       off);
		memcpy(&nh, r->bounce, sizeof(nh));
		if (r->swap)
			swap_header(&nh);
		if (nh.size < sizeof(nh))
			return err_set("%s: record at offset 0x%" PRIx64 ": size %u is smaller than its header",
				       r->path, off, nh.size);
		if (nh.size > r->bounce_cap) {
			uint8_t *b = xmalloc(nh.size);
			memcpy(b, r->bounce, sizeof(nh));
			free(r->bounce);
			r->bounce = b;
			r->bounce_cap = nh.size;
		}
		got = read_full(r->stream_fd, r->bounce + sizeof(nh), nh.size - sizeof(nh));
		if (got != (ssize_t)(nh.size - sizeof(nh)))
			return err_set("%s: record at offset 0x%" PRIx64 ": the stream ends inside this %s of %u bytes",
				       r->path, off, record_type_name(nh.type), nh.size);
		uint64_t extra = 0;
		if (nh.type == REC_AUXTRACE && nh.size >= 16)
			extra = ld64(r->bounce + 8);
		else if (nh.type == REC_TRACING_DATA && nh.size >= 12)
			extra = ld32(r->bounce + 8);
		if (r->swap)
			extra = nh.type == REC_AUXTRACE ? bswap_64(extra) : bswap_32((uint32_t)extra);
		if (extra > (1u << 30))
			return err_set("%s: record at offset 0x%" PRIx64 ": %" PRIu64 " bytes of data after this %s "
				       "record is more than lperf reads", r->path, off, extra, record_type_name(nh.type));
		size_t total = nh.size + (size_t)extra;
		if (total > r->bounce_cap) {
			uint8_t *b = xmalloc(total);
			memcpy(b, r->bounce, nh.size);
			free(r->bounce);
			r->bounce = b;
			r->bounce_cap = total;
		}
		if (extra && read_full(r->stream_fd, r->bounce + nh.size, (size_t)extra) != (ssize_t)extra)
			return err_set("%s: record at offset 0x%" PRIx64 ": the stream ends inside the data after "
				       "this %s record", r->path, off, record_type_name(nh.type));
		/* deliver() swaps in place when bounce is the record itself. */
		int ret = deliver(r, (const struct perf_event_header *)r->bounce, total, off, cb, arg);
		if (ret)
			return ret;
		off += total;
	}
}

/* perfdata_for_each_peek: after a record this large the next one starts on a page the walk
 * has not mapped yet, so its start is read (pread) rather than faulted in (with the pages around
 * it, which the later pass maps again); PEEK_BYTES of it, or the whole record when shorter. */
#define PEEK_AFTER 2048
#define PEEK_BYTES 256

/* A record read into pk (got bytes) that may go to peek: one the reader need not see whole
 * (neither consumed here, compressed nor followed by data), at an aligned offset; a sample whose
 * start is there, any other record whole (its time is at its end). */
static bool peekable(const struct perfdata_reader *r, uint64_t off, const struct perf_event_header *nh, size_t got)
{
	if ((off & 7) || r->swap)
		return false;
	switch (nh->type) {
	case REC_HEADER_ATTR:
	case REC_HEADER_FEATURE:
	case REC_EVENT_UPDATE:
	case REC_COMPRESSED:
	case REC_AUXTRACE:
	case REC_TRACING_DATA:
		return false;
	default:
		return nh->size <= got || (nh->type == PERF_RECORD_SAMPLE && got == PEEK_BYTES);
	}
}

/* perfdata_walk_ops.check */
static int check_record(const struct perfdata_reader *r, uint64_t off, uint64_t end,
			const struct perf_event_header *nh, size_t *total)
{
	if (nh->size < sizeof(*nh))
		return err_set("%s: record at offset 0x%" PRIx64 ": size %u is smaller than its header", r->path, off,
			       nh->size);
	if (nh->size > end - off)
		return err_set("%s: record at offset 0x%" PRIx64 ": %s of %u bytes runs past the end of the data "
			       "section at 0x%" PRIx64, r->path, off, record_type_name(nh->type), nh->size, end);
	uint64_t extra;
	trailing_data(r, off, nh, &extra);
	if (extra > end - off - nh->size)
		return err_set("%s: record at offset 0x%" PRIx64 ": the %" PRIu64 " bytes of data after this %s "
			       "record run past the end of the data section", r->path, off, extra,
			       record_type_name(nh->type));
	*total = nh->size + (size_t)extra;
	return 0;
}

static int walk(struct perfdata_reader *r, record_cb cb, record_peek_cb peek, void *arg)
{
	uint64_t off = r->data_offset, end = r->data_offset + r->data_size;
	uint64_t pk[PEEK_BYTES / 8];
	bool by_read = false, rounds = false;
	while (off < end) {
		struct perf_event_header nh;
		size_t got = 0;
		if (by_read) {
			ssize_t n = pread(r->fd, pk, end - off < PEEK_BYTES ? (size_t)(end - off) : PEEK_BYTES, (off_t)off);
			got = n > 0 ? (size_t)n : 0;
		}
		if (end - off < sizeof(nh))
			return err_set("%s: record at offset 0x%" PRIx64 ": the %" PRIu64 " bytes left in the data "
				       "section cannot hold a record header", r->path, off, end - off);
		memcpy(&nh, got >= sizeof(nh) ? (const void *)pk : (const void *)(r->map + off), sizeof(nh));
		if (r->swap)
			swap_header(&nh);
		size_t total;
		if (check_record(r, off, end, &nh, &total) < 0)
			return -1;
		int ret;
		if (got && peekable(r, off, &nh, got)) {
			r->offset = off;
			if (r->evsels.byid_nev != r->evsels.n)
				events_ready(r);
			ret = peek((const struct perf_event_header *)(r->map + off), (const struct perf_event_header *)pk,
				   got < total ? got : total, arg);
			if (off + total > r->seen_end)
				r->seen_end = off + total;
		} else {
			ret = deliver(r, (const struct perf_event_header *)(r->map + off), total, off, cb, arg);
		}
		if (ret)
			return ret;
		off += total;
		release_behind(r, off);
		/* With FINISHED_ROUND the records go out a round or two after the walk passed them,
		 * while their pages are still mapped: faulting them in now costs nothing more. */
		rounds |= nh.type == REC_FINISHED_ROUND;
		by_read = peek && !rounds && !r->swap && total >= PEEK_AFTER;
	}
	return 0;
}

int perfdata_for_each(struct perfdata_reader *r, record_cb cb, void *arg)
{
	perfdata_decomp_free(r->decomp);
	r->decomp = NULL;
	if (r->stream)
		return stream_for_each(r, cb, arg);
	if (r->read_walk && r->mapped && !r->swap && r->fd >= 0)
		return perfdata_walk_read(r, cb, arg, &(const struct perfdata_walk_ops){ check_record, deliver });
	return walk(r, cb, NULL, arg);
}

int perfdata_for_each_peek(struct perfdata_reader *r, record_cb cb, record_peek_cb peek, void *arg)
{
	if (r->stream || !r->mapped || r->fd < 0)
		return perfdata_for_each(r, cb, arg);
	perfdata_decomp_free(r->decomp);
	r->decomp = NULL;
	return walk(r, cb, peek, arg);
}

/* ---- perf record -z: records inside COMPRESSED records ---- */

struct inner {
	struct perfdata_reader *r;
	record_cb cb;
	void *arg;
	uint8_t swapped[65536];
};

/* An inner record goes the way of any other: byte order, the pipe-mode records this reader
 * consumes, then the caller's callback. */
static int deliver_inner(const struct perf_event_header *h, void *arg)
{
	struct inner *in = arg;
	struct perfdata_reader *r = in->r;
	if (r->swap) {
		struct perf_event_header nh = *h;
		swap_header(&nh);
		if (nh.size < sizeof(nh))
			return err_set("%s: COMPRESSED record at offset 0x%" PRIx64 ": a record inside it has "
				       "size %u, smaller than its header", r->path, r->offset, nh.size);
		memcpy(in->swapped, h, nh.size);
		swap_record(&r->evsels, in->swapped, nh.size, true);
		h = (const struct perf_event_header *)in->swapped;
	}
	int c = perfdata_consume(r, h);
	if (c < 0)
		return -1;
	if (c)
		return 0;
	if (r->evsels.byid_nev != r->evsels.n)
		events_ready(r);
	return in->cb(h, in->arg);
}

static int read_compressed(struct perfdata_reader *r, const struct perf_event_header *h, record_cb cb, void *arg)
{
	if (!r->decomp && !(r->decomp = perfdata_decomp_new(r->path)))
		return -1;
	r->compressed_records++;
	struct inner *in = xmalloc(sizeof(*in));
	*in = (struct inner){ r, cb, arg, { 0 } };
	uint64_t off = r->offset;
	int ret = perfdata_decomp_feed(r->decomp, (const uint8_t *)h + sizeof(*h), h->size - sizeof(*h), off,
				       deliver_inner, in);
	r->offset = off;
	free(in);
	return ret;
}

/* Pages of the mapped file the walk has passed are given back (the page cache keeps them), so a
 * report of a large file does not hold all of it: records that must wait for ordering are
 * copies, and nothing keeps pointers into the mapping past its callback. */
#define RELEASE_STEP (1u << 20)

static void release_behind(struct perfdata_reader *r, uint64_t off)
{
	if (!r->mapped || off < r->released + 2 * RELEASE_STEP)
		return;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t upto = (off - RELEASE_STEP) / (uint64_t)page * (uint64_t)page;
	if (upto <= r->released)
		return;
	madvise((void *)(r->map + r->released), upto - r->released, MADV_DONTNEED);
	r->released = upto;
}
