#include "target/target_image.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Field 39 of /proc/PID/stat: the CPU it last ran on; -1 when unreadable. */
static int last_cpu(pid_t pid, unsigned long long *start)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char *s = file_read(path, 4096, NULL);
	if (!s)
		return -1;
	char *p = strrchr(s, ')');
	int cpu = -1;
	if (p) {
		/* After ") ": field 3 is the state; count to 22 (starttime) and 39 (processor). */
		int field = 2;
		for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
			field++;
			if (field == 22)
				*start = strtoull(tok, NULL, 10);
			if (field == 39) {
				cpu = atoi(tok);
				break;
			}
		}
	}
	free(s);
	return cpu;
}

int target_find_image(const char *pe_file, const char *image_name, int core, pid_t *pid)
{
	char want[PATH_MAX];
	bool have_real = realpath(pe_file, want) != NULL;
	const char *want_base = image_name ? image_name : base_of(pe_file);
	DIR *d = opendir("/proc");
	if (!d)
		return err_set("/proc: cannot list processes");
	pid_t best = 0;
	int best_score = -1;
	unsigned long long best_start = 0;
	pid_t self = getpid();
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t p = (pid_t)atoi(de->d_name);
		if (p == self)
			continue;
		char link[64], exe[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)p);
		ssize_t n = readlink(link, exe, sizeof(exe) - 1);
		if (n <= 0)
			continue;
		exe[n] = 0;
		int score;
		if (have_real && !image_name && !strcmp(exe, want))
			score = 2;
		else if (!strcmp(base_of(exe), want_base))
			score = 1;
		else
			continue;
		unsigned long long start = 0;
		int cpu = last_cpu(p, &start);
		if (core >= 0 && cpu == core)
			score += 2;
		if (score > best_score || (score == best_score && start > best_start)) {
			best = p;
			best_score = score;
			best_start = start;
		}
	}
	closedir(d);
	if (!best)
		return err_set("no running process of '%s' found (wperf sample attaches to a running "
			       "process: start it first, or use 'wperf record -- COMMAND')",
			       image_name ? image_name : pe_file);
	*pid = best;
	return 0;
}

int target_image_base(pid_t pid, uint64_t *base, uint64_t *delta)
{
	char link[64], exe[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return err_set("%s: cannot read the executable's path", link);
	exe[n] = 0;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set("%s: cannot read", path);
	char line[PATH_MAX + 128];
	uint64_t load = 0;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &pos) < 4 || !pos)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = 0;
		if (!strcmp(name, exe)) {
			load = start - off;
			found = true;
		}
	}
	fclose(f);
	if (!found)
		return err_set("%s: no mapping of %s", path, exe);
	/* The lowest PT_LOAD address and e_entry of the executable (/proc/PID/exe also works when
	 * the file was replaced). */
	elf_version(EV_CURRENT);
	int fd = open(link, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set("%s: cannot open", exe);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	int rc = -1;
	if (e && gelf_getehdr(e, &eh)) {
		size_t np = 0;
		uint64_t lo = UINT64_MAX;
		elf_getphdrnum(e, &np);
		for (size_t i = 0; i < np && i < 4096; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr - ph.p_offset < lo)
				lo = ph.p_vaddr - ph.p_offset;
		}
		if (lo == UINT64_MAX)
			lo = 0;
		*delta = load - lo;
		*base = *delta + eh.e_entry;
		rc = 0;
	} else {
		err_set("%s: not an ELF file", exe);
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}
