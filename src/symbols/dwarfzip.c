/* Compressed DWARF sections inflated with libdeflate. See dwarfzip.h. */
#include "symbols/dwarfzip.h"

#include <libdeflate.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dwarfcap.h"
#include "util/xalloc.h"

/* zlib's largest ratio (libelf refuses a stated size past it too) */
#define DWARFZIP_RATIO 1032

/* One section to inflate: its zlib streams and where their bytes go. */
struct zsec {
	Elf_Scn *scn;
	Elf_Data *data;
	const char *name;
	const unsigned char *in;
	size_t in_size;
	uint64_t out_size, align, at;
	uint64_t file_off, file_size;
};

struct zlist {
	struct zsec *v;
	size_t n, cap;
	uint64_t total;
	char *why;
};

/* The sections libdw reads (dwarf_begin_elf's names, without .dwo's). */
static bool libdw_reads(const char *name)
{
	static const char *const names[] = {
		"info", "types", "abbrev", "addr", "aranges", "line", "line_str", "frame", "loc",
		"loclists", "pubnames", "str", "str_offsets", "macinfo", "macro", "ranges", "rnglists",
	};
	if (strncmp(name, ".debug_", 7))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name + 7, names[i]))
			return true;
	return false;
}

static void note_bad(struct zlist *l, const char *name, const char *what)
{
	if (!l->why)
		l->why = xasprintf("section %s: %s", name, what);
}

/* Hides scn from libdw (it skips SHT_NOBITS sections). */
static void hide(Elf_Scn *scn)
{
	GElf_Shdr sh;
	if (gelf_getshdr(scn, &sh)) {
		sh.sh_type = SHT_NOBITS;
		gelf_update_shdr(scn, &sh);
	}
}

/* Adds scn to l when libelf would inflate it for libdw; hides it when its header is damaged or
 * hostile. */
static void consider(struct zlist *l, Elf_Scn *scn, const GElf_Shdr *sh, const char *name, size_t hsize)
{
	GElf_Chdr ch;
	if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_COMPRESSED) || (sh->sh_flags & SHF_ALLOC) ||
	    !libdw_reads(name))
		return;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < hsize || elf_getdata(scn, d) || !gelf_getchdr(scn, &ch)) {
		note_bad(l, name, "its compression header cannot be read");
		hide(scn);
		return;
	}
	if (ch.ch_type != ELFCOMPRESS_ZLIB || (ch.ch_addralign & (ch.ch_addralign - 1)))
		return; /* libelf's to refuse, as it does (it takes an alignment of 0) */
	size_t in_size = d->d_size - hsize;
	if (ch.ch_size / DWARFZIP_RATIO > in_size || ch.ch_size > DWARFCAP_MAX) {
		note_bad(l, name, "its stated size is past zlib's largest ratio to its compressed bytes");
		hide(scn);
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = (struct zsec){ scn, d, name, (const unsigned char *)d->d_buf + hsize, in_size, ch.ch_size,
				      ch.ch_addralign, l->total, sh->sh_offset, sh->sh_size };
	l->total += (ch.ch_size + 15) & ~(uint64_t)15;
}

/* Inflates z's streams (one or more, back to back, as libelf reads them) into out: true when
 * they fill exactly its stated size. */
static bool inflate_streams(struct libdeflate_decompressor *dc, const struct zsec *z, unsigned char *out)
{
	const unsigned char *in = z->in;
	size_t left = z->in_size, done = 0;
	while (left) {
		size_t used, made;
		if (libdeflate_zlib_decompress_ex(dc, in, left, out + done, z->out_size - done, &used, &made) !=
			    LIBDEFLATE_SUCCESS ||
		    !used || used > left)
			return false;
		in += used, left -= used, done += made;
	}
	return done == z->out_size;
}

/* Makes z's section the inflated bytes at out: an uncompressed section's header, its data those
 * bytes. False, nothing changed, when its header cannot be written. */
static bool install(const struct zsec *z, unsigned char *out)
{
	GElf_Shdr sh;
	if (!gelf_getshdr(z->scn, &sh))
		return false;
	sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh.sh_size = z->out_size;
	sh.sh_addralign = z->align;
	if (!gelf_update_shdr(z->scn, &sh))
		return false;
	z->data->d_buf = out;
	z->data->d_size = z->out_size;
	z->data->d_type = ELF_T_BYTE;
	z->data->d_align = z->align;
	z->data->d_off = 0;
	return true;
}

static int collect(Elf *elf, struct zlist *l)
{
	size_t shstrndx;
	int cls = gelf_getclass(elf);
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) < 0 || cls == ELFCLASSNONE)
		return -1;
	size_t hsize = cls == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name)
			consider(l, scn, &sh, name, hsize);
		if (l->total > DWARFCAP_MAX)
			return -1;
	}
	return 0;
}

int dwarfzip_inflate(Elf *elf, void **mem, char **why, dwarfzip_done_fn *done, void *arg)
{
	struct zlist l = { 0 };
	*mem = NULL;
	*why = NULL;
	unsigned char *buf = NULL;
	struct libdeflate_decompressor *dc = NULL;
	int n = -1;
	if (collect(elf, &l) < 0 || !(buf = malloc(l.total ? l.total : 1)) || !(dc = libdeflate_alloc_decompressor()))
		goto out;
	n = 0;
	for (size_t i = 0; i < l.n; i++) {
		const struct zsec *z = &l.v[i];
		if (!inflate_streams(dc, z, buf + z->at)) {
			note_bad(&l, z->name, "its zlib data is damaged or does not fill its stated size");
			hide(z->scn);
		} else if (install(z, buf + z->at)) {
			n += n < INT32_MAX;
			if (done)
				done(z->file_off, z->file_size, arg);
		}
	}
out:
	if (dc)
		libdeflate_free_decompressor(dc);
	free(l.v);
	if (n < 0) {
		free(buf);
		free(l.why);
		return -1;
	}
	*mem = buf;
	*why = l.why;
	return n;
}
