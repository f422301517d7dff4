#!/bin/sh
# --time in perf 6.1's whole grammar (util/timerange.h): percentages of the recording (slices
# P%/N, spans P%-Q%, lists of them, one P%), several ranges in seconds separated by blanks, open
# ends. report and script keep exactly the samples perf 6.1 keeps on the same perf.data (perf's
# and lperf's recordings); a spec perf refuses is refused, and under the name perf with perf's
# line and status.
# e2e-class: parallel
. "$(dirname "$0")/lib.sh"

have_perf() { command -v perf >/dev/null && perf version >/dev/null 2>&1; }
F="$FIXTURES/perfdata/perf61-callchain.data"

# The samples each tool keeps of $1 with --time "$2", as raw fields.
same_samples() {
	lperf script -F tid,time,ip -i "$1" --time "$2" >l.o 2>l.e || { cat l.e; fail "lperf refused '$2'"; return 1; }
	perf script -F tid,time,ip -i "$1" --time "$2" >p.o 2>/dev/null || { fail "perf refused '$2'"; return 1; }
	cmp -s p.o l.o || { diff p.o l.o | head -5; fail "'$2': $(wc -l <l.o) samples, perf's $(wc -l <p.o)"; return 1; }
}

# The sample times of $1 at lines $2, as --time's seconds (script's 6 decimals).
t() { lperf script -F time -i "$1" | sed -n "${2}p" | tr -d " :"; }

percent_specs='10%/1 10%/2 10%/3 10%/10 25%/4 33.3%/3 1e1%/5 0%-10% 0%-10%,30%-40% 10%/1,10%/3
10%/2,10%/4,10%/9 50% 100% 0%-100% 90%-100% 20%-10% 0%-0% 0.5%-99.5% 10%/1,'

test_expect_success 'script: percentages keep the samples perf keeps (perf 6.1 recording)' '
	have_perf || exit 0
	for s in $percent_specs; do same_samples "$F" "$s" || exit 1; done &&
	i=1 && while [ $i -le 20 ]; do same_samples "$F" "5%/$i" || exit 1; i=$((i + 1)); done &&
	total=$(lperf script -F time -i "$F" | wc -l) &&
	n=0 && i=1 && while [ $i -le 20 ]; do
		n=$((n + $(lperf script -F time -i "$F" --time "5%/$i" | wc -l))); i=$((i + 1))
	done && test "$n" -eq "$total"
'

test_expect_success 'script: several ranges in seconds and open ends keep what perf keeps' '
	have_perf || exit 0
	a=$(t "$F" 3) b=$(t "$F" 40) c=$(t "$F" 41) d=$(t "$F" 90) e=$(t "$F" 150) &&
	for s in "$a," ",$b" "$a,$b" "$a,$b $d,$e" "$a,$b  $d," ",$a $b,$d $e," "$b,$b" "$a, $b $d,$e" \
		"$b,$d $e,$e"; do
		same_samples "$F" "$s" || exit 1
	done &&
	lperf script -F time -i "$F" --time "$a,$b $d,$e" >two && lperf script -F time -i "$F" --time "$a,$b" >one &&
	test "$(wc -l <two)" -gt "$(wc -l <one)"
'

test_expect_success 'report: the same samples and perf'"'"'s "(time slices: SPEC)" header' '
	have_perf || exit 0
	a=$(t "$F" 3) b=$(t "$F" 40) d=$(t "$F" 90) &&
	for s in 10%/3 "0%-10%,30%-40%" 50% "$a,$b $d," ",$b"; do
		lperf report -i "$F" --stdio -g none --sort comm,dso --time "$s" 2>/dev/null | grep -v "^#\?$" >l.o &&
		perf report -i "$F" --stdio -g none --sort comm,dso --time "$s" 2>/dev/null | grep -v "^#\?$" |
			grep -v "^# (Tip:" >p.o &&
		diff p.o l.o || exit 1
		expect_grep "^# Samples: .* \(time slices: $s\)$" l.o || exit 1
	done
'

test_expect_success 'an lperf recording: percentages of its header'"'"'s sample times, as perf reads them' '
	lperf record -F 2000 -e cpu-clock -o r.data -- sh -c "i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done" 2>/dev/null &&
	lperf report --header-only -i r.data | expect_grep "^# time of first sample" - &&
	have_perf || exit 0
	for s in 10%/2 0%-25%,50%-75% 30% 100%; do same_samples r.data "$s" || exit 1; done
'

test_expect_success 'diff --time: one spec for both recordings or OLD:NEW, the rows perf diff shows' '
	cc -O2 -g -o ih "$TEST_ROOT/tests/workloads/inline_hot.c" &&
	lperf record -q -F 999 -e cpu-clock -o l1.data -- ./ih 2 >/dev/null &&
	lperf record -q -F 999 -e cpu-clock -o l2.data -- ./ih 2 20 >/dev/null &&
	have_perf || exit 0
	for s in 10%/2 0%-30% 50% "0%-10%,50%-90%" "$(t l1.data 20),:$(t l2.data 50)," "10%/1:10%/3"; do
		lperf diff -p --percent-limit 0 --time "$s" l1.data l2.data | grep -v "^#" | grep -v "^\$" >l.o &&
		perf diff -p --time "$s" l1.data l2.data 2>/dev/null | grep -v "^#" | grep -v "^\$" >p.o &&
		test -s p.o && diff p.o l.o || exit 1
	done &&
	lperf diff -p --percent-limit 0 --time 10%/1:10%/10 l1.data l2.data >a.o &&
	lperf diff -p --percent-limit 0 --time 10%/1 l1.data l2.data >b.o && ! cmp -s a.o b.o &&
	for s in 10%/1: :10%/1 10%/1:10%/2:10%/3 0%; do
		expect_exit 2 lperf diff --time "$s" l1.data l2.data 2>e && expect_grep "time" e || exit 1
	done
'

bad_specs='x 1 1.5 2,1 1,2,3,4 0% 101% 10%/0 10%/11 10%/-1 10%/ 10%,20% -1,2 1.1234567891,2 1,2x'

test_expect_success 'specs perf refuses: lperf exits 2 naming the spec; as perf, perf'"'"'s line and 234' '
	ln -s "$LPERF" perf &&
	for s in $bad_specs "1,2 2,3" "1,3 2,4"; do
		expect_exit 2 lperf script --time "$s" -i "$F" 2>e && expect_grep "not a time range perf reads" e &&
		expect_exit 2 lperf report --time "$s" -i "$F" --stdio 2>e && expect_grep "not a time range" e &&
		expect_exit 234 ./perf script --time "$s" -i "$F" 2>e && echo "Invalid time string" >want &&
		cmp want e || exit 1
		if have_perf; then expect_exit 234 perf script --time "$s" -i "$F" 2>e && cmp want e || exit 1; fi
	done
'

test_expect_success 'accidents of perf'"'"'s parser are refused: empty pieces, junk after %, wrapped numbers' '
	for s in "0%-10%,,20%-30%" ",0%-10%" "0%-10%,30%" "10%abc/2" "nan%/1" "%-10%" "1,-2" "18446744074,"; do
		expect_exit 2 lperf script --time "$s" -i "$F" 2>e && expect_grep "not a time range" e || exit 1
	done
'

test_expect_success 'percentages of a recording without sample times (a pipe): refused, as perf' '
	P="$FIXTURES/perfdata/perf61-pipe.data" &&
	expect_exit 1 lperf script --time 10%/1 -i "$P" 2>e && expect_grep "no first and last sample times" e &&
	ln -s "$LPERF" perf &&
	expect_exit 234 ./perf report --stdio --time 10%/1 -i "$P" 2>e && expect_grep "^HINT: no first/last sample time" e &&
	lperf script --time 1,99999 -i "$P" >/dev/null
'

test_done
