/* The model of the profiled machine, built from the record stream (after perf's machine, thread,
 * map and dso): processes and threads with their comm, each process's address space as a
 * time-ordered set of maps into DSOs, and the kernel's maps. */
#ifndef LPERF_MODEL_MACHINE_H
#define LPERF_MODEL_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/dso.h"

struct map {
	uint64_t start, end;     /* [start, end) in the process's address space */
	uint64_t pgoff;          /* file offset of start */
	uint32_t prot, flags;
	struct dso *dso;
};

/* A process's address space, shared by its threads. Maps never overlap: a new mapping cuts or
 * replaces the parts of older ones it covers (as mmap does). */
struct maps {
	struct map *v;           /* sorted by start */
	size_t n, cap;
	int refcnt;
};

struct thread {
	pid_t pid, tid;
	char *comm;              /* ":TID" until a COMM record names it */
	bool comm_set;
	struct maps *maps;
	bool exited;
};

struct machine {
	struct thread **threads; /* hash table by tid, open addressing */
	size_t nthreads, tcap;
	struct maps kmaps;       /* kernel and module maps (pid -1 MMAP records) */
	struct dso_cache dsos;
	bool kernel_map_seen;
	/* Additions to the base interface. */
	struct thread **retired; /* threads replaced by a reused tid: kept, since tools may hold them */
	size_t nretired, rcap;
	struct machine_jit *jit; /* JIT symbol sources by process (machine_jit.c); NULL until needed */
};

/* Address spaces (maps.c). A struct maps from maps_new() is reference-counted (threads of one
 * process share one); machine.kmaps is embedded and uses maps_init/maps_release. */
void maps_init(struct maps *ms);
void maps_release(struct maps *ms);
struct maps *maps_new(void);
struct maps *maps_get(struct maps *ms);
void maps_put(struct maps *ms);
/* A new address space with the same maps (fork of a new process). */
struct maps *maps_clone(const struct maps *ms);
void maps_clear(struct maps *ms);
/* Adds a map; the parts of older maps it covers are cut away (their pgoff follows). Empty maps
 * (start >= end) are ignored. */
void maps_insert(struct maps *ms, const struct map *mp);
/* The map containing addr, or NULL; O(log n). The pointer is valid until the next change of ms. */
const struct map *maps_find(const struct maps *ms, uint64_t addr);

void machine_init(struct machine *m);
void machine_free(struct machine *m);

/* Finds or creates thread tid of process pid; a new thread shares its process's maps (the
 * thread pid == tid is the process leader). */
struct thread *machine_thread(struct machine *m, pid_t pid, pid_t tid);
struct thread *machine_find_thread(struct machine *m, pid_t tid);
/* Sets the root prefix for DSO paths (--symfs); call before the first MMAP. */
void machine_set_symfs(struct machine *m, const char *root);

/* Record handlers. A COMM with exec set empties the process's address space: the MMAP records
 * that follow describe the new image. */
void machine_comm(struct machine *m, pid_t pid, pid_t tid, const char *comm, bool exec);
/* pid -1 (or cpumode kernel) adds a kernel map: "[kernel.kallsyms]..." is the kernel (until a
 * module map is added, its map may run to the end of the address space; a module map cuts it
 * short), any other path a kernel module whose symbols come from kallsyms. */
void machine_mmap(struct machine *m, pid_t pid, pid_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t prot, const char *filename, const uint8_t *build_id, size_t bid_size, bool kernel);
/* fork: the child gets a copy of the parent's maps (a new process) or shares them (a thread:
 * pid == ppid), and inherits its comm. */
void machine_fork(struct machine *m, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid);
/* Marks the thread exited; it stays, for late samples, until a FORK reuses its tid. */
void machine_exit(struct machine *m, pid_t pid, pid_t tid);

/* An address resolved in a thread's context. */
struct addr_loc {
	const struct map *map;   /* NULL: unmapped */
	struct dso *dso;
	uint64_t addr;           /* in the DSO's address space (what symbols use) */
	const struct symbol *sym;/* NULL: no symbol */
	uint64_t sym_off;        /* addr - sym->start */
	bool kernel;
};

/* Resolves ip for thread t (t may be NULL for kernel addresses). cpumode is the record's
 * PERF_RECORD_MISC_* cpumode; kernel addresses (cpumode kernel, or >= the kernel's start on
 * x86-64 when cpumode is unknown) go to the kernel maps. Returns false when unmapped (also for
 * hypervisor and guest addresses, which lperf does not model; out->kernel still says which side
 * they are on). Kernel addresses with no kernel MMAP seen resolve against [kernel.kallsyms] as a
 * whole. out->map is valid until the next record handler call. */
bool machine_resolve(struct machine *m, struct thread *t, uint8_t cpumode, uint64_t ip, struct addr_loc *out);

/* JIT code (machine_jit.c).
 *
 * Addresses of process P in executable anonymous memory ("//anon", "[anon:...]", "/memfd:...",
 * as perfmap_covers_mapping says), or in no mapping at all when P has a perf map, resolve through
 * P's JIT symbol sources:
 *   - its jitdump, when an MMAP of a file named jit-<N>.dump (the marker mapping JITs make) was
 *     seen for P or machine_set_jitdump_data supplied one: by address and the sample's time, each
 *     CODE_LOAD as its own DSO "<dump's directory>/jitted-P-<code_index>.so" (what perf inject
 *     makes, so reports read the same);
 *   - else its perf map, "/tmp/perf-P.map", the DSO of those mappings (shown "[JIT] tid P" as
 *     perf does), names as the map spells them ("py::foo:/path/file.py").
 * Sources are read lazily, once per process, from the data the recording supplied, else from the
 * file (regular, owned by root or the effective uid unless machine_perfmap_path_policy(force));
 * a missing or refused file only leaves a note (machine_jit_sources). In a live session a file
 * that has grown since it was read is read again (at most every 100 ms) when an address misses.
 *
 * Resolves ip at time (ns, the sample's time on the recording's clock; jitdump timestamps are
 * CLOCK_MONOTONIC, which lperf records with by default). time 0: the latest code at ip.
 * machine_resolve is machine_resolve_at with time 0. */
bool machine_resolve_at(struct machine *m, struct thread *t, uint8_t cpumode, uint64_t ip, uint64_t time,
			struct addr_loc *out);
/* The contents of P's perf map / jitdump as stored in a recording (copied): used instead of the
 * files. Call before the first sample of P is resolved. */
void machine_set_perfmap_data(struct machine *m, pid_t pid, const void *bytes, size_t len);
void machine_set_jitdump_data(struct machine *m, pid_t pid, const void *bytes, size_t len);
/* force: read JIT files whoever owns them (--force). Call before resolving. */
void machine_perfmap_path_policy(struct machine *m, bool force);

struct jit_source {
	pid_t pid;
	const char *perfmap_path;  /* "/tmp/perf-P.map", or NULL when P never needed one */
	const char *jitdump_path;  /* from P's marker mapping; NULL when none was seen */
	bool perfmap_used, jitdump_used; /* some address resolved through it */
	bool perfmap_supplied, jitdump_supplied; /* from machine_set_*_data */
	const char *perfmap_note;  /* why the map gave nothing or what it skipped; NULL when fine */
	const char *jitdump_note;
};
/* The jitdump code at ip of thread t's process at time (what machine_resolve_at names there), for
 * unwinders: its .eh_frame (code->unwind, placed at jitdump_eh_frame_vaddr) and its bytes. NULL
 * when ip is not jitdump code. Valid until machine_free. */
struct jitdump_code;
const struct jitdump_code *machine_jit_code(struct machine *m, struct thread *t, uint64_t ip, uint64_t time);
/* The processes with JIT sources, by pid; the array and its strings belong to the machine and
 * stay valid until the next call or machine_free. */
size_t machine_jit_sources(struct machine *m, const struct jit_source **out);

#endif
