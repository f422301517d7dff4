#!/bin/sh
# lperf stat --prometheus (issue 26): Debian's Prometheus, started on loopback by the test,
# scrapes lperf's /metrics every second while lperf counts a known workload (a second of busy
# Python touching 50 MiB, then asleep); PromQL at /api/v1/query returns its task-clock and
# page-faults within 5% of the counts lperf stat prints at the end, and rate() sees the busy phase.
# Prometheus is stopped by its pid. Only /metrics is served, on 127.0.0.1 unless told otherwise.
. "$(dirname "$0")/lib.sh"

WORK='import time
b = b"x" * (50 << 20)
t = time.time()
while time.time() - t < 1.5:
    pass
time.sleep(5)'

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
	# poll until the scraped counts stop growing (the workload is asleep)
	last= && rate= && i=0 &&
	while :; do
		i=$((i + 1)); [ $i -lt 60 ] || { echo "no stable value"; kill $ppid; exit 1; }
		sleep 1
		r=$(query $P "rate(lperf_event_total{event=\"task-clock\"}[3s])") && [ -n "$r" ] && rate="$rate $r"
		v=$(query $P "lperf_event_total{event=\"task-clock\"}") || continue
		[ -n "$v" ] && [ "$v" != 0 ] && [ "$v" = "$last" ] && break
		last=$v
	done &&
	pf=$(query $P "lperf_event_total{event=\"page-faults\"}") &&
	wait $spid && kill $ppid && wait $ppid
	echo "prometheus: task-clock $v ns, page-faults $pf; rates:$rate" && cat stat.csv &&
	tc=$(awk -F, "\$3 ~ /^task-clock/ { print \$1 * 1000000 }" stat.csv) &&
	spf=$(awk -F, "\$3 ~ /^page-faults/ { print \$1 }" stat.csv) &&
	within "$v" "$tc" 5 && within "$pf" "$spf" 5 &&
	# the busy phase shows in rate() (task-clock ns per second; how much of a CPU the loop gets
	# depends on the load of the machine)
	echo "$rate" | tr " " "\n" | awk "\$1 > 1e6 { ok = 1 } END { exit !ok }"
'

test_done
