/* perf's tracing data: written from tracefs, read into libtraceevent (layout in tracedata.h). */
#include "events/tracedata.h"

#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "events/tracepoint.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define TD_VERSION "0.6"
#define TD_MAX_FILE (64u << 20) /* printk_formats of a large kernel is ~100 KiB */

static const uint8_t td_magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* ---- writing ---- */

struct td_name {
	uint64_t id;
	char *sys, *ev;
};

struct td_find {
	struct td_name *v;
	size_t n;
};

static void find_one(const char *name, uint64_t id, void *arg)
{
	struct td_find *f = arg;
	for (size_t i = 0; i < f->n; i++) {
		if (f->v[i].id == id && !f->v[i].sys) {
			const char *c = strchr(name, ':');
			f->v[i].sys = xstrndup(name, (size_t)(c - name));
			f->v[i].ev = xstrdup(c + 1);
		}
	}
}

static void put32(struct strbuf *sb, uint32_t v)
{
	sb_add(sb, &v, 4);
}

static void put64(struct strbuf *sb, uint64_t v)
{
	sb_add(sb, &v, 8);
}

/* A tracefs file with its size first (hdr 4 or 8 bytes); a missing optional file is size 0. */
static int put_file(struct strbuf *sb, const char *dir, const char *rel, int hdr, bool optional)
{
	char *path = xasprintf("%s/%s", dir, rel);
	size_t len = 0;
	char *text = file_read(path, TD_MAX_FILE, &len);
	if (!text && !optional) {
		err_wrap("tracing data");
		free(path);
		return -1;
	}
	if (hdr == 4)
		put32(sb, (uint32_t)len);
	else
		put64(sb, len);
	if (text)
		sb_add(sb, text, len);
	free(text);
	free(path);
	return 0;
}

static int cmp_sys(const void *a, const void *b)
{
	const struct td_name *x = a, *y = b;
	int c = strcmp(x->sys, y->sys);
	return c ? c : strcmp(x->ev, y->ev);
}

/* The formats grouped by system (ftrace's in their own section, as perf writes them). */
static int put_formats(struct strbuf *sb, const char *dir, struct td_name *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_sys);
	uint32_t nftrace = 0, nsys = 0;
	for (size_t i = 0; i < n; i++) {
		bool ftrace = !strcmp(v[i].sys, "ftrace");
		nftrace += ftrace;
		nsys += !ftrace && (i == 0 || strcmp(v[i].sys, v[i - 1].sys));
	}
	put32(sb, nftrace);
	for (size_t i = 0; i < n; i++) {
		char *rel = xasprintf("events/ftrace/%s/format", v[i].ev);
		int r = strcmp(v[i].sys, "ftrace") ? 0 : put_file(sb, dir, rel, 8, false);
		free(rel);
		if (r < 0)
			return -1;
	}
	put32(sb, nsys);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && !strcmp(v[j].sys, v[i].sys))
			j++;
		if (strcmp(v[i].sys, "ftrace")) {
			sb_add(sb, v[i].sys, strlen(v[i].sys) + 1);
			put32(sb, (uint32_t)(j - i));
			for (size_t k = i; k < j; k++) {
				char *rel = xasprintf("events/%s/%s/format", v[k].sys, v[k].ev);
				int r = put_file(sb, dir, rel, 8, false);
				free(rel);
				if (r < 0)
					return -1;
			}
		}
		i = j;
	}
	return 0;
}

int tracedata_build(const uint64_t *ids, size_t n, uint8_t **out, size_t *len)
{
	const char *d = tp_dir();
	if (!d)
		return err_set("tracing data: no tracefs mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	char *dir = xstrdup(d); /* tp_dir's string lasts only until its next call (tp_for_each) */
	struct td_find f = { xcalloc(n ? n : 1, sizeof(struct td_name)), 0 };
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t k = 0; k < f.n; k++)
			dup |= f.v[k].id == ids[i];
		if (!dup)
			f.v[f.n++].id = ids[i];
	}
	tp_for_each(find_one, &f);
	int ret = 0;
	for (size_t i = 0; i < f.n && !ret; i++)
		if (!f.v[i].sys)
			ret = err_set("tracing data: no tracepoint in %s/events has id %llu", dir,
				      (unsigned long long)f.v[i].id);
	struct strbuf sb = STRBUF_INIT;
	if (!ret) {
		sb_add(&sb, td_magic, sizeof(td_magic));
		sb_add(&sb, TD_VERSION, sizeof(TD_VERSION));
		uint8_t hdr[2] = { __BYTE_ORDER == __BIG_ENDIAN, sizeof(long) };
		sb_add(&sb, hdr, 2);
		put32(&sb, (uint32_t)sysconf(_SC_PAGESIZE));
		sb_add(&sb, "header_page", 12);
		ret = put_file(&sb, dir, "events/header_page", 8, false);
	}
	if (!ret) {
		sb_add(&sb, "header_event", 13);
		ret = put_file(&sb, dir, "events/header_event", 8, false);
	}
	if (!ret)
		ret = put_formats(&sb, dir, f.v, f.n);
	if (!ret) {
		put32(&sb, 0); /* kallsyms: readers resolve addresses themselves (perf 6.1 writes 0) */
		ret = put_file(&sb, dir, "printk_formats", 4, true);
		put64(&sb, 0); /* saved_cmdlines: comms come from COMM records */
	}
	for (size_t i = 0; i < f.n; i++) {
		free(f.v[i].sys);
		free(f.v[i].ev);
	}
	free(f.v);
	free(dir);
	if (ret) {
		sb_release(&sb);
		return -1;
	}
	*len = sb.len;
	*out = (uint8_t *)sb_detach(&sb);
	return 0;
}

/* ---- reading ---- */

struct td_cur {
	const uint8_t *p;
	size_t len, off;
	bool swap;
	const char *file;
	uint64_t base;
	char what[96]; /* the part being read, for messages */
};

static int td_fail(struct td_cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int td_fail(struct td_cur *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set("%s: tracing data at offset %#llx (%s): %s", c->file,
		       (unsigned long long)(c->base + c->off), c->what, msg);
}

static int td_bytes(struct td_cur *c, size_t n, const uint8_t **out)
{
	if (n > c->len - c->off)
		return td_fail(c, "%zu bytes needed, %zu left", n, c->len - c->off);
	*out = c->p + c->off;
	c->off += n;
	return 0;
}

static int td_u32(struct td_cur *c, uint32_t *v)
{
	const uint8_t *b = NULL;
	if (td_bytes(c, 4, &b) < 0)
		return -1;
	memcpy(v, b, 4);
	if (c->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

static int td_u64(struct td_cur *c, uint64_t *v)
{
	const uint8_t *b = NULL;
	if (td_bytes(c, 8, &b) < 0)
		return -1;
	memcpy(v, b, 8);
	if (c->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

/* A sized block as a NUL-terminated copy (libtraceevent wants C strings for some parts). */
static int td_block(struct td_cur *c, uint64_t size, char **out)
{
	const uint8_t *b = NULL;
	if (size > c->len - c->off)
		return td_fail(c, "size %llu is past the end of the data (%zu bytes left)",
			       (unsigned long long)size, c->len - c->off);
	if (td_bytes(c, (size_t)size, &b) < 0)
		return -1;
	*out = xmalloc((size_t)size + 1);
	memcpy(*out, b, (size_t)size);
	(*out)[size] = 0;
	return 0;
}

static int td_string(struct td_cur *c, size_t max, const char **out)
{
	const uint8_t *s = c->p + c->off;
	size_t left = c->len - c->off;
	const uint8_t *nul = memchr(s, 0, left < max ? left : max);
	if (!nul)
		return td_fail(c, "no NUL-terminated string of at most %zu bytes", max);
	*out = (const char *)s;
	c->off += (size_t)(nul - s) + 1;
	return 0;
}

static int td_header(struct td_cur *c, struct tep_handle *tep, double *version)
{
	const uint8_t *b = NULL;
	const char *ver;
	snprintf(c->what, sizeof(c->what), "header");
	if (td_bytes(c, sizeof(td_magic), &b) < 0)
		return -1;
	if (memcmp(b, td_magic, sizeof(td_magic)))
		return td_fail(c, "no \\x17\\x08\\x44tracing magic");
	if (td_string(c, 16, &ver) < 0 || td_bytes(c, 2, &b) < 0)
		return -1;
	*version = atof(ver);
	bool big = b[0] != 0;
	if (b[1] != 4 && b[1] != 8)
		return td_fail(c, "size of a long is %u, not 4 or 8", b[1]);
	c->swap = big != (__BYTE_ORDER == __BIG_ENDIAN);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, b[1]);
	uint32_t page;
	if (td_u32(c, &page) < 0)
		return -1;
	if (!page || (page & (page - 1)))
		return td_fail(c, "page size %u is not a power of two", page);
	tep_set_page_size(tep, (int)page);
	return 0;
}

static int td_headers(struct td_cur *c, struct tep_handle *tep, int long_size)
{
	static const char *const names[2] = { "header_page", "header_event" };
	for (int i = 0; i < 2; i++) {
		const uint8_t *b = NULL;
		uint64_t size;
		char *text;
		snprintf(c->what, sizeof(c->what), "%s", names[i]);
		size_t n = strlen(names[i]) + 1;
		if (td_bytes(c, n, &b) < 0)
			return -1;
		if (memcmp(b, names[i], n))
			return td_fail(c, "'%s' expected", names[i]);
		if (td_u64(c, &size) < 0 || td_block(c, size, &text) < 0)
			return -1;
		/* as perf: the commit field's size tells the kernel's long size */
		if (i == 0 && !tep_parse_header_page(tep, text, (unsigned long)size, long_size))
			tep_set_long_size(tep, tep_get_header_page_size(tep));
		free(text);
	}
	return 0;
}

static int td_format(struct td_cur *c, struct tep_handle *tep, const char *sys)
{
	uint64_t size;
	char *text;
	if (td_u64(c, &size) < 0 || td_block(c, size, &text) < 0)
		return -1;
	enum tep_errno e = tep_parse_event(tep, text, (size_t)size, sys);
	free(text);
	/* A format libtraceevent cannot read fully still names its fields (perf goes on too). */
	if (e && e != TEP_ERRNO__PARSE_EVENT_FAILED && e != TEP_ERRNO__MEM_ALLOC_FAILED)
		return td_fail(c, "format not readable by libtraceevent (error %d)", (int)e);
	return 0;
}

static int td_formats(struct td_cur *c, struct tep_handle *tep)
{
	uint32_t n, nsys;
	snprintf(c->what, sizeof(c->what), "ftrace formats");
	if (td_u32(c, &n) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		snprintf(c->what, sizeof(c->what), "ftrace format %u", i);
		if (td_format(c, tep, "ftrace") < 0)
			return -1;
	}
	snprintf(c->what, sizeof(c->what), "event systems");
	if (td_u32(c, &nsys) < 0)
		return -1;
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys;
		snprintf(c->what, sizeof(c->what), "system %u", s);
		if (td_string(c, 256, &sys) < 0 || td_u32(c, &n) < 0)
			return -1;
		for (uint32_t i = 0; i < n; i++) {
			snprintf(c->what, sizeof(c->what), "system '%.40s', format %u", sys, i);
			if (td_format(c, tep, sys) < 0)
				return -1;
		}
	}
	return 0;
}

static int td_tail(struct td_cur *c, struct tep_handle *tep, double version)
{
	uint32_t size;
	const uint8_t *b = NULL;
	char *text;
	snprintf(c->what, sizeof(c->what), "kallsyms");
	if (td_u32(c, &size) < 0 || td_bytes(c, size, &b) < 0) /* skipped, as perf does */
		return -1;
	snprintf(c->what, sizeof(c->what), "printk formats");
	if (td_u32(c, &size) < 0 || td_block(c, size, &text) < 0)
		return -1;
	if (size)
		tep_parse_printk_formats(tep, text);
	free(text);
	if (version < 0.6)
		return 0;
	uint64_t n;
	snprintf(c->what, sizeof(c->what), "saved cmdlines");
	if (td_u64(c, &n) < 0 || td_block(c, n, &text) < 0)
		return -1;
	if (n)
		tep_parse_saved_cmdlines(tep, text);
	free(text);
	return 0;
}

struct tep_handle *tracedata_parse(const uint8_t *buf, size_t len, const char *file, uint64_t file_off,
				   size_t *used)
{
	tep_set_loglevel(TEP_LOG_NONE); /* problems are reported here, once, or not at all */
	struct tep_handle *tep = tep_alloc();
	if (!tep) {
		err_set("%s: tracing data: out of memory", file);
		return NULL;
	}
	tep_set_flag(tep, TEP_NSEC_OUTPUT);
	struct td_cur c = { buf, len, 0, false, file, file_off, "" };
	double version = 0;
	if (td_header(&c, tep, &version) < 0 || td_headers(&c, tep, tep_get_long_size(tep)) < 0 ||
	    td_formats(&c, tep) < 0 || td_tail(&c, tep, version) < 0) {
		tep_free(tep);
		return NULL;
	}
	if (used)
		*used = c.off;
	return tep;
}

struct tep_handle *tracedata_live(const uint64_t *ids, size_t n)
{
	uint8_t *buf;
	size_t len;
	if (tracedata_build(ids, n, &buf, &len) < 0)
		return NULL;
	struct tep_handle *tep = tracedata_parse(buf, len, "tracefs", 0, NULL);
	free(buf);
	return tep;
}
