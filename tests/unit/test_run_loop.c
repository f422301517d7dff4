/* The run engine (target/run_loop.c) on real child processes: the command's exit status as a
 * shell reports it, the timeout (SIGTERM, then SIGKILL for a command that ignores it), stop
 * signals passed on (SIGTERM, SIGHUP) or turned into SIGTERM after a grace (SIGINT), a second
 * signal killing at once, ticks, runs without a command and attached processes that go away.
 * Each run happens in a forked child (the signal flags are process-wide) that reports back
 * through a pipe. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "target/run_loop.h"
#include "target/target.h"
#include "util/error.h"

struct outcome {
	int start_rc, rc, status, stop_signal, ticks;
	double elapsed;
	char err[256];
};

struct scenario {
	const char *sh;          /* the command, run by sh -c; NULL: no command */
	double timeout_s, tick_s;
	int raise_at_tick;       /* raise raise_sig at this tick (1-based); 0: never */
	int raise_sig;
	int raise_twice;         /* raise it again at the next tick */
	int tick_result_at;      /* tick returns tick_result at this tick */
	int tick_result;
	double attach_s;         /* attach to a child that lives this long; 0: none */
};

struct tick_state {
	const struct scenario *sc;
	int ticks;
};

static int on_tick(double now, void *arg)
{
	struct tick_state *ts = arg;
	int n = ++ts->ticks;
	const struct scenario *sc = ts->sc;
	if (sc->raise_at_tick && (n == sc->raise_at_tick || (sc->raise_twice && n == sc->raise_at_tick + 1)))
		raise(sc->raise_sig);
	if (sc->tick_result_at && n == sc->tick_result_at)
		return sc->tick_result;
	return 0;
}

static void run_child(const struct scenario *sc, int fd)
{
	struct outcome o;
	memset(&o, 0, sizeof(o));
	struct target t;
	memset(&t, 0, sizeof(t));
	t.go_fd = t.exec_err_fd = -1;
	struct tick_state ts = { sc, 0 };
	struct run_loop rl = { .timeout_s = sc->timeout_s, .tick_s = sc->tick_s, .max_wait_ms = 50,
			       .tick = on_tick, .arg = &ts };
	run_signals_install();
	if (sc->sh) {
		char *argv[] = { (char *)"sh", (char *)"-c", (char *)sc->sh, NULL };
		if (target_start_command(&t, argv, NULL) < 0)
			_exit(98);
		rl.target = &t;
	} else if (sc->attach_s > 0) {
		pid_t p = fork();
		if (p == 0) {
			struct timespec d = { (time_t)sc->attach_s, (long)((sc->attach_s - (time_t)sc->attach_s) * 1e9) };
			nanosleep(&d, NULL);
			_exit(0);
		}
		char list[32];
		snprintf(list, sizeof(list), "%d", (int)p);
		if (target_attach_pids(&t, list) < 0)
			_exit(97);
		rl.target = &t;
		rl.attached = true;
	}
	o.start_rc = run_loop_start(&rl);
	if (o.start_rc < 0) {
		snprintf(o.err, sizeof(o.err), "%s", err_msg());
	} else {
		o.rc = run_loop_run(&rl);
		o.status = rl.status;
		o.stop_signal = rl.stop_signal;
		o.elapsed = rl.end - rl.start;
	}
	o.ticks = ts.ticks;
	if (write(fd, &o, sizeof(o)) != (ssize_t)sizeof(o))
		_exit(96);
	target_free(&t);
	_exit(0);
}

static struct outcome run(const struct scenario *sc)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		run_child(sc, p[1]);
	}
	close(p[1]);
	struct outcome o;
	memset(&o, 0, sizeof(o));
	ssize_t n = read(p[0], &o, sizeof(o));
	close(p[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(n, (ssize_t)sizeof(o));
	return o;
}

static void exit_status(void **state)
{
	struct scenario sc = { .sh = "exit 3" };
	struct outcome o = run(&sc);
	assert_int_equal(o.start_rc, 0);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.status, 3);
	assert_int_equal(o.stop_signal, 0);

	sc.sh = "kill -KILL $$";
	o = run(&sc);
	assert_int_equal(o.status, 128 + SIGKILL);
	sc.sh = "true";
	assert_int_equal(run(&sc).status, 0);
}

static void command_not_found(void **state)
{
	/* sh itself is found; exec of a missing program is reported by run_loop_start. */
	struct target t;
	memset(&t, 0, sizeof(t));
	char *argv[] = { (char *)"/nonexistent/lperf-no-such-command", NULL };
	assert_int_equal(target_start_command(&t, argv, NULL), 0);
	struct run_loop rl = { .target = &t, .max_wait_ms = 50 };
	assert_int_equal(run_loop_start(&rl), -1);
	assert_string_equal(err_msg(), "cannot run '/nonexistent/lperf-no-such-command': command not found");
	target_free(&t);
}

static void timeout_terminates(void **state)
{
	struct scenario sc = { .sh = "exec sleep 10", .timeout_s = 0.3 };
	struct outcome o = run(&sc);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.status, 128 + SIGTERM);
	assert_int_equal(o.stop_signal, 0);
	assert_true(o.elapsed >= 0.29 && o.elapsed < 5.0); /* not the command's 10 s */
}

static void timeout_kills_what_ignores_sigterm(void **state)
{
	/* SIGTERM is ignored: SIGKILL follows 2 s later. */
	struct scenario sc = { .sh = "trap '' TERM; sleep 6; exit 4", .timeout_s = 0.2 };
	struct outcome o = run(&sc);
	assert_int_equal(o.status, 128 + SIGKILL);
	assert_true(o.elapsed >= 2.1 && o.elapsed < 5.0);
}

static void sigterm_and_sighup_are_passed_on(void **state)
{
	struct scenario sc = { .sh = "exec sleep 10", .tick_s = 0.1, .raise_at_tick = 2,
			       .raise_sig = SIGTERM };
	struct outcome o = run(&sc);
	assert_int_equal(o.stop_signal, SIGTERM);
	assert_int_equal(o.status, 128 + SIGTERM);
	assert_true(o.elapsed >= 0.19 && o.elapsed < 5.0);

	/* The command sees the very signal: its HUP trap decides the status. */
	sc.sh = "trap 'exit 5' HUP; while :; do sleep 0.05; done";
	sc.raise_sig = SIGHUP;
	o = run(&sc);
	assert_int_equal(o.stop_signal, SIGHUP);
	assert_int_equal(o.status, 5);
	assert_true(o.elapsed < 5.0);
}

static void sigint_gives_a_grace_then_sigterm(void **state)
{
	/* SIGINT to lperf alone (not through the terminal): the command gets 0.25 s, then SIGTERM. */
	struct scenario sc = { .sh = "trap 'exit 6' TERM; while :; do sleep 0.05; done", .tick_s = 0.1,
			       .raise_at_tick = 1, .raise_sig = SIGINT };
	struct outcome o = run(&sc);
	assert_int_equal(o.stop_signal, SIGINT);
	assert_int_equal(o.status, 6);
	assert_true(o.elapsed >= 0.1 + 0.25 && o.elapsed < 5.0);
}

static void second_signal_kills_at_once(void **state)
{
	struct scenario sc = { .sh = "trap '' TERM INT; sleep 3", .tick_s = 0.1, .raise_at_tick = 1,
			       .raise_sig = SIGTERM, .raise_twice = 1 };
	struct outcome o = run(&sc);
	assert_int_equal(o.stop_signal, SIGTERM);
	assert_int_equal(o.status, 128 + SIGKILL);
	assert_true(o.elapsed < 1.9); /* before SIGTERM's 2 s grace would have ended */
}

static void no_command(void **state)
{
	/* The timeout ends it; ticks come every tick_s from the start. */
	struct scenario sc = { .timeout_s = 0.55, .tick_s = 0.1 };
	struct outcome o = run(&sc);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.ticks, 5);
	assert_true(o.elapsed >= 0.54 && o.elapsed < 3.0);
	/* A signal ends it at once. */
	sc = (struct scenario){ .tick_s = 0.1, .raise_at_tick = 2, .raise_sig = SIGINT };
	o = run(&sc);
	assert_int_equal(o.stop_signal, SIGINT);
	assert_int_equal(o.ticks, 2);
	/* A tick that returns 1 ends the run like the timeout; -1 is an error. */
	sc = (struct scenario){ .tick_s = 0.05, .tick_result_at = 3, .tick_result = 1 };
	o = run(&sc);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.ticks, 3);
	sc.tick_result = -1;
	o = run(&sc);
	assert_int_equal(o.rc, -1);
	assert_int_equal(o.ticks, 3);
}

static void command_with_error_tick(void **state)
{
	struct scenario sc = { .sh = "exec sleep 10", .tick_s = 0.05, .tick_result_at = 2, .tick_result = 1 };
	struct outcome o = run(&sc);
	/* Ended like a timeout: the command got SIGTERM. */
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.status, 128 + SIGTERM);
	assert_true(o.elapsed < 5.0);
}

static void attached_process_goes_away(void **state)
{
	struct scenario sc = { .attach_s = 0.3, .timeout_s = 5 };
	struct outcome o = run(&sc);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.stop_signal, 0);
	assert_true(o.elapsed >= 0.25 && o.elapsed < 4.0); /* not the 5 s timeout */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_status),
		cmocka_unit_test(command_not_found),
		cmocka_unit_test(timeout_terminates),
		cmocka_unit_test(timeout_kills_what_ignores_sigterm),
		cmocka_unit_test(sigterm_and_sighup_are_passed_on),
		cmocka_unit_test(sigint_gives_a_grace_then_sigterm),
		cmocka_unit_test(second_signal_kills_at_once),
		cmocka_unit_test(no_command),
		cmocka_unit_test(command_with_error_tick),
		cmocka_unit_test(attached_process_goes_away),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
