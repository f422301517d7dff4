/* Build-ids of ELF files (the GNU build-id note, from the section headers or, when those were
 * stripped, the PT_NOTE segments) and libelf's one-time setup, which every reader of an ELF file
 * here needs first: the loaders (elf_symbols.c, vdso.c), the debug-file search (debuginfo.c) and
 * the recorder. Declared in elf.h. */
#include "symbols/elf.h"

#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static void init_once(void)
{
	elf_version(EV_CURRENT);
}

void buildid_libelf_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, init_once);
}

static size_t note_build_id(Elf *elf, Elf_Data *d, uint8_t id[20])
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	while (d && d->d_buf && off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *base = d->d_buf;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(base + name_off, "GNU", 4) &&
		    nh.n_descsz > 0) {
			size_t n = nh.n_descsz > 20 ? 20 : nh.n_descsz;
			memcpy(id, base + desc_off, n);
			return n;
		}
		off = next;
	}
	return 0;
}

size_t buildid_of_elf(Elf *elf, uint8_t id[20])
{
	size_t found = 0, nphdr;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
			found = note_build_id(elf, elf_getdata(scn, NULL), id);
	}
	if (found)
		return found;
	/* Files whose section headers were stripped still have their PT_NOTE segments. */
	if (elf_getphdrnum(elf, &nphdr) != 0)
		return 0;
	for (size_t i = 0; i < nphdr && !found; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Type t = ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
		found = note_build_id(elf, elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, t), id);
	}
	return found;
}

/* Past this size a file is left to libelf's reads on demand; below it, reading the whole file at
 * once is one system call where libelf's reads of its headers and sections are several (perf
 * inject's JIT files are about 1 KB each, and a report opens hundreds of them). */
#define ELF_SMALL (64u << 10)

Elf *buildid_elf_begin(int fd, const struct stat *st, Elf_Cmd cmd, void **image)
{
	*image = NULL;
	if (st->st_size <= 0 || (uint64_t)st->st_size > ELF_SMALL)
		return elf_begin(fd, cmd, NULL);
	size_t len = (size_t)st->st_size, got = 0;
	char *buf = xmalloc(len);
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, (off_t)got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	Elf *elf = got == len ? elf_memory(buf, len) : NULL;
	if (!elf) {
		free(buf);
		return elf_begin(fd, cmd, NULL);
	}
	*image = buf;
	return elf;
}

size_t buildid_of_file(const char *path, uint8_t id[20])
{
	buildid_libelf_init();
	/* O_NONBLOCK: a FIFO named in a recording is refused below, not waited on */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat st;
	size_t n = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		void *image;
		Elf *elf = buildid_elf_begin(fd, &st, ELF_C_READ, &image);
		if (elf && elf_kind(elf) == ELF_K_ELF)
			n = buildid_of_elf(elf, id);
		elf_end(elf);
		free(image);
	}
	close(fd);
	return n;
}
