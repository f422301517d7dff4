/* sample's Arm SPE path (see record_spe.h). */
#include "cmd/record_spe.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "output/spe_out.h"

#include "events/spe_terms.h"
#include "session/session.h"
#include "spe/spe_view.h"
#include "util/error.h"
#include "util/xalloc.h"

bool record_has_spe(const struct evlist *l)
{
	return spe_evlist_event(l) != NULL;
}

int record_spe_sample(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv)
{
	/* A file of its own in TMPDIR: record writes it under a temporary name and renames it when
	 * complete, so a run that fails to start leaves nothing behind. */
	const char *tmp = getenv("TMPDIR");
	/* Named by the process: one per run, and a file a dead run with this pid left is ours. */
	char *path = xasprintf("%s/lperf-spe-%d.data", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	const char *output = o->output;
	bool quiet = o->quiet;
	o->output = path;
	o->quiet = true; /* no "Captured and wrote" line for a file the user never sees */
	int status = record_run(o, l, cmd, argc, argv);
	o->output = output;
	o->quiet = quiet;
	struct session ss;
	struct session_tool tool = { 0 };
	struct session_opts so = { 0 };
	int rc = 0;
	if (session_open(&ss, path, &so, &tool) < 0) {
		err_warn("%s", err_msg());
		rc = EXIT_RUNTIME;
	} else {
		if (spe_recording(ss.reader)) {
			struct spe_view_opts vo = { .report = true, .rows = (unsigned)o->display_rows,
						    .annotate = o->annotate, .disassemble = o->disassemble };
			struct spe_view sv;
			int lr = spe_view_load(&ss, &vo, &sv);
			err_print_notes(&ss.notes);
			if (lr == 0)
				spe_print_view(stdout, &sv, o->json);
			rc = lr == 0 ? 0 : sv.bad_itrace ? EXIT_USAGE : EXIT_RUNTIME;
			spe_view_free(&sv);
		} else {
			err_warn("no Arm SPE data was recorded");
			rc = EXIT_RUNTIME;
		}
		session_close(&ss);
	}
	unlink(path);
	char *old = xasprintf("%s.old", path); /* record keeps a previous file as .old: there is none */
	unlink(old);
	free(old);
	free(path);
	return cmd ? status : rc ? rc : status;
}
