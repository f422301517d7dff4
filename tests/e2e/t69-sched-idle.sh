#!/bin/sh
# lperf sched timehist -I (--idle-hist, issue 25) against perf 6.1's on the same recordings,
# perf's and lperf's (with and without call chains), of a load with idle phases: a sleep, one
# shell loop spinning on the last CPU for 0.3 s, a sleep. Both tools read the same file, so
# their outputs are compared byte for byte (the lines of tasks going idle, the idle task's
# lines, the Idle-time summary, Idle stats and, with call chains, Idle stats by callchain); lines
# with user-space frames go through sched_chains.py (perf 6.1's timehist shows them
# "[unknown]", lperf names them). What a user checks (tests/e2e/sched_idle.py): a CPU's idle
# time is the sum of its idle lines, the Idle-time summary shares the idle lines out among the
# tasks, and the CPU the loop spins on is not idle while it runs. None of this depends on the
# machine's load: every check reads one recording.
# e2e-class: parallel (every check reads one recording; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -eq 0 ] && command -v perf >/dev/null && command -v taskset >/dev/null &&
   command -v timeout >/dev/null &&
   [ -n "$(ls -d /sys/kernel/tracing/events/sched /sys/kernel/debug/tracing/events/sched 2>/dev/null)" ]; then

CPU=$(($(nproc) - 1))
cat >"$SCRATCH/load.sh" <<EOF
#!/bin/sh
sleep 0.2
taskset -c $CPU timeout 0.3 sh -c 'echo \$\$ >spin.pid; while :; do :; done'
sleep 0.2
EOF
chmod +x "$SCRATCH/load.sh"

# compare FILE: -I with the options perf takes along, perf's stdout against lperf's.
compare() {
	# --time: from the 7th switch to the 197th (or the last, in a short recording)
	perf sched timehist -i "$1" 2>/dev/null | awk '$2 ~ /^\[/ { n++; if (n == 7) a = $1; if (n <= 197) b = $1 }
		END { print a, b }' >window &&
	read -r t1 t2 <window &&
	[ -n "$t1" ] && [ -n "$t2" ] || { echo "fewer than 7 switches in $1" >&2; return 1; }
	for a in "-I" "-I -S" "-I -s" "-I -s --state" "-I -S -w -n -V" "-I -M -S" "-I -C 0 -S" \
		 "-I -C $CPU -s" "-I --time $t1,$t2 -S" "-I --time ,$t1 -s" "-I --no-call-graph -S" \
		 "-I -S --max-stack 3" "-I -p 1 -S"; do
		perf sched timehist $a -i "$1" >p.out 2>/dev/null &&
		lperf sched timehist $a -i "$1" >l.out 2>l.err ||
		{ echo "timehist $a failed" >&2; cat l.err >&2; return 1; }
		"$PYTHON" "$TEST_ROOT/tests/e2e/sched_chains.py" p.out l.out ||
		{ echo "timehist $a differs:" >&2; diff p.out l.out | head -20 >&2; return 1; }
	done
}

# check FILE: lperf's -I -S against its -S; the spinning loop's CPU when no event was lost.
check() {
	lperf sched timehist -S -i "$1" >plain 2>/dev/null &&
	lperf sched timehist -I -S -i "$1" >idle 2>/dev/null &&
	expect_grep "^Idle-time summary$" idle &&
	if grep -q " lost [0-9]* events on cpu" plain; then
		"$PYTHON" "$TEST_ROOT/tests/e2e/sched_idle.py" plain idle
	else
		"$PYTHON" "$TEST_ROOT/tests/e2e/sched_idle.py" plain idle "$(cat spin.pid)" "$CPU"
	fi
}

test_expect_success 'perf sched record of an idle/spin/idle load: timehist -I as perf 6.1 prints it' '
	perf sched record -o p.data -- "$SCRATCH/load.sh" >/dev/null 2>&1 &&
	compare p.data && check p.data &&
	lperf sched timehist -I -i p.data >rows 2>/dev/null &&
	expect_no_grep "awakened|migrated" rows
'

test_expect_success 'perf sched record -g: -I -S ends with Idle stats by callchain, as perf 6.1 prints them' '
	perf sched record -g -o g.data -- "$SCRATCH/load.sh" >/dev/null 2>&1 &&
	compare g.data && check g.data &&
	lperf sched timehist -I -S -i g.data >sum 2>/dev/null &&
	expect_grep "^Idle stats by callchain:$" sum && expect_grep "^  CPU  0: +[0-9]+\\.[0-9]{3}  msec$" sum &&
	lperf sched timehist -I -S --no-call-graph -i g.data >nochain 2>/dev/null &&
	expect_no_grep "by callchain" nochain
'

test_expect_success 'lperf sched record (with and without -g) of the same load: lperf reads it as perf does' '
	lperf sched record -q -o l.data -- "$SCRATCH/load.sh" &&
	compare l.data && check l.data &&
	lperf sched record -q -g -o lg.data -- "$SCRATCH/load.sh" &&
	compare lg.data && check lg.data
'

else
test_skip "sched timehist -I against perf" "needs root, Linux perf, taskset, timeout and the sched tracepoints"
fi

test_done
