#!/bin/sh
# Runs every test against each build given (default: build) and prints one summary line:
# "N passed, M failed" (", K skipped" when some were skipped).
# Unit tests are cmocka binaries in BUILD/tests; end-to-end tests are tests/e2e/tNN-*.sh; the fuzz
# corpora (tests/fuzz/corpus/NAME/) are replayed by BUILD/tests/fuzz/replay_NAME, each input
# one test. Skipped tests (cmocka's skip(), e2e "# skip") are listed with their reasons: the
# "skipped: REASON" line a unit test prints before skip(), the text after "# skip" in e2e.
cd "$(dirname "$0")/.." || exit 1
[ $# -eq 0 ] && set -- build
pass=0 fail=0 skip=0
log=$(mktemp)
# One directory for the whole run, for what a test measures of a peer once and reuses for the
# next build given (t92: Linux perf's own outcome of each of its shell tests).
LPERF_RUN_DIR=$(mktemp -d)
export LPERF_RUN_DIR
# The Arm suite (make check sets LPERF_ARM64=1) runs once, in an emulated Arm64 machine
# (tests/arm64/check.sh), in the background while the unit tests and fuzz corpora of every build
# and then the parallel end-to-end scripts run: the emulated machine counts instructions (-icount),
# so what it measures does not depend on the host's load, and neither do those scripts' answers.
# It is waited for before the first exclusive script: their known answers never share the machine
# with it. Its result is printed after the end-to-end scripts'.
arm_pid=
if [ "${LPERF_ARM64:-0}" = 1 ]; then
	arm_log=$(mktemp)
	(
		t0=$(date +%s)
		ARM64_SUITE_TAP_ONLY=1 tests/arm64/check.sh >"$arm_log" 2>&1
		echo $(($(date +%s) - t0)) >"$arm_log.secs"
	) &
	arm_pid=$!
fi
unit_pass() { # unit_pass BUILD: its unit tests and fuzz corpora
	b=$1
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		"$t" >"$log" 2>&1
		rc=$?
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n1)
		s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n1)
		p=${p:-0} f=${f:-0} s=${s:-0}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed before its summary
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		if [ "$f" -ne 0 ]; then
			echo "FAIL unit $(basename "$t") ($p passed, $f failed)"
			grep -E '^\[  (FAILED|ERROR) |^\[  ERROR|Assert|ERROR|runtime error|AddressSanitizer' "$log" | head -n 20
		else
			echo "ok   unit $(basename "$t") ($p$([ "$s" -ne 0 ] && echo ", $s skipped"))"
		fi
		# Each skipped test with the reason it printed ("skipped: ...") after its RUN line.
		awk '/^\[ RUN      \] / { cur = $NF; why = "" }
		     /^skipped: / && cur != "" { why = substr($0, 10) }
		     /^\[  SKIPPED \] / && cur != "" && $NF == cur {
			printf "     skip %s: %s\n", cur, why != "" ? why : "no reason given"; cur = "" }' "$log"
	done
	for t in "$b"/tests/fuzz/replay_*; do
		[ -x "$t" ] || continue
		name=${t##*/replay_}
		timeout 900 "$t" "tests/fuzz/corpus/$name" >"$log" 2>&1
		rc=$?
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) input.*/\1/p' "$log" | tail -n1)
		p=${p:-0} f=0
		[ "$rc" -ne 0 ] && f=1  # the input being replayed crashed, hung or leaked
		pass=$((pass + p)) fail=$((fail + f))
		if [ "$f" -ne 0 ]; then
			echo "FAIL fuzz $name (exit $rc on $(sed -n 's/^run //p' "$log" | tail -n1))"
			grep -E 'ERROR|runtime error|SUMMARY|Segmentation' "$log" | head -n 20
		else
			echo "ok   fuzz $name ($p corpus inputs)"
		fi
	done
}
arm_out=
arm_wait() { # arm_wait: waits for the Arm suite (when it runs) and counts its result into $arm_out
	[ -n "$arm_pid" ] || return 0
	arm_out=$(mktemp)
	{
		# [N s]: the suite's own time, beside the unit tests and the parallel scripts
		wait "$arm_pid"
		secs=$(cat "$arm_log.secs" 2>/dev/null)
		s=$(grep -c '^ok .* # skip' "$arm_log") p=$(grep -c '^ok ' "$arm_log") f=$(grep -c '^not ok ' "$arm_log")
		p=$((p - s))
		[ -n "$secs" ] || { f=$((f + 1)); echo "not ok - the arm64 suite did not finish" >>"$arm_log"; }
		if [ "$f" -ne 0 ]; then
			echo "FAIL arm64 tests/arm64 ($p passed, $f failed) [${secs:-?} s]"
			grep -A25 '^not ok ' "$arm_log" | head -n 80
		else
			echo "ok   arm64 tests/arm64 ($p, $s skipped) [$secs s]"
		fi
	} >"$arm_out"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	rm -f "$arm_log" "$arm_log.secs"
	arm_pid=
}
e2e_class() { # e2e_class SCRIPT: its "# e2e-class: parallel|exclusive" header line (default exclusive)
	c=$(sed -n '1,30s/^# e2e-class: *\([a-z]*\).*/\1/p' "$1" | head -n1)
	[ "$c" = parallel ] && echo parallel || echo exclusive
}
e2e_one() { # e2e_one BUILD SCRIPT N: runs one script; its lines in $jobs/N.out, "p f s" in $jobs/N.cnt
	b=$1 t=$2 n=$3
	l="$jobs/$n.log"
	t0=$(date +%s)
	LPERF="$b/lperf" sh "$t" >"$l" 2>&1
	secs=$(($(date +%s) - t0))
	p=$(grep -c '^ok ' "$l")
	s=$(grep -c '^ok .* # skip' "$l")
	f=$(grep -c '^not ok ' "$l")
	# A script that stops before test_done (a shell syntax error, an exit) ran only part of
	# its tests: that is a failure, not a pass of what it printed.
	grep -q "^# $(basename "$t"): [0-9]* tests" "$l" || { f=$((f + 1)); echo "not ok - $(basename "$t") stopped before its summary line" >>"$l"; }
	p=$((p - s))
	{
		if [ "$f" -ne 0 ]; then
			echo "FAIL e2e  $(basename "$t") ($p passed, $f failed) [$secs s]"
			grep -A40 '^not ok ' "$l" | head -n 80
		else
			echo "ok   e2e  $(basename "$t") ($p$([ "$s" -ne 0 ] && echo ", $s skipped")) [$secs s]"
		fi
		grep ' # skip' "$l" | sed 's/^/     /'
	} >"$jobs/$n.out"
	echo "$p $f $s" >"$jobs/$n.cnt.tmp" && mv "$jobs/$n.cnt.tmp" "$jobs/$n.cnt"
	rm -f "$l"
}
# The end-to-end scripts of every build, in one queue. A script declares its class in a header
# comment, "# e2e-class: parallel" or "# e2e-class: exclusive" (exclusive when it says nothing):
# parallel scripts' assertions cannot depend on the CPU they get (fixtures, options, errors,
# conversions, round trips, CPU-time samples and counts, bounds against the same run, polls with
# deadlines), and they share no fixed path, port, cgroup or pid file, so they run
# LPERF_E2E_JOBS (default 2) at a time, a script of one build beside one of another; exclusive
# scripts (shares of wall time, timing, top's timed decay, timeouts that load could reach, the load
# test) run with the machine to themselves, after the parallel ones; a script exclusive for one or
# two timed cases keeps them in a small exclusive script of its own (docs/architecture.md). Each script's lines are buffered and printed
# when it and every script before it in the usual order (build by build, by name) are done.
# LPERF_E2E_ONLY=parallel|exclusive runs that class only (and no unit tests or fuzz corpora).
e2e_all() {
	jobs=$(mktemp -d)
	n=0
	for b in "$@"; do
		for t in tests/e2e/t[0-9]*.sh; do
			[ -f "$t" ] || continue
			c=$(e2e_class "$t")
			[ -n "${LPERF_E2E_ONLY:-}" ] && [ "$c" != "$LPERF_E2E_ONLY" ] && continue
			n=$((n + 1))
			printf '%s\n' "$b" >"$jobs/$n.build"
			printf '%s\n' "$t" >"$jobs/$n.script"
			echo "$c" >"$jobs/$n.class"
		done
	done
	total=$n next_print=1 cur_build=
	e2e_flush() { # prints the finished scripts that are next in the usual order
		while [ "$next_print" -le "$total" ] && [ -f "$jobs/$next_print.cnt" ]; do
			nb=$(cat "$jobs/$next_print.build")
			[ "$nb" != "$cur_build" ] && { echo "== $nb"; cur_build=$nb; }
			cat "$jobs/$next_print.out"
			read -r p f s <"$jobs/$next_print.cnt"
			pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
			next_print=$((next_print + 1))
		done
	}
	running=
	e2e_reap() { # e2e_reap MAX: waits until fewer than MAX scripts run, printing what it can
		while :; do
			still= k=0
			for j in $running; do
				[ -f "$jobs/$j.cnt" ] || { still="$still $j"; k=$((k + 1)); }
			done
			running=$still
			e2e_flush
			[ "$k" -lt "$1" ] && break
			sleep 0.2
		done
	}
	for class in parallel exclusive; do
		[ "$class" = exclusive ] && arm_wait
		max=1
		[ "$class" = parallel ] && max=${LPERF_E2E_JOBS:-2}
		i=0
		while [ "$i" -lt "$total" ]; do
			i=$((i + 1))
			[ "$(cat "$jobs/$i.class")" = "$class" ] || continue
			e2e_reap "$max"
			e2e_one "$(cat "$jobs/$i.build")" "$(cat "$jobs/$i.script")" "$i" &
			running="$running $i"
		done
		e2e_reap 1
	done
	wait
	e2e_flush
	rm -rf "$jobs"
}
[ -z "${LPERF_E2E_ONLY:-}" ] && for b in "$@"; do
	echo "== $b"
	unit_pass "$b"
done
e2e_all "$@"
arm_wait
[ -n "$arm_out" ] && cat "$arm_out" && rm -f "$arm_out"
# WindowsPerf's own suite, when a checkout is given (WPERF_TESTS=DIR; tests/wperf-suite/run.sh):
# its passes and its failures other than the tests that cannot apply here count.
if [ -n "${WPERF_TESTS:-}" ]; then
	LPERF="$1/lperf" tests/wperf-suite/run.sh >"$log" 2>&1
	line=$(sed -n 's/^wperf suite: //p' "$log")
	p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	p=${p:-0} f=${f:-1}
	pass=$((pass + p)) fail=$((fail + f))
	if [ "$f" -ne 0 ]; then
		echo "FAIL wperf-suite ($line)"
		grep -v '^ ' "$log" | tail -n 45
	else
		echo "ok   wperf-suite ($line)"
	fi
fi
rm -f "$log"
rm -rf "$LPERF_RUN_DIR"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
