#!/bin/sh
# lperf stat --remote-write (issue 26): the counts pushed by Prometheus remote write (protobuf in
# one snappy block) into Debian's Prometheus (--web.enable-remote-write-receiver) and
# VictoriaMetrics, both started on loopback by the test and stopped by pid; PromQL gives back
# exactly the counts lperf stat prints at the end, and the periods before them in time order.
# A 4xx is said once and never retried; with no server lperf still counts and says so once.
# e2e-class: parallel (the counts lperf printed, read back by PromQL, free ports; passed 3 times in both builds beside 1 to 4 other scripts at loads of 12-30)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/promlib.sh"

# A known workload: 40 MiB touched, then asleep for a few push periods.
WORK='b = b"x" * (40 << 20)
import time
time.sleep(2)'

# push_and_query PORT WAIT_S: lperf stat pushes the workload's counts to 127.0.0.1:PORT; the
# server's PromQL gives back the printed page faults (within WAIT_S) and task-clock (the summary
# prints milliseconds to two decimals). Leaves stat.csv and $pf.
push_and_query() {
	"$LPERF" stat -x, --remote-write http://127.0.0.1:$1/api/v1/write --push-interval 200 \
		-e task-clock,page-faults -- python3 -c "$WORK" 2>stat.csv &&
	cat stat.csv &&
	pf=$(statcsv stat.csv page-faults) && tc=$(statcsv stat.csv task-clock) &&
	until_ok $2 promql_is $1 "lperf_event_total{event=\"page-faults\",job=\"lperf\"}" "$pf" &&
	v=$(promql $1 "lperf_event_total{event=\"task-clock\"}") && within "$v" "$tc" 0.1 &&
	expect_no_grep "remote-write" stat.csv
}

test_expect_success 'into Prometheus: the printed counts, and periods in time order' '
	P=$(port) && start_prometheus prom $P && push_and_query $P 60 &&
	curl -sf -G http://127.0.0.1:$P/api/v1/query \
		--data-urlencode "query=lperf_event_total{event=\"page-faults\"}[10m]" >range.json &&
	# several periods, each later than the one before, none fewer than the one before
	"$PYTHON" -c "import json, sys
v = json.load(open(\"range.json\"))[\"data\"][\"result\"][0][\"values\"]
print(len(v), \"samples:\", v)
assert len(v) >= 3
assert all(a[0] < b[0] and float(a[1]) <= float(b[1]) for a, b in zip(v, v[1:]))
assert float(v[-1][1]) == $pf" &&
	stop_server prom
'

test_expect_success 'into VictoriaMetrics: the printed counts' '
	# VictoriaMetrics shows a push after a few seconds
	V=$(port) && start_vm vm $V && push_and_query $V 120 &&
	stop_server vm
'

test_expect_success 'a 4xx is said once and not retried; the counts are still printed' '
	P=$(port) && start_prometheus prom $P &&
	"$LPERF" stat -x, --remote-write http://127.0.0.1:$P/api/v1/nowhere --push-interval 100 \
		-e page-faults -- python3 -c "$WORK" 2>stat.csv &&
	cat stat.csv && stop_server prom &&
	[ "$(grep -c "remote-write" stat.csv)" = 1 ] &&
	expect_grep "^lperf: warning: --remote-write: http://127.0.0.1:$P/api/v1/nowhere answered HTTP 404" stat.csv &&
	expect_grep ",page-faults," stat.csv
'

test_expect_success 'no server: counting goes on, said once' '
	P=$(port) &&
	"$LPERF" stat -x, --remote-write http://127.0.0.1:$P/api/v1/write --push-interval 100 \
		-e page-faults -- python3 -c "$WORK" 2>stat.csv &&
	cat stat.csv &&
	[ "$(grep -c "counting goes on" stat.csv)" = 1 ] &&
	expect_grep "the last [0-9]+ periods could not be pushed" stat.csv &&
	expect_grep "^[0-9]+,,page-faults," stat.csv
'

test_expect_success 'a URL that is not http(s) is a usage error' '
	expect_exit 2 "$LPERF" stat --remote-write ftp://x/ -e page-faults -- true 2>err &&
	expect_grep "not an http:// or https:// URL" err
'

test_done
