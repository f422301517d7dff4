/* lperf daemon (perf daemon): always-on record sessions under one base directory.
 *
 * The config file is perf's (git-config style): [daemon] base = DIR, and one [session-NAME]
 * section per session with run = RECORD-ARGS. The daemon holds BASE/lock (flock: one daemon per
 * base), listens on the UNIX socket BASE/control for the client commands, and runs each session as
 * `lperf record --control=fifo:control,ack --service=NAME RECORD-ARGS` in BASE/session-NAME (its standard output
 * and error in BASE/session-NAME/output). When the config file changes, sessions whose run line
 * changed are restarted, removed ones are stopped and new ones started; a session whose record
 * ends is dropped (a later config change starts it again).
 *
 * Requests and answers on the socket are lines of tab-separated fields:
 *   list              -> "D pid base start" then "S pid name run base start" per session
 *   ping [NAME]       -> "P name OK|FAIL|NOTFOUND" per session (or for NAME)
 *   signal [NAME]     -> "G name pid" per session signalled (SIGUSR2)
 *   stop              -> "OK", then the sessions are stopped and the daemon ends
 * (The client renders them: output/daemon_out.c.) */
#ifndef LPERF_TARGET_DAEMON_H
#define LPERF_TARGET_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct daemon_cfg_session {
	char *name, *run;
};

struct daemon_config {
	char *base;                     /* [daemon] base, NULL when not set */
	struct daemon_cfg_session *s;
	size_t n;
};

/* Reads the config file: -1 with err_set naming the file and line. */
int daemon_config_read(const char *path, struct daemon_config *c);
void daemon_config_free(struct daemon_config *c);

struct daemon_session {
	char *name, *run, *base;
	pid_t pid;
	time_t start;
	bool keep;  /* during a reload: still in the config, unchanged */
};

struct daemon {
	char *config;       /* the config file (re-read when it changes) */
	char *base;         /* the base directory (absolute) */
	char *self;         /* lperf's executable, and argv[0] to run it with */
	char *argv0;
	bool fixed_base;    /* --base given: the config's base is not used */
	int lock_fd, listen_fd;
	time_t start;
	struct daemon_session *s;
	size_t n;
	struct timespec cfg_mtime;
	off_t cfg_size;
	ino_t cfg_ino;
	void (*log)(void *arg, const char *msg);  /* the daemon's log (its output file) */
	void *log_arg;
};

/* Takes BASE/lock for this process: -1 with err_set; when another daemon holds it, *owner is
 * its pid and the message is perf's ("another ... daemon (pid N) owns BASE"). */
int daemon_lock(struct daemon *d, pid_t *owner);
/* Records this process's pid in the lock (after forking into the background). */
void daemon_lock_pid(struct daemon *d);
/* Runs the daemon until stopped (client stop, SIGTERM, SIGINT): listens on BASE/control, starts the
 * config's sessions, follows config changes, and at the end stops every session. -1 with err_set
 * when it could not start. */
int daemon_run(struct daemon *d);

/* The client side: sends request (one line, no newline) to the daemon of base and returns its
 * answer (free it); NULL with err_set when no daemon answers there. */
char *daemon_request(const char *base, const char *request);

#endif
