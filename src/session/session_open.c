/* Opening a recording into a session, and what a user should hear about the walk afterwards
 * (see session.h). */
#include "session/session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/srcline.h"
#include "util/error.h"
#include "util/xalloc.h"

/* --time against the header's first and last sample times (perf's, with no scan of the
 * samples: a recording without them takes no percentages, as in perf). */
static int window_read(struct session *ss, const char *spec, const struct perfdata_info *in)
{
	if (timerange_is_percent(spec) && !in->first_sample_time && !in->last_sample_time) {
		ss->window_no_times = true;
		return err_set("--time %s: the recording's header has no first and last sample times "
			       "(perf's SAMPLE_TIME feature; a pipe has none), which percentages are of: "
			       "give START,STOP in seconds", spec);
	}
	return timerange_parse(spec, in->first_sample_time, in->last_sample_time, &ss->window);
}

int session_attach(struct session *ss, struct perfdata_reader *r, const struct session_opts *o,
		   const struct session_tool *tool)
{
	session_init(ss, &r->evsels, tool);
	ss->reader = r;
	if (tool->time_spec && window_read(ss, tool->time_spec, &r->info) < 0)
		return -1;
	ss->force = o && o->force;
	ss->threads = o ? o->threads : 0;
	ss->threads_auto = o && o->threads_auto;
	if (o && o->symfs)
		machine_set_symfs(&ss->machine, o->symfs);
	return 0;
}

int session_open(struct session *ss, const char *path, const struct session_opts *o,
		 const struct session_tool *tool)
{
	memset(ss, 0, sizeof(*ss));
	struct perfdata_reader *r = xcalloc(1, sizeof(*r));
	if (perfdata_open_force(r, path, o && o->force) < 0) {
		free(r);
		return -1;
	}
	int rc = session_attach(ss, r, o, tool); /* session_init clears ss */
	ss->own_reader = true;
	if (rc < 0) {
		bool no_times = ss->window_no_times;
		session_close(ss);
		ss->window_no_times = no_times;
		return -1;
	}
	return 0;
}

int session_run(struct session *ss)
{
	int rc = session_process_file(ss, ss->reader) ? -1 : 0;
	/* the kernel's load, which lookups left for later skipped, says what it says (notes) */
	dso_cache_settle(&ss->machine.dsos);
	return rc;
}

bool session_has_callchains(const struct session *ss)
{
	for (size_t e = 0; e < ss->evsels->n; e++)
		if (ss->evsels->v[e].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

static void diagnose_jit(struct session *ss, int verbose)
{
	const struct jit_source *js;
	size_t njs = machine_jit_sources(&ss->machine, &js);
	for (size_t i = 0; i < njs; i++) {
		/* A JIT that writes a jitdump writes no perf map: its absence is no news then; nor,
		 * as with perf, for a process that never wrote one (node without flags), unless -v. */
		bool missing = js[i].perfmap_note && !strncmp(js[i].perfmap_note, "no perf map", 11);
		if (js[i].perfmap_note && !js[i].jitdump_path && (!missing || verbose))
			notes_add_level(&ss->notes, NOTES_NOTE, "%s: %s",
					js[i].perfmap_path ? js[i].perfmap_path : "perf map", js[i].perfmap_note);
		if (js[i].jitdump_note)
			notes_add_level(&ss->notes, NOTES_NOTE, "%s: %s",
					js[i].jitdump_path ? js[i].jitdump_path : "jitdump", js[i].jitdump_note);
	}
}

/* Feature sections of a newer perf: skipped, said once with their bit numbers. */
static void diagnose_features(struct session *ss)
{
	const struct perfdata_reader *r = ss->reader;
	char bits[256] = "";
	size_t len = 0, n = 0;
	for (int bit = 1; r && bit < FEAT_MAX; bit++) {
		if (!(r->features[bit / 64] >> (bit % 64) & 1) || strcmp(perfdata_feature_name(bit), "unknown feature"))
			continue;
		if (len < sizeof(bits) - 16)
			len += (size_t)snprintf(bits + len, sizeof(bits) - len, "%s%d", n ? ", " : "", bit);
		n++;
	}
	if (n)
		notes_add_level(&ss->notes, NOTES_NOTE, "%s: feature bit%s %s unknown to lperf (a newer perf's?): "
				"%s skipped", r->path, n > 1 ? "s" : "", bits, n > 1 ? "their sections were" :
				"its section was");
}

uint64_t session_lost(const struct session *ss, uint64_t *replaced)
{
	/* perf writes the same loss twice (LOST records, and LOST_SAMPLES from the counters' lost
	 * counts): the larger, never the sum. */
	uint64_t lost = ss->lost_records > ss->lost_samples ? ss->lost_records : ss->lost_samples;
	uint64_t r = ss->reader && ss->reader->info.has_feature[FEAT_LPERF_LOST] ? ss->reader->info.lost_replaced : 0;
	if (r > lost) /* the walk stopped early, or the file was cut */
		r = lost;
	if (replaced)
		*replaced = r;
	return lost - r;
}

void session_diagnose(struct session *ss, int verbose)
{
	struct notes *ns = &ss->notes;
	diagnose_features(ss);
	/* A stack cut in a file that was not read (another build) is no matter of the copy's size. */
	uint64_t unread = ss->resolver.truncated_unread, cut = ss->resolver.truncated - unread;
	uint64_t resolved = ss->nsamples - ss->window_skipped; /* the stacks looked at */
	if (verbose && ss->window_skipped)
		notes_add_level(ns, NOTES_NOTE, "%" PRIu64 " of %" PRIu64 " samples are outside the --time "
				"window: counted, not resolved", ss->window_skipped, ss->nsamples);
	if (unread)
		notes_add_level(ns, NOTES_NOTE, "%" PRIu64 " of %" PRIu64 " stacks end in [truncated] in a "
				"file that is not the recorded build (see its warning): they cannot be unwound "
				"without the build that ran", unread, resolved);
	if (cut)
		notes_add_level(ns, NOTES_NOTE, "%" PRIu64 " of %" PRIu64 " stacks are cut short and end in "
				"[truncated]: the user stack copy was too small or code had no unwind "
				"information; try a larger --call-graph dwarf,SIZE (up to 65528)",
				cut, resolved);
	if (ss->bad_samples)
		notes_add(ns, "%" PRIu64 " samples could not be parsed and were skipped", ss->bad_samples);
	uint64_t replaced, lost = session_lost(ss, &replaced);
	if (lost)
		notes_add(ns, "%" PRIu64 " samples lost while recording (%.2f%%)", lost,
			  100.0 * (double)lost / (double)(lost + ss->nsamples));
	if (replaced) /* as record said it */
		notes_add_level(ns, NOTES_NOTE, "%" PRIu64 " of the kernel's samples of the paused Python "
				"processes were lost while recording (the ring buffers filled up): none of the "
				"profile's, lperf wrote those processes' samples itself (the recording's LOST "
				"records count them, as perf's would)", replaced);
	diagnose_jit(ss, verbose);
	const struct dso_cache *c = &ss->machine.dsos;
	for (size_t i = 0; i < c->n; i++) {
		const struct dso *d = c->v[i];
		if (srcline_refusal(d))
			notes_add(ns, "%s: %s", d->path, srcline_refusal(d));
		if (d->cfi_refused) /* the bound is unwind/cfa.h's CFA_MAX_REG */
			notes_add(ns, "%s: its unwind information (.eh_frame/.debug_frame) names register numbers "
				  "past 4095 or cannot be decoded: a damaged or hostile file, not used; DWARF stacks "
				  "end in it", d->path);
		if (d->mismatch)
			notes_add(ns, "%s: its samples are not resolved", dso_load_note(d) ? dso_load_note(d) :
				  d->path);
		else if (d->cached && verbose)
			notes_add_level(ns, NOTES_NOTE, "%s is another build than the recording's: read from the "
					"build-id cache's copy %s", d->path, d->cached);
		else if (d->loaded && d->kind == DSO_KERNEL && dso_load_note(d))
			notes_add_level(ns, NOTES_NOTE, "%s: %s", d->path, dso_load_note(d));
	}
	session_hints(ss);
}

void session_close(struct session *ss)
{
	struct perfdata_reader *r = ss->own_reader ? ss->reader : NULL;
	srcline_cache_save();
	session_free(ss);
	if (r) {
		perfdata_close(r);
		free(r);
	}
}
