/* Fuzz harness: jitdump files (jit-PID.dump). The input is a dump; it is parsed whole
 * (jitdump_parse) and incrementally in two feeds split at a point the input chooses (as a live
 * process's dump is read while it grows), and every code load is looked up (jitdump_find at its
 * start, middle and end, at its time and at time 0), with its source lines and .eh_frame
 * address, and the ELF image `lperf inject` makes of it. Seeds: dumps written by CPython 3.12/3.13 (-X perf_jit) and Node.js (--perf-prof). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "symbols/jitdump.h"
#include "symbols/jitelf.h"
#include "util/error.h"

static void walk(struct jitdump *jd)
{
	size_t n = jd->ncodes < 256 ? jd->ncodes : 256;
	/* The ELF image `inject` writes for a load (code, symbol, .eh_frame from its unwinding
	 * info), written to /dev/null: the first few loads only. */
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (size_t i = 0; i < n && i < 4 && fd >= 0; i++) {
		uint8_t id[JITELF_BUILD_ID_SIZE];
		jitelf_build_id(jd->pid, jd->codes[i], id);
		(void)jitelf_write_fd(fd, jd->codes[i], id);
		(void)jitelf_unwind_addr(jd->codes[i]);
		(void)jitelf_map_len(jd->codes[i]);
	}
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < n; i++) {
		const struct jitdump_code *c = jd->codes[i];
		uint64_t at[3] = { c->addr, c->addr + c->size / 2, c->addr + c->size };
		for (int k = 0; k < 3; k++) {
			uint64_t start;
			const struct jitdump_code *f = jitdump_find(jd, at[k], c->time, &start);
			(void)jitdump_find(jd, at[k], 0, NULL);
			const char *file;
			int line;
			if (f) {
				(void)jitdump_srcline(f, at[k], &file, &line);
				(void)jitdump_eh_frame_vaddr(f);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jitdump *jd = jitdump_parse(data, size);
	if (jd) {
		walk(jd);
		jitdump_free(jd);
	}
	/* Two feeds: the first ends where the last byte of the input says. */
	size_t cut = size ? (size_t)data[size - 1] * size / 256 : 0;
	jd = jitdump_new();
	if (jitdump_feed(jd, data, cut, false) == 0 && jd->consumed <= size)
		(void)jitdump_feed(jd, data + jd->consumed, size - jd->consumed, true);
	walk(jd);
	jitdump_free(jd);
	int pid;
	char *name = fuzz_strndup(data, size < 64 ? size : 64);
	(void)jitdump_is_marker(name, &pid);
	free(name);
	err_clear();
	return 0;
}
