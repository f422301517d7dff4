/* Caps on compressed DWARF. See dwarfcap.h. */
#include "symbols/dwarfcap.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "util/xalloc.h"

#define DWARFCAP_SMALL (16ull << 20)

/* The size scn inflates to if it is a compressed debug section (else false). */
static bool compressed_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, uint64_t *size)
{
	*size = 0;
	if (!strncmp(name, ".debug_", 7) && (sh->sh_flags & SHF_COMPRESSED)) {
		GElf_Chdr ch;
		Elf_Data *raw = elf_rawdata(scn, NULL);
		if (raw && raw->d_size >= sizeof(Elf32_Chdr) && gelf_getchdr(scn, &ch))
			*size = ch.ch_size;
		return true;
	}
	if (!strncmp(name, ".zdebug_", 8)) {
		Elf_Data *raw = elf_rawdata(scn, NULL);
		const unsigned char *b = raw ? raw->d_buf : NULL;
		if (b && raw->d_size >= 12 && !memcmp(b, "ZLIB", 4))
			for (int i = 4; i < 12; i++)
				*size = *size << 8 | b[i];
		return true;
	}
	return false;
}

/* Calls fn on each compressed debug section of elf with its packed and inflated sizes; stops
 * at fn's first nonzero answer and returns it (-1 if elf cannot be read). */
static int each_compressed(Elf *elf, int (*fn)(Elf_Scn *, GElf_Shdr *, const char *, uint64_t, void *),
			   void *arg)
{
	size_t shstrndx;
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -1;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		uint64_t size;
		if (!name || sh.sh_type == SHT_NOBITS || !compressed_size(scn, &sh, name, &size))
			continue;
		int r = fn(scn, &sh, name, size, arg);
		if (r)
			return r;
	}
	return 0;
}

struct totals {
	uint64_t packed, inflated;
};

static int add_sizes(Elf_Scn *scn, GElf_Shdr *sh, const char *name, uint64_t size, void *arg)
{
	(void)scn, (void)name;
	struct totals *t = arg;
	t->packed += sh->sh_size;
	t->inflated = t->inflated + size < t->inflated ? UINT64_MAX : t->inflated + size;
	return 0;
}

char *dwarfcap_refusal(Elf *elf)
{
	struct totals t = { 0, 0 };
	if (each_compressed(elf, add_sizes, &t) < 0)
		return NULL;
	if (t.inflated <= DWARFCAP_MAX && (t.inflated <= DWARFCAP_SMALL || t.inflated / DWARFCAP_RATIO <= t.packed))
		return NULL;
	return xasprintf("its compressed DWARF would inflate to %" PRIu64 " MiB from %" PRIu64 " KiB (the caps are "
			 "%d times and %llu MiB): its source lines and inline frames are skipped",
			 t.inflated >> 20, t.packed >> 10, DWARFCAP_RATIO, DWARFCAP_MAX >> 20);
}

/* Which sections hide_one hides (names after ".debug_" or ".zdebug_"; NULL: all), and how many. */
struct hiding {
	const char *const *names;
	size_t nnames, hidden;
};

/* Hides scn when its name is one of arg's. */
static int hide_one(Elf_Scn *scn, GElf_Shdr *sh, const char *name, uint64_t size, void *arg)
{
	(void)size;
	struct hiding *h = arg;
	if (h->names) {
		const char *base = name + (name[1] == 'z' ? 8 : 7); /* after ".zdebug_" or ".debug_" */
		bool drop = false;
		for (size_t i = 0; i < h->nnames; i++)
			drop |= !strcmp(base, h->names[i]);
		if (!drop)
			return 0;
	}
	h->hidden++;
	sh->sh_type = SHT_NOBITS;
	return gelf_update_shdr(scn, sh) ? 0 : -1;
}

static int hide(Elf *elf, const char *const *names, size_t n)
{
	struct hiding h = { names, n, 0 };
	if (each_compressed(elf, hide_one, &h) < 0)
		return -1;
	return h.hidden > INT32_MAX ? INT32_MAX : (int)h.hidden;
}

int dwarfcap_hide(Elf *elf)
{
	return hide(elf, NULL, 0) < 0 ? -1 : 0;
}

int dwarfcap_hide_unread(Elf *elf)
{
	static const char *const unread[] = { "loclists", "loc", "frame", "macro", "macinfo", "pubnames" };
	return hide(elf, unread, sizeof(unread) / sizeof(unread[0]));
}

int dwarfcap_hide_lines(Elf *elf)
{
	static const char *const lines[] = { "line" };
	return hide(elf, lines, 1);
}
