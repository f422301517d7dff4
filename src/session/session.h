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
#include "util/notes.h"

struct pystore;
struct session;

struct session_tool {
	int (*sample)(const struct resolved_sample *rs, void *arg);
	/* Optional: every record after the model saw it (script's side-band output). */
	int (*record)(struct session *ss, const struct perf_event_header *h, void *arg);
	void *arg;
	bool callchains;         /* resolve callchain frames (else only the sampled ip) */
	bool python_view;        /* Python-only stacks: interpreter frames between and around
				  * py:: frames folded away (resolve_python_view) */
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
	struct resolver resolver;  /* samples to frames (its truncated count: cut DWARF stacks) */
	struct pystore *py;        /* Python stacks joined with the samples (python/pymerge.h); owned */
	struct notes notes;        /* what could not be used of the recording's stored sources */
};

int session_init(struct session *ss, const struct evsel_set *evsels, const struct session_tool *tool);
/* Feeds one record (any source). The record is copied if it must wait for ordering. */
int session_push(struct session *ss, const struct perf_event_header *h);
/* Delivers everything still queued. */
int session_flush(struct session *ss);
/* Feeds a whole perf.data file, then flushes. */
int session_process_file(struct session *ss, struct perfdata_reader *r);
/* Hands the JIT symbol sources stored in a recording to the model, with the ownership policy
 * for the /tmp files it may still read (force: whoever owns them). */
void session_use_jit_sources(struct session *ss, const struct perfdata_reader *r, bool force);
void session_free(struct session *ss);

#endif
