#!/bin/sh
# lperf sched latency, timehist and map (issue 25) against perf 6.1's on the same recordings:
# lperf's own (lperf sched record) and perf's (perf sched record) of a known load, perf bench's
# sched messaging (hackbench: 40 processes waking each other through sockets). Both read the
# same file, and what perf prints follows from the file alone, so the outputs are compared byte
# for byte: tasks, run times, switch counts, delays, row order, the TOTAL line and the INFO lines.
# On this VM the kernel writes no sched events of one CPU's idle task: perf's and lperf's outputs
# both say "idle entire time window" for it. map's columns are this machine's CPUs in both.
# e2e-class: parallel (both tools read the same file, byte for byte; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"

test_expect_success 'sched latency/timehist/map: a recording without sched events says so, once' '
	lperf record -q -e task-clock -o tc.data -- true &&
	for s in latency timehist map; do
		expect_exit 1 lperf sched $s -i tc.data >out 2>err &&
		expect_lines 1 err && expect_grep "no sched:sched_switch events.*lperf sched record" err &&
		expect_lines 0 out || return 1
	done
'

test_expect_success 'sched latency -s: an unknown key is a usage error naming the keys' '
	expect_exit 2 lperf sched latency -s nosuch -i tc.data 2>err &&
	expect_grep "unknown --sort key: .nosuch. \\(runtime, switch, avg, max" err
'

test_expect_success 'sched replay stays perf'"'"'s, said with perf'"'"'s way' '
	expect_exit 2 lperf sched replay 2>err && expect_grep "perf sched replay -i FILE" err
'

if [ "$(id -u)" -eq 0 ] && command -v perf >/dev/null && [ -n "$(ls -d /sys/kernel/tracing/events/sched /sys/kernel/debug/tracing/events/sched 2>/dev/null)" ]; then

# compare FILE: every analysis and the options perf's users pass, perf's stdout against lperf's.
compare() {
	for a in "latency" "latency -p" "latency -s max,switch" "latency -s runtime" "latency -C 0" \
		 "timehist" "timehist -w -M -n --state -V" "timehist -S" "timehist -s --state" \
		 "timehist -C 0 -S" "map" "map --compact" "map --cpus 0"; do
		perf sched $a -i "$1" >p.out 2>/dev/null &&
		lperf sched $a -i "$1" >l.out 2>l.err ||
		{ echo "sched $a failed" >&2; cat l.err >&2; return 1; }
		cmp p.out l.out || { echo "sched $a differs:" >&2; diff p.out l.out | head -20 >&2; return 1; }
	done &&
	# -p and -t: one of the load's processes
	pid=$(perf script -i "$1" -F comm,pid 2>/dev/null | awk '$1 == "sched-messaging" { print $2; exit }') &&
	[ -n "$pid" ] &&
	# --time: a window between two switches of the table
	t1=$(perf sched timehist -i "$1" 2>/dev/null | awk 'NR == 20 { print $1 }') &&
	t2=$(perf sched timehist -i "$1" 2>/dev/null | awk 'NR == 60 { print $1 }') &&
	for a in "timehist -p $pid -S -w" "timehist -t $pid -s" "timehist --time $t1,$t2 -S -w" "timehist --time ,$t1 -s" \
		 "timehist --time $t2 -s"; do
		perf sched $a -i "$1" >p.out 2>/dev/null && lperf sched $a -i "$1" >l.out 2>l.err &&
		cmp p.out l.out || { echo "sched $a differs:" >&2; diff p.out l.out | head -20 >&2; return 1; }
	done
}

test_expect_success 'lperf sched record of sched messaging: perf 6.1 and lperf print the same; -s counts every switch' '
	lperf sched record -q -o s.data -- "$LPERF" bench sched messaging -g 1 -l 10 >/dev/null &&
	compare s.data &&
	lperf sched latency -i s.data >lat &&
	expect_grep "^  sched-messaging:\\([0-9]+\\) +\\| +[0-9.]+ ms \\| +[1-9][0-9]* \\| avg: +[0-9.]+ ms" lat &&
	expect_grep "^  TOTAL: +\\| +[0-9.]+ ms \\| +[1-9][0-9]* \\|" lat &&
	lperf sched timehist -i s.data >th && expect_grep "^ +[0-9]+\\.[0-9]{6} \\[000[01]\\]  sched-messaging\\[[0-9]+\\] " th &&
	lperf sched map -i s.data >map && expect_grep " => sched-messaging:[0-9]+$" map &&
	lperf sched timehist -s -i s.data >sum &&
	lines=$(grep -c "^ *[0-9]*\\.[0-9]* \\[[0-9]*\\] " th) &&
	expect_grep "^Total number of context switches: $lines$" sum
'

test_expect_success 'perf sched record of the same load: lperf reads it as perf does' '
	perf sched record -o p.data -- "$LPERF" bench sched messaging -g 1 -l 10 >/dev/null 2>&1 &&
	compare p.data
'

test_expect_success 'timehist of a recording with call chains: the chain of each switch as perf shows it' '
	perf sched record -g -o g.data -- "$LPERF" bench sched messaging -g 1 -l 10 >/dev/null 2>&1 &&
	for a in "" "-w -n --state" "--max-stack 3"; do
		perf sched timehist $a -i g.data >p.out 2>/dev/null && lperf sched timehist $a -i g.data >l.out 2>l.err &&
		"$PYTHON" "$TEST_ROOT/tests/e2e/sched_chains.py" p.out l.out || { echo "timehist $a differs" >&2; return 1; }
	done &&
	lperf sched timehist -i g.data >chains 2>/dev/null &&
	expect_grep " \\[000[01]\\]  sched-messaging\\[[0-9]+\\] .* <- " chains
'

else
test_skip "sched latency/timehist/map against perf" "needs root, Linux perf and the sched tracepoints"
fi

test_done
