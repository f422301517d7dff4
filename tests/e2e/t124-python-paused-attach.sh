#!/bin/sh
# The paused sampler (docs/python.md "Without BPF") attached with -p to a Python of 64 threads
# that goes on starting threads when the GIL lets it (tests/workloads/py_many.py): lperf leaves
# after --timeout 2 with no thread traced or stopped, the program finishes, and at least half of
# the 64 have samples in work() (each sampled about seven times in the 2 s). Alone on the
# machine: the 2 s are wall time, and a loaded machine gives the threads less CPU in them. The
# rest of the many-threads case is t124-python-paused-threads.sh's, beside other scripts.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
py311_or_skip "many threads, paused, -p"
M="$TEST_ROOT/tests/workloads/py_many.py"
export M

# tracers PID: the TracerPid of each of its threads that is not 0
# (threads come and go meanwhile)
tracers() { cat /proc/$1/task/*/status 2>/dev/null | awk '/^TracerPid:/ && $2 != 0 { print $2 }'; }
test_expect_success "-p of a program starting threads: released after --timeout, the program finishes" '
	rm -f started.txt stop
	"$PY" "$M" 64 400000 1 "$PWD/started.txt" "$PWD/stop" &
	w=$!; kill_at_exit $w
	n=0; while ! grep -q "^started" started.txt 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done &&
	LPERF_NO_BPF=1 lperf record --python -p $w --timeout 2 -o a.data 2>err; rc=$?; cat err; test $rc = 0 &&
	expect_grep "threads paused at each sample" err &&
	t=$(tracers $w) && echo "tracers: [$t]" && test -z "$t" &&
	state=$(awk "/^State:/ { print \$2 }" /proc/$w/status) && echo "state $state" &&
	test "$state" = R -o "$state" = S &&
	touch stop && n=0 &&
	while kill -0 $w 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done &&
	wait $w && cat started.txt && expect_grep "^done 64 [0-9]+$" started.txt &&
	lperf script -i a.data >s.txt 2>/dev/null &&
	w=$(tids_in work s.txt) && c=$(tids_in churn s.txt) && echo "work in $w threads, churn in $c" &&
	test "$w" -ge 32
'

test_done
