#!/bin/sh
# make bench: report --sort srcline on a perf-made recording of a -g C program, lperf against
# perf 6.1 (which runs addr2line), and against lperf's own --sort sym on the same file.
# Targets (issue 10): >= 20x faster than perf, within 2x of --sort sym.
#   srcline_bench.sh LPERF OUTDIR   (BENCH_QUICK=1: ~10,000 samples instead of >= 100,000)
set -e
LPERF=$1 OUT=$2
if ! command -v perf >/dev/null; then
	echo "report --sort srcline: skipped (no perf to compare with)"
	exit 0
fi
mkdir -p "$OUT"
cc -O2 -g -fno-omit-frame-pointer -o "$OUT/annot" tests/workloads/annot.c
if [ -n "$BENCH_QUICK" ] && [ "$BENCH_QUICK" != 0 ]; then scale=8; else scale=130; fi
if [ ! -s "$OUT/srcline.data" ] || [ "$(cat "$OUT/srcline.scale" 2>/dev/null)" != "$scale" ]; then
	perf record -q -F 20000 -e cpu-clock -o "$OUT/srcline.data" -- "$OUT/annot" "$scale" 2>/dev/null
	echo "$scale" >"$OUT/srcline.scale"
fi
now() { date +%s.%N; }
timed() { t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'; }
n=$("$LPERF" report -i "$OUT/srcline.data" --stdio --sort sym 2>/dev/null | awk '/^# Samples:/ { print $3; exit }')
lsym=$(timed "$LPERF" report -i "$OUT/srcline.data" --stdio --no-children --sort sym)
lsrc=$(timed "$LPERF" report -i "$OUT/srcline.data" --stdio --no-children --sort srcline)
psrc=$(timed perf report -i "$OUT/srcline.data" --stdio --no-children --sort srcline)
echo
echo "report --sort srcline ($n samples, perf-made recording of tests/workloads/annot.c -g)"
printf '  perf srcline %8.2f s   lperf srcline %6.3f s   lperf sym %6.3f s\n' "$psrc" "$lsrc" "$lsym"
echo "$psrc $lsrc $lsym" | awk '{ printf "  lperf is %.0fx faster than perf (target >= 20x); srcline/sym = %.2f (target <= 2)\n", $1 / $2, $2 / $3 }'
