/* record --pprof-dir DIR: a labelled pprof (output/pprof.c) of every recording record completes,
 * each --switch-output period's or the whole run's, as DIR/<file name>.pb.gz: the profile
 * Pyroscope and Parca ingest, labelled service, host, pid and event. Each period's file is
 * converted in a child process, so that the recording goes on reading the ring buffers; at most
 * --switch-max-files profiles stay, as the recordings. */
#ifndef LPERF_OUTPUT_PPROF_DIR_H
#define LPERF_OUTPUT_PPROF_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct pprof_dir {
	const char *dir;          /* NULL: no --pprof-dir */
	char *service;            /* the service label */
	char host[256];
	bool python, force;
	bool nolineno;            /* record --nolineno: Python frames without their line */
	clockid_t clockid;        /* the samples' clock, to date the profile in wall-clock time */
	int max_files;            /* 0: every profile stays */
	char **kept;              /* profiles asked for, oldest first (with max_files) */
	size_t nkept;
	struct pprof_dir_child {  /* converting children not yet reaped */
		pid_t pid;
		size_t seq;       /* the period's number (0: the first) */
		char *out;        /* the profile it writes */
	} *pending;
	size_t npending;
	size_t periods;           /* profiles asked for so far */
};

/* Sets up from record's options: the directory is created (mode 0755) when missing; the
 * service is service, else the basename of the command cmd (may be NULL), else "lperf". -1
 * with err_set when the directory cannot be made. */
int pprof_dir_init(struct pprof_dir *p, const char *dir, const char *service, char *const *cmd,
		      bool python, bool force, clockid_t clockid, int max_files);
/* The recording at path is complete: its profile is written by a child process. */
void pprof_dir_period(struct pprof_dir *p, const char *path);
/* Reaps the children that ended (all of them, waiting, when wait is set). */
void pprof_dir_reap(struct pprof_dir *p, bool wait);
void pprof_dir_free(struct pprof_dir *p);

#endif
