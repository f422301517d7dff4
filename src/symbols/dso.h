/* DSOs (ELF files, the kernel, the vDSO, anonymous/JIT regions) and their symbols. A DSO is
 * loaded once, lazily, on the first lookup, and cached by path and build-id.
 *
 * Where symbols come from:
 *   ELF files: .symtab (libelf); when the file is stripped, the .symtab of its separate debug file
 *     (<root>/usr/lib/debug/.build-id/xx/yyyy.debug, else the .gnu_debuglink target with a
 *     matching CRC32 beside the file, in its .debug/ directory or under <root>/usr/lib/debug/);
 *     else .dynsym. PLT entries are added as "name@plt".
 *   [kernel.kallsyms]: $LPERF_KALLSYMS, else /proc/kallsyms (for core-kernel addresses, its
 *     snapshot in the build-id cache directory when valid: symbols/ksnap.h). Symbols of modules keep kallsyms'
 *     module tag in their name ("nf_hook_slow [nf_tables]") so that a sample in a module resolved
 *     through the kernel map still says which module it is in.
 *   kernel modules (kernel maps with another path, from dso_cache_get_kernel): the symbols of
 *     their module taken from the kernel DSO's kallsyms, with the tag stripped (the DSO's
 *     short_name, "[nf_tables]", says it).
 *   [vdso]: this process's own vDSO image (the running kernel's).
 *   JIT code (DSO_JIT): a process's perf map, "/tmp/perf-PID.map" (shown as "[JIT] tid PID", as
 *     perf shows it), for its executable anonymous memory; and one DSO per jitdump CODE_LOAD,
 *     "<dump's directory>/jitted-PID-N.so" with the one symbol, named as perf inject names them
 *     (the machine creates these; see model/machine.h).
 *   Kernel code a recording names (DSO_KSYM): a PERF_RECORD_KSYMBOL's name (a BPF program's
 *     function) is a DSO with the one symbol, as perf makes it; never read from kallsyms.
 * DSOs live as long as their cache and never move: pointers to them and to their symbols stay
 * valid until dso_cache_free. */
#ifndef LPERF_SYMBOLS_DSO_H
#define LPERF_SYMBOLS_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "symbols/symtab.h"
#include "util/hashmap.h"
#include "util/notes.h"

struct ksnap;
struct kahead;
struct elf_found;

enum dso_kind {
	DSO_ELF,             /* an ELF file on disk */
	DSO_KERNEL,          /* [kernel.kallsyms]: /proc/kallsyms */
	DSO_VDSO,            /* [vdso]: the running kernel's vDSO image */
	DSO_ANON,            /* //anon, [heap], [stack], JIT regions: no file symbols */
	DSO_JIT,             /* JIT code: a perf map, or one jitdump code load */
	DSO_KSYM,            /* kernel code a recording names with a KSYMBOL (a BPF program's
			      * function): path and its one symbol are the name */
};

struct dso {
	enum dso_kind kind;
	uint32_t seq;        /* its place in the cache's order of creation (reports break ties of
			      * equal call graph branches by it, as perf does by its DSOs' addresses) */
	char *path;          /* as recorded ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]") */
	const char *short_name; /* basename, what reports print in "Shared Object" */
	uint8_t build_id[20];
	size_t build_id_size; /* 0: unknown (recorded one); the file's is checked when loading */
	bool loaded;         /* symbols were looked for (whether or not any were found) */
	bool mismatch;       /* the file on disk has another build-id than the recording: not trusted */
	bool cfi_refused;    /* its CFI names registers no unwinder reads (unwind/cfa.h: CFA_MAX_REG) */
	bool deleted;        /* mapped from a file deleted since (" (deleted)"), with no build-id to check
			      * the file now at its path against: not read, as perf does not */
	struct notes notes;  /* what loading met; the last is why symbols are missing ("no such file",
			      * "stripped", "kptr_restrict"): dso_load_note */
	char *debug_path;    /* where symbols came from when not path (build-id dir, debuglink) */
	char *cached;        /* the build-id cache's copy read instead of path, whose file is another
			      * build than the recording's (symbols/buildid_cache.h), or instead of
			      * the running kernel's image for another kernel's [vdso]; NULL: none */
	struct symbol *syms; /* sorted by start, no overlaps after load */
	size_t nsyms;
	/* ELF program headers of PT_LOAD segments, to turn a file offset into a virtual address. */
	struct symtab_seg *loads;
	size_t nloads;
	bool is_exec;        /* ET_EXEC: addresses are absolute */
	char *root;          /* the cache's root when created (--symfs); NULL for / */
	/* Kernel modules (DSO_KERNEL other than [kernel.kallsyms]). */
	char *module;        /* "[name]" (short_name points here); else NULL */
	struct dso *kernel;  /* the [kernel.kallsyms] DSO whose kallsyms they share */
	/* [kernel.kallsyms] of the running kernel read from its snapshot (symbols/ksnap.h): syms is
	 * the snapshot's until an address outside the core kernel makes it read kallsyms afresh. */
	struct ksnap *ksnap;
	bool ksnap_fresh;
	bool ksnap_rest;     /* the snapshot was written by this report: syms are those of its read
			      * outside the core range (dso.c's keep_rest) */
	/* An ELF file's symbols read from their store (symbols/symstore.h): syms is the store's. */
	struct symstore *symstore;
	/* Read ahead (report --threads), kept when the walk first loads the DSO: an ELF file's
	 * load (dso_read_ahead); [kernel.kallsyms]'s text (dso_cache_read_ahead_kernel). */
	struct elf_found *ahead_elf;
	struct kahead *kahead;
	bool later;          /* a lookup was left for later (dso_symbols_later; atomic) */
	/* DSO_JIT: a process's perf map (pid > 0) or one jitdump code (pid 0). */
	struct dso_jit {
		int pid;             /* perf map DSOs: the process; 0 for a jitdump code DSO */
		bool force;          /* read the perf map whoever owns it (--force) */
		struct perfmap *perfmap; /* perf map DSOs: the map, made on load */
		char *short_name;    /* storage of short_name, "[JIT] tid PID" */
		/* Where the map's text comes from. */
		bool supplied;       /* given by the recording (dso_set_perfmap_data): never re-read */
		char *data;
		size_t data_len;
		size_t consumed;     /* bytes of the file parsed as complete lines */
		off_t file_size;
		struct timespec checked;
	} jit;
};

struct dso_cache {
	struct dso **v;
	size_t n, cap;
	char *root;          /* a prefix for paths (for --symfs); NULL for / */
	struct hashmap by_path; /* path -> the DSOs of v with that path, oldest first */
	bool jit_force;      /* for perf map DSOs (dso_cache_set_jit_force) */
};

void dso_cache_init(struct dso_cache *c);
/* The DSO for path (and build-id, when the recording has one), created on first use. Paths
 * "[kernel.kallsyms]..." and "[vdso]" get their kinds; "//anon", "[heap]", "[stack]", "" and
 * "/memfd:..." are DSO_ANON. */
struct dso *dso_cache_get(struct dso_cache *c, const char *path, const uint8_t *build_id, size_t bid_size);
/* The DSO of a kernel map (a pid -1 MMAP): "[kernel.kallsyms]..." (any suffix, such as
 * "[kernel.kallsyms]_text") is the one kernel DSO, path "[kernel.kallsyms]"; any other path
 * ("/lib/modules/.../nf_tables.ko", "[nf_tables]") is a kernel module DSO (kind DSO_KERNEL,
 * module "[nf_tables]"). */
struct dso *dso_cache_get_kernel(struct dso_cache *c, const char *path, const uint8_t *build_id,
				 size_t bid_size);
/* Sets the root prefix applied to file paths (--symfs); NULL or "" or "/" for none. Applies to
 * DSOs created afterwards. */
void dso_cache_set_root(struct dso_cache *c, const char *root);
void dso_cache_free(struct dso_cache *c);

/* The perf map DSO of process pid: path "/tmp/perf-PID.map", short name "[JIT] tid PID". Its
 * symbols are read on first use from the data given to dso_set_perfmap_data, else from the file,
 * which must be a regular file owned by root or the effective uid unless the cache's jit_force is
 * set (a refused or missing file leaves a note and no symbols). */
struct dso *dso_cache_get_perfmap(struct dso_cache *c, int pid);
/* Supplies a perf map DSO's contents (a copy is taken), as stored in a recording; ignored once
 * its symbols were loaded. */
void dso_set_perfmap_data(struct dso *d, const void *data, size_t len);
/* For long-running sessions: when a perf map DSO's map came from a file that has grown since it
 * was read (checked at most every 100 ms), reads the new lines. True when entries were added. */
bool dso_perfmap_refresh(struct dso *d);
/* Trust perf map files whoever owns them; applies to perf map DSOs not yet loaded. */
void dso_cache_set_jit_force(struct dso_cache *c, bool force);
/* A new DSO_JIT for one piece of JIT code: named path (never shared with another DSO, even of the
 * same path), loaded, with the one symbol [start, start+size) called name. */
struct dso *dso_cache_add_jit_code(struct dso_cache *c, const char *path, uint64_t start, uint64_t size,
				   const char *name);

/* The DSO_KSYM of kernel code that recorded KSYMBOLs call name, made on first use: its one symbol,
 * name too, is [0, size) in the code's own addresses (a map's ip - start), as perf makes it, so
 * the functions of one name (a program loaded twice) are one DSO and one symbol, as perf's
 * report counts them. A larger size grows the symbol. */
struct dso *dso_cache_ksymbol(struct dso_cache *c, const char *name, uint64_t size);

/* For report --threads: starts reading the running kernel's symbols on a thread of their own
 * (symbols/kahead.h) when the cache's kernel DSO will be the running kernel's and is not loaded;
 * its first load takes them (the same symbols and notes as its own read would give). The
 * thread is joined by the load or when the cache is freed. */
void dso_cache_read_ahead_kernel(struct dso_cache *c);
/* Lets that thread go on from reading kallsyms to parsing it (kahead_go): called once the files
 * read ahead on the caller's thread are open, so that their transient memory and the parse's do
 * not add up. */
void dso_cache_read_ahead_go(struct dso_cache *c);
/* True while d is the running kernel, or one of its modules, whose symbols that thread is still
 * reading from kallsyms (kahead_reading): a lookup now would wait for it, so the walk leaves it
 * for later (resolve.h's addr_loc.later). d is then marked for dso_cache_settle. Any thread. */
bool dso_symbols_later(struct dso *d);
/* Loads the DSOs a lookup was left for later in (after the walk, before their notes are read),
 * as the lookups would have: the notes are those of a walk that looked up at once. */
void dso_cache_settle(struct dso_cache *c);
/* Finds what dso_load would find for an ELF DSO now, on the calling thread (the one that loads
 * DSOs, before other threads do), and keeps it aside for dso_load: a DSO the walk never loads
 * stays unloaded (no notes, no warnings), so the output is the same as without. */
void dso_read_ahead(struct dso *d);
/* d was read ahead and will be read from its own path, the recorded build (no cached copy, no
 * mismatch): what srcline_read_ahead needs to open its DWARF before it is loaded. */
bool dso_ahead_plain(const struct dso *d);

/* Loads symbols if not yet done (never fails: problems end in d->notes). */
void dso_load(struct dso *d);
/* Why d's symbols are missing or what its loader skipped (its latest note); NULL when fine. */
const char *dso_load_note(const struct dso *d);
/* The symbol containing addr (DSO address space), or NULL. A symbol of size 0 covers up to the
 * next symbol. */
const struct symbol *dso_find_symbol(struct dso *d, uint64_t addr);
/* Turns a file offset (the map's pgoff + ip - map start) into the DSO's virtual address using the
 * PT_LOAD segments; for the kernel and anonymous DSOs the address is returned as is. */
uint64_t dso_offset_to_addr(struct dso *d, uint64_t offset);

/* Loads a DSO_KERNEL DSO from a kallsyms file at path instead of $LPERF_KALLSYMS or
 * /proc/kallsyms (tests, and reports of another machine's recording). No-op once loaded. */
void dso_load_kallsyms(struct dso *d, const char *path);
/* d's path with its cache's root in front, and " (deleted)" dropped; the caller frees it. */
char *dso_file_path(const struct dso *d, const char *path);
/* The file to read d's contents from (symbols, lines, code, CFI), after dso_load: the build-id
 * cache's copy when the recording's build-id is only there (d->cached), else dso_file_path of
 * its path. The caller frees it. */
char *dso_read_path(const struct dso *d);


/* Registers fn to be called with each DSO about to be freed, so that a cache keyed by DSO
 * pointers (srcline.c's) forgets it before a new DSO can take its address. Registering fn again
 * keeps one; process-wide, at most 4. */
void dso_on_free(void (*fn)(const struct dso *d));

#endif
