#!/usr/bin/env python3
"""Overhead of Python stacks without flags (src/python/): the CPython documentation's example
(tests/workloads/perf_docs.py) on a CPython 3.11 (pyenv's, else Debian's), timed by itself (the
workload's own CPU time around runpy, so lperf's start and end do not count) under:

  none        no profiler
  record      lperf record -F 999 --call-graph dwarf,16384 (what --python records natively)
  python      lperf record --python: the same plus the BPF frame walker at each sample
  fallback    LPERF_NO_BPF=1 lperf record --python: the process_vm_readv reader at each batch

The target (issue 15): `python` within 5% of `record`. Medians of BENCH_RUNS runs (default 5,
modes interleaved); BENCH_QUICK=1: 1 run, a shorter loop.

  python_noflag_bench.py LPERF PERF_DOCS"""
import glob
import os
import statistics
import subprocess
import sys
import tempfile

LPERF, PERF_DOCS = sys.argv[1:3]
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
RUNS = int(os.environ.get("BENCH_RUNS", "1" if QUICK else "5"))
LOOPS = 5000000 if QUICK else 20000000

# CPU time (user + system, which includes the sampling interrupts charged to the task): on a
# shared machine wall time mostly measures the neighbours.
TIMED = ("import runpy, sys, time; sys.argv = [sys.argv[1], sys.argv[2]]; t = time.process_time(); "
         "runpy.run_path(sys.argv[0], run_name='__main__'); "
         "print('elapsed', time.process_time() - t, file=sys.stderr)")


def find_python():
    home = os.environ.get("HOME", "/root")
    for pat in (home + "/.pyenv/versions/3.11.*/bin/python3", "/root/.pyenv/versions/3.11.*/bin/python3"):
        found = sorted(glob.glob(pat))
        if found:
            return found[-1]
    return "/usr/bin/python3.11" if os.access("/usr/bin/python3.11", os.X_OK) else None


def run(mode, py, out):
    cmd = [py, "-c", TIMED, PERF_DOCS, str(LOOPS)]
    env = dict(os.environ)
    if mode == "record":
        cmd = [LPERF, "record", "-q", "-F", "999", "--call-graph", "dwarf,16384", "-o", out, "--"] + cmd
    elif mode in ("python", "fallback"):
        cmd = [LPERF, "record", "-q", "--python", "-o", out, "--"] + cmd
        if mode == "fallback":
            env["LPERF_NO_BPF"] = "1"
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    for line in p.stderr.splitlines():
        if line.startswith("elapsed "):
            return float(line.split()[1])
    raise RuntimeError("no timing from %s: %s" % (mode, p.stderr))


def main():
    py = find_python()
    if not py:
        print("python without flags: skipped (no CPython 3.11)")
        return
    modes = ("none", "record", "python", "fallback")
    times = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "perf.data")
        for _ in range(RUNS):
            for m in modes:
                times[m].append(run(m, py, out))
    med = {m: statistics.median(times[m]) for m in modes}
    print("\nPython stacks without flags: %s, perf_docs.py %d loops, 999 Hz, median of %d" % (py, LOOPS, RUNS))
    print("  %-9s %9s %12s %14s" % ("mode", "CPU s", "vs none", "vs record"))
    for m in modes:
        print("  %-9s %9.3f %11.1f%% %13.1f%%" % (m, med[m], 100 * (med[m] / med["none"] - 1),
                                                 100 * (med[m] / med["record"] - 1)))
    slow = 100 * (med["python"] / med["record"] - 1)
    print("  target: python within 5%% of record: %+.1f%% %s" % (slow, "(met)" if slow <= 5 else "(NOT met)"))


if __name__ == "__main__":
    main()
