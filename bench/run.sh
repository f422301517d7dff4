#!/bin/sh
# make bench: lperf side by side with Linux perf on the same work, printing ratios.
# Speed and memory targets live here, never in timed tests.
#   BENCH_RUNS=N   runs per measurement (default 15 for counting, 5 for sampling)
#   BENCH_QUICK=1  a smoke run: 3 counting runs, 1 sampling run, shorter workloads
set -e
cd "$(dirname "$0")/.."
LPERF=${1:-build/lperf}
mkdir -p build/bench
cc -O2 -o build/bench/faults tests/helpers/faults.c
cc -O2 -o build/bench/rss bench/rss.c
# The sampling workload: frame pointers for -g, and an optimised build for DWARF unwinding.
cc -O0 -fno-omit-frame-pointer -o build/bench/shares-fp tests/workloads/shares.c
cc -O2 -fomit-frame-pointer -o build/bench/shares-o2 tests/workloads/shares.c
if [ -n "$BENCH_QUICK" ] && [ "$BENCH_QUICK" != 0 ]; then
	stat_runs=${BENCH_RUNS:-3}
else
	stat_runs=${BENCH_RUNS:-15}
fi
BENCH_RUNS=$stat_runs python3 bench/stat_bench.py "$LPERF" build/bench/faults build/bench/rss
python3 bench/sample_bench.py "$LPERF" build/bench/shares-fp build/bench/shares-o2 build/bench/rss \
	build/bench/sample
python3 bench/python_noflag_bench.py "$LPERF" tests/workloads/perf_docs.py
sh bench/srcline_bench.sh "$LPERF" build/bench/srcline
# DWARF reports, and Python end to end (skipped with a note when pyenv has no CPython 3.13).
python3 bench/python_bench.py "$LPERF" build/bench/shares-o2 build/bench/rss build/bench/python \
	tests/workloads/perf_docs.py
# Issue 14's remaining targets: a deep-stack Python report on one file, live DWARF at 10 kHz.
exec python3 bench/targets_bench.py "$LPERF" build/bench/shares-o2 build/bench/rss build/bench/targets \
	tests/workloads/perf_docs.py
