# Servers for the Prometheus tests (t85-*), sourced after lib.sh: Debian's Prometheus,
# VictoriaMetrics and node_exporter started on loopback, each on a free port, and stopped by pid
# (each pid is kept under $SCRATCH/servers; whatever a failing test left running is stopped at
# exit). Waits poll their condition with a generous limit, never a fixed sleep.
mkdir -p "$SCRATCH/servers"
trap 'for f in "$SCRATCH"/servers/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done; rm -rf "$SCRATCH"' EXIT

port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# until_ok SECONDS CMD...: runs CMD every 0.1 s until it succeeds; fails after SECONDS
until_ok() {
	n=$(($1 * 10)); shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1)); [ $n -gt 0 ] || { echo "gave up waiting for: $*" >&2; return 1; }
		sleep 0.1
	done
}

# start_server NAME CMD...: in the background, output in NAME.log, pid in servers/NAME.pid
start_server() {
	name=$1; shift
	"$@" >"$name.log" 2>&1 &
	echo $! >"$SCRATCH/servers/$name.pid"
}

# stop_server NAME [SIGNAL]: kills it by its pid and waits until it is gone
stop_server() {
	f="$SCRATCH/servers/$1.pid"
	[ -f "$f" ] || return 0
	p=$(cat "$f")
	kill -"${2:-TERM}" "$p" 2>/dev/null
	until_ok 60 sh -c "! kill -0 $p" || return 1
	rm -f "$f"
}

# start_prometheus NAME PORT [CONFIG]: with the remote-write receiver, data in NAME.data
start_prometheus() {
	command -v prometheus >/dev/null || { echo "no prometheus (scripts/install-deps.sh)"; return 1; }
	[ -f "$1.yml" ] || printf "global: {scrape_interval: 15s}\n" >"$1.yml"
	start_server "$1" prometheus --config.file="$1.yml" --storage.tsdb.path="$1.data" \
		--web.listen-address=127.0.0.1:"$2" --web.enable-remote-write-receiver &&
	until_ok 60 curl -sf "http://127.0.0.1:$2/-/ready" || { cat "$1.log"; return 1; }
}

# start_vm NAME PORT: VictoriaMetrics showing samples as soon as they are stored
start_vm() {
	command -v victoria-metrics >/dev/null || { echo "no victoria-metrics (scripts/install-deps.sh)"; return 1; }
	start_server "$1" victoria-metrics -httpListenAddr=127.0.0.1:"$2" -storageDataPath="$1.data" \
		-search.latencyOffset=0s -search.disableCache &&
	until_ok 60 curl -sf "http://127.0.0.1:$2/health" || { cat "$1.log"; return 1; }
}

# promql PORT QUERY: the first result's value (instant query), empty when there is none
promql() {
	curl -sf -G "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
		"$PYTHON" -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}

# promql_is PORT QUERY VALUE: the query's value is VALUE (numerically)
promql_is() {
	v=$(promql "$1" "$2") && [ -n "$v" ] && awk -v a="$v" -v b="$3" 'BEGIN { exit !(a == b) }'
}

# statcsv FILE EVENT: the count lperf stat -x, printed for EVENT (task-clock in ns, to 10 us)
statcsv() {
	case $2 in
	task-clock) awk -F, '$3 ~ /^task-clock/ { printf "%.0f\n", $1 * 1000000 }' "$1" ;;
	*) awk -F, -v e="$2" '$3 == e { print $1 }' "$1" ;;
	esac
}

# A workload counted until the test creates ./stop (a shell forking sleeps: its page faults keep
# growing); it ends too when the test's directory is gone, so a failed test leaves nothing behind.
UNTIL_STOP='d=$PWD; while [ ! -e stop ] && [ -d "$d" ]; do sleep 0.05; done'
