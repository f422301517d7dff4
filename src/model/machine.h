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
#include "util/hashmap.h"

struct map {
	uint64_t start, end;     /* [start, end) in the process's address space */
	uint64_t pgoff;          /* file offset of start */
	uint32_t prot, flags;
	struct dso *dso;
};

/* A process's address space, shared by its threads. Maps never overlap: a new mapping cuts or
 * replaces the parts of older ones it covers (as mmap does). A balanced tree (a treap by start):
 * inserts and lookups are O(log n), so a million mappings load in seconds (a sorted array took
 * 296 s). maps_view gives them as a sorted array, rebuilt after a change. */
struct maps_node;
struct maps {
	struct maps_node *root;
	size_t n;                /* maps in the tree */
	struct map *view;        /* maps_view's array, of view_gen */
	size_t view_cap;
	uint64_t view_gen;
	int refcnt;
	uint64_t gen;            /* a new value at every change, unique over all maps (a freed maps'
				  * address may come back): caches of what the maps were check it */
};

struct thread {
	pid_t pid, tid;
	char *comm;              /* ":TID" until a COMM record names it */
	char *kcomm;             /* the kernel's comm while comm holds another name (machine_rename);
				  * NULL otherwise */
	bool comm_set;
	struct maps *maps;
	bool exited;
};

struct machine {
	struct hashmap threads;  /* tid -> struct thread */
	struct maps kmaps;       /* kernel and module maps (pid -1 MMAP records) */
	struct maps ksyms;       /* kernel code named by KSYMBOL records (BPF programs): looked up
				  * before kmaps, each map its own DSO_KSYM */
	struct dso_cache dsos;
	bool kernel_map_seen;
	/* The tool settles kernel symbols itself (session_tool.ksyms_later): a kernel address whose
	 * symbols are still being read ahead resolves without one, addr_loc.later. */
	bool ksyms_later;
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
/* The maps sorted by start (ms->n of them), valid until the next change of ms; O(n) after a
 * change, O(1) otherwise. */
const struct map *maps_view(const struct maps *ms);
/* Sets the end of the map that starts at start (the kernel map cut short by a module above it). */
void maps_set_end(struct maps *ms, uint64_t start, uint64_t end);

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
/* Names the thread name (the Python view's thread names) keeping the kernel's comm in kcomm, which
 * its forks inherit; a COMM record ends it. */
void machine_rename(struct machine *m, pid_t pid, pid_t tid, const char *name);
/* pid -1 (or cpumode kernel) adds a kernel map: "[kernel.kallsyms]..." is the kernel (until a
 * module map is added, its map may run to the end of the address space; a module map cuts it
 * short), any other path a kernel module whose symbols come from kallsyms. */
void machine_mmap(struct machine *m, pid_t pid, pid_t tid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t prot, const char *filename, const uint8_t *build_id, size_t bid_size, bool kernel);
/* KSYMBOL: kernel code [addr, addr+len) called name from now on (a map of its own, over whatever
 * kernel map held the range, as perf 6.1 makes one). Unregister keeps the name (calls that entered
 * an unloaded program end after its record) until other code registers over the range; perf
 * 6.1 looks such late samples up in the kernel's map instead. */
void machine_ksymbol(struct machine *m, uint64_t addr, uint32_t len, const char *name, bool unregister);
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
	bool later;              /* the symbol is left for later (machine.ksyms_later): sym is NULL
				  * now, resolve_addr_later's then */
};

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
/* The processes with JIT sources, by pid; the array and its strings belong to the machine and
 * stay valid until the next call or machine_free. */
size_t machine_jit_sources(struct machine *m, const struct jit_source **out);

#endif
