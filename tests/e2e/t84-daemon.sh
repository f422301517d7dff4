#!/bin/sh
# lperf daemon (issue 26): perf daemon's always-on record sessions. Its list (-x: and -v) has
# perf's fields; a session's SIGUSR2 (daemon signal) writes a perf.data.<timestamp> that perf reads;
# a config change restarts the changed session; a second daemon on the base is refused with
# "failed:"; stop ends the sessions. perf 6.1's own daemon.sh runs in t92-perf-shell-daemon.
# e2e-class: parallel (lists, files and states, polls with deadlines, a base of its own; passed 3 times in both builds beside 1 to 4 other scripts at loads of 12-30)
. "$(dirname "$0")/lib.sh"

# cfg FILE BASE RUN...: a config with sessions s1, s2... running RUN
cfg() {
	f=$1 b=$2; shift 2
	printf '[daemon]\nbase=%s\n' "$b" >"$f"
	n=1
	for r in "$@"; do printf '\n[session-s%d]\nrun = %s\n' $n "$r" >>"$f"; n=$((n + 1)); done
}
# up CFG NAME: waits (polling, at most 30 s) until the session answers ping
up() {
	i=0
	while [ "$("$LPERF" daemon ping --config "$1" --session "$2" | awk '{ print $1 }')" != OK ]; do
		i=$((i + 1)); [ $i -lt 300 ] || { echo "session $2 never answered"; return 1; }
		sleep 0.1
	done
}
stop() {
	pid=$("$LPERF" daemon --config "$1" -x: | head -1 | cut -d: -f1)
	"$LPERF" daemon stop --config "$1" && tail --pid="$pid" -f /dev/null
}

test_expect_success 'list: the daemon and its sessions with perf daemon fields' '
	mkdir base && cfg c "$PWD/base" "-e cpu-clock -m 1 sleep 30" &&
	"$LPERF" daemon start --config c && up c s1 &&
	"$LPERF" daemon --config c -x: >list &&
	B=$PWD/base &&
	sed -n 1p list | grep -q "^[0-9]*:daemon:$B:$B/output:$B/lock:0$" &&
	sed -n 2p list | grep -q "^[0-9]*:s1:-e cpu-clock -m 1 sleep 30:$B/session-s1:$B/session-s1/output:$B/session-s1/control:$B/session-s1/ack:0$" &&
	"$LPERF" daemon --config c -v >v &&
	expect_grep "^\[[0-9]+:s1\] lperf record -e cpu-clock -m 1 sleep 30$" v &&
	expect_grep "^  control: $B/session-s1/control$" v &&
	[ -p base/session-s1/control ] && [ -S base/control ] &&
	spid=$(sed -n 2p list | cut -d: -f1) && [ -d /proc/$spid ] &&
	stop c && [ ! -d /proc/$spid ] || { cat list base/output; stop c; exit 1; }
'

test_expect_success 'signal: a file per signal and one at stop, each read by perf' '
	mkdir base && cfg c "$PWD/base" "-e cpu-clock --switch-output -m 1 sleep 30" &&
	"$LPERF" daemon start --config c && up c s1 &&
	"$LPERF" daemon signal --config c --session s1 >out && expect_grep "^signal 12 sent to session .s1 \[[0-9]+\]." out &&
	sleep 0.3 && "$LPERF" daemon signal --config c && sleep 0.3 && stop c &&
	[ $(ls base/session-s1 | grep -c "^perf\.data\.[0-9]\{16\}$") = 3 ] &&
	for f in base/session-s1/perf.data.*; do perf report -i $f --stdio >/dev/null 2>&1 || { echo "perf: $f"; exit 1; }; done
'

test_expect_success 'ping: OK per session, FAIL for an unknown one; a second daemon fails' '
	mkdir base && cfg c "$PWD/base" "-e cpu-clock -m 1 sleep 30" "-e task-clock -m 1 sleep 30" &&
	"$LPERF" daemon start --config c && up c s1 && up c s2 &&
	"$LPERF" daemon ping --config c >out &&
	expect_grep "^OK   s1$" out && expect_grep "^OK   s2$" out &&
	"$LPERF" daemon ping --config c --session nope >out && expect_grep "^FAIL nope \(not found\)$" out &&
	! "$LPERF" daemon start --config c 2>err && expect_grep "^failed: " err &&
	stop c
'

test_expect_success 'config changes: a changed session restarts, a removed one stops' '
	mkdir base && cfg c "$PWD/base" "-e cpu-clock -m 1 sleep 30" "-e cpu-clock -m 1 sleep 30" &&
	"$LPERF" daemon start --config c && up c s1 && up c s2 &&
	old=$("$LPERF" daemon --config c -x: | sed -n 3p | cut -d: -f1) &&
	cfg c.new "$PWD/base" "-e cpu-clock -m 1 sleep 30" "-e task-clock -m 1 sleep 30" && cp c.new c &&
	tail --pid=$old -f /dev/null && up c s2 &&
	"$LPERF" daemon --config c -x: | sed -n 3p | grep -q ":s2:-e task-clock -m 1 sleep 30:" &&
	cfg c.one "$PWD/base" "-e cpu-clock -m 1 sleep 30" && cp c.one c &&
	i=0 && while [ $("$LPERF" daemon --config c -x: | wc -l) != 2 ]; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done &&
	stop c
'

test_done
