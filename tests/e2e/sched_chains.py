#!/usr/bin/env python3
"""sched_chains.py PERF_OUT LPERF_OUT: timehist's lines with call chains, perf 6.1's against
lperf's. They must be the same line for line, but for the user-space frames perf 6.1 leaves
"[unknown]": its timehist reads no MMAP2 records, so it has no user maps, where lperf names the
frames. Such a line must agree up to perf's first "[unknown]" and have as many frames."""
import sys


def main():
    perf = open(sys.argv[1], errors='surrogateescape').read().split('\n')
    lperf = open(sys.argv[2], errors='surrogateescape').read().split('\n')
    if len(perf) != len(lperf):
        sys.exit("line counts differ: perf %d, lperf %d" % (len(perf), len(lperf)))
    bad = 0
    for a, b in zip(perf, lperf):
        if a == b:
            continue
        cut = a.find(' [unknown]')
        if cut < 0 or not b.startswith(a[:cut]) or a.count(' <- ') != b.count(' <- '):
            bad += 1
            if bad <= 5:
                print("perf:  %s\nlperf: %s" % (a, b), file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
