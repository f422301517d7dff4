#!/bin/sh
# The paused sampler with many threads (docs/python.md "Without BPF"): with LPERF_NO_BPF=1, a
# Python of 64 threads alive at once plus short-lived threads started and ended one after the
# other during the recording (tests/workloads/py_many.py). Threads started after lperf seized
# the process are traced from their start (PTRACE_O_TRACECLONE), each sampled at its own
# CPU-time alarm: every one of the 64 has samples in work(), and most of the short-lived ones
# in churn() (each spins about a quarter as long); the program runs to its end. Attached with
# -p to a program of 64 threads (each sampled about seven times in the 2 s: at least half of
# them have samples in work()) that goes on starting threads when the GIL lets it, lperf leaves
# after --timeout with no thread traced or stopped, and the program finishes.
. "$(dirname "$0")/lib.sh"
PY=$(py_for 3.11)
[ -z "$PY" ] && [ -x /usr/bin/python3.11 ] && PY=/usr/bin/python3.11
if [ -z "$PY" ]; then
	test_skip "many threads, paused" "no CPython 3.11"
	test_done
	exit 0
fi
M="$TEST_ROOT/tests/workloads/py_many.py"
PIDS=$(mktemp)
cleanup() {
	for p in $(cat "$PIDS"); do kill -9 "$p" 2>/dev/null; done
	rm -f "$PIDS"; rm -rf "$SCRATCH"
}
trap cleanup EXIT
export PY M PIDS

# tids_in FUNC SCRIPT: how many threads have a sample whose Python stack holds FUNC
tids_in() {
	awk -v f="py::$1:" '/ cpu-clock: / { tid = $2 } index($0, f) { seen[tid] = 1 }
		END { n = 0; for (t in seen) n++; print n }' "$2"
}

test_expect_success "64 threads and 40 short-lived ones: each sampled, the program ends" '
	LPERF_NO_BPF=1 lperf record --python -o m.data -- "$PY" "$M" 64 2000000 40 "$PWD/done.txt" 2>err; rc=$?
	cat err done.txt; test $rc = 0 &&
	expect_grep "threads paused at each sample" err && expect_no_grep "approximate" err &&
	expect_grep "^done 64 40$" done.txt &&
	lperf script -i m.data >s.txt 2>/dev/null &&
	w=$(tids_in work s.txt) && c=$(tids_in churn s.txt) && echo "work in $w threads, churn in $c" &&
	test "$w" = 64 && test "$c" -ge 20
'

# tracers PID: the TracerPid of each of its threads that is not 0
# (threads come and go meanwhile)
tracers() { cat /proc/$1/task/*/status 2>/dev/null | awk '/^TracerPid:/ && $2 != 0 { print $2 }'; }
test_expect_success "-p of a program starting threads: released after --timeout, the program finishes" '
	rm -f started.txt stop
	"$PY" "$M" 64 400000 1 "$PWD/started.txt" "$PWD/stop" &
	w=$!; echo $w >>"$PIDS"
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
