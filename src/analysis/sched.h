/* perf sched's analyses of a recording's scheduler tracepoints (sched_switch, sched_stat_runtime,
 * sched_wakeup/waking/wakeup_new, sched_migrate_task), as perf 6.1 computes them:
 * sched_tp.c reads the events' fields through libtraceevent; sched_lat.c is `sched latency`
 * (each task's delays from wakeup to running); sched_hist.c is `sched timehist` (each switch
 * with the task's wait, scheduling delay and run time, and the per-task summary) and `sched
 * map` (which task each CPU runs at each switch). Nothing here prints: timehist and map hand
 * their lines to a callback, latency leaves sorted rows. */
#ifndef LPERF_ANALYSIS_SCHED_H
#define LPERF_ANALYSIS_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/session.h"
#include "util/cpuset.h"
#include "util/hashmap.h"

struct tep_handle;
struct tep_format_field;

enum sched_kind { SCHED_NONE, SCHED_SWITCH, SCHED_RUNTIME, SCHED_WAKEUP, SCHED_MIGRATE };

#define SCHED_COMM_LEN 32 /* perf's longest "comm[tid/pid]" is 31 characters */

/* One scheduler event, its fields read. */
struct sched_event {
	enum sched_kind kind;
	uint64_t time;
	uint32_t cpu;
	int32_t pid, tid;            /* the sample's: the task on the CPU */
	int32_t prev_pid, next_pid;  /* switch */
	int64_t prev_state;
	char next_comm[17];
	int32_t target;              /* runtime, wakeup, migrate: the task the event is about */
	bool waking;                 /* a wakeup from sched_waking (perf 6.1's latency ignores them) */
	uint64_t runtime;
	int32_t orig_cpu, dest_cpu;
	const struct resolved_sample *rs; /* the sample (its call chain), during the call */
};

/* The sched events of one recording and their fields (-1 ids: not recorded). */
struct sched_tp {
	int id[5][3];                /* by sched_kind; wakeups: wakeup, waking, wakeup_new */
	struct tep_format_field *prev_pid, *prev_state, *next_pid, *next_comm;
	struct tep_format_field *rt_pid, *rt_runtime, *wk_pid[3], *mg_pid, *mg_orig, *mg_dest;
};

/* -1 after err_set when the recording has no sched:sched_switch (the message says what to run). */
int sched_tp_init(struct sched_tp *tp, struct tep_handle *tep);
/* 1: ev holds one of the events; 0: another event; -1: its fields do not read (bounds). */
int sched_tp_decode(const struct sched_tp *tp, const struct resolved_sample *rs, struct sched_event *ev);
/* A task's name as perf shows it: the model's comm, "swapper" for tid 0, ":TID" unnamed. */
const char *sched_comm(struct machine *m, int32_t tid);
/* A time as perf prints them: seconds with 6 decimals (microseconds, truncated). */
void sched_time_str(uint64_t ns, char *buf, size_t size);

/* ---- sched latency (sched_lat.c) ---- */
enum sched_lat_key { SCHED_LAT_PID, SCHED_LAT_AVG, SCHED_LAT_MAX, SCHED_LAT_SWITCH, SCHED_LAT_RUNTIME };

struct sched_lat_task {
	int32_t tid;
	char *comm;                  /* set by sched_lat_finish */
	int merged;                  /* tasks of this comm folded in (0: per pid) */
	uint64_t runtime, switches, total_lat, max_lat, max_start, max_end;
	/* the last atom: since the task went out */
	int state;                   /* SCHED_ATOM_* */
	uint64_t out_time, wake_time;
};

struct sched_lat {
	int profile_cpu;             /* -C: the one CPU looked at (-1: all) */
	bool per_pid;                /* -p: no merging by comm */
	struct hashmap bytid;        /* tid -> index + 1 into v */
	struct sched_lat_task *v;
	size_t n, cap;
	int32_t *curr;               /* per CPU: the task switched in last (-1: none yet) */
	size_t ncpu;
	uint64_t nr_timestamps, nr_unordered, nr_switch_bugs;
	/* after sched_lat_finish: the rows shown, in order, and their totals */
	struct sched_lat_task **rows;
	size_t nrows;
	uint64_t all_runtime, all_count;
};

void sched_lat_init(struct sched_lat *l, int profile_cpu, bool per_pid);
void sched_lat_event(struct sched_lat *l, const struct sched_event *ev);
/* perf's -s: keys separated by ',' or ' ' (runtime, switch, avg, max, pid); -1 after err_set on
 * an unknown key. */
int sched_lat_keys(const char *spec, int *keys, size_t max, size_t *n);
/* Names the tasks (m at the end of the walk), merges them by comm unless per pid, sorts. */
void sched_lat_finish(struct sched_lat *l, struct machine *m, const int *keys, size_t nkeys);
void sched_lat_free(struct sched_lat *l);

/* ---- sched timehist and map (sched_hist.c) ---- */
struct sched_task {
	char comm[SCHED_COMM_LEN];   /* the name as perf shows it in that line */
	int32_t tid, pid;            /* pid 0: perf shows the comm alone */
};

enum sched_row_kind { SCHED_ROW_SWITCH, SCHED_ROW_WAKEUP, SCHED_ROW_MIGRATE };

struct sched_hist_row {
	enum sched_row_kind kind;
	uint64_t time;
	uint32_t cpu;
	uint32_t ncpus;              /* the CPUs known so far (-V's columns) */
	bool idle;                   /* the task is a CPU's idle task */
	struct sched_task task;      /* switch: the task switched out; else the sample's */
	uint64_t wait, delay, run;   /* switch */
	int64_t state;
	char next_comm[17];
	int32_t next_pid;
	struct sched_task other;     /* awakened or migrated */
	int32_t orig_cpu, dest_cpu;
	const struct frame *frames;  /* switch: the call chain of the task switched out (none for
				      * an idle task or without call chains) */
	size_t nframes;
};

struct sched_stats { double n, mean, m2; uint64_t min, max; };

struct sched_thr {
	int32_t tid, pid, ppid;
	size_t removed;              /* its place in sched_hist.removed + 1; 0 while current */
	bool dead, idle;
	uint64_t last_time, ready_to_run;
	int64_t last_state;
	uint64_t dt_run, dt_sleep, dt_iowait, dt_preempt, dt_delay;
	struct sched_stats run;
	uint64_t total_run, total_sleep, total_iowait, total_preempt, total_delay;
	uint64_t migrations;
	struct sched_thr *last_thread; /* -I, a CPU's idle task: the task that went out last there */
	char shortname[3];           /* map */
	bool comm_changed;
};

/* A list of pids or tids (-p, -t): "1,2,3". */
struct sched_ids {
	int32_t *v;
	size_t n;
};

/* -1 after err_set naming the word that is not a number. */
int sched_ids_parse(const char *s, struct sched_ids *ids);
void sched_ids_free(struct sched_ids *ids);
/* --time START,STOP (seconds, either may be empty; START alone: from START on), as perf sched
 * timehist reads it (util/timerange.h's timerange_parse_one): -1 after err_set. */
int sched_time_window(const char *s, uint64_t *start, uint64_t *end);

struct sched_hist {
	bool wakeups, migrations, summary_only;
	bool idle_hist;              /* -I: only switches to and from the idle task; each idle period
				      * is the time of the task that went out before it */
	const struct cpuset *cpus;   /* -C: switches on these CPUs only (NULL: all) */
	const struct sched_ids *pids, *tids; /* -p, -t: these tasks only (NULL: all) */
	uint64_t skipped;            /* samples of tasks left out (perf then shows no idle stats) */
	uint64_t tstart, tend;       /* --time: the window (0: open), ns */
	size_t chain_max;            /* -g: addresses of each switch's call chain looked at (0: none) */
	struct frame *chain;         /* the switch's frames (hist_chain) */
	size_t chain_cap;
	void (*row)(void *arg, const struct sched_hist_row *r);
	void *arg;
	struct machine *m;
	struct hashmap thr;          /* tid -> struct sched_thr * */
	struct sched_thr **idle;     /* per CPU */
	struct sched_thr **removed;  /* tasks a FORK replaced: perf still lists them, in this order */
	size_t nremoved, removed_cap;
	size_t nidle;
	uint64_t *last_switch;       /* per CPU */
	size_t ncpu;
	uint32_t max_cpu;
	uint64_t hist_start, hist_end;
};

void sched_hist_init(struct sched_hist *h, struct machine *m, uint32_t nr_cpus_online);
void sched_hist_event(struct sched_hist *h, const struct sched_event *ev);
/* The side band perf's threads follow: a FORK (a new task, its parent), an EXIT (dead), a COMM
 * (map names the task again) and a user MMAP (both name the task's process if it is new). */
void sched_hist_fork(struct sched_hist *h, int32_t pid, int32_t tid, int32_t ppid, int32_t ptid);
void sched_hist_exit(struct sched_hist *h, int32_t tid);
void sched_hist_comm(struct sched_hist *h, int32_t pid, int32_t tid);
void sched_hist_mmap(struct sched_hist *h, int32_t pid, int32_t tid);
/* The tasks that ran and -p/-t keep, in perf's order (by tid modulo 256, then tid); dead: the
 * terminated ones. */
size_t sched_hist_tasks(const struct sched_hist *h, bool dead, struct sched_thr ***out);
void sched_task_name(struct machine *m, const struct sched_thr *t, struct sched_task *out);
double sched_stats_stddev_pct(const struct sched_stats *s);
void sched_hist_free(struct sched_hist *h);

/* sched map: which task each CPU runs after each switch. */
struct sched_map_row {
	uint64_t time;
	uint32_t this_cpu;
	size_t ncells;
	const char (*cells)[3];      /* per CPU column: the task's short name, "" none yet */
	const int32_t *cell_cpu;     /* the CPU of each column */
	bool shown;                  /* the switching CPU is one --cpus shows: the time and name follow */
	bool named;                  /* a new short name or a comm change: show "XX => comm:tid" */
	const char *shortname, *comm;
	int32_t tid;
	bool new_cpu;                /* --compact: the CPU's first switch */
};

struct sched_map {
	bool compact;
	const struct cpuset *cpus;   /* --cpus: the columns shown (NULL: all) */
	bool verbose;                /* -v: every switch names the task (but the idle task) */
	void (*row)(void *arg, const struct sched_map_row *r);
	void *arg;
	struct sched_hist h;         /* the tasks (short names, comm changes) */
	struct sched_thr **curr;     /* per CPU: the task running, NULL none */
	char (*cells)[3];
	int32_t *cell_cpu;           /* the columns' CPUs (all, or --compact's in order seen) */
	int32_t *shown_cpu;          /* those --cpus shows */
	size_t ncpu, ncols;
	uint32_t max_cpu;
	char next1, next2;
};

void sched_map_init(struct sched_map *mp, struct machine *m, uint32_t ncpus);
void sched_map_event(struct sched_map *mp, const struct sched_event *ev);
void sched_map_free(struct sched_map *mp);

#endif
