# End-to-end test library, after git's test-lib: each test is a titled shell snippet run in a
# fresh scratch directory; the script prints "ok N - title" / "not ok N - title" lines.
#   LPERF       the binary under test (default: build/lperf)
#   FIXTURES    tests/fixtures
#   TEST_VERBOSE=1 shows each failing snippet's output.
#   LPERF_TEST_TIMES=1 prints each case's milliseconds after its line (and those spent waiting for
#   the background jobs it left), for finding where a script's time goes.
set -u
TEST_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${LPERF:=$TEST_ROOT/build/lperf}"
case "$LPERF" in /*) ;; *) LPERF="$TEST_ROOT/$LPERF" ;; esac
FIXTURES="$TEST_ROOT/tests/fixtures"
HELPERS="$(dirname "$LPERF")/tests/helpers"
# Debian's python3 carries python3-jsonschema (installed by scripts/install-deps.sh); a pyenv
# shim first on PATH may not.
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
export LPERF FIXTURES HELPERS TEST_ROOT PYTHON
unset LPERF_SYSFS_ROOT LIBPFM_FORCE_PMU
test_count=0 test_failed=0 test_skipped=0
LPERF_TEST_MARK= _lp_probing=0
SCRATCH=$(mktemp -d /tmp/lperf-e2e.XXXXXX)
NOBODY_DIR=
# A sanitizer build under test (ASan, UBSan, LeakSanitizer: make asan) writes its reports into
# a directory of the case (log_path, appended to the environment's and the script's
# ASAN_OPTIONS/UBSAN_OPTIONS), and the case fails when one appears: a report from an lperf whose
# exit status is lost (in a pipeline, a command substitution, a background job), as LSan's leak
# report at exit is, still fails it. World-writable: lperf run as nobody (nobody_run) reports too.
LPERF_SAN=
if ldd "$LPERF" 2>/dev/null | grep -q libasan; then
	LPERF_SAN=$(mktemp -d /tmp/lperf-san.XXXXXX) && chmod 755 "$LPERF_SAN"
fi
# at_exit 'CMD': CMD runs at the script's exit, before the library's own clean-up (a script that set
# its own EXIT trap would drop that, leaving the scratch, nobody and sanitizer directories behind).
LIB_AT_EXIT=
at_exit() { LIB_AT_EXIT="$LIB_AT_EXIT
$1"; }
trap 'eval "$LIB_AT_EXIT"; rm -rf "$SCRATCH" ${NOBODY_DIR:+"$NOBODY_DIR"} ${LPERF_SAN:+"$LPERF_SAN"}' EXIT
# record (lperf's and perf's) copies the binaries it sampled into the build-id cache: the
# test run's own, not the user's ~/.debug.
PERF_BUILDID_DIR="$SCRATCH/.debug"
export PERF_BUILDID_DIR

lperf() { "$LPERF" "$@"; }

# A case fails by its snippet's exit status, or by a check that failed anywhere in it: every
# failing check (fail, expect_*, within, validate_json, same_syms, py_depth) also appends its
# message to the case's mark file, $LPERF_TEST_MARK (exported: marks from subshells, pipelines,
# command substitutions and background jobs count too), so a check whose status is lost (not
# chained with &&, in a loop, a function, a pipeline or a backgrounded list) still fails the case.
# A check used as a condition, whose failure is an answer and not an error (if, while, until, !,
# the left of ||), goes through probe, which leaves no mark. Background jobs the snippet left
# running are waited for (at most LPERF_TEST_BG_WAIT seconds, default 120) before the mark is read;
# one still running then is named in a comment line. Under a sanitizer build (LPERF_SAN), any
# sanitizer report written in the case (by lperf or any instrumented program) fails it too, its
# first lines in the log.
test_expect_success() {
	title=$1 body=$2
	test_count=$((test_count + 1))
	dir="$SCRATCH/t$test_count"
	mkdir -p "$dir"
	LPERF_TEST_MARK="$dir/.failed"
	export LPERF_TEST_MARK
	rm -f "$LPERF_TEST_MARK"
	[ -z "${LPERF_TEST_TIMES:-}" ] || _lp_t0=$(date +%s%N)
	_lp_probing=0
	_lp_san=
	if [ -n "$LPERF_SAN" ]; then
		_lp_san="$LPERF_SAN/t$test_count"
		mkdir -p "$_lp_san" && chmod 1777 "$_lp_san"
	fi
	(
		if [ -n "$_lp_san" ]; then
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$_lp_san/report"
			UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$_lp_san/report"
			export ASAN_OPTIONS UBSAN_OPTIONS
		fi
		cd "$dir" && eval "$body"
		_lp_rc=$?
		jobs -p >"$LPERF_TEST_MARK.jobs" 2>/dev/null
		test_reap_jobs "$LPERF_TEST_MARK.jobs"
		exit $_lp_rc
	) >"$dir/.log" 2>&1
	_lp_rc=$?
	if [ $_lp_rc = 0 ] && [ -e "$LPERF_TEST_MARK" ]; then
		echo "# the snippet ended with status 0, but these checks in it failed:" >>"$dir/.log"
		sed 's/^/#   /' "$LPERF_TEST_MARK" >>"$dir/.log"
		_lp_rc=1
	fi
	if [ -n "$_lp_san" ] && [ -n "$(ls -A "$_lp_san" 2>/dev/null)" ]; then
		echo "# sanitizer reports written in the case (their first lines):" >>"$dir/.log"
		for _lp_f in "$_lp_san"/*; do
			echo "# $(basename "$_lp_f"):"
			grep -v '^ *$' "$_lp_f" | head -n 12 | sed 's/^/#   /'
		done | head -n 36 >>"$dir/.log"
		_lp_rc=1
	fi
	if [ $_lp_rc = 0 ]; then
		echo "ok $test_count - $title"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $title"
		sed 's/^/#   /' "$dir/.log" | tail -n 40
	fi
	[ ! -e "$LPERF_TEST_MARK.left" ] || cat "$LPERF_TEST_MARK.left"
	if [ -n "${LPERF_TEST_TIMES:-}" ]; then
		_lp_w=$(cat "$LPERF_TEST_MARK.waited" 2>/dev/null)
		[ "${_lp_w:-0}" -gt 0 ] || _lp_w=
		echo "# $(( ($(date +%s%N) - _lp_t0) / 1000000 )) ms${_lp_w:+, $((_lp_w * 100)) ms of them waiting for its background jobs}"
	fi
	LPERF_TEST_MARK=
}

# test_reap_jobs FILE: waits for the jobs whose pids FILE lists (what jobs -p printed at the end of
# a snippet) to end, at most LPERF_TEST_BG_WAIT seconds in all; one still running then is named.
test_reap_jobs() {
	_lp_t=$(( ${LPERF_TEST_BG_WAIT:-120} * 10 ))
	while read -r _lp_p; do
		while test_job_running "$_lp_p" && [ "$_lp_t" -gt 0 ]; do
			sleep 0.1
			_lp_t=$((_lp_t - 1))
		done
		if test_job_running "$_lp_p"; then
			echo "# background job $_lp_p ($(tr '\0' ' ' <"/proc/$_lp_p/cmdline" 2>/dev/null)) still running after the snippet" >>"$LPERF_TEST_MARK.left"
		else
			wait "$_lp_p"
		fi
	done <"$1"
	[ -z "${LPERF_TEST_TIMES:-}" ] || echo $(( ${LPERF_TEST_BG_WAIT:-120} * 10 - _lp_t )) >"$LPERF_TEST_MARK.waited"
}
test_job_running() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]; }

test_skip() {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count - $1 # skip $2"
}

# Helpers for snippets: checks, which print why they failed, return 1 and mark the case failed.
test_mark() { # test_mark MESSAGE: the current case fails (no-op outside a case and in a probe)
	[ -n "${LPERF_TEST_MARK:-}" ] && [ "${_lp_probing:-0}" = 0 ] && echo "$*" >>"$LPERF_TEST_MARK"
	return 0
}
# probe CHECK ARGS...: CHECK (any of the checks, or a function using them) as a condition: its
# status only, no mark. For a bare file test, grep -q / test are the plain forms.
probe() {
	_lp_probing=$((${_lp_probing:-0} + 1))
	"$@"
	_lp_st=$?
	_lp_probing=$((_lp_probing - 1))
	return $_lp_st
}
fail() { echo "FAIL: $*" >&2; test_mark "FAIL: $*"; return 1; }
expect_exit() { # expect_exit CODE cmd args...
	want=$1; shift
	"$@"; got=$?
	[ "$got" -eq "$want" ] || { fail "exit status $got, expected $want: $*"; return 1; }
}
expect_grep() { # expect_grep PATTERN FILE
	grep -qE -- "$1" "$2" || { fail "no line matching '$1' in $2:"; cat "$2" >&2; return 1; }
}
expect_no_grep() {
	! grep -qE -- "$1" "$2" || { fail "unexpected line matching '$1' in $2:"; cat "$2" >&2; return 1; }
}
within() { # within A B PERCENT: |A-B| <= PERCENT% of B
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }' ||
		{ fail "$1 is not within $3% of $2"; return 1; }
}
expect_lines() { # expect_lines N FILE
	n=$(wc -l <"$2"); [ "$n" -eq "$1" ] || { fail "$2 has $n lines, expected $1"; cat "$2" >&2; return 1; }
}
validate_json() { # validate_json SCHEMA FILE
	"$PYTHON" "$TEST_ROOT/tests/e2e/validate_json.py" "$TEST_ROOT/docs/schemas/$1" "$2" ||
		{ fail "$2 does not validate against $1"; return 1; }
}

# perf_record_unsplit OUT SORTS -- COMMAND...: perf record --call-graph dwarf of COMMAND into OUT,
# again (10 tries at most) while perf's own --children report of it, under "" or any of the
# space-separated SORTS, and with -g none or any of UNSPLIT_GRAPHS (callee caller), prints one
# entry twice. perf 6.1 holds an inlined symbol equal to any
# whose range overlaps, which is not a consistent order, so its tree can keep two entries of one
# key (__libc_start_call_main as 96.59% and 3.41%, _start as 52.59% and 47.41%) depending on the
# samples' order; lperf merges them, as perf -v shows too.
perf_record_unsplit() {
	out=$1 sorts=$2; shift 3
	tries=0
	while :; do
		perf record -q --call-graph dwarf -F 999 -e cpu-clock -o "$out" -- "$@" >/dev/null 2>&1
		tries=$((tries + 1))
		split=0
		for g in ${UNSPLIT_GRAPHS:-none}; do
			for k in "" $(echo "$sorts" | tr " " "\n"); do
				perf report -i "$out" --stdio --children -g $g ${k:+--sort $k} 2>/dev/null |
					awk "/^ *[0-9.]+% +[0-9.]+% / { k = \$0; sub(/^ *[0-9.]+% *[0-9.]+% */, \"\", k); if (seen[k]++) d = 1 } END { exit !d }" &&
					{ split=1; break 2; }
			done
		done
		[ $split = 1 ] && [ $tries -lt 10 ] || break
	done
	echo "# perf's recording $out: try $tries"
}

py_for() { # the newest pyenv python3 (2.7: python2.7) of a version
	for h in "${HOME:-/root}" /root; do
		p=$(ls -d "$h"/.pyenv/versions/"$1".*/bin/python3 2>/dev/null | tail -n 1)
		[ -z "$p" ] && p=$(ls -d "$h"/.pyenv/versions/"$1".*/bin/python"$1" 2>/dev/null | tail -n 1)
		[ -n "$p" ] && { echo "$p"; return; }
	done
}

# A recording that loses samples on any machine, however fast its reader: record's command is
#   sh -c "$STARVE" starve DELAY CMD...
# which runs CMD and, DELAY seconds after it starts, stops its parent (the recorder) for 0.3 s
# (SIGSTOP, then SIGCONT): the ring buffers fill while CMD runs and the kernel counts what it
# drops. Give DELAY time for what the recorder must see first (an exec, an interpreter to find).
STARVE='r=$PPID d=$1; shift; (sleep "$d"; kill -STOP "$r" && sleep 0.3; kill -CONT "$r") & exec "$@"'
export STARVE

# py311: the newest pyenv CPython 3.11, else Debian's /usr/bin/python3.11, else nothing.
py311() {
	p=$(py_for 3.11)
	[ -z "$p" ] && [ -x /usr/bin/python3.11 ] && p=/usr/bin/python3.11
	echo "$p"
}
# py311_or_skip TITLE: PY set to py311's (exported), or TITLE recorded as skipped ("no CPython
# 3.11") and the script ended.
py311_or_skip() {
	PY=$(py311)
	[ -n "$PY" ] || { test_skip "$1" "no CPython 3.11"; test_done; exit 0; }
	export PY
}
# tids_in FUNC SCRIPT (script output of a --python recording): how many threads have a sample whose Python stack holds FUNC
tids_in() {
	awk -v f="py::$1:" '/ cpu-clock: / { tid = $2 } index($0, f) { seen[tid] = 1 }
		END { n = 0; for (t in seen) n++; print n }' "$2"
}
# kill_at_exit PID: (also in a snippet) PID gets SIGKILL when the script exits, for workloads a
# case leaves running (or would, failing). The pids go to a file in the scratch directory.
kill_at_exit() { echo "$1" >>"$SCRATCH/.kill-at-exit"; }
at_exit 'for p in $(cat "$SCRATCH/.kill-at-exit" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done'
# busy_loops N: N shell busy loops in the background for the rest of the script (killed at exit),
# to load the CPUs.
busy_loops() {
	i=0
	while [ "$i" -lt "$1" ]; do
		sh -c 'while :; do :; done' &
		kill_at_exit $!
		i=$((i + 1))
	done
}

# sym_counts REPORT: "samples symbol" of each row of a report --sort sym -n, sorted, for comparing
# perf's report with lperf's. PLT slots as "@plt": perf leaves some unnamed where lperf names them
# NAME@plt (docs/annotate.md), and a sample lands in one (ld.so's __tunable_get_val@plt) only
# now and then.
sym_counts() { awk '$1 ~ /%$/ && NF >= 4 { n = $NF; if (n ~ /@plt$/) n = "@plt"; print $2, n }' "$1" | sort; }
# same_syms PERF LPERF: the files of symbol names (one a line, in sample order) name the same
# symbols line by line, a PLT slot perf leaves unnamed ("@plt") being lperf's NAME@plt.
same_syms() {
	{ test "$(wc -l <"$1")" -eq "$(wc -l <"$2")" &&
		paste -d" " "$1" "$2" | awk '$1 != $2 && !($1 == "@plt" && $2 ~ /@plt$/) { print; bad = 1 } END { exit bad }'; } ||
		{ fail "$1 and $2 do not name the same symbols"; return 1; }
}

# py_depth FOLDED DEEP CUT PERCENT: of the samples in leaf of tests/workloads/py_deep.py (at
# least 50), at least PERCENT% carry DEEP frames of deep and, CUT=0, <module> with no Python
# frame cut; CUT=1, a [truncated] right after the last deep and no <module>.
py_depth() {
	awk -v want="$2" -v cut="$3" -v pct="$4" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		if (line !~ /py::leaf/) next
		k = split(line, fr, ";"); d = 0; m = 0; t = 0
		for (i = 1; i <= k; i++) {
			if (fr[i] ~ /^py::deep/) { d++; if (fr[i - 1] == "[truncated]") t = 1 }
			if (fr[i] ~ /^py::<module>/) m++
		}
		all += n
		if (d == want && (cut ? t && !m : m == 1 && !t)) ok += n
	} END {
		printf "%d of %d samples in leaf have %d frames of deep%s\n", ok, all, want, cut ? ", cut" : " and <module>"
		exit !(all >= 50 && ok >= pct / 100 * all)
	}' "$1" || { fail "py_depth $*"; return 1; }
}

# nobody_run CMD...: CMD as nobody (uid and gid 65534, no groups, no capabilities), in the current
# directory, in a mount namespace of its own in which /root is a fresh 0755 tmpfs holding only
# /root/.pyenv (bound from the real one): pyenv's interpreters, which find their libpython under
# /root/.pyenv by RUNPATH, run at their own paths, while the host's /root stays mode 700 and
# nothing is changed or left behind (the namespace ends with CMD). Needs root and unshare. The
# build-id cache goes to ./.debug (the current directory must be nobody's: nobody_cd).
nobody_run() {
	unshare -m sh -c '
		if [ -d /root/.pyenv ]; then
			cd /root/.pyenv && mount -t tmpfs -o mode=0755,size=64k lperf-root /root &&
				mkdir /root/.pyenv && mount -c --bind . /root/.pyenv || exit 125
		fi
		cd "$1" && shift && PERF_BUILDID_DIR="$PWD/.debug" exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	' nobody_run "$PWD" "$@"
}
# nobody_can CMD...: whether nobody_run works here (root, unshare, setpriv) and runs CMD (from /);
# if so, makes NOBODY_DIR (removed at exit) for nobody_cd. Call it outside the snippets.
nobody_can() {
	[ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v setpriv >/dev/null &&
		(cd / && nobody_run "$@") >/dev/null 2>&1 || return 1
	[ -n "$NOBODY_DIR" ] || { NOBODY_DIR=$(mktemp -d /tmp/lperf-nobody.XXXXXX) && chmod 755 "$NOBODY_DIR"; }
}
# nobody_cd: (in a snippet) into a fresh directory of nobody's under NOBODY_DIR.
nobody_cd() {
	[ -n "$NOBODY_DIR" ] && mkdir -p "$NOBODY_DIR/t$test_count" &&
		chown 65534:65534 "$NOBODY_DIR/t$test_count" && cd "$NOBODY_DIR/t$test_count"
}

test_done() {
	echo "# $(basename "$0"): $test_count tests, $test_failed failed, $test_skipped skipped"
	[ "$test_failed" -eq 0 ]
}
