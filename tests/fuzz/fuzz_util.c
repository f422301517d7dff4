/* Helpers shared by the fuzz harnesses (see fuzz.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fuzz.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = 0;
	return s;
}

static const char *const sysfs_roots[] = { "tests/fixtures/sysfs-amd", "tests/fixtures/sysfs-arm",
					   "tests/fixtures/sysfs-vm" };

void fuzz_use_sysfs_fixture(uint8_t choice)
{
	static char *abs_roots[3];
	if (!abs_roots[0]) {
		char cwd[4096];
		if (!getcwd(cwd, sizeof(cwd)))
			abort();
		for (int i = 0; i < 3; i++)
			if (asprintf(&abs_roots[i], "%s/%s", cwd, sysfs_roots[i]) < 0)
				abort();
	}
	setenv("LPERF_SYSFS_ROOT", abs_roots[choice % 3], 1);
}

static char tmpdir[64];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	remove(p);
	return 0;
}

void fuzz_rmtree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
	if (tmpdir[0])
		fuzz_rmtree(tmpdir);
}

const char *fuzz_tmpdir(void)
{
	if (!tmpdir[0]) {
		/* Not /dev/shm: the machine model takes paths there for anonymous memory. */
		const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(tmpdir, sizeof(tmpdir), "%.40s/lperf-fuzz-XXXXXX", base);
		if (!mkdtemp(tmpdir))
			abort();
		atexit(cleanup);
	}
	return tmpdir;
}

void fuzz_write(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	const char *p = data;
	while (size) {
		ssize_t w = write(fd, p, size);
		if (w <= 0)
			abort();
		p += w;
		size -= (size_t)w;
	}
	close(fd);
}

/* ---- Address spaces for the unwinding harnesses ---- */
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include "model/machine.h"

int fuzz_map_elf(struct machine *m, int pid, uint64_t base, const char *path)
{
	int made = 0;
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	Elf *elf = fstat(fd, &st) == 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t nph = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph && made < 8; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			uint64_t va = ph.p_vaddr & ~0xfffULL, off = ph.p_offset & ~0xfffULL;
			uint64_t len = (ph.p_vaddr - va) + ph.p_memsz;
			if (!len || len > (64ULL << 20) || va > (1ULL << 40))
				continue;
			uint32_t prot = ((ph.p_flags & PF_R) ? PROT_READ : 0) | ((ph.p_flags & PF_W) ? PROT_WRITE : 0) |
					((ph.p_flags & PF_X) ? PROT_EXEC : 0);
			machine_mmap(m, pid, pid, base + va, (len + 0xfff) & ~0xfffULL, off, prot, path, NULL, 0,
				     false);
			made++;
		}
	}
	if (!made && st.st_size > 0) {
		machine_mmap(m, pid, pid, base, ((uint64_t)st.st_size + 0xfff) & ~0xfffULL, 0,
			     PROT_READ | PROT_EXEC, path, NULL, 0, false);
		made = 1;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return made;
}

#include "symbols/dso.h"

struct dso *fuzz_load_dso(struct dso_cache *c, const char *file)
{
	dso_cache_init(c);
	struct dso *d = dso_cache_get(c, file, NULL, 0);
	dso_load(d);
	return d;
}
