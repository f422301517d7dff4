/* The live source: sampling events opened per CPU (or per task), one ring buffer per CPU with
 * the other fds of that CPU redirected into it, polled and drained through a record callback.
 * Plus the records that describe what already exists when recording starts (synthesis). */
#ifndef LPERF_STREAM_LIVE_H
#define LPERF_STREAM_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/ringbuf.h"
#include "stream/perfdata.h"

struct evlist;

enum live_callchain { LIVE_CG_NONE, LIVE_CG_FP, LIVE_CG_DWARF };

struct live_opts {
	const int *cpus;          /* CPUs to open on; NULL/0 = one per-task fd on any CPU */
	size_t ncpus;
	const pid_t *pids;        /* tasks; NULL/0 = CPU-wide (pid -1) */
	size_t npids;
	bool enable_on_exec;      /* a started command: sampling starts at its exec */
	bool inherit;             /* follow children and threads */
	size_t mmap_pages;        /* data pages per buffer, a power of two (default 128 = 512 KiB) */
	bool use_clockid;
	int clockid;              /* CLOCK_MONOTONIC for jitdump correlation */
	uint64_t freq;            /* samples per second for events without their own period */
	uint64_t period;          /* or a fixed period (-c); takes precedence over freq */
	enum live_callchain callchain;
	uint32_t stack_size;      /* DWARF: bytes of user stack per sample (8-aligned, <= 65528) */
	bool exclude_kernel;      /* paranoia forbids kernel sampling */
};

struct live {
	struct evlist *evl;
	size_t nev, ncols, nrows;  /* events x CPU columns x task rows */
	int *fds;                  /* [ev][col][row] */
	struct perf_event_attr *attrs; /* the attr each event was opened with (for perf.data) */
	uint64_t **ids;            /* per event: kernel ids of its fds (PERF_EVENT_IOC_ID) */
	size_t *nids;
	struct ringbuf *rbs;
	size_t nrbs;
};

/* Opens every event with the sampling settings; the first event carries the side-band bits
 * (mmap2, comm, comm_exec, task, sample_id_all everywhere). An event that cannot be opened is an
 * error (err_set, explained as for counting). Events start disabled unless enable_on_exec. */
int live_open(struct live *l, struct evlist *evl, const struct live_opts *o);
void live_enable(struct live *l);
void live_disable(struct live *l);
/* Waits up to timeout_ms for data (poll), then drains every buffer through cb. Returns the number
 * of records delivered, or -1. A signal interrupting the wait is not an error (returns 0). */
long live_read(struct live *l, int timeout_ms, record_cb cb, void *arg);
void live_close(struct live *l);

/* Synthesis, as perf does at the start of a recording. Records carry the sample_id trailer of
 * attr (the first event's). */
/* MMAP of [kernel.kallsyms]_text for pid -1 (from /proc/kallsyms _text/_stext, or the kernel's
 * start when addresses are hidden), and one per loaded module (/proc/modules). */
int synth_kernel(const struct perf_event_attr *attr, record_cb cb, void *arg);
/* COMM for each thread of pid, FORK for its non-leader threads, and MMAP2 for each executable
 * mapping in /proc/pid/maps (with device, inode and prot). A process that exits meanwhile is
 * skipped silently. */
int synth_process(const struct perf_event_attr *attr, pid_t pid, record_cb cb, void *arg);
/* synth_process for every process in /proc. */
int synth_all_processes(const struct perf_event_attr *attr, record_cb cb, void *arg);

#endif
