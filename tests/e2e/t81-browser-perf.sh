#!/bin/sh
# The acceptance of issue 23: perf report's own browser (perf 6.1 on a terminal) and lperf
# report's, in tmux at 80x24 and 200x50, on a 3-thread recording with call chains, given the same
# keys: the entries and percentages, the hottest entry's chain expanded, its annotation's hottest
# line, the zoom into one DSO, callee graphs, and the terminal restored after q. Entries of equal
# percentages may come in another order (perf's order among them follows its tree insertion);
# they are compared as sets.
# e2e-class: parallel (both browsers on the same recording, screens waited for, a tmux socket of its own; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || { test_skip "browser vs perf" "no tmux (scripts/install-deps.sh)"; test_done; exit; }
command -v perf >/dev/null || { test_skip "browser vs perf" "no perf"; test_done; exit; }
. "$(dirname "$0")/tmux.sh"
tui_recording
# User frames only: interrupts land in the chains at random places, and a layout rule for a rare
# shape of theirs would make a run differ from perf now and then (such shapes were matched while
# writing this; t79 keeps the kernel frames).
D="$SCRATCH/tui-user.data"
lperf record -q -g -F 1000 -e cpu-clock:u -o "$D" -- "$BIN/tui_work" 1 || { echo "cannot record"; exit 1; }

# The screen without perf's scroll bar (non-ASCII, at the right edge) and trailing blanks.
screen() { tmux_screen | LC_ALL=C sed 's/[^ -~]*$//; s/ *$//'; }
# settled FILE: the screen once two captures 0.2 s apart agree (drawn whole), into FILE.
settled() {
	screen >"$1"
	n=50
	while [ "$n" -gt 0 ]; do
		sleep 0.2
		screen >"$1.again"
		cmp -s "$1" "$1.again" && return 0
		mv "$1.again" "$1"
		n=$((n - 1))
	done
	return 1
}
# The entry rows of a screen file: "CHILDREN SELF COLUMNS..." with single blanks.
rows() { grep -E '^[+ -] +[0-9.]+% +[0-9.]+%' "$1" | cut -c2- | sed 's/^ *//; s/  */ /g'; }
# The rows as a set; on a full screen (H-3 rows) the last percentage's rows dropped, as ties
# at the bottom edge may be cut at another place.
row_set() {
	rows "$1" >"$1.rows"
	if [ "$(wc -l <"$1.rows")" -ge "$(($2 - 3))" ]; then
		last=$(tail -1 "$1.rows" | cut -d" " -f1)
		grep -v "^$last " "$1.rows" | sort
	else
		sort "$1.rows"
	fi
}
# wait_rows OP N: until the screen shows N entry rows (OP: -eq, -ge).
wait_rows() {
	n=100
	while [ "$n" -gt 0 ]; do
		screen >.w && [ "$(rows .w | wc -l)" "$1" "$2" ] && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "never $1 $2 rows:" >&2
	cat .w >&2
	return 1
}
# The call-graph lines under the first entry row.
chain() { awk 'f && (/^[+ -] +[0-9.]+% +[0-9.]+%/ || !NF) { exit } f { print } /^[+ -] +[0-9.]+% +[0-9.]+%/ { f = 1 }' "$1"; }

# drive NAME W H COMMAND: the keys of the acceptance, each screen saved as NAME.N.
drive() {
	tmux_run "$2" "$3" "cd $SCRATCH && $4" && tmux_wait "^  Children +Self" 20 && wait_rows -ge 3 &&
	settled "$1.0" &&
	tmux_keys / && tmux_wait "Symbol (to show|filter)" && tmux_keys hot_gamma Enter && wait_rows -eq 1 && settled "$1.1" &&
	tmux_keys E && tmux_wait "thread_three" && settled "$1.2" &&
	tmux_keys a && tmux_wait "^ +[0-9]+\\.[0-9]{2} +[^ 0-9]" 30 && settled "$1.3" &&
	tmux_keys q && tmux_wait "^  Children +Self" &&
	tmux_keys d && tmux_wait "Self  Command +Symbol" && tmux_keys / && tmux_wait "Symbol (to show|filter)" && tmux_keys Enter &&
	wait_rows -ge 2 && settled "$1.4" &&
	tmux_keys q && tmux_wait "EXIT=0" && screen >"$1.5"
}

for size in "80 24" "200 50"; do
	set -- $size
	test_expect_success "${1}x$2: the entries and percentages are perf's" "
		drive perf $1 $2 'perf report -i $D' && drive lperf $1 $2 '$LPERF report -i $D' &&
		sed -n 1,2p perf.0 >want && sed -n 1,2p lperf.0 >got && diff want got &&
		row_set perf.0 $2 >want && row_set lperf.0 $2 >got && test -s want && diff want got
	"
	test_expect_success "${1}x$2: the filter, the hottest entry's chain expanded" "
		cd ../t\$((test_count - 1)) && rows perf.1 >want && rows lperf.1 >got && diff want got &&
		chain perf.2 >want && chain lperf.2 >got && cat got && test \$(wc -l <got) -ge 3 && diff want got
	"
	test_expect_success "${1}x$2: annotate starts on the hottest line, perf's percentage" "
		cd ../t\$((test_count - 2)) &&
		grep -oE '^ +[0-9]+\\.[0-9]{2} ' perf.3 | tr -d ' ' | sort -n | tail -1 >want &&
		grep -oE '^ +[0-9]+\\.[0-9]{2} ' lperf.3 | tr -d ' ' | sort -n | tail -1 >got && cat got && diff want got
	"
	test_expect_success "${1}x$2: zoomed into the DSO: perf's title, columns and entries" "
		cd ../t\$((test_count - 3)) && sed -n 1,2p perf.4 >want && sed -n 1,2p lperf.4 >got &&
		diff want got && expect_grep 'DSO: tu' got && expect_no_grep 'Shared Ob' got &&
		row_set perf.4 $2 >want && row_set lperf.4 $2 >got && diff want got
	"
	test_expect_success "${1}x$2: q quits and restores the terminal, as perf" "
		cd ../t\$((test_count - 4)) && expect_grep EXIT=0 lperf.5 && expect_no_grep 'Children' lperf.5 &&
		expect_no_grep 'Children' perf.5
	"
done

test_expect_success '80x24: callee graphs (c) are perf -g callee' '
	drive2() {
		tmux_run 80 24 "cd $SCRATCH && $2" && tmux_wait "^  Children +Self" 20 && wait_rows -ge 3 &&
		if [ "$1" = lperf ]; then tmux_keys c && tmux_wait "now: callee graphs"; fi &&
		settled "$1.0" &&
		tmux_keys / && tmux_wait "Symbol (to show|filter)" && tmux_keys hot_beta Enter && wait_rows -eq 1 &&
		tmux_keys E && tmux_wait "thread_two" && settled "$1.1" && tmux_keys q && tmux_wait "EXIT=0"
	} &&
	drive2 perf "perf report -g callee -i $D" && drive2 lperf "$LPERF report -i $D" &&
	row_set perf.0 24 >want && row_set lperf.0 24 >got && diff want got &&
	chain perf.1 >want && chain lperf.1 >got && cat got && test $(wc -l <got) -ge 3 && diff want got
'

test_expect_success '80x24 --no-children: Overhead, the entries and a callee chain as perf' '
	drive4() {
		tmux_run 80 24 "cd $SCRATCH && $2 --no-children -i $D" && tmux_wait "^  Overhead +Command" 20 &&
		tmux_wait "^[+ -] +[0-9.]+% +tui" && settled "$1.0" &&
		tmux_keys / && tmux_wait "Symbol (to show|filter)" && tmux_keys hot_gamma Enter &&
		tmux_wait "^[+ -] +[0-9.]+% +tui-three" && tmux_keys E && tmux_wait "thread_three" &&
		settled "$1.1" && tmux_keys q && tmux_wait "EXIT=0"
	} &&
	drive4 perf "perf report" && drive4 lperf "$LPERF report" &&
	sed -n 1,2p perf.0 >want && sed -n 1,2p lperf.0 >got && diff want got &&
	grep -E "^[+ -] +[0-9.]+% " perf.0 | sort >want && grep -E "^[+ -] +[0-9.]+% " lperf.0 | sort >got &&
	test -s got && diff want got &&
	sed -n "3,/^\$/p" perf.1 >want && sed -n "3,/^\$/p" lperf.1 >got && cat got && test "$(wc -l <got)" -ge 4 && diff want got
'

test_expect_success '120x24: t zooms into the thread perf zooms into (title, entries)' '
	drive3() {
		tmux_run 120 24 "cd $SCRATCH && $2" && tmux_wait "^  Children +Self" 20 && wait_rows -ge 3 &&
		tmux_keys / && tmux_wait "Symbol (to show|filter)" && tmux_keys hot_beta Enter && wait_rows -eq 1 &&
		tmux_keys t && tmux_wait "Thread: tui-two" && tmux_keys / && tmux_wait "Symbol (to show|filter)" &&
		tmux_keys Enter && wait_rows -ge 2 && settled "$1.0" && tmux_keys q && tmux_wait "EXIT=0"
	} &&
	drive3 perf "perf report -i $D" && drive3 lperf "$LPERF report -i $D" &&
	sed -n 1,2p perf.0 >want && sed -n 1,2p lperf.0 >got && cat got && diff want got &&
	row_set perf.0 24 >want && row_set lperf.0 24 >got && diff want got && test "$(cut -d" " -f3 got | sort -u)" = tui-two
'

test_done
