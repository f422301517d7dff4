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

#include "util/hashmap.h"
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

/* ---- the memo of tiny files (elf.h: buildid_memo_start) ---- */

/* Files kept whole: perf inject's JIT files are about 1 KB. Bounded in all, so that a recording
 * naming many small files does not keep them all. */
#define MEMO_FILE_MAX 4096u
#define MEMO_TOTAL_MAX (16u << 20)

struct memo_file {
	char *path;
	size_t len;
	uint8_t bytes[];
};

static struct {
	pthread_mutex_t mu;
	unsigned users;          /* buildid_memo_start calls not stopped yet */
	struct hashmap files;    /* path -> struct memo_file */
	size_t total;
} memo = { PTHREAD_MUTEX_INITIALIZER, 0, HASHMAP_INIT(HASHMAP_STR), 0 };

void buildid_memo_start(void)
{
	pthread_mutex_lock(&memo.mu);
	memo.users++;
	pthread_mutex_unlock(&memo.mu);
}

void buildid_memo_stop(void)
{
	pthread_mutex_lock(&memo.mu);
	if (memo.users && !--memo.users) {
		for (size_t i = 0; i < memo.files.n; i++) {
			struct memo_file *f = memo.files.v[i].value;
			free(f->path);
			free(f);
		}
		hashmap_free(&memo.files);
		hashmap_init(&memo.files, HASHMAP_STR);
		memo.total = 0;
	}
	pthread_mutex_unlock(&memo.mu);
}

/* Keeps the bytes of the small file read at path, while a memo is on. */
static void memo_keep(const char *path, const void *bytes, size_t len)
{
	if (!path || len > MEMO_FILE_MAX)
		return;
	pthread_mutex_lock(&memo.mu);
	if (memo.users && memo.total + len <= MEMO_TOTAL_MAX && !hashmap_find_str(&memo.files, path)) {
		struct memo_file *f = xmalloc(sizeof(*f) + len);
		f->path = xstrdup(path);
		f->len = len;
		memcpy(f->bytes, bytes, len);
		hashmap_insert_str(&memo.files, f->path, &(bool){ false })->value = f;
		memo.total += len;
	}
	pthread_mutex_unlock(&memo.mu);
}

/* A copy of the kept bytes of path (the caller frees it), or NULL. */
static void *memo_copy(const char *path, size_t *len)
{
	void *copy = NULL;
	pthread_mutex_lock(&memo.mu);
	struct hashmap_entry *e = memo.users ? hashmap_find_str(&memo.files, path) : NULL;
	if (e) {
		const struct memo_file *f = e->value;
		copy = xmalloc(f->len);
		memcpy(copy, f->bytes, f->len);
		*len = f->len;
	}
	pthread_mutex_unlock(&memo.mu);
	return copy;
}

Elf *buildid_memo_elf(const char *path, void **image)
{
	size_t len;
	*image = memo_copy(path, &len);
	if (!*image)
		return NULL;
	buildid_libelf_init();
	Elf *elf = elf_memory(*image, len);
	if (!elf) {
		free(*image);
		*image = NULL;
	}
	return elf;
}

bool buildid_memo_has(const char *path)
{
	pthread_mutex_lock(&memo.mu);
	bool has = memo.users && hashmap_find_str(&memo.files, path);
	pthread_mutex_unlock(&memo.mu);
	return has;
}

Elf *buildid_elf_begin_path(int fd, const struct stat *st, Elf_Cmd cmd, void **image, const char *path)
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
	memo_keep(path, buf, len);
	*image = buf;
	return elf;
}

Elf *buildid_elf_begin(int fd, const struct stat *st, Elf_Cmd cmd, void **image)
{
	return buildid_elf_begin_path(fd, st, cmd, image, NULL);
}

size_t buildid_of_file(const char *path, uint8_t id[20])
{
	buildid_libelf_init();
	void *image;
	size_t n = 0;
	Elf *elf = buildid_memo_elf(path, &image);
	if (elf) {
		if (elf_kind(elf) == ELF_K_ELF)
			n = buildid_of_elf(elf, id);
		elf_end(elf);
		free(image);
		return n;
	}
	/* O_NONBLOCK: a FIFO named in a recording is refused below, not waited on */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		elf = buildid_elf_begin_path(fd, &st, ELF_C_READ, &image, path);
		if (elf && elf_kind(elf) == ELF_K_ELF)
			n = buildid_of_elf(elf, id);
		elf_end(elf);
		free(image);
	}
	close(fd);
	return n;
}
