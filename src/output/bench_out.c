/* lperf bench's lines: see bench_out.h. */
#include "output/bench_out.h"

void bench_running(FILE *f, const char *collection, const char *bench)
{
	fprintf(f, "# Running '%s/%s' benchmark:\n", collection, bench);
}

void bench_messaging_header(FILE *f, int groups, int per_group, bool threads)
{
	const char *what = threads ? "threads" : "processes";
	fprintf(f, "# %d sender and receiver %s per group\n", per_group, what);
	fprintf(f, "# %d groups == %d %s run\n\n", groups, groups * 2 * per_group, what);
}

void bench_total_time(FILE *f, double secs, bool simple)
{
	/* whole milliseconds, truncated as perf prints them */
	long long ms = secs > 0 ? (long long)(secs * 1000) : 0;
	if (simple)
		fprintf(f, "%lld.%03lld\n", ms / 1000, ms % 1000);
	else
		fprintf(f, "     Total time: %lld.%03lld [sec]\n", ms / 1000, ms % 1000);
}
