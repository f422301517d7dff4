#include "python/pylayout.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "python/pyread.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Learned from CPython's Include/cpython/{pystate,frameobject,code}.h and
 * Include/internal/pycore_{runtime,interp,frame}.h of each version (Include/{pystate,
 * frameobject,code,stringobject}.h for 2.7 and 3.6; the approach py-spy and Austin take), and
 * checked against pyenv builds' DWARF by tests/unit/test_pyread.c. 2.7 and 3.6 have no
 * _PyRuntime: the list of interpreters starts at pystate.c's static interp_head. */
static const struct py_layout table[] = {
	{ .major = 2, .minor = 7, .frame_kind = PY_FRAME_OBJECT, .linetable = PY_LNOTAB27,
	  .runtime_sym = "interp_head", .str_bytes = true, .tstate_interp = 8,
	  .runtime_interp_head = 0, .interp_tstate_head = 8, .tstate_next = 0, .tstate_thread_id = 144,
	  .tstate_native_tid = -1, .tstate_frame = 16, .cframe_current = -1, .frame_back = 24,
	  .frame_code = 32, .frame_lasti = 120, .frame_owner = -1, .frame_is_entry = -1,
	  .code_name = 88, .code_qualname = -1, .code_filename = 80, .code_firstlineno = 96,
	  .code_linetable = 104, .code_adaptive = -1, .unicode_state = -1, .unicode_length = -1,
	  .ascii_size = -1, .compact_size = -1, .bytes_size = 16, .bytes_sval = 36,
	  .runtime_gil = -1, .interp_gil = -1, .gil_locked = -1, .gil_holder = 0,
	  .gil_sym = "_PyThreadState_Current" },
	{ .major = 3, .minor = 6, .frame_kind = PY_FRAME_OBJECT, .linetable = PY_LNOTAB,
	  .runtime_sym = "interp_head", .tstate_interp = 16,
	  .runtime_interp_head = 0, .interp_tstate_head = 8, .tstate_next = 8, .tstate_thread_id = 152,
	  .tstate_native_tid = -1, .tstate_frame = 24, .cframe_current = -1, .frame_back = 24,
	  .frame_code = 32, .frame_lasti = 120, .frame_owner = -1, .frame_is_entry = -1,
	  .code_name = 104, .code_qualname = -1, .code_filename = 96, .code_firstlineno = 36,
	  .code_linetable = 112, .code_adaptive = -1, .unicode_state = 32, .unicode_length = 16,
	  .ascii_size = 48, .compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .runtime_gil = -1, .interp_gil = -1, .gil_locked = -1, .gil_holder = 0,
	  .gil_sym = "_PyThreadState_Current" },
	{ .major = 3, .minor = 7, .frame_kind = PY_FRAME_OBJECT, .linetable = PY_LNOTAB,
	  .runtime_interp_head = 24, .interp_tstate_head = 8, .tstate_next = 8, .tstate_thread_id = 176,
	  .tstate_native_tid = -1, .tstate_frame = 24, .cframe_current = -1, .frame_back = 24,
	  .frame_code = 32, .frame_lasti = 104, .frame_owner = -1, .frame_is_entry = -1,
	  .code_name = 104, .code_qualname = -1, .code_filename = 96, .code_firstlineno = 36,
	  .code_linetable = 112, .code_adaptive = -1, .unicode_state = 32, .unicode_length = 16,
	  .ascii_size = 48, .compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .runtime_gil = 1264, .interp_gil = -1, .gil_locked = 16, .gil_holder = 8 },
	{ .major = 3, .minor = 8, .frame_kind = PY_FRAME_OBJECT, .linetable = PY_LNOTAB,
	  .runtime_interp_head = 32, .interp_tstate_head = 8, .tstate_next = 8, .tstate_thread_id = 176,
	  .tstate_native_tid = -1, .tstate_frame = 24, .cframe_current = -1, .frame_back = 24,
	  .frame_code = 32, .frame_lasti = 104, .frame_owner = -1, .frame_is_entry = -1,
	  .code_name = 112, .code_qualname = -1, .code_filename = 104, .code_firstlineno = 40,
	  .code_linetable = 120, .code_adaptive = -1, .unicode_state = 32, .unicode_length = 16,
	  .ascii_size = 48, .compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .runtime_gil = 1152, .interp_gil = -1, .gil_locked = 16, .gil_holder = 8 },
	{ .major = 3, .minor = 9, .frame_kind = PY_FRAME_OBJECT, .linetable = PY_LNOTAB,
	  .runtime_interp_head = 32, .interp_tstate_head = 8, .tstate_next = 8, .tstate_thread_id = 176,
	  .tstate_native_tid = -1, .tstate_frame = 24, .cframe_current = -1, .frame_back = 24,
	  .frame_code = 32, .frame_lasti = 104, .frame_owner = -1, .frame_is_entry = -1,
	  .code_name = 112, .code_qualname = -1, .code_filename = 104, .code_firstlineno = 40,
	  .code_linetable = 120, .code_adaptive = -1, .unicode_state = 32, .unicode_length = 16,
	  .ascii_size = 48, .compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .runtime_gil = 352, .interp_gil = -1, .gil_locked = 16, .gil_holder = 8 },
	{ .major = 3, .minor = 10, .frame_kind = PY_FRAME_OBJECT, .linetable = PY_LINETABLE310,
	  .runtime_interp_head = 32, .interp_tstate_head = 8, .tstate_next = 8, .tstate_thread_id = 176,
	  .tstate_native_tid = -1, .tstate_frame = 24, .cframe_current = -1, .frame_back = 24,
	  .frame_code = 32, .frame_lasti = 96, .frame_owner = -1, .frame_is_entry = -1,
	  .code_name = 112, .code_qualname = -1, .code_filename = 104, .code_firstlineno = 40,
	  .code_linetable = 120, .code_adaptive = -1, .unicode_state = 32, .unicode_length = 16,
	  .ascii_size = 48, .compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .runtime_gil = 352, .interp_gil = -1, .gil_locked = 16, .gil_holder = 8 },
	{ .major = 3, .minor = 11, .frame_kind = PY_FRAME_INTERP, .linetable = PY_LOCATIONS,
	  .runtime_interp_head = 40, .interp_tstate_head = 16, .tstate_next = 8, .tstate_thread_id = 152,
	  .tstate_native_tid = 160, .tstate_frame = 56, .cframe_current = 8, .frame_back = 48,
	  .frame_code = 32, .frame_lasti = 56, .frame_owner = 69, .frame_is_entry = 68,
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 72,
	  .code_linetable = 136, .code_adaptive = 184, .unicode_state = 32, .unicode_length = 16,
	  .ascii_size = 48, .compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .runtime_gil = 360, .interp_gil = -1, .gil_locked = 16, .gil_holder = 8 },
	{ .major = 3, .minor = 12, .frame_kind = PY_FRAME_INTERP, .linetable = PY_LOCATIONS,
	  .runtime_interp_head = 40, .interp_tstate_head = 72, .tstate_next = 8, .tstate_thread_id = 136,
	  .tstate_native_tid = 144, .tstate_frame = 56, .cframe_current = 0, .frame_back = 8,
	  .frame_code = 0, .frame_lasti = 56, .frame_owner = 70, .frame_is_entry = -1,
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 68,
	  .code_linetable = 136, .code_adaptive = 192, .unicode_state = 32, .unicode_length = 16,
	  .ascii_size = 40, .compact_size = 56, .bytes_size = 16, .bytes_sval = 32,
	  .runtime_gil = -1, .interp_gil = 384, .gil_locked = 16, .gil_holder = 8 },
};

const struct py_layout *pylayout_table(int major, int minor)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].major == major && table[i].minor == minor)
			return &table[i];
	return NULL;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* 3.13's _Py_DebugOffsets: the cookie, PY_VERSION_HEX, then groups of u64 offsets, each group
 * led by the structure's size. Positions are those of 3.13.0's Include/internal/pycore_runtime.h. */
int pylayout_from_debug_offsets(const uint8_t *img, size_t len, struct py_layout *out)
{
	if (len < PYLAYOUT_DEBUG_OFFSETS_SIZE)
		return err_set("_Py_DebugOffsets: %zu bytes, need %d", len, PYLAYOUT_DEBUG_OFFSETS_SIZE);
	if (memcmp(img, "xdebugpy", 8))
		return err_set("_Py_DebugOffsets: no 'xdebugpy' cookie at the start of _PyRuntime");
	uint64_t ver = rd64(img + 8);
	int major = (int)((ver >> 24) & 0xff), minor = (int)((ver >> 16) & 0xff);
	if (major != 3 || minor != 13)
		return err_set("_Py_DebugOffsets: version %d.%d (0x%" PRIx64 "): only 3.13's layout is known",
			       major, minor, ver);
	if (rd64(img + 16))
		return err_set("_Py_DebugOffsets: a free-threaded build, which this reader does not walk");
	memset(out, 0, sizeof(*out));
	out->major = 3;
	out->minor = 13;
	out->frame_kind = PY_FRAME_INTERP;
	out->linetable = PY_LOCATIONS;
	static const struct { size_t at; size_t off; uint64_t max; } f[] = {
		{ 40, offsetof(struct py_layout, runtime_interp_head), 1u << 20 },
		{ 72, offsetof(struct py_layout, interp_tstate_head), 1u << 20 },
		{ 168, offsetof(struct py_layout, tstate_next), 4096 },
		{ 184, offsetof(struct py_layout, tstate_frame), 4096 },
		{ 192, offsetof(struct py_layout, tstate_thread_id), 4096 },
		{ 200, offsetof(struct py_layout, tstate_native_tid), 4096 },
		{ 232, offsetof(struct py_layout, frame_back), 256 },
		{ 240, offsetof(struct py_layout, frame_code), 256 },
		{ 248, offsetof(struct py_layout, frame_lasti), 256 },
		{ 264, offsetof(struct py_layout, frame_owner), 256 },
		{ 280, offsetof(struct py_layout, code_filename), 1024 },
		{ 288, offsetof(struct py_layout, code_name), 1024 },
		{ 296, offsetof(struct py_layout, code_qualname), 1024 },
		{ 304, offsetof(struct py_layout, code_linetable), 1024 },
		{ 312, offsetof(struct py_layout, code_firstlineno), 1024 },
		{ 344, offsetof(struct py_layout, code_adaptive), 1024 },
		{ 520, offsetof(struct py_layout, bytes_size), 256 },
		{ 528, offsetof(struct py_layout, bytes_sval), 256 },
		{ 544, offsetof(struct py_layout, unicode_state), 256 },
		{ 552, offsetof(struct py_layout, unicode_length), 256 },
		{ 560, offsetof(struct py_layout, ascii_size), 256 },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		uint64_t v = rd64(img + f[i].at);
		if (v >= f[i].max)
			return err_set("_Py_DebugOffsets: offset %" PRIu64 " at byte %zu is implausible", v, f[i].at);
		int32_t iv = (int32_t)v;
		memcpy((char *)out + f[i].off, &iv, sizeof(iv));
	}
	out->cframe_current = -1;
	out->frame_is_entry = -1;
	/* The GIL: PyInterpreterState.ceval.gil points to it (the interpreter's own _gil, whose
	 * locked and last_holder the debug offsets give from the interpreter's start). */
	uint64_t gil = rd64(img + 120), locked = rd64(img + 136), holder = rd64(img + 144), ptr = rd64(img + 112);
	if (ptr < (1u << 20) && gil < (1u << 20) && locked >= gil && locked - gil < 256 && holder >= gil &&
	    holder - gil < 256) {
		out->interp_gil = (int32_t)ptr;
		out->gil_locked = (int32_t)(locked - gil);
		out->gil_holder = (int32_t)(holder - gil);
	} else {
		out->interp_gil = out->gil_locked = out->gil_holder = -1;
	}
	out->runtime_gil = -1;
	/* PyCompactUnicodeObject adds utf8_length and utf8 to PyASCIIObject. */
	out->compact_size = out->ascii_size + 16;
	return 0;
}

int pylayout_version_from_name(const char *path, int *major, int *minor)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *p = NULL;
	if (!strncmp(base, "libpython", 9))
		p = base + 9;
	else if (!strncmp(base, "python", 6))
		p = base + 6;
	if (!p)
		return -1;
	int a, b, n = 0;
	if (sscanf(p, "%d.%d%n", &a, &b, &n) != 2 || n == 0)
		return -1;
	*major = a;
	*minor = b;
	return 0;
}

/* The first PT_LOAD's page-aligned vaddr (0 for shared objects and PIEs) and the symbol. */
static uint64_t elf_lookup(Elf *elf, const char *name, uint64_t *first_load)
{
	size_t nph = 0;
	*first_load = 0;
	if (elf_getphdrnum(elf, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				*first_load = (ph.p_vaddr - ph.p_offset) & ~(uint64_t)0xfff;
				break;
			}
		}
	Elf_Scn *scn = NULL;
	uint64_t found = 0;
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n && i < INT32_MAX; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF)
				continue;
			const char *nm = elf_strptr(elf, sh.sh_link, s.st_name);
			if (nm && !strcmp(nm, name)) {
				found = s.st_value;
				break;
			}
		}
	}
	return found;
}

static uint64_t elf_symbol_first_load(const char *path, const char *name, uint64_t *first_load)
{
	*first_load = 0;
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	uint64_t v = elf && elf_kind(elf) == ELF_K_ELF ? elf_lookup(elf, name, first_load) : 0;
	if (elf)
		elf_end(elf);
	close(fd);
	return v;
}

uint64_t pylayout_elf_symbol(const char *path, const char *name)
{
	uint64_t fl;
	return elf_symbol_first_load(path, name, &fl);
}

/* The address ranges of pid's writable anonymous mappings (the heap, malloc's arenas). */
static size_t anon_rw(pid_t pid, uint64_t (*r)[2], size_t max)
{
	char mpath[64], line[4096 + 256];
	snprintf(mpath, sizeof(mpath), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(mpath, "re");
	size_t n = 0;
	while (f && n < max && fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s%n", &start, &end, perms, &pos) < 3 || perms[1] != 'w')
			continue;
		const char *path = line + pos;
		while (*path == ' ')
			path++;
		if (*path == '\n' || *path == 0 || !strncmp(path, "[heap]", 6)) {
			r[n][0] = start;
			r[n++][1] = end;
		}
	}
	if (f)
		fclose(f);
	return n;
}

/* interp_head in a 2.7/3.6 build without .symtab (Debian's and Ubuntu's are stripped): the
 * first word of the file's .bss (at load bias bias) that points into the heap at an interpreter
 * whose first thread state's interp points back to it and has a thread id (interp_head, or
 * pystate.c's autoInterpreterState, which holds the same interpreter). 0 when none (not
 * initialized yet). */
static uint64_t scan_interp_head(pid_t pid, const char *path, uint64_t bias, const struct py_layout *l)
{
	uint64_t bss = 0, size = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t shstr;
	Elf_Scn *scn = NULL;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstr) == 0)
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *nm;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOBITS &&
			    (nm = elf_strptr(elf, shstr, sh.sh_name)) && !strcmp(nm, ".bss")) {
				bss = bias + sh.sh_addr;
				size = sh.sh_size;
				break;
			}
		}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	uint64_t heap[64][2];
	size_t nheap = anon_rw(pid, heap, 64);
	if (!bss || !size || size > (16u << 20) || !nheap)
		return 0;
	uint64_t *words = xmalloc(size);
	uint64_t found = 0;
	if (pyread_mem(pid, bss, words, size) == 0)
		for (size_t i = 0; i < size / 8 && !found; i++) {
			uint64_t w = words[i], ts, back, tid;
			bool in_heap = false;
			for (size_t h = 0; h < nheap && !in_heap && w && !(w & 7); h++)
				in_heap = w >= heap[h][0] && w < heap[h][1];
			if (in_heap && pyread_mem(pid, w + (uint64_t)l->interp_tstate_head, &ts, 8) == 0 && ts &&
			    !(ts & 7) && pyread_mem(pid, ts + (uint64_t)l->tstate_interp, &back, 8) == 0 && back == w &&
			    pyread_mem(pid, ts + (uint64_t)l->tstate_thread_id, &tid, 8) == 0 && tid)
				found = bss + 8 * i;
		}
	free(words);
	return found;
}

int pylayout_find(pid_t pid, struct py_proc *out)
{
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	char mpath[64];
	snprintf(mpath, sizeof(mpath), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(mpath, "re");
	if (!f)
		return err_set("%s: cannot open (has the process exited?)", mpath);
	char line[4096 + 256];
	char best[256] = "";
	uint64_t best_base = 0;
	int bmaj = 0, bmin = 0, best_rank = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &start, &end, perms, &off, &pos) < 4)
			continue;
		char *path = line + pos;
		while (*path == ' ')
			path++;
		path[strcspn(path, "\n")] = 0;
		if (*path != '/' || off != 0)
			continue;
		int ma, mi;
		if (pylayout_version_from_name(path, &ma, &mi) < 0)
			continue;
		/* libpython wins over the executable (a shared build's python3.X defines nothing). */
		int rank = strstr(strrchr(path, '/'), "libpython") ? 2 : 1;
		if (rank > best_rank && strlen(path) < sizeof(best)) {
			best_rank = rank;
			snprintf(best, sizeof(best), "%s", path);
			best_base = start;
			bmaj = ma;
			bmin = mi;
		}
	}
	fclose(f);
	if (!best_rank)
		return 1;
	const struct py_layout *l = bmaj == 3 && bmin >= 13 ? NULL : pylayout_table(bmaj, bmin);
	if (!l && !(bmaj == 3 && bmin == 13))
		return err_set("pid %d runs Python %d.%d (%s): lperf reads the frames of CPython 2.7 and 3.6 to 3.13",
			       (int)pid, bmaj, bmin, best);
	const char *symname = l && l->runtime_sym ? l->runtime_sym : "_PyRuntime";
	uint64_t first_load;
	char root_path[300];
	snprintf(root_path, sizeof(root_path), "/proc/%d/root%s", (int)pid, best);
	uint64_t sym = elf_symbol_first_load(root_path, symname, &first_load);
	if (!sym)
		sym = elf_symbol_first_load(best, symname, &first_load);
	uint64_t at = sym ? best_base - first_load + sym : 0;
	if (!sym && l && l->tstate_interp) {
		/* 2.7/3.6 stripped; 1 until the interpreter has its first thread (or for good) */
		elf_version(EV_CURRENT);
		at = scan_interp_head(pid, root_path, best_base - first_load, l);
		if (!at)
			return 1;
	}
	if (!at) {
		/* A shared build's executable: libpython is mapped later (or not a CPython). */
		return best_rank == 1 ? 1 : err_set("%s: no %s symbol", best, symname);
	}
	snprintf(out->lib, sizeof(out->lib), "%s", best);
	out->runtime = at;
	if (!l) {
		uint8_t img[PYLAYOUT_DEBUG_OFFSETS_SIZE];
		if (pyread_mem(pid, out->runtime, img, sizeof(img)) < 0)
			return err_wrap("pid %d: reading _PyRuntime", (int)pid);
		if (pylayout_from_debug_offsets(img, sizeof(img), &out->layout) < 0)
			return err_wrap("pid %d (%s)", (int)pid, best);
		out->gil_known = out->layout.interp_gil >= 0;
		return 0;
	}
	out->layout = *l;
	if (l->runtime_gil >= 0) {
		out->gil = out->runtime + (uint64_t)l->runtime_gil;
	} else if (l->gil_sym) {
		uint64_t g = elf_symbol_first_load(root_path, l->gil_sym, &first_load);
		if (!g)
			g = elf_symbol_first_load(best, l->gil_sym, &first_load);
		out->gil = g ? best_base - first_load + g : 0;
	}
	out->gil_known = out->gil || l->interp_gil >= 0;
	return 0;
}
