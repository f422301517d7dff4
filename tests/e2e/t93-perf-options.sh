#!/bin/sh
# perf 6.1's spellings that its own shell tests use (issue 20), compared with perf on the same
# command or file: event syntax (NAME//MODIFIERS, weak groups), record, report and script options.
. "$(dirname "$0")/lib.sh"

have_perf() { command -v perf >/dev/null && perf version >/dev/null 2>&1; }
# The event column of `stat -x,` (the third field).
events_of() { awk -F, 'NF > 3 { print $3 }' "$1"; }

test_expect_success 'events: NAME//MODIFIERS counts as NAME:MODIFIERS and is named as perf names it' '
	lperf stat -x, -e task-clock//u,page-faults//,page-faults//k true >l.csv 2>&1 &&
	events_of l.csv >l.ev &&
	printf "task-clock//u\npage-faults//\npage-faults//k\n" >want &&
	diff want l.ev &&
	if have_perf; then
		perf stat -x, -e task-clock//u,page-faults//,page-faults//k true 2>p.csv &&
		events_of p.csv >p.ev && diff p.ev l.ev
	fi &&
	k=$(awk -F, "\$3 == \"page-faults//k\" { print \$1 }" l.csv) &&
	u=$(awk -F, "\$3 == \"page-faults//\" { print \$1 }" l.csv) &&
	[ "$u" -gt "$k" ]
'

test_expect_success 'events: a weak group {a,b}:W counts, named as perf names its members' '
	lperf stat -x, -e "{task-clock,page-faults}:W,{task-clock,context-switches}:uW" true >l.csv 2>&1 &&
	events_of l.csv >l.ev &&
	printf "task-clock\npage-faults\ntask-clock:u\ncontext-switches:u\n" >want && diff want l.ev &&
	awk -F, "\$3 == \"page-faults\" && \$1 > 0 { ok = 1 } END { exit !ok }" l.csv &&
	if have_perf; then
		perf stat -x, -e "{task-clock,page-faults}:W" true 2>p.csv &&
		events_of p.csv >p.ev && head -n 2 l.ev >l2.ev && diff p.ev l2.ev
	fi
'

test_expect_success 'events: W twice, or W on nothing, is refused with perf-like reasons' '
	expect_exit 2 lperf stat -e "{task-clock}:WW" true 2>err &&
	expect_grep "invalid modifier .WW." err &&
	expect_exit 2 lperf stat -e "nosuchevent//u" true 2>err &&
	expect_grep "nosuchevent" err
'

test_done
