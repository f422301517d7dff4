/* Helpers the picture writers share: escaping, colours, gzip. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "output/pictures.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/utf8.h"

void pic_xml(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	while (*s) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (*s < 0x20) {
				fputc('?', f);
			} else if (*s < 0x80) {
				fputc(*s, f);
			} else {
				/* Strict UTF-8 only (util/utf8.h): what is not becomes U+FFFD. */
				uint32_t cp;
				bool same;
				size_t n = utf8_next((const char *)s, &cp, &same);
				if (same) {
					fwrite(s, 1, n, f);
				} else {
					char u[4];
					fwrite(u, 1, utf8_put(u, cp), f);
				}
				s += n - 1;
			}
		}
		s++;
	}
}

static double name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (double)(h % 1000) / 1000.0;
}

void pic_colour(char *buf, size_t size, const char *name, enum stack_kind kind)
{
	double v = name_hash(name);
	int r, g, b;
	switch (kind) {
	case SK_PYTHON: r = 60 + (int)(v * 60); g = 170 + (int)(v * 60); b = 60 + (int)(v * 40); break;
	case SK_KERNEL: r = 90 + (int)(v * 40); g = 150 + (int)(v * 50); b = 215 + (int)(v * 40); break;
	case SK_JIT: r = 180 + (int)(v * 40); g = 120 + (int)(v * 40); b = 225 + (int)(v * 30); break;
	case SK_ROOT:
	case SK_COMM: r = g = b = 190 + (int)(v * 30); break;
	default: r = 205 + (int)(v * 50); g = 60 + (int)(v * 150); b = (int)(v * 55); break;
	}
	snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

void pic_delta_colour(char *buf, size_t size, double delta, double max_abs)
{
	double t = max_abs > 0 ? fabs(delta) / max_abs : 0;
	if (t > 1)
		t = 1;
	int fade = 235 - (int)(t * 200);
	if (delta > 0)
		snprintf(buf, size, "rgb(255,%d,%d)", fade, fade);
	else if (delta < 0)
		snprintf(buf, size, "rgb(%d,%d,255)", fade, fade);
	else
		snprintf(buf, size, "rgb(235,235,235)");
}

int pic_gzip_file(const char *path, const void *buf, size_t len)
{
	struct outfile o;
	if (outfile_open(&o, path, 0644) < 0)
		return -1;
	errno = 0;
	int fd = dup(o.fd);
	gzFile z = fd >= 0 ? gzdopen(fd, "wb9") : NULL;
	if (!z) {
		err_set("cannot write '%s': %s", path, errno ? strerror(errno) : "out of memory");
		if (fd >= 0)
			close(fd);
		outfile_abort(&o);
		return -1;
	}
	const char *p = buf;
	while (len) {
		unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;
		if (gzwrite(z, p, chunk) != (int)chunk) {
			int e;
			const char *why = gzerror(z, &e);
			err_set("cannot write '%s': %s", path, e == Z_ERRNO ? strerror(errno) : why);
			gzclose(z);
			outfile_abort(&o);
			return -1;
		}
		p += chunk;
		len -= chunk;
	}
	if (gzclose(z) != Z_OK) {
		err_set("cannot write '%s': %s", path, strerror(errno));
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o, false);
}
