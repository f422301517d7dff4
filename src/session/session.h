/* The one pipeline: records from a perf.data file or from the live ring buffers go through the
 * time-ordering queue into the machine model; each sample is resolved into a stack of frames
 * and handed to a tool (report's histograms, script's printer, sample's tables). `report` and
 * `sample` differ only in where the records come from. */
#ifndef LPERF_SESSION_H
#define LPERF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/machine.h"
#include "perfdata/perfdata.h"
#include "session/ordered.h"
#include "record/record.h"
#include "resolve/resolve.h"
#include "util/hashmap.h"
#include "util/notes.h"
#include "util/timerange.h"

struct pystore;
struct session;
struct spool;

struct session_tool {
	int (*sample)(const struct resolved_sample *rs, void *arg);
	/* Optional: every record after the model saw it (script's side-band output). */
	int (*record)(struct session *ss, const struct perf_event_header *h, void *arg);
	void *arg;
	bool callchains;         /* resolve callchain frames (else only the sampled ip) */
	bool python_view;        /* Python-only stacks: interpreter frames between and around
				  * py:: frames folded away (resolve_python_view) */
	bool python_labels;      /* ... with Python frames named "func (file.py:LINE)" */
	bool python_nolineno;    /* ... "func (file.py)": the lines of a function merged */
	bool inline_frames;      /* DWARF-unwound frames expand into their inlined functions */
	bool srclines;           /* every frame in a DSO carries its srcline (resolver.srclines) */
	/* Optional: decisions that depend on the recording's events ("it has call chains"). Called
	 * once the events are known and before any record reaches the model or the tool: at the
	 * first record, since a pipe declares its events as the stream goes. It may change
	 * ss->tool (callchains, the sample callback and its arg); non-zero stops the walk. */
	int (*ready)(struct session *ss, void *arg);
	/* A record --wall recording (FEAT_LPERF_WALL) is one profile: its off-CPU event's samples
	 * count as its on-CPU event's, renamed "wall-clock" (session_wall). Not for script. */
	bool wall;
	/* Only samples whose thread held the GIL (report --gil; a record --gil recording asks it
	 * itself, python/pystore.h's PYSTORE_GIL_ONLY). */
	bool gil_only;
	/* Optional: a --time spec (util/timerange.h; NULL: every sample), read by session_attach
	 * into ss->window against the header's first and last sample times. A sample outside it is
	 * counted as read (nsamples, the totals per event, the first and last times) and goes no
	 * further: neither resolved (unwound, looked up, joined with Python stacks) nor handed to
	 * the tool, as perf skips it before its per-sample work; ss->window_skipped and
	 * *window_skipped (when set) count it. */
	const char *time_spec;
	uint64_t *window_skipped;
	/* The sample callback takes frames whose kernel symbol is left for later (resolve.h's
	 * addr_loc.later) and finds them itself before using any (analysis/hist.h's hist_add): with
	 * workers, the walk then does not wait for the kernel's symbols being read ahead. The
	 * session allows it only where nothing else reads those symbols before the tool (no Python
	 * stacks joined, no Python view). */
	bool ksyms_later;
};

/* What the samples say about a better recording (session_hint.c): counted as the walk goes,
 * judged by session_hints. */
struct session_hints {
	uint64_t user;           /* samples with a user-mode frame */
	uint64_t fp_chains;      /* of them, frame-pointer call chains resolved */
	uint64_t fp_short;       /* of those, chains that stop at the sampled function */
	uint64_t pyeval;         /* samples through _PyEval_EvalFrameDefault without a Python frame */
	uint64_t jit_unnamed;    /* samples whose ip is in JIT or anonymous code with no symbol */
	uint64_t jit_node;       /* of them, in a process named node */
	struct hashmap dsos;     /* struct dso * -> its counts */
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
	uint64_t bad_ksymbols;   /* KSYMBOL records that did not parse (the first is a note) */
	uint64_t gil_dropped;    /* samples left out: their thread did not hold the GIL (gil_only) */
	uint64_t window_skipped; /* samples outside the tool's --time window, not resolved */
	struct time_ranges window; /* tool.time_spec read against the header; empty: every sample */
	bool window_no_times;    /* session_open failed: a percent --time and a recording whose
				  * header has no first and last sample times (perf's HINT) */
	struct resolver resolver;  /* samples to frames (its truncated count: cut DWARF stacks) */
	struct pystore *py;        /* Python stacks joined with the samples (python/pymerge.h); owned */
	struct session_hints hints;
	struct notes notes;        /* what could not be used of the recording's stored sources;
				    * session_diagnose adds the walk's warnings and notes */
	struct perfdata_reader *reader; /* session_open's recording (owned), or session_attach's */
	const struct perfdata_reader *walking; /* session_process_file's, during its walk */
	bool own_reader;
	bool force;                /* session_open: JIT files in /tmp whoever owns them */
	bool started;              /* the tool's ready step has run */
	const struct evsel *wall_into; /* session_wall: samples of event wall_from count as this one's */
	int wall_from;
	bool wall_switches;        /* wall_from is sched:sched_switch: each of its samples waits for its
				    * thread's next switch in (a PERF_RECORD_SWITCH) and weighs the time
				    * between, in ns */
	struct hashmap wall_held;  /* tid -> a copy of its last switch-out sample (malloc'd), or NULL */
	struct evsel *wall_renamed; /* the event named wall-clock, its name until session_free */
	char *wall_old_name;
	bool threads_auto;         /* session_opts.threads_auto */
	unsigned threads;          /* session_opts.threads: > 1, a file's samples are resolved by
				    * threads - 1 worker threads (session_batch.h), the session's own
				    * being the other, unless the tool sees every record (tool.record) */
	struct spool *pool;        /* the workers, from the first sample on */
	const void *stable_base;   /* the mapped file: records there outlive their delivery */
	size_t stable_len;
};

int session_init(struct session *ss, const struct evsel_set *evsels, const struct session_tool *tool);
/* Feeds one record (any source). The record is copied if it must wait for ordering. */
int session_push(struct session *ss, const struct perf_event_header *h);
/* record --wall: the off-CPU event of set (offcpu-time, or sched:sched_switch where lperf had
 * no BPF: then each switch-out sample weighs the time until its thread's next switch in, from
 * the PERF_RECORD_SWITCH records) is merged into its on-CPU event, renamed "wall-clock": both
 * weigh nanoseconds (until session_free, which gives the event its name back). set is
 * the session's events (ss->evsels). Nothing when set has not both. session_open's sessions do
 * it themselves for a tool with wall, at the first record. */
void session_wall(struct session *ss, struct evsel_set *set);
/* Delivers everything still queued. */
int session_flush(struct session *ss);
/* Feeds a whole perf.data file, then flushes. The tool's ready step runs at the first record
 * (or at the end of an empty file). */
int session_process_file(struct session *ss, struct perfdata_reader *r);
/* Hands the JIT symbol sources stored in a recording to the model, with the ownership policy
 * for the /tmp files it may still read (force: whoever owns them). */
void session_use_jit_sources(struct session *ss, const struct perfdata_reader *r, bool force);
void session_free(struct session *ss);

/* ---- Opening a recording: the one way report, script, annotate, the pictures, diff and SPE
 * read one (session_open.c). ---- */
struct session_opts {
	bool force;              /* read the input and /tmp JIT symbol files whoever owns them */
	const char *symfs;       /* look for binaries under this directory (NULL: /) */
	unsigned threads;        /* threads for the walk (0, 1: the session's own only; N: it and
				  * N - 1 workers resolving samples); the output is the same */
	bool threads_auto;       /* threads is a default, not the user's: a file an earlier report
				  * walked whole (its order learnt, session/order_memo.h) is walked by
				  * the session's thread alone. That report left the file's symbols,
				  * lines and kernel snapshot in the caches, so what workers could take
				  * is the unwinding only: measured on the deep-stack Python file, a
				  * second worker cut no wall time (42 vs 40 ms) for 20% more CPU. */
};
/* Opens path ("-": standard input) and starts a session on its events with tool. The header's
 * build-ids name the files that ran: a DSO whose file on disk has another one is not resolved
 * and session_diagnose names it. What the reader met opening the file (damaged features) is in
 * ss->reader->info.notes. -1 after err_set (nothing to close; ss->window_no_times says
 * whether tool->time_spec was in percent and the header has no sample times). */
int session_open(struct session *ss, const char *path, const struct session_opts *o,
		 const struct session_tool *tool);
/* The same over a reader the caller opened and keeps (closes after session_close). -1 after
 * err_set when tool->time_spec cannot be read against r's header (then session_free). */
int session_attach(struct session *ss, struct perfdata_reader *r, const struct session_opts *o,
		   const struct session_tool *tool);
/* Walks the whole recording through the tool. -1 after err_set when a record stopped the walk
 * (what came before it was delivered). */
int session_run(struct session *ss);
/* Whether any of the recording's events has call chains (known from the ready step on). */
bool session_has_callchains(const struct session *ss);
/* After a walk, appends to ss->notes what a user should know about it: lost and unparsable
 * samples, cut DWARF stacks, build-id mismatches (one warning per DSO), JIT sources and hidden
 * kernel symbols (notes). verbose: also the notes perf gives only with -v. */
void session_diagnose(struct session *ss, int verbose);
/* After a walk, the samples the profile lost: the larger of the LOST records' and LOST_SAMPLES'
 * counts (perf writes one loss both ways), less those the recording says were the kernel's
 * samples of processes lperf paused and sampled itself (LPERF_LOST: record --python without
 * BPF), which go to *replaced (replaced may be NULL). */
uint64_t session_lost(const struct session *ss, uint64_t *replaced);
/* Counts one resolved sample for the hints (the session does it for every sample). */
void session_hint_sample(struct session_hints *h, const struct resolver *rv, const struct resolved_sample *rs);
/* Appends to ss->notes, as NOTES_HINT, what would make this profile better, where the samples
 * show it: frame-pointer chains that stop at the sampled function (--call-graph dwarf), the
 * Python interpreter without Python frames (--python), JIT code without names (node's
 * --perf-basic-prof), most samples in a stripped library (its debug file). session_diagnose
 * calls it. */
void session_hints(struct session *ss);
void session_hints_free(struct session_hints *h);
/* session_free, and the reader closed when session_open opened it. */
void session_close(struct session *ss);

#endif
