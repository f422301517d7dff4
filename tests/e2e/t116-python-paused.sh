#!/bin/sh
# Exact Python stacks without BPF (docs/python.md "Without BPF"): the threads are paused with
# ptrace at each sample (each thread at its own CPU-time alarm), and lperf writes the sample
# itself (registers, stack copy, Python stack of one instant). As nobody (no BPF; Debian's
# python3.11, which nobody may run, the workload copied where nobody reads it): the 60/30/10 known
# answer of tests/workloads/py_shares.py (as the workload measures it with time.thread_time: 3.11
# gives about 61.6/28.6/9.8) with each share within four binomial standard deviations of its
# count (tests/e2e/pyshares_check.py), whole chains >= 99%, every frame's line right >= 99%,
# SHA-256 and deflate under their Python caller >= 95%; the
# threads of py_threads.py named; a forked child's stacks. As root with LPERF_NO_BPF=1 on pyenv's
# 3.8, 3.11, 3.12 and 3.13 the same answer (every version's shares bounded; 3.12 and 3.13 paused
# too, in place of -X perf: every frame's line right >= 99%, where -X perf gave all lines in 10%),
# and the shares agree with the BPF reader's of the same workload. --nonblocking keeps the
# unpaused reader; a process traced by another tracer is read
# without pausing (one line says why); a SIGINT'd record leaves an attached process running and
# untraced, and ends a started one.
# e2e-class: parallel (each thread is paused at its own CPU-time alarm: the shares and counts do not depend on the CPU it gets, checked at loads of 11-16)
. "$(dirname "$0")/lib.sh"
CHECK="$TEST_ROOT/tests/e2e/pyshares_check.py"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
PUB=$(mktemp -d /tmp/lperf-paused.XXXXXX)
# the processes a test started in the background, ended at exit whatever happened
cleanup() {
	[ -f "$PUB/pids" ] && for p in $(cat "$PUB/pids"); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$SCRATCH" "$PUB"
}
at_exit cleanup
chmod 755 "$PUB"
for f in py_shares.py py_threads.py py_fork.py py_cfuncs.py; do
	cp "$TEST_ROOT/tests/workloads/$f" "$PUB/$f" && chmod 644 "$PUB/$f"
done
W="$PUB/py_shares.py"
ROUNDS=800   # (1,200 for Debian's 3.11, which runs them faster: at least 300 samples in spin)
# The shares' bound: each thread is stopped at its own CPU-time alarm (docs/python.md "Without
# BPF"), so the samples fall at the thread's CPU-time instants whatever the machine's load, and a
# share's spread is the binomial one (z-scores of about forty runs at a load of 11-16 within 2.7).
# Four standard deviations rather than three: this file makes five such checks of three shares,
# which at three would fail one run in about a hundred by chance alone.
SPREAD=1.34
export CHECK NOBODY PUB W ROUNDS SPREAD

# The shares of two checks' outputs agree: each of a, b, c within 3 * SPREAD standard deviations
# of the difference of two counts (at least a point).
agree() {
	for f in "$1" "$2"; do
		sed -n 's,^shares a/b/c: \([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\) of \([0-9]*\) samples.*,\1 \2 \3 \4,p' "$f"
	done | awk -v spread=$SPREAD 'NR == 1 { a = $1; b = $2; c = $3; n = $4; next }
		{ split(a " " b " " c, x, " "); split($1 " " $2 " " $3, y, " "); m = $4; bad = 0
		  for (i = 1; i <= 3; i++) { p = (x[i] + y[i]) / 200
			tol = 300 * spread * sqrt(p * (1 - p) * (1 / n + 1 / m)); if (tol < 1) tol = 1
			d = x[i] - y[i]; if (d < 0) d = -d
			printf "share %d: %.1f and %.1f (+-%.1f)\n", i, x[i], y[i], tol; if (d > tol) bad = 1 }
		  exit bad }'
}

NB=false
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ -x /usr/bin/python3.11 ] &&
	$NOBODY env -C / /usr/bin/python3.11 -c pass >/dev/null 2>&1; then
	NB=true
	mkdir -p "$PUB/nb" && chmod 777 "$PUB/nb"
fi
nb() { $NOBODY env -C "$PUB/nb" "$@"; }

# cfuncs FOLDED: CPython's own C code of py_cfuncs.py under its Python caller: of the samples in
# list_sort (at least 20), >= 95% with sort_them as their innermost Python frame; of those in the
# json module's C encoder (at least 20), >= 95% with JSONEncoder.iterencode innermost and
# encode_them among the Python frames.
cfuncs() {
	awk '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, fr, ";"); inner = ""; enc = 0
		for (i = 1; i <= k; i++) if (fr[i] ~ /^py::/) { inner = fr[i]; if (fr[i] ~ /^py::encode_them:/) enc = 1 }
		sub(/:\/.*/, "", inner)
		if (s ~ /;list_sort;/) { st += n; if (inner == "py::sort_them") sr += n }
		if (s ~ /;encoder_listencode_/) { jt += n; if (inner == "py::JSONEncoder.iterencode" && enc) jr += n }
	} END {
		printf "list_sort under sort_them: %d of %d; the json encoder under iterencode and encode_them: %d of %d\n", sr, st, jr, jt
		exit !(st >= 20 && sr >= 0.95 * st && jt >= 20 && jr >= 0.95 * jt)
	}' "$1"
}

if $NB; then
	test_expect_success "nobody: said paused and exact, the known answer, whole chains, lines, C under its caller" '
		nb "$LPERF" record --python -o n.data -- /usr/bin/python3.11 "$W" $((ROUNDS * 3 / 2)) "$PUB/nb/split.txt" 2>err &&
		cat err "$PUB/nb/split.txt" &&
		expect_grep "no BPF.*pausing the threads.*exact" err &&
		expect_grep "Python stacks from 1 process \\(threads paused at each sample, ptrace, [0-9]+ Hz; [0-9]+ pauses" err &&
		expect_no_grep "approximate|cannot be paused" err &&
		nb "$LPERF" report -i n.data --stdio >r.txt 2>/dev/null &&
		expect_grep "^# Python stacks: exact \\(paused" r.txt &&
		nb "$LPERF" report -i n.data --folded >f.txt 2>/dev/null &&
		$PYTHON "$CHECK" f.txt exact "$PUB/nb/split.txt" $SPREAD &&
		nb "$LPERF" report -i n.data --python --folded >pf.txt 2>/dev/null &&
		$PYTHON "$CHECK" pf.txt lines
	'
	test_expect_success "nobody: every thread named (py_threads.py)" '
		nb "$LPERF" record -q --python -o t.data -- /usr/bin/python3.11 "$PUB/py_threads.py" 2>err &&
		nb "$LPERF" report -i t.data --python --stdio --no-children --sort tid,sym -g caller >r.txt 2>/dev/null &&
		for f in spin_a spin_b; do
			expect_grep "^ +[0-9.]+% +[0-9]+ +\\[\\.\\] $f \\(py_threads\\.py:" r.txt || return 1
		done &&
		a=$(awk "/\\[\\.\\] spin_a/ { print \$2; exit }" r.txt) &&
		b=$(awk "/\\[\\.\\] spin_b/ { print \$2; exit }" r.txt) && test "$a" != "$b"
	'
	test_expect_success "nobody: a forked child has its own stacks (py_fork.py)" '
		nb "$LPERF" record -q --python -o k.data -- /usr/bin/python3.11 "$PUB/py_fork.py" 3000000 2>err &&
		nb "$LPERF" report -i k.data --python --stdio --no-children --sort pid,sym -g none >r.txt 2>/dev/null &&
		expect_grep "^# Python stacks: exact \\(paused" r.txt &&
		c=$(awk "/\\[\\.\\] child_work/ { print \$2; exit }" r.txt) &&
		p=$(awk "/\\[\\.\\] parent_work/ { print \$2; exit }" r.txt) &&
		test -n "$c" && test -n "$p" && test "$c" != "$p"
	'
else
	test_skip "as nobody" "needs root, setpriv and /usr/bin/python3.11 that nobody may run"
fi

VERSIONS="3.8 3.11 3.12 3.13"
# the sanitizer build: 3.13 (its paused reads of 3.11's frames are those of Debian's 3.11 above)
ldd "$LPERF" 2>/dev/null | grep -q libasan && VERSIONS="3.13"
for v in $VERSIONS; do
	py=$(py_for $v)
	if [ -z "$py" ]; then
		test_skip "$v with LPERF_NO_BPF=1: the known answer" "no pyenv CPython $v"
		continue
	fi
	opt=--python
	export py opt v
	test_expect_success "$v with LPERF_NO_BPF=1 ($opt): paused, the known answer, whole chains, lines" '
		LPERF_NO_BPF=1 lperf record $opt -o p.data -- "$py" "$W" $ROUNDS "$PWD/split.txt" 2>err && cat split.txt &&
		expect_grep "threads paused at each sample" err && expect_no_grep "approximate|perf map|jitdump" err &&
		case $v in 3.1[23]) expect_grep "in place of -X perf" err || exit 1 ;; esac &&
		lperf report -i p.data --folded >f.txt 2>/dev/null &&
		$PYTHON "$CHECK" f.txt exact split.txt $SPREAD >"$PUB/paused-$v.txt"; rc=$?; cat "$PUB/paused-$v.txt" && test $rc = 0 &&
		lperf report -i p.data --python --folded >pf.txt 2>/dev/null &&
		$PYTHON "$CHECK" pf.txt lines
	'
	case $v in 3.1[23])
		test_expect_success "$v with LPERF_NO_BPF=1: sorted and the json encoder (C) under their Python callers" '
			LPERF_NO_BPF=1 lperf record -q --python -o c.data -- "$py" "$PUB/py_cfuncs.py" 60 &&
			lperf report -i c.data --folded >cf.txt 2>/dev/null && cfuncs cf.txt
		' ;;
	esac
	if [ $v != 3.8 ] && ! lperf record -q --python -o "$SCRATCH/probe.data" -- "$py" -c pass 2>&1 | grep -q "no BPF"; then
		test_expect_success "$v: the paused shares agree with the BPF reader's" '
			lperf record -q --python -o b.data -- "$py" "$W" $ROUNDS 2>/dev/null &&
			lperf report -i b.data --folded >bf.txt 2>/dev/null &&
			$PYTHON "$CHECK" bf.txt exact >bpf.txt; cat bpf.txt &&
			agree "$PUB/paused-$v.txt" bpf.txt
		'
	fi
done

PY=$(py311)
export PY
if [ -n "$PY" ]; then
	test_expect_success "--nonblocking: the unpaused reader, said approximate" '
		LPERF_NO_BPF=1 lperf record --nonblocking --python -o a.data -- "$PY" "$W" 100 2>err &&
		expect_grep "no BPF.*process_vm_readv.*approximate" err && expect_no_grep "paused" err &&
		lperf report -i a.data --stdio >r.txt 2>/dev/null &&
		expect_grep "^# Python stacks: approximate" r.txt
	'

	# A process traced by another tracer (here its parent, with PTRACE_SEIZE through ctypes):
	# lperf cannot pause it, says so in one line and reads it without pausing.
	cat >"$PUB/traced.py" <<-'EOF'
	import ctypes, os, sys, time
	libc = ctypes.CDLL(None, use_errno=True)
	def spin():
	    x = 0
	    while True:
	        x += 1
	pid = os.fork()
	if pid == 0:
	    spin()
	if libc.ptrace(0x4206, pid, None, None) != 0:
	    sys.exit("PTRACE_SEIZE: errno %d" % ctypes.get_errno())
	with open(sys.argv[1] + ".tmp", "w") as f:
	    f.write("%d\n" % pid)
	os.rename(sys.argv[1] + ".tmp", sys.argv[1])
	time.sleep(120)
	EOF
	test_expect_success "a process traced already: one line, read without pausing, recorded" '
		rm -f child.pid
		"$PY" "$PUB/traced.py" child.pid &
		tracer=$!; echo $tracer >>"$PUB/pids" &&
		n=0; while [ ! -s child.pid ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done &&
		child=$(cat child.pid) && echo $child >>"$PUB/pids" &&
		LPERF_NO_BPF=1 lperf record --python -p $child --timeout 1 -o x.data 2>err; rc=$?; cat err &&
		kill -9 $child $tracer; wait $tracer; test $rc = 0 &&
		expect_grep "pid $child cannot be paused.*traced already.*read without pausing \\(approximate\\)" err &&
		test $(grep -c "cannot be paused" err) = 1 &&
		lperf report -i x.data --stdio >r.txt 2>/dev/null &&
		expect_grep "^# Python stacks: approximate" r.txt && expect_grep "py::spin" r.txt
	'

	# spins for ever; argv[1] is created once it spins
	cat >"$PUB/forever.py" <<-'EOF'
	import sys
	def spin():
	    x = 0
	    while True:
	        x += 1
	        if x == 100000:
	            open(sys.argv[1], "w").close()
	spin()
	EOF
	wait_file() { # wait_file PATH: until it exists (60 s at most)
		n=0; while [ ! -e "$1" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done; test -e "$1"
	}
	# The tracer of pid, from its status (0: none).
	tracer_of() { awk '/^TracerPid:/ { print $2 }' /proc/$1/status 2>/dev/null; }
	# stop_and_wait PID: SIGINT, and its end waited for (60 s at most; then SIGKILL and a failure)
	stop_and_wait() {
		kill -INT $1
		n=0; while kill -0 $1 2>/dev/null && [ "$(awk '/^State:/ { print $2 }' /proc/$1/status 2>/dev/null)" != Z ] &&
			[ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
		if [ $n -ge 600 ]; then kill -9 $1; wait $1; echo "lperf did not end after SIGINT"; return 1; fi
		wait $1; echo "lperf: exit $?"
	}
	wait_traced() { # wait_traced PID: until lperf has seized it (30 s at most)
		n=0; while [ "$(tracer_of $1)" = 0 ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
		test "$(tracer_of $1)" != 0
	}
	test_expect_success "SIGINT to record -p: the process runs on, untraced" '
		"$PY" "$PUB/forever.py" "$PWD/spins" &
		w=$!; echo $w >>"$PUB/pids"
		LPERF_NO_BPF=1 "$LPERF" record --python -p $w -o s.data 2>err &
		rec=$!; echo $rec >>"$PUB/pids" &&
		wait_file spins && wait_traced $w && stop_and_wait $rec &&
		sleep 0.2 && test "$(tracer_of $w)" = 0 &&
		state=$(awk "/^State:/ { print \$2 }" /proc/$w/status) && echo "state $state" &&
		test "$state" = R -o "$state" = S &&
		kill -9 $w && wait $w 2>/dev/null;
		lperf report -i s.data --stdio >r.txt 2>/dev/null && expect_grep "^# Python stacks: exact \\(paused" r.txt
	'
	test_expect_success "SIGINT to record of a command: the command ends, the recording is whole" '
		LPERF_NO_BPF=1 "$LPERF" record --python -o c.data -- "$PY" "$PUB/forever.py" "$PWD/spins" 2>err &
		rec=$!; echo $rec >>"$PUB/pids" &&
		n=0; while ! w=$(pgrep -P $rec) && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done &&
		echo $w >>"$PUB/pids" &&
		wait_file spins && wait_traced $w && stop_and_wait $rec &&
		test ! -d /proc/$w &&
		lperf report -i c.data --stdio >r.txt 2>/dev/null && expect_grep "^# Python stacks: exact \\(paused" r.txt &&
		expect_grep "py::spin" r.txt
	'
fi

test_done
