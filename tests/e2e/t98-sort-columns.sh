#!/bin/sh
# report --sort keys in any order, padded as perf pads them (issue 22): every column but the last
# is padded to its width, two spaces between columns, none after the last; the Symbol column's
# width leaves out " (inlined)". Compared with perf 6.1's output on the same files: a -g
# recording and a --call-graph dwarf one of a -O2 -g program (tests/workloads/inline_hot.c).
# e2e-class: parallel (column padding compared with perf on the same files)
. "$(dirname "$0")/lib.sh"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -o "$BIN/inline_hot" "$TEST_ROOT/tests/workloads/inline_hot.c" || { echo "cannot build inline_hot"; exit 1; }

if ! command -v perf >/dev/null; then
	test_skip "sort columns against perf" "no perf"
	test_done
	exit
fi
perf record -q -g -F 999 -e cpu-clock -o "$SCRATCH/fp.data" -- "$BIN/inline_hot" 3 >/dev/null 2>&1
# The comparison is made on a DWARF recording perf does not split an entry of, under any of the
# key orders used below (lib.sh).
perf_record_unsplit "$SCRATCH/dw.data" "dso,sym comm,dso,sym dso,sym,comm dso,comm,sym" -- "$BIN/inline_hot" 3

view() { grep -v "^\$\|^#\$\|^# (Tip"; }
# compare FILE OPTIONS...: perf's and lperf's text, line for line
compare() {
	f=$1; shift
	perf report -i "$f" --stdio "$@" 2>/dev/null | view >p.txt &&
	lperf report -i "$f" --stdio "$@" | view >l.txt &&
	diff p.txt l.txt || { echo "differs: $f $*"; return 1; }
}

test_expect_success 'sym,dso: the symbol padded to its column, not glued to the object' '
	compare "$SCRATCH/fp.data" --no-children -g none --sort sym,dso &&
	expect_grep "^ +[0-9.]+%  \[\.\] main +inline_hot +\$" l.txt &&
	expect_no_grep "mainsortz|maininline_hot" l.txt
'

# perf sizes the Source:Line column before it has every entry's line (a kernel function's
# name+OFF may come out cut to the width it had, "irqentry_exit_t"): the program's own rows compared.
test_expect_success 'dso,sym,srcline and srcline,sym: the symbol padded before the source line' '
	for k in dso,sym,srcline sym,srcline srcline,sym sym,srcfile; do
		for f in "$SCRATCH/fp.data" "$SCRATCH/dw.data"; do
			perf report -i "$f" --stdio --no-children -g none --sort $k 2>/dev/null | grep "inline_hot\\.c" >p.txt &&
			lperf report -i "$f" --stdio --no-children -g none --sort $k | grep "inline_hot\\.c" >l.txt &&
			diff p.txt l.txt || { echo "differs: $f $k"; return 1; }
		done
	done &&
	lperf report -i "$SCRATCH/fp.data" --stdio --no-children -g none --sort dso,sym,srcline >l.txt &&
	expect_grep "\[\.\] [a-z_]+ +inline_hot\.c:[0-9]+\$" l.txt
'

test_expect_success 'key orders as perf pads them (no-children, -n, flat)' '
	for k in sym,dso dso,sym sym comm dso comm,sym,dso sym,comm dso,comm srcfile,sym,dso; do
		for f in "$SCRATCH/fp.data" "$SCRATCH/dw.data"; do
			compare "$f" --no-children -g none --sort $k &&
			compare "$f" --no-children -g none -n --sort $k || return 1
		done
	done
'

# With the symbol as the first key perf's entries of one inlined function may split in two (its
# order for inlined symbols compares names and overlapping ranges, not a total order): the
# children views are compared with the object first.
test_expect_success 'key orders with children and (inlined) rows, as perf pads them' '
	for k in dso,sym comm,dso,sym dso,sym,comm dso,comm,sym; do
		compare "$SCRATCH/dw.data" --children -g none --sort $k || return 1
	done &&
	expect_grep "\(inlined\)" l.txt
'

test_done
