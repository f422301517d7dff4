#!/bin/sh
# lperf stat --textfile DIR (issue 26): DIR/lperf.prom for node_exporter's textfile collector,
# rewritten every --push-interval and at the end, each time a new file renamed over the old one
# (util/outfile.c). Debian's node_exporter, started on loopback by the test with only that
# collector and stopped by pid, serves the counts lperf stat prints, with no scrape error; while
# lperf counts, every scrape sees a whole file.
# e2e-class: parallel (whole files and the counts lperf printed, a free port; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/promlib.sh"


start_node_exporter() {
	command -v prometheus-node-exporter >/dev/null ||
		{ echo "no prometheus-node-exporter (scripts/install-deps.sh)"; return 1; }
	start_server node prometheus-node-exporter --web.listen-address=127.0.0.1:"$1" \
		--collector.disable-defaults --collector.textfile --collector.textfile.directory="$2" &&
	until_ok 60 curl -sf "http://127.0.0.1:$1/metrics" || { cat node.log; return 1; }
}

# scrape PORT: node_exporter's page in m, and it read lperf.prom without error
scrape() {
	curl -sf "http://127.0.0.1:$1/metrics" >m &&
	grep -q "^node_textfile_scrape_error 0$" m &&
	grep -q "^lperf_event_total{event=\"page-faults\",pmu=\"software\"} [0-9]*$" m
}

test_expect_success 'node_exporter serves the counts lperf stat prints' '
	mkdir tf && N=$(port) && start_node_exporter $N tf || exit 1
	"$LPERF" stat -x, --textfile tf --push-interval 100 -e task-clock,page-faults \
		-- sh -c "$UNTIL_STOP" 2>stat.csv & spid=$!
	until_ok 120 test -f tf/lperf.prom &&
	# while lperf counts and rewrites the file: whole files only
	i=0 && while [ $i -lt 20 ]; do scrape $N || { cat m; exit 1; }; i=$((i + 1)); done &&
	expect_grep "^# TYPE lperf_event_total counter$" m &&
	expect_grep "^lperf_up_seconds [0-9.]+$" m &&
	touch stop && wait $spid && cat stat.csv &&
	scrape $N &&
	pf=$(statcsv stat.csv page-faults) &&
	expect_grep "^lperf_event_total\{event=\"page-faults\",pmu=\"software\"\} $pf$" m &&
	# node_exporter writes the float in its own notation: compare the numbers
	v=$(sed -n "s/^lperf_event_total{event=\"task-clock\",pmu=\"software\"} //p" m) &&
	within "$v" "$(statcsv stat.csv task-clock)" 0.1 &&
	[ "$(ls tf)" = lperf.prom ] &&
	[ "$(stat -c %a tf/lperf.prom)" = 644 ] &&
	stop_server node
'

test_expect_success 'a symbolic link at DIR/lperf.prom is not written through; said once' '
	mkdir tf && echo keep >target && ln -s "$PWD/target" tf/lperf.prom &&
	"$LPERF" stat --textfile tf --push-interval 50 -e page-faults -- sleep 0.5 2>err &&
	cat err && [ "$(cat target)" = keep ] &&
	[ "$(grep -c -- "--textfile" err)" = 1 ] &&
	expect_grep "page-faults" err
'

test_expect_success '--per-thread: a series per thread with --labels comm,pid, else the totals' '
	mkdir tf tf2 || exit 1
	sh -c "$UNTIL_STOP" & pid=$!
	"$LPERF" stat -x, --per-thread -p $pid --textfile tf --labels comm,pid -e task-clock -- sleep 0.3 2>out &&
	"$LPERF" stat -x, --per-thread -p $pid --textfile tf2 -e task-clock -- sleep 0.3 2>out2 &&
	touch stop && wait $pid && cat out tf/lperf.prom tf2/lperf.prom &&
	[ "$(grep -c "^lperf_event_total" tf/lperf.prom)" = 1 ] &&
	expect_grep "^lperf_event_total\{comm=\"sh\",event=\"task-clock\",pid=\"$pid\",pmu=\"software\"\} [0-9]+$" tf/lperf.prom &&
	expect_grep "^sh-$pid," out &&
	expect_grep "^lperf_event_total\{event=\"task-clock\",pmu=\"software\"\} [0-9]+$" tf2/lperf.prom &&
	expect_no_grep "comm=|pid=" tf2/lperf.prom &&
	expect_exit 2 "$LPERF" stat --labels cmdline -- true 2>err &&
	expect_grep "not a label lperf adds" err
'

test_done
