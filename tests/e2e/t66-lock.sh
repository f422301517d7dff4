#!/bin/sh
# lperf bench sched messaging (perf's hackbench load) and lperf lock record/contention (issue 25),
# against perf 6.1 on the same recordings: perf lock contention and lperf's print the same rows
# from lperf's recording and from perf's (compared as sorted sets: rows with equal sort keys may
# come in another order), and perf reads lperf's recording's events. Rows of the same recordings,
# never a time, so beside other scripts; the known waits of a thread on a mutex are
# t66-lock-wait.sh's, alone.
# e2e-class: parallel (rows of the same recordings compared with perf; passed 3 times in both builds beside 1 to 4 other scripts at loads of 12-30, where only the known wait, now t66-lock-wait.sh, failed once)
. "$(dirname "$0")/lib.sh"

HAVE_PERF=$(command -v perf >/dev/null && echo 1)
HAVE_LOCKTP=$([ -d /sys/kernel/tracing/events/lock/contention_begin ] || [ -d /sys/kernel/debug/tracing/events/lock/contention_begin ] && echo 1)

test_expect_success 'bench sched messaging: perf bench lines, processes and threads, -f simple' '
	lperf bench sched messaging -g 2 -l 10 >out &&
	printf "%s\n" "# Running '"'"'sched/messaging'"'"' benchmark:" "# 20 sender and receiver processes per group" \
		"# 2 groups == 80 processes run" "" >want &&
	head -n 4 out >got && cmp want got &&
	expect_grep "^     Total time: [0-9]+\.[0-9]{3} \[sec\]$" out &&
	lperf bench sched messaging -t -p -g 1 >out2 && expect_grep "^# 1 groups == 40 threads run$" out2 &&
	lperf bench -f simple sched messaging -g 1 -l 5 >out3 && expect_grep "^[0-9]+\.[0-9]{3}$" out3 &&
	expect_lines 1 out3
'

# channels TOOL ARGS...: the pairs a bench run makes ("N socketpair", "N pipe"; one line each), and
# the one-byte writes (the ready bytes and the start), from strace (a file per process: no
# syscall line is split by another's; LeakSanitizer cannot run under ptrace).
channels() {
	rm -rf tr && mkdir tr &&
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -ff -qq -e trace=socketpair,pipe,pipe2,write -e signal=none -o tr/t "$@" >/dev/null &&
	cat tr/t.* | awk "\$1 ~ /^(socketpair|pipe2?)\\(/ { sub(/\\(.*/, \"\", \$1); n[\$1]++ }
	     \$1 ~ /^write\\(/ && \$NF == 1 { n[\"one-byte write\"]++ }
	     END { for (k in n) print n[k], k }" | sort -k2
}
if [ -n "$HAVE_PERF" ] && command -v strace >/dev/null; then
test_expect_success 'bench sched messaging: the channels perf bench makes (the data, ready and start pairs), processes and threads, -p' '
	for args in "-g 2 -l 3" "-g 2 -l 3 -p" "-g 1 -l 3 -t" "-g 1 -l 3 -t -p"; do
		channels perf bench sched messaging $args >p && channels "$LPERF" bench sched messaging $args >l &&
		echo "$args: $(cat l | tr "\n" " ")" && test -s p && cmp p l || return 1
	done
'
else
	test_skip 'bench sched messaging: the channels perf bench makes' 'needs perf and strace'
fi

test_expect_success 'bench: an unknown benchmark is a usage error' '
	expect_exit 2 lperf bench sched pipe 2>err && expect_grep "sched messaging" err
'

test_expect_success 'lock contention: a recording without the lock events says so' '
	lperf record -q -e task-clock -o tc.data -- true &&
	expect_exit 1 lperf lock contention -i tc.data 2>err && expect_grep "lock:contention_begin" err
'

test_expect_success 'lock contention -b needs a command' '
	expect_exit 2 lperf lock con -b 2>err && expect_grep "command" err
'

if [ "$(id -u)" -eq 0 ] && [ -n "$HAVE_PERF" ] && [ -n "$HAVE_LOCKTP" ]; then
# rows: the table's rows, sorted (perf puts a warning above the table when the recording lost
# records: that line is not compared)
rows() { grep -E "^ +[0-9]+ " "$1" | sort; }

test_expect_success 'lock record: perf sees both tracepoints with call chains' '
	lperf lock record -q -o l.data -- "$LPERF" bench sched messaging -g 4 >/dev/null &&
	perf evlist -i l.data 2>/dev/null >ev && expect_grep "^lock:contention_begin$" ev &&
	expect_grep "^lock:contention_end$" ev &&
	perf evlist -v -i l.data 2>/dev/null | grep "contention_begin" | grep -q CALLCHAIN
'

test_expect_success 'lock contention on lperf'"'"'s recording: the rows perf prints' '
	lperf lock record -q -o l.data -- "$LPERF" bench sched messaging -g 4 >/dev/null &&
	perf lock contention -i l.data 2>p.txt >/dev/null && lperf lock contention -i l.data 2>l.txt &&
	grep "^ contended" p.txt >ph && grep "^ contended" l.txt >lh && cmp ph lh &&
	rows p.txt >p.rows && rows l.txt >l.rows && cmp p.rows l.rows &&
	perf lock contention -t -F contended,wait_max -i l.data 2>pt.txt >/dev/null &&
	lperf lock contention -t -F contended,wait_max -i l.data 2>lt.txt &&
	rows pt.txt | cut -c1-50 >pt.rows && rows lt.txt | cut -c1-50 >lt.rows && cmp pt.rows lt.rows
'

test_expect_success 'lock contention on perf'"'"'s recording: the rows perf prints, -E and -q' '
	perf lock record -o p.data -- "$LPERF" bench sched messaging -g 4 >/dev/null 2>&1 &&
	perf lock contention -k contended -i p.data 2>p.txt >/dev/null &&
	lperf lock contention -k contended -i p.data 2>l.txt &&
	rows p.txt >p.rows && rows l.txt >l.rows && cmp p.rows l.rows &&
	n=$(rows l.txt | wc -l) && lperf lock contention -i p.data -E 1 -q 2>one &&
	if [ "$n" -gt 0 ]; then expect_lines 1 one; else expect_lines 0 one; fi
'
test_expect_success 'lock contention -b: the kernel'"'"'s counts while a command runs, perf'"'"'s table' '
	if ! lperf lock con -b true 2>err; then cat err; echo "no BPF here"; exit 0; fi &&
	lperf lock con -a -b -- "$LPERF" bench sched messaging -g 4 >/dev/null 2>all &&
	head -n 1 all >h && echo " contended   total wait     max wait     avg wait         type   caller" >want &&
	cmp want h && rows all >r && n=$(wc -l <r) && echo "$n rows" &&
	if [ "$n" -gt 0 ]; then
		grep -E -q "^ +[0-9]+ +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[A-Za-z:-]+   [A-Za-z_.0-9]+(\+0x[0-9a-f]+)?$" r
	fi &&
	lperf lock con -b -E 1 -q -- "$LPERF" bench sched messaging -g 4 >/dev/null 2>one &&
	test "$(wc -l <one)" -le 1 && ! grep -q contended one
'

# table WORD: the lines from the table's header (its first line holding WORD) on: a recording that
# lost samples gets warnings above the table from either tool
table() { sed -n "/$1/,\$p"; }
# lock report and lock info on both tools' recordings of the same load: perf's header and rows
# (rows as sorted sets; -t's rows without the comm: perf 6.1's lock command reads no fork events,
# so it names a forked process's threads ":TID" where lperf gives their name).
test_expect_success 'lock report (-k, -F, -c, -t, -E) and lock info -m/-t: perf'"'"'s tables' '
	lperf lock record -q -o l.data -- "$LPERF" bench sched messaging -g 4 >/dev/null &&
	perf lock record -o p.data -- "$LPERF" bench sched messaging -g 4 >/dev/null 2>&1 &&
	for f in l.data p.data; do
		for o in "" "-c" "-k wait_total" "-k contended -F contended,wait_max" "-k avg_wait -E 3"; do
			perf lock report $o -i $f 2>&1 >/dev/null | table Name >p.txt &&
			lperf lock report $o -i $f 2>&1 | table Name >l.txt &&
			head -n 2 p.txt >ph && head -n 2 l.txt >lh && cmp ph lh &&
			tail -n +3 p.txt | sort >p.rows && tail -n +3 l.txt | sort >l.rows &&
			cmp p.rows l.rows || { echo "differs: report $o -i $f"; diff p.txt l.txt; return 1; }
		done &&
		perf lock report -t -i $f 2>&1 >/dev/null | table Name >p.txt && lperf lock report -t -i $f 2>&1 | table Name >l.txt &&
		tail -n +3 p.txt | cut -c21- | sort >p.rows && tail -n +3 l.txt | cut -c21- | sort >l.rows &&
		cmp p.rows l.rows &&
		perf lock info -m -i $f 2>&1 >/dev/null | table Address >p.txt && lperf lock info -m -i $f 2>&1 | table Address >l.txt &&
		cmp p.txt l.txt &&
		perf lock info -t -i $f 2>&1 >/dev/null | table Thread >p.txt && lperf lock info -t -i $f 2>&1 | table Thread >l.txt &&
		cut -d: -f1 p.txt >p.tids && cut -d: -f1 l.txt >l.tids && cmp p.tids l.tids || return 1
	done &&
	lperf lock report -i l.data 2>r.txt &&
	expect_grep "^ +Name +acquired +contended +avg wait +total wait +max wait +min wait $" r.txt
'

test_expect_success 'lock report -t and info -t on renamed threads: the names perf prints' '
	cc -O2 -pthread -o lockwait "$TEST_ROOT/tests/workloads/lockwait.c" &&
	lperf lock record -q -o w.data -- ./lockwait 30 >/dev/null &&
	for a in "report -t:Name" "info -t:Thread" "report:Name" "info -m:Address"; do
		h=${a#*:} a=${a%:*} &&
		perf lock $a -i w.data 2>&1 >/dev/null | table $h >p.txt && lperf lock $a -i w.data 2>&1 | table $h >l.txt &&
		cmp p.txt l.txt || { echo "differs: lock $a"; diff p.txt l.txt; return 1; }
		[ "$a" != "report -t" ] || cp l.txt t.txt
	done && expect_grep "^ +lw_small +[0-9]+ " t.txt
'

test_expect_success 'lock info without -t or -m, and report -k with an unknown key, are usage errors' '
	lperf lock record -q -o w.data -- true &&
	expect_exit 2 lperf lock info -i w.data 2>err && expect_grep "\-t|\-m" err &&
	expect_exit 2 lperf lock report -k nosuch -i w.data 2>err && expect_grep "acquired" err &&
	expect_exit 2 lperf lock contention -k acquired -i w.data 2>err
'

else
test_skip "lock record/contention against perf" "needs root, Linux perf and the lock:contention_begin tracepoint"
fi

test_done
