#!/bin/sh
# lperf stat -G (issue 26: counts per cgroup, as labels for Prometheus): events counted on every
# CPU but only while a task of the cgroup runs, perf 6.1's way (the Nth -G name is the Nth
# event's; a single one goes to every event named before it; -a or -C). A workload moves itself
# into a cgroup the test makes (cgroup v2, or v1's perf_event hierarchy) and spins for half a
# second; perf stat -G counts it around lperf stat -G, and the two agree; the cgroup is a label of
# lperf_event_total in --textfile's page (as in --prometheus and --remote-write).
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"

CGROOT=$(awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$CGROOT" ] || CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
CG=lperf-t85-$$
# a cgroup stays busy for a moment after its last task exits: removing it is retried
trap 'i=0; while [ -d "$CGROOT/$CG" ] && ! rmdir "$CGROOT/$CG" 2>/dev/null && [ $i -lt 50 ]; do
	i=$((i + 1)); sleep 0.1; done; rm -rf "$SCRATCH"' EXIT

# the workload: into the cgroup, then half a second of a busy CPU
SPIN='echo $$ >"$0/cgroup.procs" && exec python3 -c "import time
t = time.time()
while time.time() - t < 0.5:
    pass"'

if [ "$(id -u)" -ne 0 ] || [ -z "$CGROOT" ] || ! mkdir "$CGROOT/$CG" 2>/dev/null; then
	test_skip 'stat -G' "needs root and a cgroup file system with perf events (none at '$CGROOT')"
	test_done
	exit
fi

test_expect_success 'the cgroup'"'"'s task-clock as perf counts it; another event everywhere' '
	perf stat -a -x, -o perf.csv -e task-clock -G $CG -- \
		"$LPERF" stat -a -x, -e task-clock -G $CG -e page-faults -o lperf.csv -- sh -c "$SPIN" "$CGROOT/$CG" &&
	cat perf.csv lperf.csv &&
	expect_grep "^[0-9.]+,msec,task-clock,$CG,[0-9]+,100.00" lperf.csv &&
	expect_grep "^[0-9]+,,page-faults,,[0-9]+,100.00" lperf.csv &&
	l=$(awk -F, "\$3 == \"task-clock\" { print \$1 }" lperf.csv) &&
	p=$(awk -F, "\$3 == \"task-clock\" { print \$1 }" perf.csv) &&
	echo "lperf $l ms, perf $p ms" &&
	# the spinning was counted (how much CPU it got depends on the load), as perf counts it
	awk -v l="$l" "BEGIN { exit !(l > 0) }" && within "$l" "$p" 5
'

test_expect_success 'perf'"'"'s text: the cgroup after the event name; one -G for all events before it' '
	"$LPERF" stat -a -e task-clock,page-faults -G $CG -- sh -c "$SPIN" "$CGROOT/$CG" 2>out &&
	cat out &&
	expect_grep "^ +[0-9.]+ msec task-clock +$CG # " out &&
	expect_grep "^ +[0-9]+ +page-faults +$CG " out
'

test_expect_success 'the textfile page labels the series with the cgroup' '
	mkdir tf &&
	"$LPERF" stat -a -x, --textfile tf -e task-clock -G $CG -- sh -c "$SPIN" "$CGROOT/$CG" 2>out &&
	cat out tf/lperf.prom &&
	expect_grep "^lperf_event_total\{cgroup=\"$CG\",cpu=\"[0-9]+\",event=\"task-clock\",pmu=\"software\"\} [0-9]+$" tf/lperf.prom &&
	sum=$(awk "/^lperf_event_total/ { s += \$2 } END { print s }" tf/lperf.prom) &&
	within "$sum" "$(awk -F, "{ printf \"%.0f\", \$1 * 1000000 }" out)" 0.5
'

test_expect_success 'perf'"'"'s usage rules and a missing cgroup' '
	expect_exit 2 "$LPERF" stat -G $CG -- true 2>e1 &&
	expect_grep "must define events before cgroups" e1 &&
	expect_exit 2 "$LPERF" stat -e task-clock -G $CG -- true 2>e2 &&
	expect_grep "give -a or -C" e2 &&
	expect_exit 2 "$LPERF" stat -a -e task-clock -G a,b -- true 2>e3 &&
	expect_exit 1 "$LPERF" stat -a -e task-clock -G $CG-none -- true 2>e4 &&
	expect_grep "cannot open cgroup" e4
'

test_done
