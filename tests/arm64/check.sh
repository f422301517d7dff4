#!/bin/sh
# make check-arm64: builds lperf, its unit tests and the known-answer workloads for aarch64, and
# runs tests/arm64/suite.sh in the emulated Arm64 machine (scripts/arm64-vm.sh). Prints the
# suite's TAP lines and ends with "N passed, M failed"; exits non-zero when a test failed.
# ARM64_SUITE_TAP_ONLY=1 leaves out the summary line (tests/run.sh adds its own).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=build/arm64
make --no-print-directory -s ARCH=arm64 -j"$(nproc)" test >&2 || { echo "not ok 1 - arm64 cross build"; exit 1; }
CC=aarch64-linux-gnu-gcc
W="$OUT/suite"
rm -rf "$W" && mkdir -p "$W/unit"
$CC -O2 -g -static -o "$W/loop" tests/arm64/loop.c &&
$CC -O2 -g -static -fno-omit-frame-pointer -o "$W/shares" tests/arm64/shares.c &&
$CC -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$W/shares-fp" tests/arm64/shares.c &&
$CC -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -o "$W/shares-dwarf" tests/arm64/shares.c &&
$CC -O1 -g -fno-builtin -o "$W/calls" tests/arm64/calls.c &&
$CC -O0 -g -fno-inline -fno-omit-frame-pointer -o "$W/leafloop" tests/arm64/leafloop.c ||
	{ echo "not ok 1 - arm64 workloads build"; exit 1; }
cp "$OUT"/tests/test_* "$W/unit/" && rm -f "$W"/unit/*.d
# perf 6.1's own shell tests that apply to an Arm machine with a PMU (issue 20), copied from the
# installed linux-perf and adapted for busybox at run time (never committed): busybox's mktemp
# wants at least six X's where perf's templates have five.
PERF_SHELL_DIR=${PERF_SHELL_DIR:-/usr/lib/perf-core/tests/shell}
mkdir -p "$W/perf-shell"
for s in record.sh stat.sh stat+shadow_stat.sh stat+csv_summary.sh test_arm_callgraph_fp.sh; do
	[ -f "$PERF_SHELL_DIR/$s" ] && sed 's/\(mktemp [^)`]*[^X]\)XXXXX\([^X]\)/\1XXXXXX\2/' "$PERF_SHELL_DIR/$s" >"$W/perf-shell/$s"
done
# Arm's PMU data for wperf man (make's arm-data target), when the host has it.
data=""
[ -f build/arm-data/mapfile.csv ] && data="--add build/arm-data"
py=""
[ "${ARM64_PYTHON:-1}" = 1 ] && [ -x scripts/arm64-python.sh ] && py="--python --add tests/workloads/perf_docs.py"
out=$(mktemp)
# shellcheck disable=SC2086
scripts/arm64-vm.sh $py $data --add "$W/loop" --add "$W/shares" --add "$W/shares-fp" --add "$W/shares-dwarf" --add "$W/calls" --add "$W/leafloop" \
	--add "$W/perf-shell" --add "$W/unit" --add tests/fixtures --add tests/arm64/suite.sh -- sh suite.sh | tee "$out"
rc=$?
p=$(grep -c '^ok ' "$out") f=$(grep -c '^not ok ' "$out") s=$(grep -c '^ok .* # skip' "$out")
p=$((p - s))
rm -f "$out"
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
	echo "not ok $((p + 1)) - the arm64 suite ended with status $rc"
	f=1
fi
[ "${ARM64_SUITE_TAP_ONLY:-0}" = 1 ] || echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
