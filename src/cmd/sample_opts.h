/* Options of the sampling commands: record (perf's spellings) and sample (WindowsPerf's), and
 * how they become an event list and live-source settings. */
#ifndef LPERF_CMD_SAMPLE_OPTS_H
#define LPERF_CMD_SAMPLE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/live.h"
#include "perfdata/record_switch.h"
#include "session/recording.h"
#include "util/cpuset.h"
#include "util/strbuf.h"

enum { SAMPLE_OPTS_PERF, SAMPLE_OPTS_WPERF };

struct sample_opts {
	int style;
	struct strbuf events;
	uint64_t period, freq;
	bool freq_given;            /* -F given (not the command's default) */
	enum live_callchain callchain;
	uint32_t stack_size;
	const char *pid_list, *tid_list;
	bool system_wide;
	struct cpuset cpus;         /* -C (record) / -c (sample): empty = every online CPU */
	bool cpus_given;
	const char *output;         /* record: -o (default perf.data) */
	int clockid;                /* default CLOCK_MONOTONIC: lines up with jitdump timestamps */
	size_t mmap_pages;
	int compression_level;      /* record -z: zstd level, 0 = uncompressed */
	double timeout_s;
	bool quiet, no_inherit;
	int verbose;
	/* sample's display */
	size_t display_rows;
	bool display_long, json;
	bool annotate, disassemble; /* WindowsPerf's --annotate / --disassemble */
	const char *symbols;
	bool python;                /* --python: turn on CPython's perf support in the command */
	bool force;                 /* -f: use JIT files (perf maps, jitdumps) whoever owns them */
	int python_depth;           /* --python-depth: Python frames kept per stack (0: all up to 1,024) */
	bool python_frames;         /* read Python frames from the interpreter (python/pyrec.h):
				     * --python-frames, --python with -p, or a CPython < 3.12 */
	bool dry_run;               /* record --dry-run: show the attrs, open nothing */
	size_t aux_pages;           /* -m PAGES,AUXPAGES: AUX area (SPE) pages per CPU, 0 = default */
	const char *flamegraph;     /* --flamegraph FILE: an SVG at the end of the run */
	bool nolineno;              /* --nolineno (py-spy's): the pictures' Python frames without their
				     * line, "func (file.py)" (the recording keeps the lines) */
	/* perf record's spellings (docs/record.md) */
	bool per_thread;            /* --per-thread: per-task buffers, no inherit */
	bool user_callchains;       /* --user-callchains: no kernel part in the call chains */
	bool all_user, all_kernel;  /* --all-user / --all-kernel: every event in that mode */
	int delay_ms;               /* -D: events enabled this long after the command starts (-1: never) */
	uint64_t intr_regs;         /* --intr-regs: PERF_SAMPLE_REGS_INTR mask */
	bool data, weight, phys_data, data_page_size, code_page_size, raw_samples; /* -d, -W, ... */
	bool accepted;              /* -T, -P, --sample-cpu: taken, as lperf records those anyway */
	uint64_t branch_filter;     /* -b / -j: PERF_SAMPLE_BRANCH_STACK with this branch_sample_type */
	bool no_bpf_event;          /* --no-bpf-event: no attr.bpf_event, no BPF_EVENT synthesized */
	bool off_cpu;               /* --off-cpu: lperf's BPF program's offcpu-time samples
				     * (cmd/offcpu_opts.h; without BPF a warning, as a perf without it) */
	bool wall;                  /* --wall (py-spy's --idle): cpu-clock samples and off-CPU time, one
				     * profile of the threads' wall-clock time (docs/record.md) */
	bool gil;                   /* --gil: only samples of the thread holding the GIL (py-spy's) */
	/* py-spy's spellings of what lperf does anyway (docs/python.md): accepted */
	bool native, subprocesses, nonblocking;
	bool no_buildid;            /* record -B: no build-ids in the header, none cached */
	bool no_buildid_cache;      /* record -N: build-ids in the header, none cached */
	bool buildid_all;           /* record --buildid-all: every DSO mapped, not only those hit */
	/* record --switch-output: rotate the recording into OUTPUT.<timestamp> files on SIGUSR2
	 * (signal), past a size, or every period; at most switch_max_files kept (0: all). */
	enum record_switch_mode switch_mode;
	uint64_t switch_size;
	double switch_secs;
	int switch_max_files;
	const char *control;        /* record --control fifo:CTL[,ACK] */
	const char *pprof_dir;      /* record --pprof-dir DIR: a labelled pprof per period (record_pprof.h) */
	const char *service;        /* record --service NAME: their service label */
	bool overwrite;             /* record --overwrite: only the newest records, written at a
				     * switch or at the end (a flight recorder) */
};

/* --nolineno (py-spy's), in record's and sample's tables: the pictures' Python labels without lines. */
#define SAMPLE_NOLINENO_OPT(o) \
	{ OPT_BOOL, 0, "nolineno", &(o)->nolineno, NULL, "with --python --flamegraph (or --pprof-dir): " \
	  "one frame per Python function, \"func (file.py)\", as py-spy --nolineno" }

/* py-spy's spellings where lperf does the thing (docs/python.md), in record's, sample's and top's
 * tables: --gil, and what lperf does anyway (accepted). o: a struct sample_opts *. */
#define SAMPLE_PYSPY_OPTS(o) \
	{ OPT_BOOL, 0, "gil", &(o)->gil, NULL, "only samples of the thread holding the GIL (CPython 2.7, " \
	  "3.6-3.13; implies --python-frames), as py-spy --gil" }, \
	{ OPT_BOOL, 0, "native", &(o)->native, NULL, "accepted (py-spy's): native frames are in the " \
	  "Python stacks already" }, \
	{ OPT_BOOL, 0, "subprocesses", &(o)->subprocesses, NULL, "accepted (py-spy's): children are " \
	  "followed already (unless --no-inherit)" }, \
	{ OPT_BOOL, 0, "nonblocking", &(o)->nonblocking, NULL, "py-spy's: without BPF, Python " \
	  "stacks read without pausing the threads (approximate; BPF never pauses them)" }

char **sample_parse_options(struct sample_opts *o, int argc, char **argv, const char *cmd,
			    const char *const *usage, int style);
/* The -e list (default: cycles, or cpu-clock with a note where no hardware PMU exists), with the
 * privilege defaults applied. */
int sample_build_events(struct sample_opts *o, struct evlist *l);
void sample_live_opts(const struct sample_opts *o, struct live_opts *lo);
/* record's run of o (session/recording.h) to its end: --python's setup for cmd (the command to
 * start, or NULL), the file o->output with -z, --switch-output, --overwrite, the build-ids,
 * Python frames and the Arm SPE AUXTRACE_INFO, argc/argv the command line stored; warnings and
 * notes printed as they come. ro brings the command's other hooks (events, tick, switched, arg)
 * and holds the request while rec lives. A failure ends the process (exit 2 for a request that
 * cannot work, else 1); otherwise rec is freed (recording_free) once its notes are taken. */
void sample_record(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv,
		   struct recording_opts *ro, struct recording *rec, struct recording_result *res);
/* --flamegraph of a recording written (record's, or sample's Arm SPE one): the SVG at
 * o->flamegraph, what went wrong printed. */
void sample_flamegraph(const struct sample_opts *o, const char *path);
/* --python: python/pymethod.h's pymethod_setup for the command, its decisions written back into
 * o (the call graph, --python-frames) and printed (notes, or a warning for a Python older than
 * 3.12). -1 with err_set() when the command is no Python. */
int sample_python_setup(struct sample_opts *o, char **cmd);
void sample_opts_free(struct sample_opts *o);
/* The callbacks of -e, -F, -g, --call-graph, -C and --timeout (value: a struct sample_opts), for
 * commands with a table of their own (lperf top). */
struct option;
int sample_opt_event(const struct option *opt, const char *arg);
int sample_opt_freq(const struct option *opt, const char *arg);
int sample_opt_g(const struct option *opt, const char *arg);
int sample_opt_call_graph(const struct option *opt, const char *arg);
int sample_opt_cpus(const struct option *opt, const char *arg);
int sample_opt_timeout(const struct option *opt, const char *arg);

/* How a sampling run shows itself (cmd/sample.c): lperf sample's view (all zero but argc/argv),
 * or WindowsPerf's (wperf sample and record, cmd/wperf_sample.c). */
struct sample_view {
	bool wperf;                 /* the base address line and progress marks on stdout, "Ctrl-C
				     * received" on SIGINT, and with --json WindowsPerf's document */
	bool silent;                /* wperf -q: neither marks nor tables */
	int pid;                    /* the attached process, for the base address line */
	const char *name;           /* its image's name */
	const char *export_perf_data; /* every record also into this perf.data */
	const char *json_path;      /* wperf --output: the JSON document goes here */
	const char *pe_file, *pdb_file;
	int argc;                   /* the whole command line (SPE's recording, the export's) */
	char **argv;
	struct offcpu_opts_run *offcpu; /* --wall's off-CPU side (cmd/offcpu_opts.h), or NULL */
};
struct evlist;
struct offcpu_opts_run;
/* The one sampling command body: l built from o (sample_build_events and the personality's
 * defaults), cmd the command to start or NULL. Returns the exit status. */
int sample_command(struct sample_opts *o, struct evlist *l, char **cmd, const struct sample_view *v);

#endif
