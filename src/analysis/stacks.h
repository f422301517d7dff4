/* Stack trees for pictures: every resolved sample's stack merged into one tree per event (root
 * "all", then the command, then the stack from the outermost caller to the sampled function),
 * with each sample's time and thread kept for timelines and the time-ordered viewers.
 *
 * This is the one analysis the picture writers (src/output/flamegraph_svg.c, html.c,
 * speedscope.c, firefox.c, pprof.c) and lperf diff read, so they all show the same stacks. A
 * frame is named exactly as `report --folded` names it (analysis/folded.c), and paths through the
 * tree spell the folded lines, so the pictures and the folded text agree sample for sample.
 * Frames own copies of what they show (names, DSO paths, build-ids): the tree outlives the
 * session that fed it. */
#ifndef LPERF_ANALYSIS_STACKS_H
#define LPERF_ANALYSIS_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve/resolve.h"
#include "util/hashmap.h"

/* What a frame is, for colours and viewers' categories. */
enum stack_kind { SK_ROOT, SK_COMM, SK_NATIVE, SK_PYTHON, SK_KERNEL, SK_JIT, SK_NKINDS };

struct stack_frame {
	char *name;              /* as report --folded spells it ("work_a", "py::f:/x.py", "x_[k]";
				  * in the Python view "f (x.py:12)") */
	char *func;              /* the function alone ("py::f" for "py::f:/x.py", "f" in the Python
				  * view); = name otherwise */
	char *file;              /* a Python frame's source file, else the DSO path; NULL if none */
	char *dso;               /* the DSO's path; NULL for none */
	uint8_t build_id[20];
	size_t build_id_size;
	uint64_t addr;           /* the symbol's start (or the address) in the DSO's space */
	const char *src;         /* with st->lines: the source file at addr (DWARF), else NULL */
	unsigned line;           /* ... and its line: the function's first line; a Python frame's
				  * line in the Python view; 0: unknown */
	enum stack_kind kind;
	char *key;               /* interning key: the DSO's address and the name */
};

struct stack_node {
	uint32_t frame;          /* index into frames */
	uint32_t parent;         /* index into nodes; UINT32_MAX for an event's root */
	uint32_t depth;          /* 0: the root "all" */
	uint64_t total, self;    /* samples here and below / samples ending here */
	uint64_t period_total, period_self;
	uint32_t *kids;          /* after stacks_finish: sorted by name (flamegraph.pl's order) */
	uint32_t nkids, kcap;
};

struct stack_sample {
	uint64_t time;
	uint64_t period;
	uint32_t thread;         /* index into threads */
	uint32_t node;           /* the leaf */
};

struct stack_event {
	char *name;
	uint32_t root;           /* node index of "all" */
	uint64_t samples, period;
	struct stack_sample *s;  /* in arrival order (the session delivers them by time) */
	size_t ns, scap;
	bool time_unit;          /* periods are nanoseconds (cpu-clock, task-clock) */
	bool wall;               /* a --wall recording's wall-clock event: samples of unequal time,
				  * which the flame graph sizes by their periods */
};

struct stack_thread {
	int pid, tid;
	char *comm;              /* the last name seen */
	char *process;           /* the kernel's name where comm is the thread's Python name (its
				  * process's, for the Firefox Profiler); NULL otherwise */
	uint64_t samples;
};

struct stacks {
	struct stack_frame *frames;
	size_t nframes, fcap;
	struct stack_node *nodes;
	size_t nnodes, ncap;
	struct stack_event *events;
	size_t nevents, ecap;
	struct stack_thread *threads;
	size_t nthreads, tcap;
	uint64_t first_time, last_time;
	uint64_t lost;           /* set by the caller: samples the kernel dropped */
	char *command;           /* set by the caller (stacks_set_command): the recorded command */
	bool python;             /* the Python view was asked for: Python frames named py-spy's way,
				  * "func (file.py:LINE)", one frame per function and line */
	bool python_nolineno;    /* ... "func (file.py)": one frame per function */
	bool lines;              /* set by the caller: look up each native frame's source line */
	bool no_inline;          /* set by the caller: DWARF stacks without inlined functions' frames
	                          * (the default expands them, as report --folded does) */
	/* private: frames by (DSO, name), kids by (parent, frame), threads by (tid, pid); values
	 * are indices + 1 */
	struct hashmap fmap, nmap, tmap;
};

void stacks_init(struct stacks *st);
/* The index of an event's tree, created empty on first use: callers declare the recording's
 * events first so that trees follow the recording's order, not the first samples'. */
size_t stacks_event(struct stacks *st, const char *name);
/* Adds one sample under its event (by name; an event seen first gets a new tree). */
void stacks_add(struct stacks *st, const struct resolved_sample *rs);
/* Adds one sample given as frame names from the root ("comm", "main", ..., leaf); for tests and
 * for reading folded text. */
void stacks_add_names(struct stacks *st, const char *event, const char *const *names, size_t n,
		      uint64_t time, uint64_t period, int tid);
/* Sorts every node's children by name; call once before writing. */
void stacks_finish(struct stacks *st);
void stacks_set_command(struct stacks *st, int argc, char *const *argv);
void stacks_free(struct stacks *st);

/* dst (initialised here) as src merged from the sampled function outward: "all", then the
 * sampled functions, then their callers, the command last; for an icicle graph rooted at the
 * hottest functions. Every sample keeps its time, period and thread. */
void stacks_invert(const struct stacks *src, struct stacks *dst);

/* The folded spelling of the path to node (without "all"): "comm;main;work_a". Caller frees. */
char *stacks_path(const struct stacks *st, uint32_t node);
/* The node for a folded path under event e's root, or UINT32_MAX. */
uint32_t stacks_find(const struct stacks *st, size_t e, const char *path);
/* The same below any node ("" finds node itself). */
uint32_t stacks_find_under(const struct stacks *st, uint32_t node, const char *path);
const char *stack_kind_name(enum stack_kind k);

/* The indices of event e's samples grouped by thread, each group in arrival (time) order: thread
 * t's are idx[start[t]] .. idx[start[t + 1] - 1]. Caller frees both. */
void stacks_by_thread(const struct stacks *st, size_t e, size_t **idx, size_t **start);

/* Per-function totals of one event: self samples (the function was sampled) and total samples
 * (the function anywhere on the stack, counted once per sample however often it recurs). */
struct stack_func {
	uint32_t frame;
	uint64_t self, total;
};
/* Fills *out (caller frees) sorted by self, then total, then name; returns the count. */
size_t stacks_functions(const struct stacks *st, size_t e, struct stack_func **out);

#endif
