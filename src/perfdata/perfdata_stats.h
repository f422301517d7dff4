/* What perf report --stats and --task show of a recording: records counted by type (and
 * samples by event), and the tasks its COMM and FORK records name. */
#ifndef LPERF_PERFDATA_STATS_H
#define LPERF_PERFDATA_STATS_H

#include <stdint.h>
#include <sys/types.h>

#include "perfdata/perfdata.h"

#define PDSTATS_NTYPES 128

struct perfdata_stats {
	uint64_t types[PDSTATS_NTYPES]; /* records by type, the COMPRESSED ones and what they hold */
	uint64_t total;
	uint64_t *ev_samples;           /* per event of the reader's evsels (n at the walk's end) */
	size_t nev;
};

struct pdtask {
	pid_t pid, tid, ppid;
	char *comm;
};

struct perfdata_tasks {
	struct pdtask *v;
	size_t n, cap;
};

/* Walks the data section once (a pipe can be walked only once). -1 with err_set() where a
 * record is damaged: what was counted before it stays. */
int perfdata_stats(struct perfdata_reader *r, struct perfdata_stats *st);
void perfdata_stats_free(struct perfdata_stats *st);
/* Every task named by COMM or FORK records, plus the idle task (0/0, "swapper") as perf has it,
 * sorted by tid (as perf lists them); the last COMM of a task names it. */
int perfdata_tasks(struct perfdata_reader *r, struct perfdata_tasks *t);
void perfdata_tasks_free(struct perfdata_tasks *t);

#endif
