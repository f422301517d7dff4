#!/bin/sh
# lperf diff per function as perf diff 6.1 (issue 22): its computations (-c delta, delta-abs,
# ratio, wdiff:W1,W2), --period, the Shared Object column and its order, identical to perf diff's
# on the same two files; the share-only view's trap explained by the absolute modes: after 4/5 of
# adler's work is removed (tests/workloads/inline_hot.c, adler inlined into main), msort_with_tmp's
# share grows although its own work did not change: its ratio of periods stays near 1.
# e2e-class: parallel (fixed-work recordings of CPU-time samples; perf diff and lperf diff compared on the same files)
. "$(dirname "$0")/lib.sh"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -o "$BIN/inline_hot" "$TEST_ROOT/tests/workloads/inline_hot.c" || { echo "cannot build inline_hot"; exit 1; }
lperf record -q -F 999 -e cpu-clock -o "$SCRATCH/l1.data" -- "$BIN/inline_hot" 4 >/dev/null &&
lperf record -q -F 999 -e cpu-clock -o "$SCRATCH/l2.data" -- "$BIN/inline_hot" 4 20 >/dev/null ||
	{ echo "cannot record"; exit 1; }

# "value" of a row: the computed column of the row naming FUNC
col() { awk -v f="$2" '$NF == f && $(NF-1) == "[.]" { print $(NF-3); exit }' "$1"; }

test_expect_success 'the unchanged function: its share grows, its ratio of periods stays near 1' '
	lperf diff -c delta "$SCRATCH/l1.data" "$SCRATCH/l2.data" >delta.txt &&
	lperf diff -c ratio "$SCRATCH/l1.data" "$SCRATCH/l2.data" >ratio.txt &&
	cat delta.txt ratio.txt &&
	d=$(col delta.txt msort_with_tmp) && r=$(col ratio.txt msort_with_tmp) && m=$(col ratio.txt main) &&
	"$PYTHON" -c "import sys; d, r, m = float(sys.argv[1].rstrip(\"%\")), float(sys.argv[2]), float(sys.argv[3]); sys.exit(0 if d > 5 and 0.8 < r < 1.25 and m < 0.75 else 1)" "$d" "$r" "$m"
'

test_expect_success 'default: delta-abs, the largest change first, the Shared Object column, noise hidden' '
	lperf diff "$SCRATCH/l1.data" "$SCRATCH/l2.data" >d.txt && cat d.txt &&
	expect_grep "^# Baseline  Delta Abs  Shared Object +Symbol" d.txt &&
	awk "!/^#/ && NF { print \$NF; exit }" d.txt | grep -qx "main\|msort_with_tmp" &&
	"$PYTHON" -c "import sys; v = [abs(float(t.rstrip(\"%\"))) for l in open(sys.argv[1]) if not l.startswith(\"#\") for t in l.split()[:2] if t[0] in \"+-\"]; sys.exit(0 if v == sorted(v, reverse=True) else 1)" d.txt &&
	lperf diff --percent-limit 0 "$SCRATCH/l1.data" "$SCRATCH/l2.data" >all.txt &&
	test $(grep -vc "^#" all.txt) -ge $(grep -vc "^#" d.txt) &&
	expect_no_grep "more rows not shown" all.txt
'

test_expect_success '--period and -n: the periods and sample counts of both recordings' '
	lperf diff -p -n "$SCRATCH/l1.data" "$SCRATCH/l2.data" >p.txt && cat p.txt &&
	expect_grep "^# Baseline +Base period +Base samples +Delta Abs +Period +Samples +Shared Object +Symbol" p.txt &&
	lperf diff --json -n "$SCRATCH/l1.data" "$SCRATCH/l2.data" >d.json &&
	"$PYTHON" "$TEST_ROOT/tests/e2e/validate_json.py" "$TEST_ROOT/docs/schemas/diff.schema.json" d.json &&
	"$PYTHON" - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	rows = {r["symbol"]: r for r in d["rows"]}
	m = rows["msort_with_tmp"]
	assert 0.8 < m["ratio"] < 1.25 and m["change"] > 5 and m["dso"] == "inline_hot", m
	assert d["compute"] == "delta-abs" and d["rows"][0]["symbol"] in ("main", "msort_with_tmp"), d["rows"][0]
	changes = [abs(r["change"]) for r in d["rows"] if r["new_period"]]
	assert changes == sorted(changes, reverse=True), changes
	EOF
'

test_expect_success 'bad -c values are usage errors' '
	expect_exit 2 lperf diff -c wdiff "$SCRATCH/l1.data" "$SCRATCH/l2.data" 2>e1.txt &&
	expect_grep "wdiff:W1,W2" e1.txt &&
	expect_exit 2 lperf diff -c speed "$SCRATCH/l1.data" "$SCRATCH/l2.data" 2>e2.txt &&
	expect_grep "delta, delta-abs, ratio" e2.txt
'

if ! command -v perf >/dev/null; then
	test_skip "diff against perf diff" "no perf"
	test_done
	exit
fi
perf record -q -F 999 -e cpu-clock -o "$SCRATCH/p1.data" -- "$BIN/inline_hot" 4 >/dev/null 2>&1
perf record -q -F 999 -e cpu-clock -o "$SCRATCH/p2.data" -- "$BIN/inline_hot" 4 20 >/dev/null 2>&1

test_expect_success 'perf diff -c delta, delta-abs, ratio, wdiff (with and without --period): identical text' '
	for pair in "p1 p2" "p2 p1" "l1 l2" "p1 l2"; do
		set -- $pair
		for c in delta delta-abs ratio wdiff:1,1 wdiff:2,3; do
			for p in "" --period; do
				perf diff -c $c $p "$SCRATCH/$1.data" "$SCRATCH/$2.data" >p.txt 2>/dev/null &&
				lperf diff --percent-limit 0 -c $c $p "$SCRATCH/$1.data" "$SCRATCH/$2.data" >l.txt &&
				diff p.txt l.txt || { echo "differs: $1 $2 -c $c $p"; return 1; }
			done
		done
	done
'

test_done
