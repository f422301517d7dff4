/* perf's tracing data: written from tracefs, read into libtraceevent (layout in tracedata.h). */
#include "events/tracedata.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
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
	if (!d && tp_denied("tracing data"))
		return -1;
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
	int probe_fd;  /* parse_in_child: where each format's offset is written before it is parsed */
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

/* "PREFIX<digits>" at *p, then what follows the digits. */
static const char *digits_after(const char *p, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(p, prefix, n))
		return NULL;
	p += n;
	size_t d = strspn(p, "0123456789");
	return d && d <= 9 ? p + d : NULL;
}

/* The layout the kernel writes a format in (name, ID, format:, field lines, print fmt), printable
 * text only: libtraceevent 1.7.1 dereferences NULL or reads out of bounds on some malformed ones
 * (found by fuzzing), so a format of any other shape is refused before it gets there. Returns the
 * 1-based line that breaks it, 0 when it is well formed. */
static int format_shape(const char *text)
{
	int line = 1;
	for (const char *p = text; *p; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
			return line;
		if ((unsigned char)*p >= 0x7f)
			return line;
		line += *p == '\n';
	}
	const char *p = text;
	if (strncmp(p, "name: ", 6) || !(p = strchr(p, '\n')) || !(p = digits_after(p + 1, "ID: ")) ||
	    strncmp(p, "\nformat:\n", 9))
		return 1;
	p += 9;
	for (line = 4; *p && strncmp(p, "print fmt: ", 11); line++) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			return line;
		if (nl != p) {
			const char *semi = strncmp(p, "\tfield:", 7) ? NULL : memchr(p, ';', (size_t)(nl - p));
			const char *q = semi ? digits_after(semi + 1, "\toffset:") : NULL;
			q = q && *q == ';' ? digits_after(q + 1, "\tsize:") : NULL;
			q = q && *q == ';' ? digits_after(q + 1, "\tsigned:") : NULL;
			if (!q || *q != ';' || q + 1 != nl)
				return line;
		}
		p = nl + 1;
	}
	return *p ? 0 : line;
}

static int td_format(struct td_cur *c, struct tep_handle *tep, const char *sys)
{
	uint64_t size;
	char *text;
	if (td_u64(c, &size) < 0 || td_block(c, size, &text) < 0)
		return -1;
	uint64_t at = c->base + c->off - size;
	if (c->probe_fd >= 0 && write(c->probe_fd, &at, sizeof(at)) != (ssize_t)sizeof(at))
		c->probe_fd = -1;
	int bad = format_shape(text);
	if (bad) {
		free(text);
		return td_fail(c, "line %d of the format is not in the kernel's layout", bad);
	}
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

/* The lines of printk_formats as the kernel writes them, `0xADDR : "FORMAT"`, the others left
 * out: libtraceevent 1.7.1 reads past a line's end on some malformed ones (found by fuzzing). */
static char *printk_lines(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *q = memchr(line, ':', len);
		size_t hex = line[0] == '0' && len > 2 && (line[1] == 'x' || line[1] == 'X') ?
			     strspn(line + 2, "0123456789abcdefABCDEF") : 0;
		bool ok = hex && q == line + 2 + hex + 1 && line[2 + hex] == ' ' && (size_t)(q - line) + 4 <= len &&
			  q[1] == ' ' && q[2] == '"' && line[len - 1] == '"';
		if (ok) {
			sb_add(&sb, line, len);
			sb_addc(&sb, '\n');
		}
		line += len + (nl ? 1 : 0);
	}
	sb_addc(&sb, 0);
	return sb_detach(&sb);
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
	char *lines = printk_lines(text);
	if (lines[0])
		tep_parse_printk_formats(tep, lines);
	free(lines);
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

static struct tep_handle *parse_all(const uint8_t *buf, size_t len, const char *file, uint64_t file_off,
				    size_t *used, int probe_fd)
{
	tep_set_loglevel(TEP_LOG_NONE); /* problems are reported here, once, or not at all */
	struct tep_handle *tep = tep_alloc();
	if (!tep) {
		err_set("%s: tracing data: out of memory", file);
		return NULL;
	}
	tep_set_flag(tep, TEP_NSEC_OUTPUT);
	struct td_cur c = { buf, len, 0, false, file, file_off, "", probe_fd };
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

/* libtraceevent's parser of print fmt expressions crashes on some malformed ones (its bug, found
 * by fuzzing; a shape check cannot cover an expression grammar). So the data is parsed in a child
 * process first, which writes each format's offset before parsing it: a child that dies names the
 * format that killed it, and the data is refused. 0 when the parse survives (or cannot be tried). */
static int parse_in_child(const uint8_t *buf, size_t len, const char *file, uint64_t file_off)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) /* a sanitizer's report of the crash is not lperf's output */
			dup2(null, STDERR_FILENO);
		/* a crash ends the child, silently (no sanitizer or fuzzer handler takes it) */
		static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		struct tep_handle *tep = parse_all(buf, len, file, file_off, NULL, fds[1]);
		/* the exit system call itself: no exit-time checks (a leak checker) in the child */
		syscall(SYS_exit_group, tep ? 0 : 3);
	}
	close(fds[1]);
	uint64_t last = file_off, at;
	while (read(fds[0], &at, sizeof(at)) == (ssize_t)sizeof(at))
		last = at;
	close(fds[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 3))
		return 0;
	return err_set("%s: tracing data at offset %#llx: the format there crashes libtraceevent's parser "
		       "(%s %d)", file, (unsigned long long)last,
		       WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

struct tep_handle *tracedata_parse(const uint8_t *buf, size_t len, const char *file, uint64_t file_off,
				   size_t *used)
{
	if (parse_in_child(buf, len, file, file_off) < 0)
		return NULL;
	return parse_all(buf, len, file, file_off, used, -1);
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

/* ---- printing a sample ---- */

#define TD_MAX_RECORD 65536 /* a sample record, raw data included, is at most 64 KiB */

/* Where the fixed fields of ev end (-1 when a field lies outside any record), and whether
 * every dynamic field of this record lies inside its size bytes. */
static long fixed_end(const struct tep_event *ev)
{
	long end = 0;
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	for (int l = 0; l < 2; l++)
		for (const struct tep_format_field *f = lists[l]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 || f->offset > TD_MAX_RECORD || f->size > TD_MAX_RECORD)
				return -1;
			if (f->offset + f->size > end)
				end = f->offset + f->size;
		}
	return end;
}

static bool dynamic_fit(struct tep_handle *tep, const struct tep_event *ev, const uint8_t *data, size_t size)
{
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (f->size != 4 || (size_t)f->offset + 4 > size)
			return false;
		unsigned long long loc = tep_read_number(tep, data + f->offset, 4);
		size_t off = loc & 0xffff, len = (loc >> 16) & 0xffff;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (size_t)f->offset + 4;
		if (off > size || len > size - off)
			return false;
	}
	return true;
}

int tracedata_print(struct tep_handle *tep, int cpu, const void *raw, size_t size, struct strbuf *out)
{
	if (!tep || !raw || size < 2 || size > TD_MAX_RECORD)
		return -1;
	int type = (int)tep_read_number(tep, raw, 2);
	struct tep_event *ev = tep_find_event(tep, type);
	long end = ev ? fixed_end(ev) : -1;
	if (end < 0 || !dynamic_fit(tep, ev, raw, size))
		return -1;
	/* zeros after the record: a fixed field past its end reads 0, a string without its NUL stops */
	size_t cap = (size > (size_t)end ? size : (size_t)end) + 8;
	uint8_t *copy = xcalloc(cap, 1);
	memcpy(copy, raw, size);
	struct tep_record rec = { 0 };
	rec.cpu = cpu;
	rec.size = (int)size;
	rec.data = copy;
	struct trace_seq sq;
	trace_seq_init(&sq);
	tep_print_event(tep, &sq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&sq);
	sb_add(out, sq.buffer, sq.len);
	trace_seq_destroy(&sq);
	free(copy);
	return 0;
}
