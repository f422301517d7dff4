#!/bin/sh
# lperf top --stdio's decay of its tables, timed: a hot spot that moves every 3 s (tui_work
# shift) leads the table within two refreshes of -d 2. Alone on the machine: with too few samples
# a refresh the decay lags (at -d 1 every 1.5 s, the same ratio, it led only at the fourth refresh
# now and then on a loaded machine). The rest of top is t78-top.sh's, beside other scripts.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
# The decay is the same code at every refresh of t78's tests (analysis/topview.c): the sanitizer
# build leaves this 13.5 s known answer to the normal build.
if ldd "$LPERF" 2>/dev/null | grep -q libasan; then
	test_skip "top -p: a hot spot that moves every 3 s leads within two refreshes" "the normal build's (a timed known answer; t78-top runs the same code under the sanitizer)"
	test_done; exit $?
fi
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$BIN/tui_work" "$TEST_ROOT/tests/workloads/tui_work.c" ||
	{ echo "cannot build the workload"; exit 1; }
# The first row of each table: "refresh-number symbol".
tops() { awk '/Overhead|Children/ { t++; getline; print t, $NF }' "$1"; }

test_expect_success 'top -p: a hot spot that moves every 3 s leads within two refreshes' '
	"$BIN/tui_work" shift 13.5 & w=$! &&
	lperf top --stdio -q -p $w -d 2 >out; rc=$?; wait $w;
	[ $rc = 0 ] && tops out >seq && cat seq &&
	awk "{ print \$2 }" seq | uniq >runs &&
	test "$(grep -c hot_ runs)" -ge 3 &&
	awk "NR > 1 && \$2 != prev { print \$1 - last } \$2 != prev { prev = \$2; last = \$1 } NR == 1 { prev = \$2; last = 1 }" seq >lags &&
	awk "\$1 > 2 { bad = 1 } END { exit bad }" lags
'
test_done
