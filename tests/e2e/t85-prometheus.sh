#!/bin/sh
# lperf stat --prometheus (issue 26): Debian's Prometheus, started on loopback by the test,
# scrapes lperf's /metrics every second while lperf counts a known workload (1.5 s of busy
# Python touching 50 MiB, then asleep); PromQL at /api/v1/query returns its task-clock and
# page-faults within 5% of the counts lperf stat prints at the end, and rate() sees the busy phase.
# Prometheus is stopped by its pid. Only /metrics is served, on 127.0.0.1 unless told otherwise.
# e2e-class: parallel (the workload busy for 1.5 s of its CPU time, a scrape after it fell asleep waited for, free ports; passed 3 times in both builds beside 2 busy loops at loads of 10-20)
. "$(dirname "$0")/lib.sh"

# The workload busy for 1.5 s of its CPU time (on a loaded machine, 1.5 s of wall time gave it
# 0.2 s, and the interpreter's exit after the last scrape was then 6% of the count), then says
# when it is asleep (the file asleep) and sleeps until the test is done with it (the file done,
# two minutes at most).
WORK='import os, time
b = b"x" * (50 << 20)
t = time.process_time()
while time.process_time() - t < 1.5:
    pass
open("asleep", "w").close()
t = time.time()
while not os.path.exists("done") and time.time() - t < 120:
    time.sleep(0.1)'

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# query PORT PROMQL: the first result's value, empty when there is none
query() {
	curl -sf -G "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}

test_expect_success '/metrics: lperf_event_total per event, 404 elsewhere, loopback' '
	L=$(port) || exit 1
	"$LPERF" stat --prometheus $L -e task-clock,page-faults -- sleep 2 2>/dev/null & pid=$! &&
	i=0 && until curl -sf http://127.0.0.1:$L/metrics >m; do i=$((i + 1)); [ $i -lt 50 ] || exit 1; sleep 0.1; done &&
	expect_grep "^# TYPE lperf_event_total counter$" m &&
	expect_grep "^lperf_event_total\{event=\"page-faults\",pmu=\"software\"\} [0-9]+$" m &&
	[ "$(curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:$L/)" = 404 ] &&
	ss -ltn | grep -q "127.0.0.1:$L " &&
	wait $pid
'

test_expect_success 'Prometheus scrapes it: PromQL gives the counts lperf stat prints, within 5%' '
	if ! command -v prometheus >/dev/null; then echo "no prometheus (scripts/install-deps.sh)"; exit 1; fi
	L=$(port) && P=$(port) && mkdir -p prom/data &&
	printf "global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n  - {job_name: lperf, static_configs: [{targets: [\"127.0.0.1:%s\"]}]}\n" $L >prom/prometheus.yml || exit 1
	prometheus --config.file=prom/prometheus.yml --storage.tsdb.path=prom/data \
		--web.listen-address=127.0.0.1:$P >prom/log 2>&1 & ppid=$!
	i=0 && until curl -sf http://127.0.0.1:$P/-/ready >/dev/null; do
		i=$((i + 1)); [ $i -lt 300 ] || { cat prom/log; kill $ppid; exit 1; }; sleep 0.1; done
	# target discovery is batched every 5 s: wait until the lperf target is known
	i=0 && until curl -sf http://127.0.0.1:$P/api/v1/targets | grep -q "127.0.0.1:$L"; do
		i=$((i + 1)); [ $i -lt 300 ] || { echo "no target"; kill $ppid; exit 1; }; sleep 0.1; done
	"$LPERF" stat -x, --prometheus 127.0.0.1:$L -e task-clock,page-faults -- python3 -c "$WORK" 2>stat.csv & spid=$!
	# poll until Prometheus holds a scrape taken after the workload fell asleep: its counts are
	# the final ones (two equal scrapes in a row could both be before the end of the busy phase
	# on a loaded machine, when a scrape comes late)
	rate= && asleep= && i=0 &&
	while :; do
		i=$((i + 1)); [ $i -lt 240 ] || { echo "no scrape after the busy phase"; touch done; kill $ppid; exit 1; }
		sleep 0.5
		r=$(query $P "rate(lperf_event_total{event=\"task-clock\"}[3s])") && [ -n "$r" ] && rate="$rate $r"
		[ -n "$asleep" ] || { [ -e asleep ] && asleep=$(date +%s.%N); } || continue
		ts=$(query $P "timestamp(lperf_event_total{event=\"task-clock\"})") && [ -n "$ts" ] &&
			awk -v ts="$ts" -v a="$asleep" "BEGIN { exit !(ts > a) }" && break
	done &&
	v=$(query $P "lperf_event_total{event=\"task-clock\"}") &&
	pf=$(query $P "lperf_event_total{event=\"page-faults\"}") &&
	touch done && wait $spid && kill $ppid && wait $ppid
	echo "prometheus: task-clock $v ns, page-faults $pf; rates:$rate" && cat stat.csv &&
	tc=$(awk -F, "\$3 ~ /^task-clock/ { print \$1 * 1000000 }" stat.csv) &&
	spf=$(awk -F, "\$3 ~ /^page-faults/ { print \$1 }" stat.csv) &&
	within "$v" "$tc" 5 && within "$pf" "$spf" 5 &&
	# the busy phase shows in rate() (task-clock ns per second; how much of a CPU the loop gets
	# depends on the load of the machine)
	echo "$rate" | tr " " "\n" | awk "\$1 > 1e6 { ok = 1 } END { exit !ok }"
'

test_done
