/* lperf daemon: perf daemon's always-on record sessions (target/daemon.h). Without a subcommand
 * it lists the daemon and its sessions; start, stop, signal and ping talk to the daemon of the
 * base directory ([daemon] base in the config, or --base). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "output/daemon_out.h"
#include "target/daemon.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/outfile.h"
#include "util/xalloc.h"

struct daemon_opts {
	int verbose;
	const char *config, *base, *sep, *session;
	bool foreground;
};

static const char *const usage[] = {
	"lperf daemon [start|stop|signal|ping] [OPTIONS]",
	"lperf daemon start --config FILE [--base DIR] [--foreground]",
	NULL,
};

/* The log line's time, as perf daemon stamps its output file. */
static void log_line(void *arg, const char *msg)
{
	FILE *f = arg;
	struct timeval tv;
	struct tm tm;
	char buf[32];
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "[%s.%06ld] %s\n", buf, (long)tv.tv_usec, msg);
	fflush(f);
}

/* The config file (absolute, the daemon follows its changes) and the base directory. */
static void resolve_paths(struct daemon_opts *o, char **config, char **base)
{
	const char *cfg = o->config ? o->config : getenv("PERF_CONFIG");
	char *home_cfg = NULL;
	if (!cfg && getenv("HOME"))
		cfg = home_cfg = xasprintf("%s/.perfconfig", getenv("HOME"));
	struct daemon_config c = { 0 };
	*config = cfg ? realpath(cfg, NULL) : NULL;
	if (cfg && !*config && o->config)
		err_die(EXIT_USAGE, "config '%s': %s", cfg, strerror(errno));
	if (*config && daemon_config_read(*config, &c) < 0)
		err_die_last(EXIT_USAGE);
	const char *b = o->base ? o->base : c.base;
	if (!b)
		err_die(EXIT_USAGE, "no base directory: give --base DIR or [daemon] base = DIR in the config");
	*base = realpath(b, NULL);
	if (!*base)
		err_die(EXIT_USAGE, "base directory '%s': %s", b, strerror(errno));
	daemon_config_free(&c);
	free(home_cfg);
}

/* Standard input from /dev/null, standard output and error to BASE/output (appended). */
static void detach_output(const char *base)
{
	char *path = xasprintf("%s/output", base);
	struct outfile of;
	FILE *f = outfile_fappend(&of, path);
	if (!f)
		err_die_last(EXIT_RUNTIME);
	int in = open("/dev/null", O_RDONLY);
	fflush(stdout);
	fflush(stderr);
	if (in < 0 || dup2(in, 0) < 0 || dup2(fileno(f), 1) < 0 || dup2(fileno(f), 2) < 0)
		err_die(EXIT_RUNTIME, "cannot redirect to '%s': %s", path, strerror(errno));
	close(in);
	outfile_commit(&of, false); /* in place: closes the stream; 1 and 2 stay open on the file */
	free(path);
}

static int daemon_start(struct daemon_opts *o)
{
	struct daemon d = { .lock_fd = -1, .listen_fd = -1 };
	resolve_paths(o, &d.config, &d.base);
	if (!d.config)
		err_die(EXIT_USAGE, "no config file: give --config FILE");
	d.fixed_base = o->base != NULL;
	d.self = realpath("/proc/self/exe", NULL);
	if (!d.self)
		err_die(EXIT_RUNTIME, "cannot find lperf's executable: %s", strerror(errno));
	d.argv0 = xstrdup(program_invocation_short_name);
	pid_t owner;
	if (daemon_lock(&d, &owner) < 0) {
		if (owner) { /* perf's words: scripts look for "failed:" */
			fprintf(stderr, "failed: %s\n", err_msg());
			free(d.config);
			free(d.base);
			free(d.self);
			free(d.argv0);
			return EXIT_RUNTIME;
		}
		err_die_last(EXIT_RUNTIME);
	}
	if (!o->foreground) {
		pid_t pid = fork();
		if (pid < 0)
			err_die(EXIT_RUNTIME, "fork: %s", strerror(errno));
		if (pid > 0)
			_exit(0); /* the child holds the lock (the same open file) */
		setsid();
		detach_output(d.base);
		daemon_lock_pid(&d);
	}
	d.log = log_line;
	d.log_arg = stdout;
	if (daemon_run(&d) < 0)
		err_die_last(EXIT_RUNTIME);
	free(d.config);
	free(d.base);
	free(d.self);
	free(d.argv0);
	return 0;
}

static char *ask(struct daemon_opts *o, const char *request)
{
	char *config, *base;
	resolve_paths(o, &config, &base);
	char *answer = daemon_request(base, request);
	free(config);
	free(base);
	if (!answer)
		err_die_last(EXIT_RUNTIME);
	return answer;
}

int cmd_daemon(int argc, char **argv)
{
	struct daemon_opts o = { 0 };
	const struct option opts[] = {
		{ OPT_COUNT, 'v', "verbose", &o.verbose, NULL, "list with each file's path and the up time" },
		{ OPT_STRING, 0, "config", &o.config, "FILE", "the config file (default $PERF_CONFIG, "
		  "~/.perfconfig)" },
		{ OPT_STRING, 0, "base", &o.base, "DIR", "the base directory (instead of the config's)" },
		{ OPT_STRING, 'x', "field-separator", &o.sep, "SEP", "list as fields separated by SEP" },
		{ OPT_STRING, 0, "session", &o.session, "NAME", "signal/ping: only this session" },
		{ OPT_BOOL, 0, "foreground", &o.foreground, NULL, "start: stay in the foreground" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "daemon", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	const char *sub = i < argc ? argv[i] : "list";
	if (i + 1 < argc)
		opt_usage_error(&ctx, "unexpected '%s'", argv[i + 1]);
	if (!strcmp(sub, "start"))
		return daemon_start(&o);
	if (!strcmp(sub, "list")) {
		char *answer = ask(&o, "list");
		daemon_print_list(stdout, answer, o.sep, o.verbose > 0,
				  !strcmp(program_invocation_short_name, "perf") ? "perf record" : "lperf record");
		free(answer);
	} else if (!strcmp(sub, "ping") || !strcmp(sub, "signal")) {
		char *req = xasprintf("%s %s", sub, o.session ? o.session : "");
		char *answer = ask(&o, req);
		(sub[0] == 'p' ? daemon_print_ping : daemon_print_signal)(stdout, answer);
		free(answer);
		free(req);
	} else if (!strcmp(sub, "stop")) {
		free(ask(&o, "stop"));
	} else {
		opt_usage_error(&ctx, "unknown subcommand '%s' (start, stop, signal, ping)", sub);
	}
	return 0;
}
