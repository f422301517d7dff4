#!/bin/sh
# A day of lperf stat's pushes, time-compressed (issue 26): 1,440 periods of 10 ms with
# --remote-write into Prometheus (started on loopback by the test, stopped by pid) and --textfile
# at once. Prometheus gets every period, in order, with no refusal; lperf's resident memory and
# open files after the last period are those after the first 200 (within 256 kB and the 2 files
# the textfile opens for a moment; the sanitizer build runs without allocator quarantine, so freed
# memory is reused as in the normal one, and its leak check at exit does the rest); the textfile
# stays one file.
# e2e-class: parallel (every period counted with a 600 s deadline, memory and files against the first checkpoint, a free port; passed 3 times in both builds beside 1 to 4 other scripts at loads of 12-30)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/promlib.sh"

export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
# The sanitizer build checks memory, not endurance: 480 periods there (LPERF_SOAK_PERIODS sets
# either), which still leaves 280 periods after the first checkpoint for a leak to show.
N=${LPERF_SOAK_PERIODS:-1440}
ldd "$LPERF" 2>/dev/null | grep -q libasan && N=${LPERF_SOAK_PERIODS:-480}

# periods PORT: how many samples of lperf's page-fault series Prometheus holds
periods() {
	curl -sf -G "http://127.0.0.1:$1/api/v1/query" \
		--data-urlencode "query=count_over_time(lperf_event_total{event=\"page-faults\"}[1h])" |
		"$PYTHON" -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)'
}
# at_least PORT N: polls every half second until Prometheus holds N periods
at_least() {
	n=1200; while [ "$(periods "$1")" -lt "$2" ]; do
		n=$((n - 1)); [ $n -gt 0 ] || { echo "not $2 periods: $(periods "$1")" >&2; return 1; }
		sleep 0.5
	done
}
rss() { awk '/^VmRSS:/ { print $2 }' /proc/$1/status; }
fds() { ls /proc/$1/fd | wc -l; }

test_expect_success "$N periods: every one in Prometheus, memory and open files flat" '
	mkdir tf && P=$(port) && start_prometheus prom $P || exit 1
	"$LPERF" stat -x, --remote-write http://127.0.0.1:$P/api/v1/write --textfile tf \
		--push-interval 10 -e task-clock,page-faults -- sh -c "$UNTIL_STOP" 2>stat.csv & spid=$!
	at_least $P 200 &&
	r0=$(rss $spid) && f0=$(fds $spid) &&
	at_least $P $N &&
	r1=$(rss $spid) && f1=$(fds $spid) &&
	touch stop && wait $spid && cat stat.csv &&
	echo "after 200 periods: $r0 kB, $f0 files; after $N: $r1 kB, $f1 files" &&
	# the textfile'"'"'s directory and temporary are open for a moment each period
	[ "$f1" -le $((f0 + 2)) ] &&
	# a leak of a text page or a request a period (a few hundred bytes) would be 256 kB here;
	# smaller ones are for the sanitizer build'"'"'s leak check
	[ "$r1" -le $((r0 + 256)) ] &&
	expect_no_grep "remote-write|textfile" stat.csv &&
	[ "$(ls tf)" = lperf.prom ] &&
	pf=$(statcsv stat.csv page-faults) &&
	until_ok 60 promql_is $P "lperf_event_total{event=\"page-faults\"}" "$pf" &&
	curl -sf -G http://127.0.0.1:$P/api/v1/query \
		--data-urlencode "query=lperf_event_total{event=\"page-faults\"}[1h]" >range.json &&
	"$PYTHON" -c "import json
v = json.load(open(\"range.json\"))[\"data\"][\"result\"][0][\"values\"]
assert len(v) >= $N, len(v)
assert all(a[0] < b[0] and float(a[1]) <= float(b[1]) for a, b in zip(v, v[1:]))" &&
	stop_server prom
'

test_done
