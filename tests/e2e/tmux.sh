# tmux helpers for the interactive tests (t77-t79): a private server per script, one session
# per test, the screen read back with capture-pane. Sourced after lib.sh.
TMUX_SOCK="lperf-e2e-$$"
tm() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
# A session that lives as long as the script, so the server outlives each test's session.
tm new-session -d -s keep -x 80 -y 24 "sleep 3600"
# tmux_run W H CMD: a fresh session "t" of W x H running CMD in sh; the pane stays after CMD
# ends, with "EXIT=status" on its last line.
tmux_run() {
	tm kill-session -t t 2>/dev/null
	# The shell survives Ctrl-C (a trap, not an ignore, which its children would inherit).
	tm new-session -d -s t -x "$1" -y "$2" "sh -c 'trap : INT; $3; echo EXIT=\$?; sleep 600'" &&
	tm set-option -t t status off >/dev/null
}
tmux_screen() { tm capture-pane -p -t t; }
tmux_keys() { tm send-keys -t t "$@"; }
# tmux_until SECONDS WHAT TEST...: until TEST succeeds on the screen (its standard input), tried
# every 0.1 s for SECONDS; on failure says the screen never showed WHAT, and prints it.
tmux_until() {
	n=$(( $1 * 10 )) what=$2
	shift 2
	while [ "$n" -gt 0 ]; do
		tmux_screen | "$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "screen never showed $what:" >&2
	tmux_screen >&2
	return 1
}
# tmux_wait PATTERN [SECONDS]: until the screen matches PATTERN (grep -E), 30 s at most by default (a
# sanitizer build on a loaded machine draws late).
tmux_wait() { tmux_until "${2:-30}" "'$1'" grep -qE -- "$1"; }
# tmux_wait_count PATTERN N [SECONDS]: until exactly N lines of the screen match PATTERN: a screen
# read once, right after another pattern showed, can be one the terminal has not finished
# redrawing.
lines_matching() { [ "$(grep -cE -- "$1")" -eq "$2" ]; }
tmux_wait_count() { tmux_until "${3:-30}" "$2 lines matching '$1'" lines_matching "$1" "$2"; }
# The workload (tests/workloads/tui_work.c) in $BIN and a recording of it with call chains in $D
# (1 s of CPU time per thread: the same samples on a loaded machine).
tui_recording() {
	BIN="$SCRATCH/bin"
	mkdir -p "$BIN"
	cc -O2 -g -fno-omit-frame-pointer -pthread -o "$BIN/tui_work" "$TEST_ROOT/tests/workloads/tui_work.c" ||
		{ echo "cannot build the workload"; exit 1; }
	D="$SCRATCH/tui.data"
	lperf record -q -g -F 1000 -e cpu-clock -o "$D" -- "$BIN/tui_work" 1 || { echo "cannot record"; exit 1; }
}
tmux_done() { tm kill-server 2>/dev/null; }
at_exit tmux_done
