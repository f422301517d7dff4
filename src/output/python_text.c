/* Report lines about Python stacks (src/python/). */
#include <stdio.h>

#include "output/report_out.h"

void report_text_python_approx(FILE *f)
{
	fprintf(f, "# Python stacks: approximate (read with process_vm_readv between the samples, "
		   "not at each sample: BPF was not available)\n#\n");
}

void report_text_python_own(FILE *f)
{
	fprintf(f, "# Python stacks: CPython's own (-X perf or -X perf_jit: the frames the unwinding "
		   "reaches, exact; their lines and deeper frames from reads between the samples where "
		   "those agree)\n#\n");
}

void report_text_python_paused(FILE *f)
{
	fprintf(f, "# Python stacks: exact (paused: the threads stopped with ptrace at each sample, "
		   "BPF was not available)\n#\n");
}
