/* Separate debug info for stripped files, where gdb and perf look for it: by build-id under
 * /usr/lib/debug/.build-id/, then by the .gnu_debuglink name (beside the file, in its .debug/
 * directory, under /usr/lib/debug/<its directory>/) with the link's CRC32 checked. A candidate
 * whose build-id differs from the file's is someone else's debug file and is skipped. */
#include "symbols/elf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/crc.h"
#include "util/xalloc.h"

static bool file_crc32(int fd, uint32_t *out)
{
	static const size_t chunk = 1 << 16;
	unsigned char *buf = xmalloc(chunk);
	uint32_t crc = 0;
	off_t off = 0;
	bool ok = true;
	for (;;) {
		ssize_t r = pread(fd, buf, chunk, off);
		if (r < 0) {
			ok = false;
			break;
		}
		if (r == 0)
			break;
		crc = crc_update(crc, buf, (size_t)r);
		off += r;
	}
	free(buf);
	*out = crc;
	return ok;
}

static bool has_symtab(Elf *elf)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

struct want {
	const uint8_t *bid;       /* the stripped file's build-id; size 0: unknown */
	size_t bid_size;
	bool check_crc;
	uint32_t crc;
	dev_t dev;                /* the stripped file itself, which a debuglink must not name */
	ino_t ino;
};

static Elf *try_open(const char *path, const struct want *w, int *fd_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	Elf *elf = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_dev == w->dev && st.st_ino == w->ino))
		goto fail;
	if (w->check_crc) {
		uint32_t crc;
		if (!file_crc32(fd, &crc) || crc != w->crc)
			goto fail;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !has_symtab(elf))
		goto fail;
	if (w->bid_size) {
		uint8_t id[20];
		size_t n = buildid_of_elf(elf, id);
		if (n && (n != w->bid_size || memcmp(id, w->bid, n)))
			goto fail;
	}
	*fd_out = fd;
	return elf;
fail:
	elf_end(elf);
	close(fd);
	return NULL;
}

/* The .gnu_debuglink section: a file name, padding to 4 bytes, the CRC32 of the debug file in
 * the ELF file's byte order. */
static char *read_debuglink(Elf *elf, uint32_t *crc)
{
	size_t shstrndx;
	GElf_Ehdr eh;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getehdr(elf, &eh))
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink"))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		const unsigned char *p = d->d_buf;
		size_t len = strnlen((const char *)p, d->d_size);
		size_t crc_off = (len + 1 + 3) & ~(size_t)3;
		if (!len || len >= d->d_size || crc_off + 4 > d->d_size || memchr(p, '/', len))
			return NULL;
		const unsigned char *c = p + crc_off;
		if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
			*crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
		else
			*crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
		return xstrndup((const char *)p, len);
	}
	return NULL;
}

static Elf *found(char **debug_path, char *path, Elf *elf)
{
	if (elf) {
		free(*debug_path);
		*debug_path = path;
	} else {
		free(path);
	}
	return elf;
}

/* Debug files named on the command line (wperf's --pdb_file): tried first, taken only by the
 * file whose build-id they carry. */
static char **explicit_files;
static size_t nexplicit;

void debuginfo_add_file(const char *path)
{
	explicit_files = xrealloc(explicit_files, (nexplicit + 1) * sizeof(char *));
	explicit_files[nexplicit++] = xstrdup(path);
}

void debuginfo_clear_files(void)
{
	for (size_t i = 0; i < nexplicit; i++)
		free(explicit_files[i]);
	free(explicit_files);
	explicit_files = NULL;
	nexplicit = 0;
}

bool debuginfo_has_files(void)
{
	return nexplicit != 0;
}

static Elf *try_explicit(char **debug_path, const struct want *w, int *fd)
{
	for (size_t i = 0; i < nexplicit && w->bid_size; i++) {
		Elf *e = try_open(explicit_files[i], w, fd);
		uint8_t id[20];
		size_t n = e ? buildid_of_elf(e, id) : 0;
		if (e && n == w->bid_size && !memcmp(id, w->bid, n))
			return found(debug_path, xstrdup(explicit_files[i]), e);
		if (e) {
			elf_end(e);
			close(*fd);
			*fd = -1;
		}
	}
	return NULL;
}

Elf *debuginfo_open(const char *root, const char *file_path, Elf *elf, const uint8_t *bid, size_t bid_size,
		    int *fd, char **debug_path)
{
	*fd = -1;
	if (!root)
		root = "";
	struct want w = { bid, bid_size, false, 0, 0, 0 };
	struct stat st;
	if (stat(file_path, &st) == 0) {
		w.dev = st.st_dev;
		w.ino = st.st_ino;
	}
	Elf *dbg = try_explicit(debug_path, &w, fd);
	if (dbg)
		return dbg;
	if (bid_size >= 2) {
		char hex[41];
		for (size_t i = 0; i < bid_size; i++)
			snprintf(hex + 2 * i, 3, "%02x", bid[i]);
		char *p = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hex, hex + 2);
		if ((dbg = found(debug_path, p, try_open(p, &w, fd))))
			return dbg;
	}

	char *link = read_debuglink(elf, &w.crc);
	if (!link)
		return NULL;
	w.check_crc = true;
	/* The file's directory, with and without the root in front. */
	const char *slash = strrchr(file_path, '/');
	char *dir = slash ? xstrndup(file_path, (size_t)(slash - file_path)) : xstrdup(".");
	size_t rootlen = strlen(root);
	const char *orig_dir = !strncmp(dir, root, rootlen) ? dir + rootlen : dir;
	if (orig_dir[0] != '/')
		orig_dir = "";
	char *cands[3] = {
		xasprintf("%s/%s", dir, link),
		xasprintf("%s/.debug/%s", dir, link),
		xasprintf("%s/usr/lib/debug%s/%s", root, orig_dir, link),
	};
	free(dir);
	for (size_t i = 0; i < 3; i++) {
		if (!dbg)
			dbg = found(debug_path, cands[i], try_open(cands[i], &w, fd));
		else
			free(cands[i]);
	}
	free(link);
	return dbg;
}
