#!/usr/bin/env python3
"""Counting benchmarks: lperf stat against perf stat on identical work.

For each case, both tools run the same command N times; we report the median wall time of
the whole tool invocation, its peak memory (max RSS of the tool process), and the ratios
lperf/perf. A ratio under 1 means lperf is cheaper."""
import os
import shutil
import statistics
import subprocess
import sys

LPERF, FAULTS, RSS = sys.argv[1], sys.argv[2], sys.argv[3]
RUNS = int(os.environ.get("BENCH_RUNS", "15"))


def measure(argv):
    walls, rss = [], []
    for _ in range(RUNS):
        out = subprocess.run([RSS] + argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, check=True).stdout.split()[-3:]
        kib, wall, code = int(out[0]), float(out[1]), int(out[2])
        if code != 0:
            sys.exit(f"bench: {' '.join(argv)} exited with {code}")
        walls.append(wall)
        rss.append(kib)
    return statistics.median(walls), max(rss)


CASES = [
    ("start-up: count `true`", ["-e", "task-clock,page-faults", "--", "true"]),
    ("software events on 2000 page faults", ["-e", "task-clock,context-switches,cpu-migrations,page-faults",
                                             "--", FAULTS, "2000"]),
    ("CPU-bound 200 ms", ["-e", "task-clock", "--", FAULTS, "10", "200"]),
    ("system-wide 200 ms", ["-a", "-e", "cpu-clock,context-switches", "--", "sleep", "0.2"]),
    ("interval printing every 50 ms", ["-I", "50", "-e", "task-clock", "--", FAULTS, "10", "300"]),
]

if not shutil.which("perf"):
    sys.exit("bench: Linux perf is not installed (apt-get install linux-perf)")
print(f"lperf stat vs perf stat, median of {RUNS} runs each (wall time of the whole tool; "
      "peak RSS of the tool)\n")
print(f"{'case':40} {'lperf ms':>9} {'perf ms':>9} {'ratio':>6} {'lperf KiB':>10} {'perf KiB':>9} {'ratio':>6}")
for title, args in CASES:
    lw, lr = measure([LPERF, "stat", "-q"] + args)
    pw, pr = measure(["perf", "stat"] + args)
    print(f"{title:40} {lw*1e3:9.1f} {pw*1e3:9.1f} {lw/pw:6.2f} {lr:10d} {pr:9d} {lr/pr:6.2f}")
