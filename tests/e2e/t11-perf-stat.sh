#!/bin/sh
# lperf stat as perf 6.1's stat, judged against perf on this machine: the text, CSV and JSON
# layouts field by field (software events), perf's JSON linter on every -j output, the
# aggregation modes, and perf's option meanings under the name lperf.
# e2e-class: parallel (layouts compared with perf over the rows both printed, -I over the intervals that counted; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"
FAULTS="$HELPERS/faults"
SHAPE="$TEST_ROOT/tests/e2e/stat_shape.py"
LINT=/usr/lib/perf-core/tests/shell/lib/perf_json_output_lint.py
EVENTS=task-clock,page-faults,context-switches,cpu-migrations,cycles

have_perf() { command -v perf >/dev/null && perf stat -e task-clock true 2>/dev/null; }
cpu_wide() { [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ]; }

# same_layout "OPTIONS" [--csv SEP]: perf and lperf on the same command, compared line by line.
# counted_pairs P L: P and L (perf's and lperf's -I output) cut to their first two intervals, as
# many as both printed, without the rows (the Nth of an interval) that either tool printed
# "<not counted>": whether a command ran in an interval is the machine's, not the tool's.
counted_pairs() {
	"$PYTHON" - "$1" "$2" <<-\PY
	import re, sys
	def parse(f):
	    head, ivs, last = [], [], None
	    for line in open(f):
	        m = re.match(r"^ *([0-9]+\.[0-9]+)", line)
	        if not m:
	            (head if not ivs else ivs[-1]).append(line)
	            continue
	        if m.group(1) != last:
	            ivs.append([])
	            last = m.group(1)
	        ivs[-1].append(line)
	    return head, ivs
	(ph, pi), (lh, li) = parse(sys.argv[1]), parse(sys.argv[2])
	n = min(len(pi), len(li), 2)
	assert n >= 1, "no interval rows"
	po, lo = ph[:], lh[:]
	for a, b in zip(pi[:n], li[:n]):
	    for k in range(max(len(a), len(b))):
	        x, y = (a[k] if k < len(a) else ""), (b[k] if k < len(b) else "")
	        if "<not counted>" in x or "<not counted>" in y:
	            continue
	        po.append(x)
	        lo.append(y)
	open(sys.argv[1], "w").write("".join(po))
	open(sys.argv[2], "w").write("".join(lo))
	PY
}
same_layout() {
	opts=$1; shift
	csv=""
	[ $# -gt 0 ] && csv="-x $2"
	# 0.25 s: with -I 100, two full intervals and a tail far from either end. With -I, a command
	# busy for 0.35 s of its CPU time, and its intervals that counted: whether the command ran in
	# an interval is the machine's (a sleep's second interval was "<not counted>" in one tool's
	# run and counted in the other's where a loaded machine made its start late).
	cmd="sleep 0.25"
	case "$opts" in *-I*) cmd="$FAULTS 10 350" ;; esac
	perf stat $csv -e $EVENTS $opts $cmd 2>perf.out >/dev/null &&
	lperf stat $csv -e $EVENTS $opts $cmd 2>lperf.out >/dev/null &&
	case "$opts" in *-I*)
		# how many intervals there are depends on how late a loaded machine ends the command
		# (perf once printed its first row at 0.50 s of a 0.25 s sleep)
		counted_pairs perf.out lperf.out ;;
	esac &&
	"$PYTHON" "$SHAPE" "$@" perf.out lperf.out || { cat perf.out lperf.out; return 1; }
}

if have_perf; then
	test_expect_success 'text layout is perf: heading, rows, shadow metrics, footer' '
		same_layout ""
	'
	test_expect_success 'CSV fields are perf: value,unit,event,run,pcnt,metric,unit' '
		same_layout "" --csv ,
	'
	test_expect_success 'interval rows (-I) in text and CSV are perf' '
		same_layout "-I 100" && same_layout "-I 100" --csv ";"
	'
	if cpu_wide; then
		for mode in -A --per-core --per-die --per-socket --per-node; do
			test_expect_success "system-wide $mode: text and CSV rows are perf" "
				same_layout \"-a $mode\" && same_layout \"-a $mode\" --csv ,
			"
		done
		test_expect_success 'system-wide -I with --per-core: the interval header and rows are perf' '
			same_layout "-a -I 100 --per-core"
		'
	fi
	test_expect_success 'JSON lines carry perf keys in perf order, mode by mode' '
		for opts in "" "-I 100" "-a" "-a -A" "-a --per-core" "-a --per-socket" "-a --per-die" "-a --per-node"; do
			perf stat -j -e $EVENTS $opts sleep 0.25 2>p.json >/dev/null &&
			lperf stat -j -e $EVENTS $opts sleep 0.25 2>l.json >/dev/null &&
			"$PYTHON" -c "
import json, sys
# -I: how many intervals a 0.25 s sleep spans, and in which of them it ran (the others are
# \"<not counted>\"), depends on how late a loaded machine starts and ends it: the intervals
# that counted, as many as both printed
I = \"-I\" in \"$opts\"
keys = lambda f: [list(d.keys()) for d in (json.loads(l) for l in open(f) if l.strip())
                  if not (I and \"not counted\" in str(d.get(\"counter-value\")))]
p, l = keys(\"p.json\"), keys(\"l.json\")
if I:
    n = min(len(p), len(l)); p, l = p[:n], l[:n]
assert p and p == l, (\"$opts\", p, l)
" || return 1
		done
	'
fi

if have_perf; then
	test_expect_success '--metric-only without -M metrics prints what perf prints (text, CSV, JSON, -I)' '
		for opts in "" "-x," "-j" "-x, -I 100" "-j -I 100" "-I 100"; do
			perf stat --metric-only $opts -e task-clock sleep 0.25 2>p.txt &&
			lperf stat --metric-only $opts -e task-clock sleep 0.25 2>l.txt &&
			# With -I, the header and the first row (perf adds a separator to a last, partial one).
			n=100; case "$opts" in *-I*) n=2 ;; esac
			sed "s/[0-9]/9/g" p.txt | head -n $n >p9 && sed "s/[0-9]/9/g" l.txt | head -n $n >l9 &&
			diff p9 l9 || { echo "differs with: $opts"; return 1; }
		done
	'
fi

if [ -f "$LINT" ]; then
	test_expect_success 'perf_json_output_lint.py accepts every lperf -j output' '
		lperf stat -j true 2>o && "$PYTHON" "$LINT" --no-args <o &&
		lperf stat -j -e cpu-clock true 2>o && "$PYTHON" "$LINT" --event <o &&
		lperf stat -j -I 100 -- "$FAULTS" 10 250 2>o && "$PYTHON" "$LINT" --interval <o &&
		lperf stat -j -r 2 true 2>o && "$PYTHON" -c "
import json, sys
for l in open(\"o\"): assert \"variance\" in json.loads(l)" &&
		if cpu_wide; then
			lperf stat -j -a true 2>o && "$PYTHON" "$LINT" --system-wide <o &&
			lperf stat -j -A -a --no-merge true 2>o && "$PYTHON" "$LINT" --system-wide-no-aggr <o &&
			for m in core socket die node; do
				lperf stat -j --per-$m -a true 2>o && "$PYTHON" "$LINT" --per-$m <o || return 1
			done
		fi
	'
fi

test_expect_success '-r 3 -x,: the variance column and the mean run time, as perf' '
	lperf stat -r 3 -x, -e task-clock -- "$FAULTS" 10 50 2>o &&
	awk -F, "\$3 == \"task-clock\" { ok = (\$4 ~ /%$/ && \$5 > 0.8 * \$1 * 1e6 && \$5 < 1.2 * \$1 * 1e6) } END { exit !ok }" o ||
		{ cat o; false; }
'

test_expect_success 'the table goes to stderr; the command keeps stdout' '
	lperf stat -e task-clock -- echo hello >out 2>err &&
	[ "$(cat out)" = hello ] && expect_grep "^ Performance counter stats for .echo hello.:$" err &&
	lperf stat -j -e task-clock -- echo hello >out 2>err && [ "$(cat out)" = hello ] &&
	expect_grep "^\{\"counter-value\" : " err
'

test_expect_success '-i is --no-inherit: a child is not counted' '
	lperf stat -x, -e task-clock -- sh -c "\"$FAULTS\" 10 200; true" 2>all &&
	lperf stat -x, -i -e task-clock -- sh -c "\"$FAULTS\" 10 200; true" 2>own &&
	a=$(awk -F, "{print int(\$1)}" all) && o=$(awk -F, "{print int(\$1)}" own) &&
	echo "inherited $a ms, not inherited $o ms" && [ "$a" -ge 150 ] && [ "$o" -lt 50 ]
'

test_expect_success '-p PID sleep N: the command is a timer, the process is counted (as perf)' '
	"$FAULTS" 10 3000 & pid=$!
	sleep 0.2
	t0=$(date +%s%N); lperf stat -x, -p $pid -e task-clock sleep 0.3 2>o; rc=$?; t1=$(date +%s%N)
	lperf stat -p $pid -e task-clock sleep 0.1 2>t; kill $pid; wait $pid 2>/dev/null
	# A busy process counted while the timer ran: some of it (a loaded machine, or a sanitizer
	# build, gives it little of a CPU), at most the wall time lperf ran (0.3 s and more: a loaded
	# machine starts and ends the timer late).
	ms=$(((t1 - t0) / 1000000)) && echo "counted $(cut -d, -f1 o) ms in $ms ms" &&
	[ $rc -eq 0 ] && v=$(cut -d, -f1 o) && awk -v v="$v" -v ms="$ms" "BEGIN { exit !(v > 0 && v < 1.1 * ms) }" &&
	expect_grep "^ Performance counter stats for process id .$pid.:$" t && expect_no_grep "seconds user" t &&
	expect_exit 1 lperf stat -p 999999 -e task-clock sleep 0.1 2>err && expect_grep "no such process" err
'

test_expect_success '-c is not a CPU list under lperf (perf has no stat -c)' '
	expect_exit 2 lperf stat -c 0 true 2>err && expect_grep "unknown option .-c." err
'

test_expect_success '-A and --per-socket need -a or -C, as in perf' '
	expect_exit 2 lperf stat -A true 2>err && expect_grep "system-wide" err &&
	expect_exit 2 lperf stat --per-socket true 2>err
'

if cpu_wide; then
	test_expect_success '--summary after -I, with and without the CSV summary word' '
		lperf stat -e cpu-clock -x" " -I 100 --interval-count 1 --summary 2>o &&
		[ "$(grep -c "^ *summary " o)" -eq 1 ] &&
		lperf stat -e cpu-clock -x" " -I 100 --interval-count 1 --summary --no-csv-summary 2>o &&
		expect_no_grep summary o && [ "$(wc -l <o)" -eq 2 ] &&
		lperf stat -e cpu-clock -I 100 --interval-count 1 --summary 2>o &&
		expect_grep "Performance counter stats for .system wide.:" o
	'
	test_expect_success '--per-socket follows the sysfs topology (LPERF_SYSFS_ROOT)' '
		mkdir -p sys/devices/system/cpu/cpu0/topology sys/devices/system/cpu/cpu1/topology &&
		echo 0-1 >sys/devices/system/cpu/online &&
		echo 0 >sys/devices/system/cpu/cpu0/topology/physical_package_id &&
		echo 1 >sys/devices/system/cpu/cpu1/topology/physical_package_id &&
		echo 0 >sys/devices/system/cpu/cpu0/topology/core_id &&
		echo 0 >sys/devices/system/cpu/cpu1/topology/core_id &&
		if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then exit 0; fi &&
		LPERF_SYSFS_ROOT=$PWD/sys lperf stat -x, --per-socket -a -e cpu-clock sleep 0.1 2>o &&
		expect_grep "^S0,1,[0-9.]+,msec,cpu-clock," o && expect_grep "^S1,1,[0-9.]+,msec,cpu-clock," o &&
		LPERF_SYSFS_ROOT=$PWD/sys lperf stat -x, --per-core -a -e cpu-clock sleep 0.1 2>o &&
		expect_grep "^S0-D0-C0,1," o && expect_grep "^S1-D0-C0,1," o
	'
fi

test_expect_success 'stat record -o - | stat report -i -: lperf on both ends' '
	lperf stat record -o - -e task-clock,page-faults -- "$FAULTS" 500 | lperf stat report -i - 2>o &&
	expect_grep "^ Performance counter stats for .pipe.:$" o &&
	expect_grep "^ +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized" o &&
	v=$(awk "\$2 == \"page-faults\" { print \$1 }" o) && [ "$v" -ge 500 ]
'

if have_perf; then
	test_expect_success 'perf stat report reads lperf stat record (pipe and file), stderr clean' '
		lperf stat record -o - -e task-clock,page-faults -- "$FAULTS" 500 | perf stat report -i - >o 2>&1 &&
		expect_grep "^ Performance counter stats for .pipe.:$" o &&
		v=$(awk "\$2 == \"page-faults\" { print \$1 }" o) && [ "$v" -ge 500 ] &&
		expect_grep "msec task-clock" o &&
		lperf stat record -o s.data -e task-clock,page-faults -- "$FAULTS" 500 2>rec.err &&
		expect_lines 0 rec.err &&
		perf stat report -i s.data >p.out 2>&1 && lperf stat report -i s.data 2>l.out &&
		expect_grep "stats for .*lperf stat record -o s.data -e task-clock,page-faults" p.out &&
		"$PYTHON" "$SHAPE" p.out l.out &&
		perf report --header-only -i s.data 2>&1 | grep -q "contains stat data"
	'
	test_expect_success 'lperf stat report reads perf stat record, per-task and system-wide' '
		perf stat record -o - -e task-clock,page-faults true | lperf stat report -i - 2>o &&
		expect_grep "^ Performance counter stats for .pipe.:$" o && expect_grep "page-faults" o &&
		if cpu_wide; then
			perf stat record -o a.data -a -e task-clock sleep 0.1 2>/dev/null &&
			perf stat report -i a.data >p.out 2>&1 && lperf stat report -i a.data 2>l.out &&
			cat p.out l.out && "$PYTHON" "$SHAPE" p.out l.out
		fi
	'
fi

test_expect_success 'stat record -o -: the command prints to stderr, out of the pipe (as perf)' '
	lperf stat record -o - -e task-clock -- echo hello 2>err | lperf stat report -i - 2>o &&
	[ "$(cat err)" = hello ] && expect_grep "msec task-clock" o
'

test_expect_success 'stat record -I: rows while counting, and the same rows from stat report (either tool)' '
	lperf stat record -o i.data -I 100 -e task-clock,page-faults -- "$FAULTS" 10 250 2>live &&
	lperf stat report -i i.data 2>rep &&
	[ "$(grep -c " msec task-clock" live)" -ge 2 ] &&
	[ "$(grep -c task-clock live)" -eq "$(grep -c task-clock rep)" ] &&
	[ "$(awk "/task-clock/ { print \$1, \$2 }" live)" = "$(awk "/task-clock/ { print \$1, \$2 }" rep)" ] &&
	if have_perf; then
		perf stat report -i i.data >p.out 2>&1 &&
		[ "$(awk "/task-clock/ { print \$1, \$2 }" p.out)" = "$(awk "/task-clock/ { print \$1, \$2 }" rep)" ]
	fi
'

test_expect_success 'stat report of a file without counts says so' '
	lperf record -q -e cpu-clock -o r.data -- true &&
	expect_exit 1 lperf stat report -i r.data 2>err && expect_grep "no counts of .stat record." err
'

test_expect_success '--per-thread -p: a row per thread, the busy one first' '
	"$FAULTS" 10 3000 & pid=$!
	# the row is named by the comm: wait for the exec, not a fixed time
	i=0; until [ "$(cat /proc/$pid/comm 2>/dev/null)" = faults ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
	lperf stat -x, --per-thread -p $pid -e task-clock --timeout 300ms 2>o; rc=$?
	kill $pid 2>/dev/null; wait $pid 2>/dev/null; [ $rc -eq 0 ] &&
	head -n 1 o | grep -E "^faults-$pid,[0-9.]+,msec,task-clock,[0-9]+,100.00,[0-9.]+,CPUs utilized$" &&
	lperf stat -j --per-thread -p $$ -e task-clock --timeout 100ms 2>o &&
	expect_grep "^\{\"thread\" : \"[^\"]*-$$\", \"counter-value\" : " o
'

if cpu_wide; then
	test_expect_success '--per-thread -a: the threads that ran, perf fields (CSV and JSON lint)' '
		lperf stat -x, --per-thread -a -- "$FAULTS" 10 100 2>o &&
		# The command is named as it was when counting began (before its exec), as in perf.
		awk -F, "\$4 == \"cpu-clock\" && \$2 > 50 { n++ } END { exit !n }" o &&
		awk -F, "NF != 8 { print; exit 1 }" o &&
		lperf stat -j --per-thread -a true 2>o && "$PYTHON" "$LINT" --per-thread <o
	'
fi

test_expect_success '--append, --log-fd, --all-user and --json-output as perf' '
	lperf stat -x, -e task-clock -o ap.txt --append true && lperf stat -x, -e task-clock -o ap.txt --append true &&
	[ "$(grep -c "^# started on" ap.txt)" -eq 2 ] && [ "$(grep -c ",task-clock," ap.txt)" -eq 2 ] &&
	lperf stat -x, -e task-clock --log-fd 3 true 3>fd3 2>err && expect_lines 0 err &&
	expect_grep ",msec,task-clock," fd3 &&
	lperf stat --all-user --dry-run -e task-clock true >dry && expect_grep "task-clock .* u  " dry &&
	lperf stat --json-output -e task-clock true 2>j && expect_grep "^\{\"counter-value\"" j
'

test_expect_success '--null counts nothing and prints the elapsed time' '
	lperf stat -n true 2>o && expect_no_grep "task-clock" o && expect_grep "seconds time elapsed" o
'

test_done
