#include "record/regname.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Index = perf's register number; NULL = not a register perf samples (x86's DS..GS are invalid
 * in 64-bit mode and perf leaves them out). */
static const char *const x86_64_names[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	NULL, NULL, NULL, NULL, "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};

static const char *const aarch64_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14",
	"x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",
	"x29", "lr", "sp", "pc",
};

static const char *const *names_of(unsigned machine, size_t *n)
{
	switch (machine) {
	case EM_X86_64:
		*n = ARRAY_SIZE(x86_64_names);
		return x86_64_names;
	case EM_AARCH64:
		*n = ARRAY_SIZE(aarch64_names);
		return aarch64_names;
	default:
		*n = 0;
		return NULL;
	}
}

unsigned regname_host(void)
{
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#else
	return 0;
#endif
}

unsigned regname_machine(const char *arch)
{
	if (!arch)
		return 0;
	if (!strcmp(arch, "x86_64"))
		return EM_X86_64;
	if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		return EM_AARCH64;
	return 0;
}

const char *regname(unsigned machine, unsigned reg)
{
	size_t n;
	const char *const *v = names_of(machine, &n);
	return v && reg < n ? v[reg] : NULL;
}

uint64_t regname_all(unsigned machine)
{
	size_t n;
	const char *const *v = names_of(machine, &n);
	uint64_t mask = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i])
			mask |= 1ULL << i;
	return mask;
}

char *regname_list(unsigned machine)
{
	size_t n;
	const char *const *v = names_of(machine, &n);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (!v[i])
			continue;
		if (sb.len)
			sb_addc(&sb, ' ');
		sb_adds(&sb, v[i]);
	}
	return sb_detach(&sb);
}

int regname_parse_mask(unsigned machine, const char *list, uint64_t *mask)
{
	size_t n;
	const char *const *v = names_of(machine, &n);
	*mask = 0;
	if (!v)
		return err_set("no register names are known on this architecture");
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t i;
		for (i = 0; i < n; i++)
			if (v[i] && strlen(v[i]) == len && !strncasecmp(v[i], p, len))
				break;
		if (i == n) {
			char *names = regname_list(machine);
			err_set("unknown register '%.*s' (available: %s)", (int)len, p, names);
			free(names);
			return -1;
		}
		*mask |= 1ULL << i;
		p += len + (e ? 1 : 0);
	}
	return *mask ? 0 : err_set("no registers given");
}
