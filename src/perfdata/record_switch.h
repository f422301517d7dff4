/* record's rotation and control (perf record --switch-output, --switch-max-files, --control):
 * when to close the file being written and where it goes (OUTPUT.<timestamp>), and the commands
 * a control FIFO brings (perf daemon pings its sessions through it). */
#ifndef LPERF_PERFDATA_RECORD_SWITCH_H
#define LPERF_PERFDATA_RECORD_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/* When the file is closed and a new one started: never, on SIGUSR2 (or a control "snapshot"),
 * past a size, or every period. */
enum record_switch_mode { SWITCH_NONE, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME };

struct record_switch_opts {
	const char *output;       /* the file being written (-o); must outlive the record_switch */
	enum record_switch_mode mode;
	uint64_t size;            /* SWITCH_SIZE: bytes */
	double secs;              /* SWITCH_TIME: seconds */
	int max_files;            /* at most this many files kept (0: all) */
	const char *control;      /* fifo:CTL[,ACK], or NULL */
};

struct record_switch {
	struct record_switch_opts o;
	double next;          /* SWITCH_TIME: the next switch (run_now() seconds) */
	unsigned handled;     /* SIGUSR2s acted on */
	unsigned snapshots;   /* control "snapshot"s not acted on yet: a switch each */
	char **kept;          /* files written, oldest first (with --switch-max-files) */
	size_t nkept;
	unsigned long wakeups; /* reads that brought records since the last file */
	int ctl, ack;         /* --control's FIFOs, -1 without */
};

/* Sets up from o (copied): SIGUSR2 handled as a switch, the control FIFOs opened. -1 with
 * err_set (a bad --control, a FIFO that cannot be opened, --switch-output with -o -). */
int record_switch_init(struct record_switch *s, const struct record_switch_opts *o, double now);
/* Whether the file being written (bytes long) is to be closed now. */
bool record_switch_due(struct record_switch *s, double now, unsigned long long bytes);
/* The file just completed at the output moves to OUTPUT.<timestamp> (perf's: local time to the
 * hundredth of a second); the oldest files beyond max_files are removed. The new name
 * (free it); NULL with err_set. */
char *record_switch_rename(struct record_switch *s);
/* Reads the control FIFO's commands; each is acknowledged ("ack\n"). enable/disable call
 * toggle(arg, on); "stop" ends the run (as SIGTERM does); "snapshot" asks for a switch. */
void record_switch_control(struct record_switch *s, void (*toggle)(void *arg, bool on), void *arg);
void record_switch_free(struct record_switch *s);

/* --overwrite's hold: copies of the newest records, at most limit bytes (the oldest dropped). */
struct record_hold {
	struct perf_event_header **v;  /* a circular queue */
	size_t cap, head, n;
	size_t bytes, limit;
	unsigned long long dropped;
};
void record_hold_init(struct record_hold *h, size_t limit);
/* A record_cb: keeps a copy of the record. */
int record_hold_push(const struct perf_event_header *rec, void *arg);
/* Hands the records held to sink, oldest first, and empties the hold; -1 when sink fails. */
int record_hold_flush(struct record_hold *h, record_cb sink, void *arg);
void record_hold_free(struct record_hold *h);

#endif
