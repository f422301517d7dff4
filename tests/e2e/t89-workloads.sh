#!/bin/sh
# test -w: perf 6.1's built-in workloads (perf's shell tests run `perf test -w leafloop` and
# `perf test -w sqrtloop`), their shapes checked with perf itself: leafloop's leaf <- parent <-
# leafloop frames through a frame-pointer unwind (test_arm_callgraph_fp.sh's check), thloop's two
# threads, sqrtloop's two processes (at least: a sanitizer build has a thread of its own); an
# unknown name fails in perf's words. Shapes and words, so beside other scripts; how long each
# workload runs is t89-workloads-time.sh's, alone.
# e2e-class: parallel (frames, threads, processes and messages; passed 3 times in both builds beside 2 busy loops at loads of 10-31)
. "$(dirname "$0")/lib.sh"

HAVE_PERF=$(command -v perf >/dev/null && echo 1)
SHIM="$SCRATCH/shim"
mkdir -p "$SHIM" && ln -s "$LPERF" "$SHIM/perf"

test_expect_success 'an unknown workload: perf words and status' '
	expect_exit 255 lperf test -w nosuch 2>err && echo "No workload found: nosuch" >want && cmp want err
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'leafloop keeps leaf <- parent <- leafloop for a frame-pointer unwind (as perf test -w)' '
	perf record -q -o lf.data --call-graph fp -e task-clock:u -- "$SHIM/perf" test -w leafloop 1 2>/dev/null &&
	perf script -i lf.data -F comm,ip,sym 2>/dev/null | tr "\n" " " >s &&
	SEP="[[:space:]]+ [[:xdigit:]]+" && grep -E -q "perf $SEP leaf $SEP parent $SEP leafloop" s &&
	lperf record -q -o ll.data --call-graph fp -e task-clock:u -- "$SHIM/perf" test -w leafloop 1 &&
	perf script -i ll.data -F comm,ip,sym 2>/dev/null | tr "\n" " " | grep -E -q "perf $SEP leaf $SEP parent $SEP leafloop"
'

test_expect_success 'thloop runs two threads, sqrtloop two processes' '
	lperf record -q -o th.data -e task-clock -- "$LPERF" test -w thloop 1 &&
	perf script -i th.data -F tid 2>/dev/null | sort -u >tids && test "$(wc -l <tids)" -ge 2 &&
	lperf record -q -o sq.data -e task-clock -- "$LPERF" test -w sqrtloop 1 &&
	perf script -i sq.data -F pid 2>/dev/null | sort -u >pids && test "$(wc -l <pids)" -ge 2 &&
	perf report -i sq.data --stdio --sort sym 2>/dev/null | grep -q "sqrt\|sqrt_loop"
'
else
	test_skip 'leafloop frames, thloop and sqrtloop shapes' 'no perf'
fi

test_done
