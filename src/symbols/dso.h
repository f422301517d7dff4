/* DSOs (ELF files, the kernel, the vDSO, anonymous/JIT regions) and their symbols. A DSO is
 * loaded once, lazily, on the first lookup, and cached by path and build-id. */
#ifndef LPERF_SYMBOLS_DSO_H
#define LPERF_SYMBOLS_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbol {
	uint64_t start;      /* in the DSO's own address space (ELF st_value / kernel address) */
	uint64_t size;
	char *name;          /* demangled (C++ and Rust); PLT entries as "name@plt" */
};

enum dso_kind {
	DSO_ELF,             /* an ELF file on disk */
	DSO_KERNEL,          /* [kernel.kallsyms]: /proc/kallsyms */
	DSO_VDSO,            /* [vdso]: the running kernel's vDSO image */
	DSO_ANON,            /* //anon, [heap], [stack], JIT regions: no file symbols */
};

struct dso {
	enum dso_kind kind;
	char *path;          /* as recorded ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]") */
	const char *short_name; /* basename, what reports print in "Shared Object" */
	uint8_t build_id[20];
	size_t build_id_size; /* 0: unknown (recorded one); the file's is checked when loading */
	bool loaded;         /* symbols were looked for (whether or not any were found) */
	bool mismatch;       /* the file on disk has another build-id than the recording: not trusted */
	char *load_note;     /* why symbols are missing ("no such file", "stripped", "kptr_restrict") */
	char *debug_path;    /* where symbols came from when not path (build-id dir, debuglink) */
	struct symbol *syms; /* sorted by start, no overlaps after load */
	size_t nsyms;
	/* ELF program headers of PT_LOAD segments, to turn a file offset into a virtual address. */
	struct { uint64_t offset, vaddr, filesz, memsz; } *loads;
	size_t nloads;
	bool is_exec;        /* ET_EXEC: addresses are absolute */
};

struct dso_cache {
	struct dso **v;
	size_t n, cap;
	char *root;          /* a prefix for paths (for --symfs); NULL for / */
};

void dso_cache_init(struct dso_cache *c);
/* The DSO for path (and build-id, when the recording has one), created on first use. Paths
 * "[kernel.kallsyms]..." and "[vdso]" get their kinds; "//anon", "[heap]", "[stack]", "" and
 * "/memfd:..." are DSO_ANON. */
struct dso *dso_cache_get(struct dso_cache *c, const char *path, const uint8_t *build_id, size_t bid_size);
void dso_cache_free(struct dso_cache *c);

/* Loads symbols if not yet done (never fails: problems end in load_note). */
void dso_load(struct dso *d);
/* The symbol containing addr (DSO address space), or NULL. A symbol of size 0 covers up to the
 * next symbol. */
const struct symbol *dso_find_symbol(struct dso *d, uint64_t addr);
/* Turns a file offset (the map's pgoff + ip - map start) into the DSO's virtual address using the
 * PT_LOAD segments; for the kernel and anonymous DSOs the address is returned as is. */
uint64_t dso_offset_to_addr(struct dso *d, uint64_t offset);

/* Demangles a C++ (_Z...) or Rust (_R..., legacy _ZN...17h<hash>E) name; NULL when not mangled.
 * The caller frees the result. */
char *symbol_demangle(const char *name);

/* Reads a file's GNU build-id note; returns its size (0 when none). */
size_t elf_read_build_id(const char *path, uint8_t id[20]);

#endif
