#!/bin/sh
# --time: the samples outside the window are counted as read but never resolved (no unwinding,
# symbol lookups or Python joins), in report (one thread and -j2), its pictures and script, for
# one range, several, and percentages; -v says how many were left so. The shown samples are those
# perf's --time keeps (t93 and t135 compare them with perf's).
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"

F="$FIXTURES/perfdata/perf61-callchain.data"

# The note of -v: "N of M samples are outside the --time window: counted, not resolved".
skipped() { sed -n "s/.*note: \([0-9]*\) of \([0-9]*\) samples are outside the --time window.*/\1 \2/p" "$1"; }

test_expect_success 'a window of 10 samples: the others are counted, not resolved (report -j1, -j2, script)' '
	lperf script -F time -i "$F" >times && total=$(wc -l <times) && test "$total" -ge 100 &&
	range=$(sed -n "3p;12p" times | tr -d " :" | paste -sd, -) &&
	lperf script -F time --time "$range" -i "$F" >in && n=$(wc -l <in) &&
	test "$n" -ge 5 && test "$n" -le 10 &&
	want="$((total - n)) $total" &&
	lperf report -v --time "$range" -i "$F" --stdio >r1 2>e1 && test "$(skipped e1)" = "$want" &&
	lperf report -v -j2 --time "$range" -i "$F" --stdio >r2 2>e2 && test "$(skipped e2)" = "$want" &&
	lperf script -v --time "$range" -i "$F" >s 2>e3 && test "$(skipped e3)" = "$want" &&
	test "$(grep -c "^[a-z]" s)" -eq "$n" &&
	cmp r1 r2
'

test_expect_success 'JSON: every sample read is counted, those outside the window as filtered out' '
	lperf script -F time -i "$F" >times && total=$(wc -l <times) &&
	range=$(sed -n "3p;12p" times | tr -d " :" | paste -sd, -) &&
	n=$(lperf script -F time --time "$range" -i "$F" | wc -l) &&
	for j in 1 2; do
		lperf report -j$j --json --time "$range" -i "$F" >r.json 2>/dev/null &&
		"$PYTHON" - r.json "$total" "$((total - n))" <<-\EOF || exit 1
		import json, sys
		d = json.load(open(sys.argv[1]))
		assert d["samples"] == int(sys.argv[2]), (d["samples"], sys.argv[2])
		assert d["filtered_out"] == int(sys.argv[3]), (d["filtered_out"], sys.argv[3])
		EOF
	done
'

test_expect_success 'no note without -v, and none without a window or with every sample in it' '
	lperf report --time 1,2 -i "$F" --stdio >/dev/null 2>e && test -z "$(skipped e)" &&
	lperf report -v -i "$F" --stdio >/dev/null 2>e && test -z "$(skipped e)" &&
	lperf report -v --time 0,99999999 -i "$F" --stdio >/dev/null 2>e && test -z "$(skipped e)" &&
	lperf report -v --time 1,2 -i "$F" --stdio >/dev/null 2>e &&
	total=$(lperf script -F time -i "$F" | wc -l) && test "$(skipped e)" = "$total $total"
'

# The sample time at line $1 of the recording, as --time's seconds.
t() { lperf script -F time -i "$F" | sed -n "${1}p" | tr -d " :"; }

test_expect_success 'outside the window nothing is resolved, with percentages and several ranges too (-j1, -j2)' '
	total=$(lperf script -F time -i "$F" | wc -l) &&
	for s in 10%/2,10%/7 "$(t 3),$(t 12) $(t 100),$(t 110)"; do
		n=$(lperf script -F time -i "$F" --time "$s" | wc -l) && test "$n" -gt 0 && test "$n" -lt "$total" &&
		for j in 1 2; do
			lperf report -v -j$j --time "$s" -i "$F" --stdio >r 2>e &&
			expect_grep "note: $((total - n)) of $total samples are outside the --time window" e || exit 1
		done
	done
'

test_done
