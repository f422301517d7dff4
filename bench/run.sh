#!/bin/sh
# make bench: lperf side by side with Linux perf on the same work, printing ratios.
# Speed and memory targets live here, never in timed tests.
set -e
cd "$(dirname "$0")/.."
LPERF=${1:-build/lperf}
mkdir -p build/bench
cc -O2 -o build/bench/faults tests/helpers/faults.c
cc -O2 -o build/bench/rss bench/rss.c
exec python3 bench/stat_bench.py "$LPERF" build/bench/faults build/bench/rss
