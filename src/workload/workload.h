/* perf test -w: perf 6.1's built-in workloads, which perf's shell tests profile (`perf test -w
 * leafloop`, `perf test -w sqrtloop`). Same names, arguments and shapes as perf's: noploop
 * [SEC], thloop [SEC] (two threads), leafloop [SEC] (leaf <- parent <- leafloop, built with
 * frame pointers and no inlining, so a frame-pointer unwinder must find parent), sqrtloop [SEC]
 * (forks; parent and child loop), brstack [LOOPS], datasym (runs until killed). */
#ifndef LPERF_WORKLOAD_WORKLOAD_H
#define LPERF_WORKLOAD_WORKLOAD_H

#include <stddef.h>

/* Runs workload name with its arguments; its exit status, or -1 when there is no such workload. */
int workload_run(const char *name, int argc, char **argv);
/* The names, for help and suggestions (static). */
size_t workload_names(const char *const **names);

/* leafloop.c (built with its own flags). */
int workload_leafloop(int argc, char **argv);

#endif
