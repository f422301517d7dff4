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

/* The names a program goes by: the name given, then each link's target along the chain from
 * the file it names (a path, or a name found on PATH): python3 -> python3.11. */
struct names {
	char v[8][NAME_MAX + 1];
	int n;
};

static void add_name(struct names *nm, const char *name)
{
	for (int i = 0; i < nm->n; i++)
		if (!strcmp(nm->v[i], name))
			return;
	if (nm->n < 8)
		snprintf(nm->v[nm->n++], sizeof(nm->v[0]), "%s", name);
}

/* pe_file as a path: itself when it has a '/' or exists here, else the first executable of that
 * name on PATH; "" when none. */
static void locate(const char *pe_file, char *out, size_t size)
{
	out[0] = 0;
	if (strchr(pe_file, '/') || access(pe_file, F_OK) == 0) {
		snprintf(out, size, "%s", pe_file);
		return;
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		if (n && (size_t)snprintf(out, size, "%.*s/%s", (int)n, p, pe_file) < size &&
		    access(out, X_OK) == 0)
			return;
		p += n;
		if (*p)
			p++;
	}
	out[0] = 0;
}

static void link_names(const char *pe_file, struct names *nm)
{
	char cur[PATH_MAX], target[PATH_MAX];
	locate(pe_file, cur, sizeof(cur));
	for (int hops = 0; cur[0] && hops < 8; hops++) {
		ssize_t n = readlink(cur, target, sizeof(target) - 1);
		if (n <= 0)
			break;
		target[n] = 0;
		add_name(nm, base_of(target));
		if (target[0] == '/') {
			snprintf(cur, sizeof(cur), "%s", target);
		} else {
			/* Relative to the link's directory. */
			char *slash = strrchr(cur, '/');
			size_t dir = slash ? (size_t)(slash - cur + 1) : 0;
			if (dir + (size_t)n >= sizeof(cur))
				break;
			memcpy(cur + dir, target, (size_t)n + 1);
		}
	}
}

/* The name the process was started by: /proc/PID/comm (the base name given to exec, at most 15
 * characters) matches name when name starts with it; or argv[0]'s base name. */
static bool started_as(pid_t p, const char *name)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p);
	char *comm = file_read(path, 256, NULL);
	bool yes = false;
	if (comm) {
		comm[strcspn(comm, "\n")] = 0;
		size_t n = strlen(comm);
		yes = n && (n == strlen(name) || n == 15) && !strncmp(comm, name, n);
		free(comm);
	}
	if (yes)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p);
	size_t len = 0;
	char *cmd = file_read(path, 4096, &len);
	if (cmd && len > 0) {
		cmd[len - 1] = 0;   /* argv[0] ends at the first NUL */
		yes = !strcmp(base_of(cmd), name);
	}
	free(cmd);
	return yes;
}

int target_find_image(const char *pe_file, const char *image_name, int core, pid_t *pid)
{
	char want[PATH_MAX], located[PATH_MAX];
	locate(pe_file, located, sizeof(located));
	bool have_real = located[0] && realpath(located, want) != NULL;
	const char *want_base = image_name ? image_name : base_of(pe_file);
	struct names nm = { .n = 0 };
	add_name(&nm, want_base);
	if (!image_name)
		link_names(pe_file, &nm);
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
		int score = -1;
		if (have_real && !image_name && !strcmp(exe, want))
			score = 2;
		for (int i = 0; i < nm.n && score < 0; i++)
			if (!strcmp(base_of(exe), nm.v[i]))
				score = 1;
		if (score < 0 && started_as(p, want_base))
			score = 1;
		if (score < 0)
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
