/* perf bench sched messaging (hackbench): groups of senders and receivers passing small
 * messages over socket pairs (or pipes), each sender writing to every receiver of its group;
 * a load of many short sleeps and wake-ups that perf's shell tests record (record_offcpu.sh,
 * lock_contention.sh). Processes by default, threads with thread. */
#ifndef LPERF_WORKLOAD_MESSAGING_H
#define LPERF_WORKLOAD_MESSAGING_H

#include <stdbool.h>

#define MESSAGING_PER_GROUP 20    /* senders, and as many receivers, in a group */
#define MESSAGING_DATA_SIZE 100   /* bytes in one message */

struct messaging_opts {
	int groups;   /* perf's default: 10 */
	int loops;    /* messages each sender sends to each receiver; perf's default: 100 */
	bool pipe;    /* pipes instead of socket pairs */
	bool thread;  /* threads instead of processes */
};

/* Runs the benchmark; *secs is the time from the start signal to the last worker's end. -1 with
 * errno set (and *what naming the call that failed) when a worker could not be started. */
int messaging_run(const struct messaging_opts *o, double *secs, const char **what);

#endif
