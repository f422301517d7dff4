/* The resolve stage: a parsed sample and the machine model in, a stack of frames out. It owns
 * the address lookups (kernel and process maps, JIT code through perf maps and jitdumps), the
 * callchain contexts, the DWARF unwinder's user frames, the `[truncated]` marker and the Python
 * view; analysis/ and output/ see samples only as the resolved_sample defined here. */
#ifndef LPERF_RESOLVE_RESOLVE_H
#define LPERF_RESOLVE_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/machine.h"
#include "record/record.h"
#include "util/hashmap.h"

struct unwinder;
struct jitdump_code;

/* ---- Frames ---- */

struct frame {
	uint64_t ip;             /* as recorded */
	struct addr_loc loc;     /* resolved at ip (callers at their return address, as perf) */
	int32_t line;            /* Python frames (src/python/pymerge.c): the source line, else 0 */
	bool inlined;            /* an inlined function's frame (loc.sym from symbols/srcline.h) */
	const char *srcline;     /* DWARF frames with a symbol: the line perf's inline expansion gives
				  * this level ("??:0" without DWARF); with resolver.srclines every
				  * frame in a DSO; NULL otherwise */
};

struct resolved_sample {
	const struct perf_sample *s;
	struct thread *thread;
	const struct frame *frames; /* frames[0] is the sampled ip, then its callers */
	size_t nframes;
	bool truncated;             /* the DWARF unwind stopped before the outermost frame */
	bool chain_reset;           /* the chain held an invalid context entry (0xffff...ffff): perf
				     * drops the whole chain; frames[] holds only the sampled ip */
};

/* Turns samples into frames for one machine. Frames live in a buffer reused by the next
 * resolve_sample call. */
struct resolver {
	struct machine *machine;
	bool callchains;           /* resolve callchain frames (else only the sampled ip) */
	bool python_view;          /* fold interpreter frames around py:: frames (resolve_python_view) */
	bool python_labels;        /* with python_view: Python frames named py-spy's way,
				    * "func (file.py:LINE)" (resolve_python_labels) */
	bool python_nolineno;      /* ... without the line: "func (file.py)", one frame a function */
	bool inline_frames;        /* DWARF-unwound frames expand into their inlined functions */
	bool srclines;             /* every mapped frame gets its srcline (perf's "file:line", else
				    * "dso[addr]"), for script's srcline field */
	struct unwinder *unwinder; /* for recordings with user stack copies (--call-graph dwarf) */
	unsigned e_machine;        /* the recording's machine (EM_*; 0: unknown): AArch64 frame-pointer
				    * chains get the leaf's caller from the sampled link register */
	struct frame *fbuf;
	size_t fcap;
	uint64_t truncated;        /* samples whose DWARF unwind stopped early */
	uint64_t truncated_unread; /* ... of which in a DSO whose file was not read (another build
				    * than the recording's, or deleted): no CFI to go on with */
	/* Optional, before the Python view: rewrites the n frames (the buffer may grow) and returns
	 * the new count; the session joins Python stacks lperf read itself here. */
	size_t (*merge)(void *arg, const struct perf_sample *s, struct frame **frames, size_t *cap, size_t n);
	void *merge_arg;
	struct hashmap pylabels;   /* python_labels' symbols (pylabel.c) */
	/* resolver_share: one of several resolvers that run at once over one machine which nobody
	 * changes meanwhile; what loads or changes shared state (a DSO's symbols, JIT sources,
	 * source lines, the unwinder's first use of a file) is done under resolve_lock. */
	bool shared;
	struct hashmap ready;      /* shared: DSOs whose symbols this resolver saw loaded, whose
				    * lookups are then plain reads (no lock) */
	struct resolve_ucache *ucache; /* DWARF-unwound frames already resolved (resolve.c) */
};

/* evsels decide whether a DWARF unwinder is needed (events with user registers and stack). */
void resolver_init(struct resolver *r, struct machine *m, const struct evsel_set *evsels, bool callchains,
		   bool python_view);
/* Resolves s (already counted by the caller) in thread t into out (valid until the next call):
 * the callchain with its context markers, else the user frames unwound from the stack copy
 * (plus a `[truncated]` frame when the unwind stopped early), else the sampled ip alone. */
void resolve_sample(struct resolver *r, const struct perf_sample *s, struct thread *t,
		    struct resolved_sample *out);
void resolver_free(struct resolver *r);

/* ---- Several threads (report --threads) ----
 * resolve_sample is resolve_sample_frames (the work over the model and the DSOs: call chain,
 * unwinding, inline frames; a shared resolver may run it on any thread) then
 * resolve_sample_finish (Python stacks joined, the Python view, srclines: the thread that owns
 * the session, holding resolve_lock when shared resolvers run). */

/* Makes r (after resolver_init, before its first sample) one of several running at once. */
void resolver_share(struct resolver *r);
/* The lock of the state shared resolvers share (one per process). */
void resolve_lock(void);
void resolve_unlock(void);
/* The frames of s in r->fbuf; returns their count. */
size_t resolve_sample_frames(struct resolver *r, const struct perf_sample *s, struct thread *t, bool *truncated,
			     bool *chain_reset);
/* The n frames in r->fbuf (from resolve_sample_frames, of this resolver or another's, copied
 * there) finished into out. */
void resolve_sample_finish(struct resolver *r, const struct perf_sample *s, struct thread *t, size_t n,
			   bool truncated, bool chain_reset, struct resolved_sample *out);

/* Rewrites a stack (leaf first) for reading Python: the native frames below the innermost
 * py:: frame stay unless they belong to the interpreter; between and above py:: frames only the
 * py:: frames stay. A stack without py:: frames is left alone. Returns the new count. */
size_t resolve_python_view(struct frame *frames, size_t n);

/* ---- Python frames' labels (pylabel.c) ---- */

struct strbuf;
/* A Python frame's name as CPython's perf support spells it, "py::func:/path/file.py" (also
 * for a frame the Python view relabelled), else NULL. */
const char *resolve_py_name(const struct frame *f);
/* Splits such a name: the function (flen bytes at *func, without "py::") and the file (NULL
 * when the name has none). */
void resolve_py_split(const char *pyname, const char **func, size_t *flen, const char **file);
/* Appends py-spy's label: "func (file.py:LINE)", "func (file.py)" for line <= 0; the file's
 * name alone, with its directory for a package's __init__.py and __main__.py. */
void resolve_py_label(struct strbuf *sb, const char *pyname, int line);
/* Gives every Python frame of the stack its label as its symbol (interned in r; the symbol's
 * `mangled` keeps the py:: name, its line stays in the frame). */
void resolve_python_labels(struct resolver *r, struct frame *frames, size_t n);
void resolve_python_labels_free(struct resolver *r);

/* Replaces frame (*buf)[at], the last of *n, with the inlined functions at its address, as perf
 * 6.1 expands DWARF stacks (inline.c; a caller's frame is already at its call instruction, the
 * return address - 1); with lines, each frame's srcline is its level's line (script's srcline
 * field: looking lines up decodes whole line tables, which the other views never read). */
void resolve_expand_inline(struct frame **buf, size_t *cap, size_t *n, size_t at, bool lines);

/* ---- Addresses (addr.c) ---- */

/* Resolves ip for thread t (t may be NULL for kernel addresses). cpumode is the record's
 * PERF_RECORD_MISC_* cpumode; kernel addresses (cpumode kernel, or >= the kernel's start on
 * x86-64 when cpumode is unknown) go to the kernel maps. Returns false when unmapped (also for
 * hypervisor and guest addresses, which lperf does not model; out->kernel still says which side
 * they are on). Kernel addresses with no kernel MMAP seen resolve against [kernel.kallsyms] as a
 * whole. out->map is valid until the next record handler call.
 *
 * JIT code (jit.c): addresses of process P in executable anonymous memory ("//anon",
 * "[anon:...]", "/memfd:...", as perfmap_covers_mapping says), or in no mapping at all when P
 * has a perf map, resolve through P's JIT symbol sources:
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
 * time is the sample's (ns, on the recording's clock; jitdump timestamps are CLOCK_MONOTONIC,
 * which lperf records with by default). time 0: the latest code at ip. */
bool resolve_addr(struct machine *m, struct thread *t, uint8_t cpumode, uint64_t ip, uint64_t time,
		  struct addr_loc *out);
/* The symbol of a location resolve_addr left for later (addr_loc.later: its dso and addr), as
 * resolve_addr would have found it. Only once the walk is over (it may load the DSO). */
const struct symbol *resolve_addr_later(struct dso *d, uint64_t addr);
/* Resolves a user address of thread t that lies in mp (a mapping whose DSO is a perf map) or in
 * no mapping (mp NULL) through the JIT sources. True when a symbol was found (out filled). */
bool resolve_jit(struct machine *m, struct thread *t, const struct map *mp, uint64_t ip, uint64_t time,
		 struct addr_loc *out);
/* The jitdump code at ip of thread t's process at time (what resolve_addr names there), for
 * unwinders: its .eh_frame (code->unwind, placed at jitdump_eh_frame_vaddr) and its bytes. NULL
 * when ip is not jitdump code. Valid until machine_free. */
const struct jitdump_code *resolve_jit_code(struct machine *m, struct thread *t, uint64_t ip, uint64_t time);

#endif
