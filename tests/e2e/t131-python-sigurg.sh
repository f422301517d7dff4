#!/bin/sh
# The paused sampler (no BPF, docs/python.md "Without BPF") and a program that handles SIGURG
# itself: the threads' CPU-time alarms signal SIGURG, which lperf takes for itself, also one
# still queued when lperf lets a thread go (python/pysampler.c settle); a SIGURG sent to the
# program is delivered to it, once. tests/workloads/py_sigurg.py counts its handler's calls and
# sends itself one SIGURG (kill, as another process would) while traced: the count is 1, with
# lperf running it, and attached to it with -p and let go ten times. Its threads hash (the GIL
# let go, so they run at once) and two busy loops of the test's load the CPUs: lperf's releases
# then often find an alarm's signal queued (without settle, the program got a stray SIGURG in
# about one release of ten here).
# e2e-class: parallel (a count of signals delivered, exact whatever the load; its own busy loops load the CPUs anyway; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
py311_or_skip "SIGURG handled by the program, paused"
W="$TEST_ROOT/tests/workloads/py_sigurg.py"
export W
# two busy loops for the test's length (killed at its end)
busy_loops 2

test_expect_success "lperf runs it: its own SIGURG reaches its handler once, none of the alarms" '
	LPERF_NO_BPF=1 lperf record --python -o r.data -- "$PY" "$W" "$PWD/out.txt" 2 0 2>err; rc=$?
	cat err out.txt; test $rc = 0 && expect_grep "threads paused at each sample" err &&
	expect_grep "^sent$" out.txt && expect_grep "^sigurg 1$" out.txt
'

test_expect_success "attached with -p and let go ten times: its own SIGURG once, no stray one" '
	"$PY" "$W" "$PWD/out.txt" 2 10 &
	w=$!; kill_at_exit $w
	n=0; while ! grep -q "^ready" out.txt 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		LPERF_NO_BPF=1 lperf record -q --python -p $w --timeout 0.5 -o a.data 2>err || { cat err; return 1; }
		n=0; while ! grep -q "^released $i$" out.txt && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
		grep -q "^released $i$" out.txt || return 1
	done &&
	n=0; while kill -0 $w 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done &&
	wait $w && cat out.txt && expect_grep "^sent$" out.txt && expect_grep "^sigurg 1$" out.txt
'
test_done
