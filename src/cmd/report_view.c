/* What report, script and sample share on the command side. */
#include "cmd/report_view.h"

#include <string.h>

#include "python/pystore.h"
#include "util/error.h"

void report_warnings(struct session *ss, bool quiet, int verbose)
{
	session_diagnose(ss, verbose);
	err_print_notes(&ss->notes);
}

void report_view_print(FILE *f, const struct report_view *v, const struct profile *p,
		       const struct session *ss, const char *source)
{
	struct report_totals tot = { ss->nsamples, ss->lost_records, ss->lost_samples, pystore_approx(ss->py) };
	report_print(f, v->style, &v->ro, p, &tot, source, v->annot);
}
