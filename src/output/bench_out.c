/* lperf bench's lines: see bench_out.h. */
#include "output/bench_out.h"

void bench_messaging_header(FILE *f, int groups, int per_group, bool threads)
{
	const char *what = threads ? "threads" : "processes";
	fprintf(f, "# Running 'sched/messaging' benchmark:\n");
	fprintf(f, "# %d sender and receiver %s per group\n", per_group, what);
	fprintf(f, "# %d groups == %d %s run\n\n", groups, groups * 2 * per_group, what);
}

void bench_total_time(FILE *f, double secs, bool simple)
{
	if (simple)
		fprintf(f, "%.3f\n", secs);
	else
		fprintf(f, "     Total time: %.3f [sec]\n", secs);
}
