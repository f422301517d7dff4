/* Counting: the events of an event list opened as counters over a target (per task, or per
 * CPU), enabled together, read with time enabled/running, and scaled where the kernel
 * multiplexed them. */
#ifndef LPERF_KERNEL_COUNTER_H
#define LPERF_KERNEL_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct evlist;

/* One reading: the count and the nanoseconds the counter was enabled and running. */
struct counter_val {
	uint64_t val, ena, run;
};

enum counter_status {
	COUNTER_COUNTED,       /* ran all the time it was enabled */
	COUNTER_MULTIPLEXED,   /* ran part of the time: the value is scaled */
	COUNTER_NOT_COUNTED,   /* opened but never scheduled (running == 0) */
	COUNTER_NOT_SUPPORTED, /* could not be opened here */
};

/* Scales a reading by enabled/running time: the estimate of the full-time count. */
enum counter_status counter_scale(const struct counter_val *v, double *scaled);

struct counters {
	struct evlist *evl;
	int *cpus;            /* CPU of each column; one column of -1 when counting per task */
	size_t ncpus;
	pid_t *pids;          /* task of each row; one row of -1 when counting per CPU */
	size_t npids;
	int *fds;             /* [event][cpu][pid], -1 where not opened */
	bool *supported;      /* per event: opened on at least one CPU/task */
	char **why;           /* per event: why it could not be opened (NULL when it could) */
	bool kernel_excluded; /* the kernel's paranoia made us count user mode only */
};

struct counters_opts {
	const int *cpus;      /* NULL/0 for per-task counting */
	size_t ncpus;
	const pid_t *pids;    /* NULL/0 for CPU-wide counting */
	size_t npids;
	bool enable_on_exec;  /* a started command: counting begins at its exec */
	bool inherit;         /* follow children and new threads */
	bool allow_none;      /* no event supported here is no error (perf stat's <not supported>
			       * rows), unless an event was refused for another reason */
};

/* Opens every event. Events that cannot be opened are marked unsupported (why[] says why) and
 * the rest go on; -1 (err_set with the first reason) only when no event could be opened. */
int counters_open(struct counters *c, struct evlist *l, const struct counters_opts *o);
void counters_enable(struct counters *c);
void counters_disable(struct counters *c);
/* Reads event e on CPU column `col` (summing its tasks); -1 on a read error. */
int counters_read(const struct counters *c, size_t e, size_t col, struct counter_val *out);
/* Reads event e of task row `row` on CPU column `col` alone (zeros where it was not opened). */
int counters_read_task(const struct counters *c, size_t e, size_t col, size_t row, struct counter_val *out);
void counters_close(struct counters *c);

#endif
