/* lperf record: the live source feeding a perf.data writer. Starts the command (or attaches),
 * writes what already exists (kernel and process maps), then every record the ring buffers
 * deliver until the command ends, the timeout, Ctrl-C or SIGTERM; the file is always completed
 * and renamed into place. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/pictures.h"
#include "cmd/live_run.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "kernel/perf_event.h"
#include "stream/live.h"
#include "stream/perfdata.h"
#include "symbols/dso.h"
#include "symbols/jitdump.h"
#include "symbols/perfmap.h"
#include "target/target.h"
#include "util/error.h"
#include "util/xalloc.h"

struct rec_ctx {
	struct perfdata_writer *w;
	struct evsel_set evsels;
	uint64_t samples, lost, lost_samples, records;
	uint64_t first_time, last_time;
	char **paths;                 /* executable files mapped: their build-ids go in the header */
	int32_t *path_pids;
	size_t npaths, pcap;
	pid_t *pids;                  /* processes seen: their perf maps are stored at the end */
	size_t npids, pidcap;
	char **dumps;                 /* jitdump marker paths, and their processes */
	pid_t *dump_pids;
	size_t ndumps, dcap;
	int error;
};

static void remember_pid(struct rec_ctx *c, pid_t pid)
{
	if (pid <= 0)
		return;
	for (size_t i = c->npids; i-- > 0;)
		if (c->pids[i] == pid)
			return;
	ALLOC_GROW(c->pids, c->npids + 1, c->pidcap);
	c->pids[c->npids++] = pid;
}

static void remember_dump(struct rec_ctx *c, pid_t pid, const char *path)
{
	for (size_t i = 0; i < c->ndumps; i++)
		if (!strcmp(c->dumps[i], path))
			return;
	ALLOC_GROW(c->dumps, c->ndumps + 1, c->dcap);
	c->dump_pids = xrealloc(c->dump_pids, c->dcap * sizeof(pid_t));
	c->dump_pids[c->ndumps] = pid;
	c->dumps[c->ndumps++] = xstrdup(path);
}

/* The JIT symbol sources of the recorded processes go into the recording, so that reports give
 * the same names after /tmp is cleaned or the files are rewritten. */
static void store_jit_sources(struct rec_ctx *c, bool force)
{
	for (size_t i = 0; i < c->npids; i++) {
		char *buf;
		size_t len;
		int r = perfmap_read_pid(c->pids[i], force, &buf, &len);
		if (r > 0) {
			perfdata_writer_add_jit_source(c->w, JIT_SRC_PERFMAP, c->pids[i], buf, len);
			free(buf);
		} else if (r < 0) {
			err_warn("%s (use -f to store it anyway)", err_msg());
		}
	}
	for (size_t i = 0; i < c->ndumps; i++) {
		char *buf;
		size_t len;
		int r = perfmap_read_file(c->dumps[i], force, &buf, &len);
		if (r > 0) {
			perfdata_writer_add_jit_source(c->w, JIT_SRC_JITDUMP, c->dump_pids[i], buf, len);
			free(buf);
		} else if (r < 0) {
			err_warn("%s (use -f to store it anyway)", err_msg());
		}
	}
}

static void remember_path(struct rec_ctx *c, const struct rec_mmap *m)
{
	if (m->data || m->filename[0] != '/' || !(m->prot & 4 /* PROT_EXEC */))
		return;
	for (size_t i = 0; i < c->npaths; i++)
		if (!strcmp(c->paths[i], m->filename))
			return;
	ALLOC_GROW(c->paths, c->npaths + 1, c->pcap);
	c->path_pids = xrealloc(c->path_pids, c->pcap * sizeof(int32_t));
	c->path_pids[c->npaths] = (int32_t)m->pid;
	c->paths[c->npaths++] = xstrdup(m->filename);
}

static int on_record(const struct perf_event_header *h, void *arg)
{
	struct rec_ctx *c = arg;
	c->records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		c->samples++;
		uint64_t t = record_time(&c->evsels, h);
		if (t && (!c->first_time || t < c->first_time))
			c->first_time = t;
		if (t > c->last_time)
			c->last_time = t;
		break;
	}
	case PERF_RECORD_LOST: {
		struct rec_lost l;
		if (record_parse_lost(h, &l) == 0)
			c->lost += l.lost;
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		struct rec_lost l;
		if (record_parse_lost(h, &l) == 0)
			c->lost_samples += l.lost;
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct rec_mmap m;
		if (record_parse_mmap(h, &m) == 0) {
			remember_path(c, &m);
			if (perfmap_covers_mapping(m.filename, m.prot))
				remember_pid(c, (pid_t)m.pid);
			if (jitdump_is_marker(m.filename, NULL))
				remember_dump(c, (pid_t)m.pid, m.filename);
		}
		break;
	}
	case PERF_RECORD_COMM: {
		struct rec_comm cm;
		if (record_parse_comm(h, &cm) == 0)
			remember_pid(c, (pid_t)cm.pid);
		break;
	}
	default:
		break;
	}
	if (perfdata_writer_write(c->w, h, h->size) < 0) {
		c->error = 1;
		return -1;
	}
	return 0;
}

static void progress(const struct rec_ctx *c, bool final)
{
	fprintf(stderr, "\r[ lperf record: %" PRIu64 " samples, %" PRIu64 " lost, %.1f MB ]%s", c->samples,
		c->lost + c->lost_samples, (double)perfdata_writer_bytes(c->w) / 1e6, final ? "\n" : "");
}

struct progress_ctx {
	const struct rec_ctx *c;
	double next;
	bool tty;
};

static void progress_tick(long n, double now, void *arg)
{
	struct progress_ctx *p = arg;
	if (p->tty && now >= p->next) {
		progress(p->c, false);
		p->next = now + 0.5;
	}
}

static const char *const usage[] = {
	"lperf record [OPTIONS] [--] COMMAND [ARGS]",
	"lperf record [OPTIONS] -p PID | -t TID | -a | -C CPUS [--timeout DUR]",
	NULL,
};

int cmd_record(int argc, char **argv)
{
	struct sample_opts o;
	char **cmd = sample_parse_options(&o, argc, argv, "record", usage, SAMPLE_OPTS_PERF);
	err_quiet = o.quiet;

	struct evlist l = { 0 };
	if (sample_build_events(&o, &l) < 0)
		err_die_last(EXIT_USAGE);

	if (cmd && sample_python_setup(&o, cmd) < 0)
		err_die_last(EXIT_USAGE);
	struct live_run run;
	if (live_run_open(&run, &o, cmd, &l, false) < 0)
		err_die_last(EXIT_RUNTIME);
	struct rec_ctx c = { 0 };
	c.w = perfdata_writer_open(o.output);
	if (!c.w) {
		live_run_close(&run);
		err_die_last(EXIT_RUNTIME);
	}
	c.evsels = run.evsels;
	for (size_t e = 0; e < l.n; e++)
		perfdata_writer_add_event(c.w, &run.live.attrs[e], l.ev[e].name, run.live.ids[e],
					  run.live.nids[e]);
	perfdata_writer_set_cmdline(c.w, argc + 1, argv - 1);
	live_run_synthesize(&run, &o, on_record, &c);

	struct progress_ctx pc = { &c, live_run_now() + 0.5, !o.quiet && isatty(STDERR_FILENO) };
	int status;
	int lr = live_run_loop(&run, &o, on_record, &c, progress_tick, &pc, &status);
	if (lr == -2) {
		perfdata_writer_close(c.w, false, false);
		live_run_close(&run);
		err_die_last(EXIT_RUNTIME);
	}
	if (lr < 0)
		c.error = 1;
	if (pc.tty)
		progress(&c, true);
	for (size_t i = 0; i < c.npaths; i++) {
		uint8_t id[20];
		size_t n = elf_read_build_id(c.paths[i], id);
		if (n)
			perfdata_writer_add_buildid(c.w, c.path_pids[i], PERF_RECORD_MISC_USER, id, n, c.paths[i]);
	}
	store_jit_sources(&c, o.force);
	perfdata_writer_set_sample_times(c.w, c.first_time, c.last_time);
	uint64_t bytes = perfdata_writer_bytes(c.w);
	int wr = c.error ? -1 : perfdata_writer_close(c.w, true, true);
	if (c.error) {
		const char *why = err_msg();
		perfdata_writer_close(c.w, true, true); /* keep what was recorded up to the failure */
		err_warn("recording stopped early: %s", why);
	}
	if (wr < 0 && !c.error)
		err_die(EXIT_RUNTIME, "cannot write '%s': %s", o.output, err_msg());
	if (!o.quiet)
		fprintf(stderr, "[ lperf record: Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
			(double)bytes / 1e6, o.output, c.samples);
	uint64_t lost = c.lost > c.lost_samples ? c.lost : c.lost_samples;
	if (lost)
		err_warn("%" PRIu64 " samples lost (%.2f%%): the ring buffers filled up; use a larger -m "
			 "or a lower -F", lost, 100.0 * (double)lost / (double)(lost + c.samples));
	if (o.flamegraph && wr == 0 && pictures_after_record(o.flamegraph, o.output, o.python, o.force, o.quiet) < 0)
		err_warn("--flamegraph: %s", err_msg());
	for (size_t i = 0; i < c.npaths; i++)
		free(c.paths[i]);
	free(c.paths);
	free(c.path_pids);
	free(c.pids);
	for (size_t i = 0; i < c.ndumps; i++)
		free(c.dumps[i]);
	free(c.dumps);
	free(c.dump_pids);
	live_run_close(&run);
	evlist_free(&l);
	sample_opts_free(&o);
	return cmd ? status : (c.error ? EXIT_RUNTIME : 0);
}
