#!/bin/sh
# lperf stat end to end: real processes, compared with Linux perf where both can count. Counts of
# CPU time and page faults, and wall-time counts bounded by the time lperf itself ran (a loaded
# machine ends a timeout late, never early), so beside other scripts; the spacing of -I's rows
# is t10-stat-interval.sh's, alone.
# e2e-class: parallel (counts bounded by lperf's own wall time, CPU-time workloads; passed 3 times in both builds beside 2 busy loops at loads of 10-20)
. "$(dirname "$0")/lib.sh"
FAULTS="$HELPERS/faults"
NCPU=$(getconf _NPROCESSORS_ONLN)

# perf stat -x, prints "value,unit,event,...": the value of one event.
csv_value() { # csv_value EVENT FILE
	awk -F, -v ev="$1" '$3 == ev { print $1 }' "$2" | head -n 1
}

test_expect_success 'page-faults of a deterministic command match perf stat' '
	lperf stat -x, -e task-clock,context-switches,page-faults -- "$FAULTS" 3000 2>lperf.csv &&
	perf stat -x, -e task-clock,context-switches,page-faults -- "$FAULTS" 3000 2>perf.csv &&
	l=$(csv_value page-faults lperf.csv) && p=$(csv_value page-faults perf.csv) &&
	echo "lperf $l perf $p" && [ "$l" -ge 3000 ] && within "$l" "$p" 3
'

test_expect_success 'task-clock of a CPU-bound command matches perf stat within 15%' '
	lperf stat -x, -e task-clock -- "$FAULTS" 10 300 2>lperf.csv &&
	perf stat -x, -e task-clock -- "$FAULTS" 10 300 2>perf.csv &&
	l=$(csv_value task-clock lperf.csv) && p=$(csv_value task-clock perf.csv) &&
	echo "lperf $l perf $p" && within "$l" "$p" 15 && within "$l" 300 15
'

test_expect_success 'default text output: the perf table on stderr, shadow metrics, footer' '
	lperf stat -- "$FAULTS" 1000 >stdout 2>out &&
	expect_lines 0 stdout &&
	expect_grep "^ Performance counter stats for .*faults 1000.:$" out &&
	expect_grep "^ +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized +$" out &&
	expect_grep "^ +[0-9,]+      page-faults +# +[0-9.]+ [KMG]?/sec +$" out &&
	expect_grep "^ +[0-9.]+ seconds time elapsed$" out &&
	expect_grep "^ +[0-9.]+ seconds user$" out
'

test_expect_success 'the command exit status is lperf exit status' '
	expect_exit 7 lperf stat -q -e task-clock -- "$FAULTS" 10 0 7 2>/dev/null
'

test_expect_success 'a command that does not exist is a runtime error' '
	expect_exit 1 lperf stat -e task-clock -- /nonexistent/cmd 2>err &&
	expect_grep "cannot run ./nonexistent/cmd.: command not found" err
'

test_expect_success 'cycles alone on a machine without a hardware PMU: perf'"'"'s <not supported> row, exit 0' '
	if lperf test --json --no-python 2>/dev/null |
		"$PYTHON" -c "import json,sys; sys.exit(not json.load(sys.stdin)[\"hardware_event\"][\"opens\"])"; then
		exit 0
	fi
	lperf stat -e cycles true 2>err &&
	expect_grep "^   <not supported>      cycles {50,}$" err &&
	expect_grep "seconds time elapsed" err &&
	"$(dirname "$LPERF")/wperf" stat -e cycles -c 0 --timeout 0.1 >out 2>err; [ $? -eq 1 ] &&
	expect_grep "cannot open event .cycles.: this machine exposes no hardware PMU" err
'

test_expect_success 'WindowsPerf imix on a machine without a hardware PMU: one clear line, exit 1' '
	if [ -d /sys/bus/event_source/devices/cpu ] || ls -d /sys/bus/event_source/devices/armv8* 2>/dev/null; then exit 0; fi
	expect_exit 1 lperf stat -M imix -C 1 sleep 1 2>err &&
	expect_lines 1 err &&
	expect_grep "no hardware PMU" err
'

test_expect_success 'a hardware event beside software ones is shown as not supported' '
	if [ -d /sys/bus/event_source/devices/cpu ]; then exit 0; fi
	lperf stat -e task-clock,cycles -- "$FAULTS" 10 2>out &&
	expect_grep "^   <not supported>      cycles {50,}$" out
'

test_expect_success 'system-wide cpu-clock for 1s counts about one second per CPU' '
	t0=$(date +%s%N) && lperf stat -x, --timeout 1s -a -e cpu-clock 2>out && t1=$(date +%s%N) &&
	v=$(csv_value cpu-clock out) && ms=$(((t1 - t0) / 1000000)) &&
	echo "cpu-clock $v msec on $NCPU CPUs in $ms ms of wall time" &&
	# at least the second on each CPU (less 10%), at most the wall time lperf ran (plus 10%): a
	# loaded machine ends the timeout late (1.17 s on a CI run), never early
	awk -v v="$v" -v n="$NCPU" -v ms="$ms" "BEGIN { exit !(v >= 0.9 * n * 1000 && v <= 1.1 * n * ms) }"
'

# between LOW HIGH V: LOW*0.9 <= V <= HIGH*1.1. A loaded machine (or a sanitizer build) ends a
# 0.5 s command or timeout late, never early: the count is bounded by lperf's own wall time.
between() {
	awk -v lo="$1" -v hi="$2" -v v="$3" "BEGIN { exit !(v >= 0.9 * lo && v <= 1.1 * hi) }" ||
		{ echo "$3 is not between 0.9 x $1 and 1.1 x $2" >&2; return 1; }
}

test_expect_success '-C 0 sleep 0.5 runs sleep and counts CPU 0 meanwhile' '
	t0=$(date +%s%N) && lperf stat -x, -e cpu-clock -C 0 sleep 0.5 2>out && t1=$(date +%s%N) &&
	v=$(csv_value cpu-clock out) && ms=$(((t1 - t0) / 1000000)) &&
	echo "cpu-clock $v msec in $ms ms of wall time" && between 500 "$ms" "$v"
'

test_expect_success 'per-CPU rows (-A) add up to the total' '
	t0=$(date +%s%N) && lperf stat -x, -A --timeout 500ms -a -e cpu-clock 2>out && t1=$(date +%s%N) &&
	rows=$(grep -c "^CPU[0-9]*,.*,cpu-clock," out) && [ "$rows" -eq "$NCPU" ] &&
	sum=$(awk -F, "/^CPU[0-9]*,.*,cpu-clock,/ { s += \$2 } END { print s }" out) &&
	ms=$(((t1 - t0) / 1000000)) && echo "sum $sum msec on $NCPU CPUs in $ms ms of wall time" &&
	between "$((NCPU * 500))" "$((NCPU * ms))" "$sum"
'

test_expect_success 'attach to a running process with -p and a timeout' '
	sleep 3 & pid=$!
	lperf stat -x, -p $pid --timeout 300ms -e task-clock,context-switches 2>out; rc=$?
	kill $pid 2>/dev/null; [ $rc -eq 0 ] &&
	expect_grep ",task-clock," out && expect_grep ",context-switches," out
'

test_expect_success '--json-doc validates against the schema and agrees with the text numbers' '
	lperf stat --json-doc -e task-clock,page-faults -m cpus_utilized -- "$FAULTS" 2000 >out.json &&
	validate_json stat.schema.json out.json &&
	"$PYTHON" -c "
import json; d = json.load(open(\"out.json\"))
ev = {e[\"name\"]: e for e in d[\"events\"]}
assert ev[\"page-faults\"][\"value\"] >= 2000, ev
assert ev[\"task-clock\"][\"unit\"] == \"msec\"
m = {x[\"name\"]: x for x in d[\"metrics\"]}
assert 0 < m[\"cpus_utilized\"][\"value\"] <= 1.5, m
assert d[\"user_s\"] is not None and d[\"runs\"] == 1
"
'

test_expect_success 'JSON marks unsupported events with a null value and the reason' '
	if [ -d /sys/bus/event_source/devices/cpu ]; then exit 0; fi
	lperf stat --json-doc -e task-clock,cycles -- true >out.json &&
	validate_json stat.schema.json out.json &&
	"$PYTHON" -c "
import json; d = json.load(open(\"out.json\"))
c = [e for e in d[\"events\"] if e[\"name\"] == \"cycles\"][0]
assert c[\"status\"] == \"not_supported\" and c[\"value\"] is None and \"hardware PMU\" in c[\"reason\"], c
"
'

test_expect_success 'CSV has perf field layout' '
	lperf stat -x";" -e page-faults -- "$FAULTS" 100 2>out &&
	line=$(grep ";page-faults;" out) && echo "$line" &&
	[ "$(echo "$line" | awk -F";" "{print NF}")" -eq 7 ]
'

test_expect_success '-I 200 --interval-count 3: three rows then stop' '
	lperf stat -x, -I 200 --interval-count 3 -a -e cpu-clock 2>out &&
	rows=$(grep -c ",cpu-clock," out) && [ "$rows" -eq 3 ] &&
	awk -F, "/,cpu-clock,/ { if (\$1 < 0.15) exit 1 }" out
'

test_expect_success 'timeline with metrics in a JSON document' '
	lperf stat --json-doc -I 100 -e task-clock -m cpus_utilized -- "$FAULTS" 10 350 >out.json &&
	validate_json stat.schema.json out.json &&
	"$PYTHON" -c "
import json; d = json.load(open(\"out.json\"))
assert len(d[\"intervals\"]) >= 2, d[\"intervals\"]
assert d[\"intervals\"][0][\"metrics\"][0][\"name\"] == \"cpus_utilized\"
"
'

test_expect_success 'repeats (-r) show the mean and its variation' '
	lperf stat -r 3 -e task-clock,page-faults -- "$FAULTS" 500 2>out &&
	expect_grep "\(3 runs\):" out && expect_grep "seconds time elapsed  \( \+- +[0-9.]+% \)$" out
'

test_expect_success '-o FILE writes the results atomically, as perf does' '
	lperf stat -x, -o res.csv -e page-faults -- "$FAULTS" 100 >stdout 2>stderr &&
	expect_lines 0 stdout && expect_lines 0 stderr &&
	expect_grep "^# started on " res.csv &&
	expect_grep "^[0-9]+,,page-faults," res.csv && ! ls res.csv.tmp* 2>/dev/null &&
	lperf stat --json-doc -o res.json -e page-faults -- "$FAULTS" 100 &&
	validate_json stat.schema.json res.json
'

test_expect_success 'Ctrl-C ends system-wide counting and still prints the counts' '
	"$LPERF" stat -x, -a -e cpu-clock 2>out & pid=$!
	sleep 0.5; kill -INT $pid; wait $pid; rc=$?
	[ $rc -eq 0 ] && expect_grep ",cpu-clock," out
'

test_expect_success 'tracepoints count: sched:sched_process_fork' '
	lperf stat -x, -e sched:sched_process_fork -- sh -c "true & true & wait" 2>out &&
	v=$(csv_value sched:sched_process_fork out) && [ "$v" -ge 2 ]
'

test_expect_success 'user metrics from --metric-file' '
	printf "# faults per CPU-millisecond\nfaults_per_ms = page-faults / task-clock * 1e6 ; faults/ms\n" >m.txt &&
	lperf stat -x, --metric-file m.txt -M faults_per_ms -- "$FAULTS" 1000 2>out &&
	expect_grep ",faults/ms  faults_per_ms$" out
'

test_expect_success 'groups and modifiers are accepted for software events' '
	lperf stat -x, -e "{task-clock:u,page-faults:u},context-switches:k" -- "$FAULTS" 100 2>out &&
	expect_grep ",page-faults" out
'

# As an unprivileged user where perf_event_paranoid >= 2: user mode only, said once; -k refused.
# tracefs: lperf mounts it where it is missing and it may (root), as perf does; otherwise the hint.
# Each case runs in its own mount namespace with tracefs unmounted.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	test_expect_success 'tracefs: mounted by lperf when missing (root)' '
		unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null;
			! [ -d /sys/kernel/tracing/events ] &&
			\"\$LPERF\" stat -x, -e sched:sched_process_fork -- sh -c \"true & wait\"" 2>out &&
		v=$(csv_value sched:sched_process_fork out) && [ "$v" -ge 1 ]
	'
	test_expect_success 'tracefs: the mount hint when lperf may not mount it' '
		unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null;
			cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \"\$LPERF\" stat -e sched:sched_process_fork true" >out 2>err
		[ $? -eq 2 ] && expect_grep "no tracefs under /sys/kernel/tracing .*mount it with" err
	'
else
	test_skip 'tracefs mounting' "needs root and unshare -m"
fi

as_nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] && as_nobody "$LPERF" version >/dev/null 2>&1; then
	test_expect_success 'unprivileged: counts user mode only, named task-clock:u as perf names it' '
		as_nobody "$LPERF" stat -x, -e task-clock,page-faults -- "$FAULTS" 500 2>out &&
		[ "$(awk -F, "\$3 == \"page-faults:u\" { print \$1 }" out)" -ge 500 ] &&
		expect_lines 2 out && expect_grep ",msec,task-clock:u," out &&
		if command -v perf >/dev/null; then
			as_nobody perf stat -x, -e task-clock,page-faults -- "$FAULTS" 500 2>pout &&
			[ "$(cut -d, -f3 out)" = "$(cut -d, -f3 pout)" ]
		fi
	'
	test_expect_success 'unprivileged: -k (kernel mode) is an error, exit 1' '
		expect_exit 1 as_nobody "$LPERF" stat -k -e task-clock -- true 2>err &&
		expect_grep "kernel.perf_event_paranoid" err
	'
	test_expect_success 'unprivileged: system-wide counting is refused with the reason' '
		expect_exit 1 as_nobody "$LPERF" stat -a --timeout 100ms -e cpu-clock 2>err &&
		expect_grep "root or CAP_PERFMON" err
	'
else
	test_skip 'unprivileged counting' "needs root, setpriv and perf_event_paranoid >= 2"
fi

test_expect_success 'an unknown event is a usage error with a suggestion' '
	expect_exit 2 lperf stat -e pagefaults true 2>err &&
	expect_grep "page-faults" err
'

test_expect_success 'an unknown option is a usage error with a suggestion' '
	expect_exit 2 lperf stat --timeotu 1s true 2>err &&
	expect_grep "unknown option .--timeotu.; did you mean .--timeout.\?" err
'

test_expect_success 'no command and no target: the whole system, as perf' '
	lperf stat -x, -e cpu-clock -I 100 --interval-count 2 2>out &&
	[ "$(grep -c ",cpu-clock," out)" -eq 2 ] &&
	# the first row counts every CPU for the time it covers (its timestamp: due at 0.1 s, later
	# on a loaded machine)
	awk -F, -v n="$NCPU" "NR == 1 { print \$2, n * \$1 * 1000 }" out >v && read -r v want <v &&
	within "$v" "$want" 10
'

test_expect_success 'a bad duration is a usage error naming the unit problem' '
	expect_exit 2 lperf stat --timeout 3x -a 2>err && expect_grep "unknown unit" err
'

test_expect_success 'Arm fixture: --dry-run resolves every imix event to the PMU type and Arm event number' '
	LPERF_SYSFS_ROOT="$FIXTURES/sysfs-arm" lperf stat --dry-run -M imix -C 1 sleep 1 >out &&
	type=$(cat "$FIXTURES/sysfs-arm/bus/event_source/devices/armv8_pmuv3_0/type") &&
	for pair in inst_spec:0x1b dp_spec:0x73 vfp_spec:0x75 ase_spec:0x74 ld_spec:0x70 st_spec:0x71; do
		name=${pair%%:*} code=${pair#*:}
		grep -E "^ +$name +armv8_pmuv3_0 +$type +$code " out >/dev/null ||
			{ echo "no row for $name type $type config $code" >&2; cat out >&2; exit 1; }
	done &&
	[ "$(grep -c " g0" out)" -eq 6 ]
'

test_done
