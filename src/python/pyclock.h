/* A thread's CPU-time alarm for the paused sampler (python/pysampler.h): a perf task-clock event
 * of one thread of another process (allowed to its owner with perf_event_paranoid <= 2, kernel
 * time then left out) whose every overflow sends PYCLOCK_SIG to that thread itself (O_ASYNC,
 * F_SETOWN_EX to the thread, F_SETSIG). As the thread is traced, the signal stops it in a
 * signal-delivery stop at the very instant its CPU time reached the period (the kernel's own
 * hrtimer in the thread's CPU time, as the cpu-clock/task-clock samples are taken), where the
 * tracer reads it and suppresses the signal. */
#ifndef LPERF_PYTHON_PYCLOCK_H
#define LPERF_PYTHON_PYCLOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* SIGURG: ignored by default (one left queued when a thread is let go is taken by the tracer
 * first all the same: python/pysampler.c settle). */
#define PYCLOCK_SIG SIGURG

/* The alarm of thread tid every period ns of its CPU time; *user_only: kernel time left out
 * (set here when the kernel's time may not be counted: perf_event_paranoid 2 without
 * CAP_PERFMON; then kept for the next threads). The fd (close-on-exec), or -1 with errno. */
int pyclock_open(pid_t tid, uint64_t period, bool *user_only);
/* The period to the next alarm, from the thread's next run on (the thread stopped). */
int pyclock_set(int fd, uint64_t period);
/* Whether a signal-delivery stop's siginfo is fd's alarm. */
bool pyclock_is(const siginfo_t *si, int fd);
/* Stops fd's alarm for good (no signal is raised after; one raised before may be queued). */
int pyclock_stop(int fd);
/* Whether tid (traced by the caller and stopped) has fd's alarm signal queued, raised before it
 * stopped: a thread asked to stop takes the interrupt's stop before its pending signals. */
bool pyclock_queued(pid_t tid, int fd);

#endif
