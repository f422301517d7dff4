#!/bin/sh
# make bench: report --sort srcline on a perf-made recording of a -g C program, lperf against
# perf 6.1 (which runs addr2line), and against lperf's own --sort sym on the same file.
# Targets: >= 20x faster than perf (issue 10), within 1.5x of --sort sym (issue 27).
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
# lperf keeps what it learns between runs in the build-id cache directory (the kernel's symbols,
# source lines: docs/buildid.md): a first run starts from an empty one, a second run follows it.
cache="$OUT/cache"
rm -rf "$cache"
export PERF_BUILDID_DIR="$cache"
lreport() { "$LPERF" report -i "$OUT/srcline.data" --stdio --no-children --sort "$1"; }
first() { rm -rf "$cache"; timed lreport "$1"; }
# second KEY: the median of 5 runs after a first one
second() {
	lreport "$1" >/dev/null 2>&1
	for i in 1 2 3 4 5; do timed lreport "$1"; echo; done | sort -n | sed -n 3p
}
n=$("$LPERF" report -i "$OUT/srcline.data" --stdio --sort sym 2>/dev/null | awk '/^# Samples:/ { print $3; exit }')
lsym1=$(first sym)
lsym2=$(second sym)
lsrc1=$(first srcline)
lsrc2=$(second srcline)
psrc=$(timed perf report -i "$OUT/srcline.data" --stdio --no-children --sort srcline)
echo
echo "report --sort srcline ($n samples, perf-made recording of tests/workloads/annot.c -g)"
echo "  lperf: first run with an empty build-id cache directory, second run the median of 5 after it"
printf '  perf srcline %8.2f s\n' "$psrc"
printf '  lperf srcline  first %6.3f s   second %6.3f s\n' "$lsrc1" "$lsrc2"
printf '  lperf sym      first %6.3f s   second %6.3f s\n' "$lsym1" "$lsym2"
echo "$psrc $lsrc1 $lsrc2 $lsym1 $lsym2" | awk '{ printf "  lperf is %.0fx (first run) and %.0fx (second) faster than perf (target >= 20x)\n", $1 / $2, $1 / $3;
	printf "  srcline/sym = %.2f first run, %.2f second run (target <= 1.5)\n", $2 / $4, $3 / $5 }'
