/* Histograms of resolved samples: the flat profile keyed by any of comm, pid, tid, dso, sym, cpu;
 * "children" totals (a function and everything it called) when stacks are present; and call
 * trees per entry, callee order (who called this function) or caller order (what it called). */
#ifndef LPERF_ANALYSIS_HIST_H
#define LPERF_ANALYSIS_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve/resolve.h"
#include "util/hashmap.h"

enum hist_key { HK_COMM, HK_PID, HK_TID, HK_DSO, HK_SYM, HK_CPU, HK_SRCLINE, HK_SRCFILE, HK_TRACE, HK_NKEYS };

/* Parses "comm,dso,sym" into keys; -1 with err_set() naming an unknown key. */
int hist_parse_sort(const char *spec, enum hist_key *keys, size_t *nkeys);
const char *hist_key_name(enum hist_key k);

/* A node of a call tree: one function (or unresolved address) at one depth of a path. */
struct callnode {
	struct dso *dso;
	const struct symbol *sym;
	uint64_t addr;           /* DSO address when sym is NULL */
	bool kernel;
	bool inlined;            /* an inlined function's frame (perf shows "name (inlined)") */
	uint32_t seq;            /* its place among its parent's kids when created */
	uint64_t samples, period;
	struct callnode **kids;
	size_t nkids, cap;
};

struct hist_entry {
	/* key values (only the hist's keys are meaningful) */
	const char *comm;
	int pid, tid, cpu;
	struct dso *dso;
	const struct symbol *sym;
	uint64_t addr;           /* unresolved: the DSO address (or raw ip without a map) */
	bool kernel;
	bool inlined;            /* an inlined function's entry (DWARF stacks): "name (inlined)" */
	const char *srcline, *srcfile;      /* HK_SRCLINE, HK_SRCFILE (interned, symbols/srcline.h) */
	const char *trace;                  /* HK_TRACE: a tracepoint's fields as text (interned) */
	uint64_t samples, period;           /* self: the sample's own ip is here */
	uint64_t acc_samples, acc_period;   /* children: anywhere on the stack */
	struct callnode *tree;              /* built with HIST_CALLEE / HIST_CALLER */
	size_t max_depth;                   /* the longest chain in tree */
	int thread_pid, thread_tid;         /* the thread of its first sample (perf's he->thread),
					     * whatever the keys: the browser's zooms */
	bool has_thread;
	bool tree_has_self;                 /* the callee tree's roots are the chains' first frames (the
					     * entry itself, or functions inlined in it): --no-children */
};

enum hist_graph { HIST_GRAPH_NONE, HIST_CALLEE, HIST_CALLER };

struct hist_pframe;

struct hist {
	enum hist_key keys[HK_NKEYS];
	size_t nkeys;
	uint32_t keymask;        /* 1 << each of keys (hist_init) */
	enum hist_graph graph;
	bool children;           /* accumulate children totals */
	struct hist_entry **v;   /* entries; sorted by hist_sort */
	size_t n, cap;
	struct hashmap index;    /* key -> its entry, until hist_sort */
	uint64_t total_samples, total_period;
	struct hashmap pending;  /* distinct samples not yet in the entries (hist.c), until hist_sort */
	struct hist_pframe *scratch; /* hist_add's frame buffer */
	size_t scratch_cap;
	char **comms;            /* interned comm strings */
	size_t ncomms, ccap;
	struct hashmap traces;   /* HK_TRACE's texts, interned (string keys owning their text) */
	const char *cur_trace;   /* the text of the sample being added */
	/* HK_TRACE: a sample's tracepoint fields as perf prints them (malloc'ed, or NULL), set by
	 * whoever can format them (report: libtraceevent through events/tracedata.h). */
	char *(*trace_text)(void *arg, const struct perf_sample *s);
	void *trace_arg;
};

void hist_init(struct hist *h, const enum hist_key *keys, size_t nkeys, enum hist_graph graph, bool children);
/* Adds a sample. A frame whose kernel symbol is left for later (resolve.h's addr_loc.later) is
 * kept as its address and its symbol found at hist_sort, before any entry is made: the output is
 * the same as with the symbol at once, for keys that hist_ksyms_later allows. */
void hist_add(struct hist *h, const struct resolved_sample *rs);
/* The keys need no symbol when a sample is added (not srcline, srcfile: computed from it). */
bool hist_ksyms_later(const enum hist_key *keys, size_t nkeys);
/* Sorts by period (children totals first when accumulating), then by name for stable output. */
void hist_sort(struct hist *h, bool by_children);
void hist_free(struct hist *h);

/* Display helpers shared by the renderers. */
const char *hist_dso_name(const struct dso *d);       /* "[unknown]" for none */
/* "integer_work", or "0x0000000000401136" for an unresolved address (perf's spelling). */
void hist_sym_name(const struct symbol *sym, uint64_t addr, char *buf, size_t size);
/* An entry's symbol column as perf prints it: hist_sym_name, then " (inlined)" for an inlined
 * function's entry. */
void hist_entry_name(const struct hist_entry *e, char *buf, size_t size);
/* Sorts every tree's children by period, largest first. */
void callnode_sort(struct callnode *n);

#endif
