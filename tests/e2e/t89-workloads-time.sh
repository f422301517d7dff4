#!/bin/sh
# test -w: perf 6.1's built-in workloads end after the seconds given (noploop, thloop, leafloop,
# sqrtloop: 1 s, within 0.9 to 5 s of wall time), brstack after its loops, datasym runs until
# stopped. Alone on the machine: a wall-time bound. Their shapes are t89-workloads.sh's.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"

test_expect_success 'noploop, thloop, leafloop, sqrtloop end after their seconds; brstack after its loops' '
	for w in noploop thloop leafloop sqrtloop; do
		start=$(date +%s%N) && lperf test -w $w 1 && end=$(date +%s%N) &&
		ms=$(( (end - start) / 1000000 )) && echo "$w $ms ms" &&
		test $ms -ge 900 && test $ms -lt 5000 || return 1
	done &&
	lperf test -w brstack 1000 && timeout 1 "$LPERF" test -w datasym; test $? -eq 124
'

test_done
