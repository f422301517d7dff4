/* record's engine, for lperf record and sample's Arm SPE path: the events of l sampled on a
 * target (live/live_run.h) into a perf.data file until the run ends. With --switch-output each
 * completed file moves to OUTPUT.<timestamp> and the next starts with the machine described
 * again (perfdata/record_switch.h); with --overwrite only the newest records are kept, written
 * at a switch or at the end; with Python frames read (python/pyrec.h) the stacks are stored in
 * the file. What happens on the way goes to the command's hooks, which print. */
#ifndef LPERF_SESSION_RECORDING_H
#define LPERF_SESSION_RECORDING_H

#include <stdbool.h>
#include <stdint.h>

#include "events/evlist.h"
#include "live/live_run.h"
#include "perfdata/perfdata.h"
#include "perfdata/record_switch.h"
#include "perfdata/recorder.h"
#include "util/notes.h"

struct recording_progress {
	uint64_t samples, lost, bytes;  /* of the file being written */
};

struct recording_opts {
	struct record_switch_opts sw;     /* sw.output is the file (-o; "-": standard output) */
	int compression_level;            /* zstd, 0: none */
	bool force;                       /* JIT files whoever owns them */
	bool quiet;                       /* no note of the Python stacks stored */
	enum recorder_buildids buildids;
	bool buildid_cache;
	bool overwrite;                   /* only the newest records (a flight recorder) */
	bool python_frames;               /* read Python frames from the interpreters */
	bool wall;                        /* record --wall: the files say so (FEAT_LPERF_WALL), and
					   * the GIL holder's Python stacks are marked in views */
	bool python_gil;                  /* record --gil: views keep only the GIL holder's samples */
	unsigned python_depth;            /* Python frames kept per stack (0: python/pyrec.h's most) */
	bool python_nonblocking;          /* --nonblocking: without BPF, never pause the threads */
	bool python_rate_given;           /* -F/-c given: the paused threads' rate up to PYSAMPLER_HZ_MAX */
	double timeout_s;
	int argc;                         /* the command line stored in the file */
	char **argv;
	/* For an Arm SPE event: its AUXTRACE_INFO, after the file's tracing data (spe/spe_capture.h's
	 * spe_capture_info, which this folder cannot reach). 0, or -1 with err_set. */
	int (*auxtrace_info)(struct perfdata_writer *w, uint32_t pmu_type, bool per_cpu);
	/* The command's side (arg); each optional. say: warnings and notes as they happen (print
	 * them; the list is cleared after). events: a command's events stay disabled (-D) / are now
	 * enabled. tick: after each read, and once with final after the last. switched: a file was completed and moved to name (NULL
	 * when that failed: err_msg() says why and the recording cannot go on). */
	void (*say)(void *arg, const struct notes *ns);
	void (*events)(void *arg, bool enabled);
	void (*tick)(void *arg, const struct recording_progress *p, double now, bool final);
	void (*switched)(void *arg, const char *name, unsigned long wakeups);
	/* starting: the target is opened (run->t.pid is a started command) and about to run.
	 * ending: the run is over; records handed to sink(h, sink_arg) go at the end of the file
	 * (record --off-cpu's samples); -1 with err_set marks the recording failed. */
	void (*starting)(void *arg, const struct live_run *run);
	int (*ending)(void *arg, const struct live_run *run, record_cb sink, void *sink_arg);
	void *arg;
};

struct recording {
	const struct recording_opts *o;
	struct evlist *l;
	struct live_run run;
	bool run_open;
	struct record_switch sw;
	struct pyrec *py;
	struct perfdata_writer *w;        /* the file being written, and its recorder */
	struct recorder *c;
	struct record_hold hold;
	bool holding;
	int status;                       /* the command's exit status */
};

/* What the end of the recording found. */
struct recording_result {
	uint64_t bytes, raw, packed;      /* the last file's size; compressed: before and after */
	uint64_t samples, lost;           /* lost: those the profile lost (lost_replaced not) */
	uint64_t lost_replaced;           /* the kernel's samples of paused Python processes lost: lperf
					   * writes their samples itself (the file's LOST records count
					   * them, as perf's would) */
	bool error;                       /* recording failed on the way */
	char *why;                        /* and why (free it) */
};

enum recording_end {
	RECORDING_DONE,
	RECORDING_BAD_REQUEST,  /* a request that cannot work: a bad --control, --switch-output to a
				 * pipe, --overwrite with SPE, a bad compression level (a usage error) */
	RECORDING_FAILED,       /* the events, the command or the file could not be opened */
	RECORDING_NOT_SAVED,    /* writing failed: the temporary is gone and the output unchanged */
};

/* The whole recording: opens the events of l on the target (tg, lo) and the file, writes what
 * already exists, starts the target and records until the run ends, then completes the file
 * and moves it into place (with --switch-output, record_switch_rename(&r->sw) then gives it
 * its OUTPUT.<timestamp> name). Anything but RECORDING_DONE comes with err_set() and leaves
 * nothing open; after RECORDING_DONE, r is freed with recording_free once its notes are taken
 * (recording_notes). */
enum recording_end recording_record(struct recording *r, struct evlist *l, const struct live_run_target *tg,
				    struct live_opts *lo, const struct recording_opts *o, struct recording_result *res);
/* What the end says after the file's own lines: samples lost, and what the events' opening
 * changed of the request (live_open_notes). */
void recording_notes(const struct recording *r, const struct recording_result *res, struct notes *ns);
void recording_free(struct recording *r);

#endif
