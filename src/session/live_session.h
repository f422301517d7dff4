/* A live run feeding a session: what lperf sample, wperf sample and wperf record do between
 * opening the events and rendering. The records of what already exists, then every record until
 * the run ends, go through the session (ordered, the machine model, resolved samples to its
 * tool); with --python they wait for the end (CPython writes its jitdump in large buffered
 * chunks, so JIT code can only be named once the file is complete), and Python frames read from
 * the interpreter meanwhile join the session's Python store. */
#ifndef LPERF_SESSION_LIVE_SESSION_H
#define LPERF_SESSION_LIVE_SESSION_H

#include <stdbool.h>

#include "live/live_run.h"
#include "record/record.h"
#include "session/session.h"

struct live_session_opts {
	double timeout_s;
	bool hold;                /* --python: records wait until the run ends */
	bool python_frames;       /* read Python frames from the interpreter (python/pyrec.h) */
	record_cb tee;            /* every record also goes here (a perf.data writer); NULL: none */
	void *tee_arg;
	void (*tick)(long n, double now, void *arg); /* after each read: progress marks */
	void *tick_arg;
	/* With hold and python_frames (lperf top --python): every this many seconds the held
	 * records go through the session with the Python stacks read meanwhile, instead of at
	 * the end. 0: at the end. */
	double release_s;
	/* Optional, as record's (session/recording.h): starting, the target is about to run;
	 * ending, the run is over and records handed to sink go through the session last (sample
	 * --wall's off-CPU samples). -1 with err_set from ending marks the run failed. */
	void (*starting)(void *arg, const struct live_run *run);
	int (*ending)(void *arg, const struct live_run *run, record_cb sink, void *sink_arg);
	void *hook_arg;
	/* python/pystore.h's PYSTORE_GIL_ONLY (--gil) and PYSTORE_GIL_MARK (--wall) for the Python
	 * stacks read (pyrec_gil). */
	unsigned python_gil;
	bool python_nonblocking;  /* --nonblocking: without BPF, never pause the threads */
	bool python_rate_given;   /* -F/-c given: the paused threads' rate up to PYSAMPLER_HZ_MAX */
};

struct live_session_result {
	int status;               /* the command's exit status */
	double started;           /* run_now() when the events were enabled */
	bool failed;              /* sampling stopped early (err_msg() says why) */
	bool tee_failed;          /* the tee refused a record */
};

/* Runs run (opened, its session ss initialised over run->evsels) to the end and flushes ss.
 * Notes on the way (no BPF for Python frames, a Python store that could not be read) go to
 * ss->notes. -1 with err_set() when the command could not be started. */
int live_session_run(struct live_run *run, struct session *ss, const struct live_session_opts *o,
		     struct live_session_result *res);

#endif
