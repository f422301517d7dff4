#!/bin/sh
# lperf stat --remote-write while the server dies (issue 26): Prometheus, started on loopback by
# the test, is killed (SIGKILL, by pid) while lperf pushes; lperf keeps counting, says so once,
# retries with back-off, says once that it pushes again when Prometheus is back on the same port
# and data, and Prometheus ends with exactly the counts lperf prints. The same for a server that
# answers 503 for a while (a stand-in on the port: 5xx are retried, 4xx are not).
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/promlib.sh"


# pushed_since PORT N: Prometheus holds more than N page-fault samples of lperf
samples() {
	curl -sf -G "http://127.0.0.1:$1/api/v1/query" \
		--data-urlencode "query=count_over_time(lperf_event_total{event=\"page-faults\"}[10m])" |
		"$PYTHON" -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)'
}
more_than() { [ "$(samples "$1")" -gt "$2" ]; }

test_expect_success 'Prometheus killed mid-run: counting goes on, said once, pushing resumes' '
	P=$(port) && start_prometheus prom $P || exit 1
	"$LPERF" stat -x, --remote-write http://127.0.0.1:$P/api/v1/write --push-interval 100 \
		-e page-faults -- sh -c "$UNTIL_STOP" 2>stat.csv & spid=$!
	until_ok 120 more_than $P 2 && stop_server prom KILL &&
	until_ok 120 grep -q "counting goes on" stat.csv &&
	start_prometheus prom $P &&
	until_ok 120 grep -q "pushing to http://127.0.0.1:$P/api/v1/write again after [0-9]* failed attempts" stat.csv &&
	n=$(samples $P) && until_ok 120 more_than $P $n &&
	touch stop && wait $spid &&
	cat stat.csv &&
	[ "$(grep -c "counting goes on" stat.csv)" = 1 ] &&
	[ "$(grep -c "again after" stat.csv)" = 1 ] &&
	expect_no_grep "refused|could not be pushed" stat.csv &&
	pf=$(statcsv stat.csv page-faults) &&
	until_ok 60 promql_is $P "lperf_event_total{event=\"page-faults\"}" "$pf" &&
	stop_server prom
'

# A stand-in that answers 503 until ./up exists, then 204; it logs each request's first line.
STANDIN='import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        ok = os.path.exists("up")
        print(self.headers["Content-Encoding"], 204 if ok else 503, flush=True)
        self.send_response(204 if ok else 503)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()'

test_expect_success '503 for a while: retried with back-off, said once, resumed after as many tries as the server saw' '
	S=$(port) && start_server standin "$PYTHON" -c "$STANDIN" $S &&
	until_ok 60 sh -c "curl -s -o /dev/null -X POST -d x http://127.0.0.1:$S/" || exit 1
	"$LPERF" stat -x, --remote-write http://127.0.0.1:$S/api/v1/write --push-interval 50 \
		-e page-faults -- sh -c "$UNTIL_STOP" 2>stat.csv & spid=$!
	# the back-off reaches 32 periods (1.6 s): wait until it has doubled a few times
	until_ok 120 sh -c "[ \$(grep -c \"^snappy 503\" standin.log) -ge 6 ]" &&
	touch up &&
	until_ok 120 grep -q "again after" stat.csv &&
	touch stop && wait $spid &&
	stop_server standin && cat stat.csv standin.log &&
	[ "$(grep -c "counting goes on" stat.csv)" = 1 ] &&
	expect_grep "answered HTTP 503" stat.csv &&
	expect_grep "^snappy 204$" standin.log &&
	tries=$(grep -c "^snappy 503" standin.log) &&
	after=$(sed -n "s/.*again after \([0-9]*\) failed attempts.*/\1/p" stat.csv) &&
	[ "$after" = "$tries" ]
'

test_done
