/* The one pipeline: records from a perf.data file or from the live ring buffers go through the
 * time-ordering queue into the machine model; each sample is resolved into a stack of frames
 * and handed to a tool (report's histograms, script's printer, sample's tables). `report` and
 * `sample` differ only in where the records come from. */
#ifndef LPERF_STREAM_SESSION_H
#define LPERF_STREAM_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/machine.h"
#include "stream/perfdata.h"
#include "stream/record.h"

struct unwinder;

struct frame {
	uint64_t ip;             /* as recorded */
	struct addr_loc loc;     /* resolved at ip (callers at their return address, as perf) */
	bool inlined;            /* an inlined function's frame (loc.sym from symbols/srcline.h) */
	const char *srcline;     /* DWARF frames with a symbol: the line perf's inline expansion gives
				  * this level ("??:0" without DWARF); NULL otherwise */
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

struct session;

struct session_tool {
	int (*sample)(struct session *ss, const struct resolved_sample *rs, void *arg);
	/* Optional: every record after the model saw it (script's side-band output). */
	int (*record)(struct session *ss, const struct perf_event_header *h, void *arg);
	void *arg;
	bool callchains;         /* resolve callchain frames (else only the sampled ip) */
	bool python_view;        /* Python-only stacks: interpreter frames between and around
				  * py:: frames folded away (session_python_view) */
	bool inline_frames;      /* DWARF-unwound frames expand into their inlined functions */
};

struct session {
	struct machine machine;
	const struct evsel_set *evsels;
	struct session_tool tool;
	struct ordered_queue *oq;
	uint64_t nrecords, nsamples;
	uint64_t lost_records;   /* sum of PERF_RECORD_LOST counts: records the kernel dropped */
	uint64_t lost_samples;   /* PERF_RECORD_LOST_SAMPLES */
	uint64_t *samples_per_evsel;
	size_t nper;
	uint64_t first_time, last_time;
	uint64_t bad_samples;    /* samples that did not parse (counted, reported, skipped) */
	struct frame *fbuf;
	size_t fcap;
	struct unwinder *unwinder; /* for recordings with user stack copies (--call-graph dwarf) */
	uint64_t truncated;        /* samples whose DWARF unwind stopped early */
};

/* Rewrites a stack (leaf first) for reading Python: the native frames below the innermost
 * py:: frame stay unless they belong to the interpreter; between and above py:: frames only the
 * py:: frames stay. A stack without py:: frames is left alone. Returns the new count. */
size_t session_python_view(struct frame *frames, size_t n);

/* Replaces frame (*buf)[at], the last of *n, with the inlined functions at its address, as perf
 * 6.1 expands DWARF stacks (session_inline.c; callers are looked up at the call, the return
 * address - 1). */
void session_expand_inline(struct frame **buf, size_t *cap, size_t *n, size_t at, bool caller);

int session_init(struct session *ss, const struct evsel_set *evsels, const struct session_tool *tool);
/* Feeds one record (any source). The record is copied if it must wait for ordering. */
int session_push(struct session *ss, const struct perf_event_header *h);
/* Delivers everything still queued. */
int session_flush(struct session *ss);
/* Feeds a whole perf.data file, then flushes. */
int session_process_file(struct session *ss, struct perfdata_reader *r);
void session_free(struct session *ss);

#endif
