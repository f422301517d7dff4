# perf 6.1's own shell tests as the judge of lperf (issue 20), sourced by t92-perf-shell.sh and
# t92-perf-shell-daemon.sh after lib.sh, each naming its part of perf's scripts in PST_PART.
# Each installed $PERF_SHELL_DIR/*.sh (Debian's linux-perf: /usr/lib/perf-core/tests/shell, top
# level only) runs twice, one script at a time: first with Linux perf, then with a `perf` first in
# PATH that is lperf (a symlink named perf, as a user would make one). Each run is
# `timeout 300 bash SCRIPT` in a private mount namespace (unshare -m) whose /tmp is a fresh tmpfs
# and whose HOME and working directory are in it, so ~/.debug and the scripts' mktemp files never
# leave it, and two runs at once share no path.
# Exit 0 = pass, 2 = skip, else fail (perf's own convention).
#
# One TAP line per script. A script counts as passed only where perf passes it too; where perf
# fails or skips it here, the line is "# skip" with perf's reason, unless lperf fails it (a
# failure where perf skips is a failure). Scripts whose loop can be empty (they then pass without
# checking anything) get a check of their own that the loop had items: a pass with an empty loop is
# reported as vacuous (for perf: not counted; for lperf where perf's loop had items: a failure).
#   PST_KEEP=1           keeps the logs (printed at the end)
#   PST_SCRIPTS="a.sh b.sh"  runs only those of the part's scripts
# Under tests/run.sh (LPERF_RUN_DIR set) perf runs each script once per run: the second build
# given (the sanitizer one in make check) is judged against perf's outcome and log of the first.
# The last line: "# perf passed N, lperf passed M of those".
: "${PERF_SHELL_DIR:=/usr/lib/perf-core/tests/shell}"
LOGS="$SCRATCH/logs"
mkdir -p "$LOGS"
if [ "${PST_KEEP:-0}" = 1 ]; then
	LOGS=$(mktemp -d /var/tmp/lperf-pst.XXXXXX)
fi

# The part a script of perf's belongs to: "daemon" for daemon.sh, which spends its 20 s (per tool)
# in sleeps and in polls with deadlines (30 s for a session's ping) of a daemon whose sessions
# record `sleep 10` (t92-perf-shell-daemon.sh); "rest" for the others (t92-perf-shell.sh). Two
# scripts of about the same length, so that both run beside other scripts and end near together.
pst_part() {
	case "$1" in
	daemon.sh) echo daemon ;;
	*) echo rest ;;
	esac
}

# Scripts not run, with the reason (none at present).
excluded() {
	case "$1" in
	*) return 1 ;;
	esac
}

# The number of items the script's loop would have had, for scripts whose loop can be empty;
# nothing for the others. Runs inside the namespace with the tool under test as `perf`.
ITEMS_CHECK='
case "$1" in
stat_all_metrics.sh) perf list --raw-dump metrics 2>/dev/null | wc -w ;;
stat_all_metricgroups.sh) perf list --raw-dump metricgroups 2>/dev/null | wc -w ;;
stat_all_pmu.sh) perf list --raw-dump pmu 2>/dev/null | wc -w ;;
stat+shadow_stat.sh)
	# lines of "COUNT instructions" with a count (not <not supported>) after a cycles count
	perf stat -a --no-big-num -e cycles,instructions sleep 0.2 2>&1 |
		awk "\$2 == \"cycles\" && \$1 ~ /^[0-9]/ { c = 1 } \$2 == \"instructions\" && \$1 ~ /^[0-9]/ && c { n++ } END { print n + 0 }" ;;
record+probe_libc_inet_pton.sh)
	# the script compares the lines of `perf script` of a probed ping with its patterns
	libc=$(grep -w libc /proc/self/maps | head -1 | sed -r "s/.*[[:space:]](\/.*)/\1/g")
	if command -v ping >/dev/null && perf probe -q -f -x "$libc" -a inet_pton >/dev/null 2>&1; then
		perf record -q -e "probe_libc:inet_pton" -o items.data ping -6 -c 1 ::1 >/dev/null 2>&1
		perf script -i items.data 2>/dev/null | wc -l
		perf probe -q -d "probe_libc:inet_pton*" >/dev/null 2>&1
	else
		echo 0
	fi ;;
esac'

# Why a check had no items, for the report.
items_why() {
	case "$1" in
	stat_all_metrics.sh | stat_all_metricgroups.sh | stat_all_pmu.sh)
		k=${1#stat_all_}; echo "perf list --raw-dump ${k%.sh} printed nothing" ;;
	stat+shadow_stat.sh) echo "no cycles/instructions counts (no hardware PMU)" ;;
	record+probe_libc_inet_pton.sh) echo "perf script of a probed ping printed nothing$(command -v ping >/dev/null || echo ' (no ping here)')" ;;
	esac
}

# The lperf under test is reached through a bind mount outside /tmp: the namespace's /tmp is a
# fresh tmpfs, which hides a checkout under /tmp (the `perf` link would dangle and PATH would find
# Linux perf, so lperf's runs would silently be perf's).
BINDIR=$(mktemp -d /var/tmp/lperf-pst-bin.XXXXXX)
at_exit 'rmdir "$BINDIR" 2>/dev/null'
export BINDIR

# run TOOL SCRIPT: runs SCRIPT with TOOL (perf or lperf) as perf; sets rc and items,
# the log is $LOGS/TOOL.SCRIPT.log.
run() {
	log="$LOGS/$1.$(basename "$2").log"
	unshare -m sh -c '
		if [ "$1" = lperf ]; then
			mount --bind "$(dirname "$LPERF")" "$BINDIR" || exit 97
		fi
		mount -t tmpfs -o mode=1777 pst /tmp || exit 97
		mkdir -p /tmp/home /tmp/work /tmp/bin || exit 97
		if [ "$1" = lperf ]; then
			ln -s "$BINDIR/$(basename "$LPERF")" /tmp/bin/perf && PATH=/tmp/bin:$PATH || exit 97
			[ -x /tmp/bin/perf ] && [ "$(command -v perf)" = /tmp/bin/perf ] || exit 97
		fi
		export HOME=/tmp/home PATH
		cd /tmp/work || exit 97
		timeout 300 bash "$2"
		rc=$?
		n=$(cd /tmp/work && sh -c "$3" sh "$(basename "$2")")
		echo
		echo "#PST rc=$rc items=${n:-none} perf=$(command -v perf)"
	' sh "$1" "$2" "$ITEMS_CHECK" </dev/null >"$log" 2>&1
	last=$(tail -n 1 "$log")
	case "$last" in
	"#PST rc="*) rc=${last#\#PST rc=}; rc=${rc%% *}; items=${last#* items=}; items=${items%% *} ;;
	*) rc=99; items=none ;;
	esac
}

# perf_run SCRIPT: run perf SCRIPT, or its outcome earlier in this tests/run.sh run.
perf_run() {
	keep=${LPERF_RUN_DIR:+$LPERF_RUN_DIR/t92}
	if [ -n "$keep" ] && [ -f "$keep/$(basename "$1").rc" ]; then
		read -r rc items <"$keep/$(basename "$1").rc"
		log="$LOGS/perf.$(basename "$1").log"
		cp "$keep/$(basename "$1").log" "$log"
		return
	fi
	run perf "$1"
	if [ -n "$keep" ] && mkdir -p "$keep"; then
		cp "$log" "$keep/$(basename "$1").log" && echo "$rc $items" >"$keep/$(basename "$1").rc"
	fi
}

verb() { case $1 in pass) echo passes ;; skip) echo skips ;; *) echo fails ;; esac; }

# why LOG [PATTERN]: the reason a run failed (or skipped: PATTERN skip): the last line of its
# output that matches (default: fail, error, unknown, not), else its last line.
why() {
	w=$(grep -av '^#PST ' "$1" | grep -aiE "${2:-fail|error|unknown|not }" | grep -av "${3:-Skipped}" | tail -n 1 | cut -c1-160)
	[ -n "$w" ] || w=$(grep -av '^#PST ' "$1" | grep -av '^[[:space:]]*$' | tail -n 1 | cut -c1-160)
	echo "${w:-(no message)}"
}

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	test_skip "perf shell tests" "needs root and unshare -m (a private /tmp per script)"
	test_done; exit $?
fi
if ! command -v perf >/dev/null || [ ! -d "$PERF_SHELL_DIR" ]; then
	test_skip "perf shell tests" "no Linux perf or no $PERF_SHELL_DIR (Debian's linux-perf)"
	test_done; exit $?
fi
# perf must be the real one in the first run.
case "$(perf version 2>&1)" in
"perf version "*) ;;
*) test_skip "perf shell tests" "perf in PATH is not Linux perf"; test_done; exit $? ;;
esac

perf_passed=0 lperf_passed=0
scripts=${PST_SCRIPTS:-$(cd "$PERF_SHELL_DIR" && ls -- *.sh)}
for s in $scripts; do
	[ "$(pst_part "$s")" = "$PST_PART" ] || continue
	script="$PERF_SHELL_DIR/$s"
	title="perf shell $s"
	if reason=$(excluded "$s"); then
		test_skip "$title" "excluded: $reason"
		continue
	fi
	perf_run "$script"; prc=$rc pitems=$items plog=$log
	run lperf "$script"; lrc=$rc litems=$items llog=$log
	case $prc in 0) p=pass ;; 2) p=skip ;; *) p=fail ;; esac
	case $lrc in 0) l=pass ;; 2) l=skip ;; *) l=fail ;; esac
	pvac=0 lvac=0
	[ "$p" = pass ] && [ "$pitems" = 0 ] && pvac=1
	[ "$l" = pass ] && [ "$litems" = 0 ] && lvac=1
	[ "$p" = pass ] && [ "$pvac" = 0 ] && perf_passed=$((perf_passed + 1))
	test_count=$((test_count + 1))
	verdict=""
	if [ "$p" = pass ] && [ "$pvac" = 0 ]; then
		if [ "$l" = pass ] && [ "$lvac" = 0 ]; then
			lperf_passed=$((lperf_passed + 1))
			echo "ok $test_count - $title"
			continue
		fi
		if [ "$lvac" = 1 ]; then
			verdict="lperf passes vacuously: $(items_why "$s"), where perf's loop had $pitems items"
		else
			verdict="perf passes, lperf $(verb $l) (exit $lrc): $(why "$llog")"
		fi
	elif [ "$l" = fail ]; then
		verdict="perf $(verb $p)$([ $pvac = 1 ] && echo " (vacuously)"), lperf fails (exit $lrc): $(why "$llog")"
	fi
	if [ -n "$verdict" ]; then
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $title"
		echo "#   $verdict"
		grep -av '^#PST ' "$llog" | tail -n 15 | sed 's/^/#   | /'
		continue
	fi
	test_skipped=$((test_skipped + 1))
	if [ "$pvac" = 1 ]; then
		r="perf passes vacuously here: $(items_why "$s"); lperf $(verb $l)"
	elif [ "$p" = skip ]; then
		r="perf skips here: $(why "$plog" skip "^$"); lperf $(verb $l)"
	else
		r="perf fails here (exit $prc): $(why "$plog"); lperf $(verb $l)"
	fi
	echo "ok $test_count - $title # skip $r"
done
[ "${PST_KEEP:-0}" = 1 ] && echo "# logs kept in $LOGS"
echo "# perf passed $perf_passed, lperf passed $lperf_passed of those"
