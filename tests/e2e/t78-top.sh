#!/bin/sh
# lperf top --stdio: live tables through the live session, refreshed every -d seconds: perf top's
# columns, the status line (samples/s, lost, event, target, top's own CPU), -g's Children/Self,
# -z, -e, system-wide by default, Python's functions. What is checked is the tables' shape and
# what they name, never how soon: beside other scripts (a hot spot that moves and must lead within
# two refreshes is t78-top-shift.sh's, alone).
# e2e-class: parallel (tables and what they name, never how soon; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$BIN/tui_work" "$TEST_ROOT/tests/workloads/tui_work.c" ||
	{ echo "cannot build the workload"; exit 1; }
# ready: until the Python workload has started (it writes ./ready): attached before its exec, top
# would see the shell that runs it, and before its start no Python frames (a loaded machine once
# took over 0.5 s).
ready() {
	i=0; until [ -e ready ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done; [ -e ready ]
}

test_expect_success 'top --stdio COMMAND: tables with perf top columns and the status line' '
	lperf top --stdio -q -d 1 -- "$BIN/tui_work" 1.5 >out 2>err &&
	expect_grep "^Samples: [0-9]+ of event .cpu-clock., 1000 Hz, lost: [0-9]+, [0-9]+ samples/s, target: command .*tui_work" out &&
	expect_grep "lperf top itself: [0-9.]+% of a CPU" out &&
	expect_grep "^  Overhead  Shared Object +Symbol" out &&
	expect_grep "tui_work +\\[\\.\\] hot_(alpha|beta|gamma)" out &&
	test "$(grep -c "^Samples:" out)" -ge 2
'

test_expect_success 'top -g: Children and Self; thread start functions have children, no self' '
	lperf top --stdio -q -g -d 1 -- "$BIN/tui_work" 1.5 >out &&
	expect_grep "^  Children      Self  Shared Object" out &&
	expect_grep "^ +[1-9][0-9.]*% +0\\.00% +tui_work +\\[\\.\\] thread_(two|three)" out
'

test_expect_success 'top -e task-clock -z: the event named, each table its own interval' '
	lperf top --stdio -q -z -e task-clock -d 1 -- "$BIN/tui_work" 1.5 >out &&
	expect_grep "of event .task-clock." out &&
	awk "/Overhead/ { if (s) print s; s = 0; next } /%/ { sub(\"%\", \"\", \$1); s += \$1 } END { print s }" out >sums &&
	awk "\$1 < 99 || \$1 > 101 { bad = 1 } END { exit bad }" sums
'

# Its cost (under 2% of a CPU) is a target of make bench (bench/targets_bench.py), not a timed
# test: here each refresh reports a cost, a number between 0 and 100. The test waits for three
# refreshes (a minute at most: an ASan build on a loaded machine starts slowly), then stops top
# (started as "$LPERF" itself, not through the lperf function: $! of a backgrounded function is
# its subshell, and killing that left top running).
test_expect_success 'top is system-wide by default and reports its own cost each refresh' '
	"$BIN/tui_work" 60 & w=$!
	"$LPERF" top --stdio -q -d 1 >out 2>err & t=$!
	# (counted from standard input: before the shell of top had opened out, grep -c out printed
	# nothing, [ failed on it and ended the wait at once, and top was killed before it started)
	i=0; while [ "$(cat out 2>/dev/null | grep -c "^Samples:")" -lt 3 ] && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done;
	kill $t; wait $t; kill $w 2>/dev/null; wait $w;
	expect_grep "target: system-wide" out &&
	expect_grep "\\[\\.\\] hot_(alpha|beta|gamma)" out &&
	grep -o "itself: [0-9.]*% of a CPU" out | tr -d "itself:%ofaCPU " >cost &&
	cat cost && test "$(wc -l <cost)" -ge 3 &&
	awk "\$1 !~ /^[0-9]+(\\.[0-9]+)?\$/ || \$1 > 100 { bad = 1 } END { exit bad }" cost
'

test_expect_success 'top --python -p PID: Python functions with their lines, own and total' '
	cat >work.py <<-PY || exit 1
	import time
	def leaf(n):
	    s = 0
	    for i in range(n):
	        s += i
	    return s
	def middle():
	    return leaf(20000)
	open("ready", "w").close()
	end = time.time() + 60
	while time.time() < end:
	    middle()
	PY
	python3 work.py & w=$!
	ready &&
	lperf top --stdio -q --python -p $w -d 2 --timeout 4.5 -E 40 >out; rc=$?; kill $w; wait $w;
	[ $rc = 0 ] && expect_grep "^  %Own   %Total  OwnTime  TotalTime  Function \\(filename:line\\)" out &&
	expect_grep "^ +[1-9][0-9.]*% +[0-9.]+% +[0-9.]+s +[0-9.]+s +leaf \\(work.py:[45]\\)" out &&
	# middle: little own time (a sample now and then lands on its own line), most of the total
	expect_grep "^ +0\\.[0-9][0-9]% +[1-9][0-9.]*% .* middle \\(work.py:8\\)" out
'

test_expect_success 'top on Python: the --python hint says how to run top; none with --python' '
	printf "import time\nopen(\"ready\", \"w\").close()\nend = time.time() + 60\nwhile time.time() < end:\n    sum(i * i for i in range(1000))\n" >spin.py || exit 1
	python3 spin.py & w=$!
	ready &&
	lperf top --stdio -g -p $w -d 1 --timeout 2.5 >out 2>err &&
	expect_grep "^lperf: hint: .*Python interpreter.*run with --python .and -p PID or the command." err &&
	if lperf test 2>/dev/null | grep -q "stacks: BPF"; then
		lperf top --stdio --python -p $w -d 1 --timeout 2.5 >out2 2>err2 && cat err2 &&
		expect_no_grep "hint:.*--python" err2
	fi; rc=$?; kill $w 2>/dev/null; wait $w; return $rc
'

test_expect_success 'top: a bad delay and two targets are usage errors' '
	expect_exit 2 lperf top -d 0 2>err && expect_grep "refresh delay" err &&
	expect_exit 2 lperf top -p 1 -- true 2>err && expect_grep "one target" err
'

test_done
