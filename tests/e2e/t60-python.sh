#!/bin/sh
# Python stacks from interpreters built without frame pointers (pyenv's 3.12 and 3.13): DWARF
# unwinding continues through CPython's perf trampolines (3.12 -X perf: perf-map entries, stepped
# by the template's fixed rule; 3.13 -X perf_jit: jitdump code, stepped by its own CFI), so the
# samples in foo of the CPython documentation's example carry foo, bar, baz and <module>. The
# recordings keep the perf map and the jitdump: reports do not need the files in /tmp.
# e2e-class: parallel (whole chains of CPU-time samples; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
W="$TEST_ROOT/tests/workloads/perf_docs.py"
LOOPS=4000000

py_for() { # the newest pyenv python3 of a version
	for h in "${HOME:-/root}" /root; do
		p=$(ls -d "$h"/.pyenv/versions/"$1"*/bin/python3 2>/dev/null | tail -n 1)
		[ -n "$p" ] && { echo "$p"; return; }
	done
}
PY312=$(py_for 3.12)
PY313=$(py_for 3.13)

# complete FOLDED: of the stacks whose innermost py:: frame is py::foo (at least 50 samples),
# at least 90% have py::bar, py::baz, py::<module> as the next py:: frames outwards.
complete() {
	awk '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, fr, ";"); np = 0
		for (i = 1; i <= k; i++)
			if (fr[i] ~ /^py::/) { name = substr(fr[i], 5); sub(/:.*/, "", name); py[++np] = name }
		if (np == 0 || py[np] != "foo") next
		all += n
		if (np >= 4 && py[np-1] == "bar" && py[np-2] == "baz" && py[np-3] == "<module>") ok += n
	} END {
		printf "%d of %d samples in foo have complete Python stacks\n", ok, all
		exit !(all >= 50 && ok >= 0.9 * all)
	}' "$1"
}
# fork_named SCRIPT (lperf script -F pid,sym): parent_work and child_work in at least 20
# samples each, each function in one process only, not the same one.
fork_named() {
	awk '/^[^\t]/ { pid = $1; next }
	     $1 ~ /^py::(parent|child)_work:/ { f = substr($1, 1, index($1, "_work") + 4); n[f]++; if (!(f in p)) p[f] = pid; else if (p[f] != pid) bad = 1 }
	     END { printf "parent_work %d samples in %s, child_work %d in %s\n", n["py::parent_work"], p["py::parent_work"], n["py::child_work"], p["py::child_work"]
		   exit !(!bad && n["py::parent_work"] >= 20 && n["py::child_work"] >= 20 && p["py::parent_work"] != p["py::child_work"]) }' "$1"
}
# The pid of a recording's process, and what CPython left for it in /tmp.
rec_pid() { lperf script -i "$1" -F pid 2>/dev/null | awk 'NF { print $1; exit }'; }
jit_rm() { rm -f "/tmp/perf-$1.map" "/tmp/jit-$1.dump"; }

# python_tests VERSION PYTHON XOPTION JITFILE
python_tests() {
	v=$1 py=$2 xopt=$3 jitfile=$4
	export v py xopt jitfile
	test_expect_success "$v -X $xopt, no frame pointers: >= 90% of samples in foo carry bar, baz, <module>" '
		lperf record -q --call-graph dwarf,16384 -e cpu-clock -F 999 -o "$SCRATCH/$v.data" -- \
			"$py" -X "$xopt" "$W" $LOOPS &&
		lperf report -i "$SCRATCH/$v.data" --folded >f.txt &&
		complete f.txt
	'
	test_expect_success "$v: the recording keeps the names and stacks without $(printf "$jitfile" PID)" '
		pid=$(rec_pid "$SCRATCH/$v.data") && [ -n "$pid" ] &&
		test -f "$(printf "$jitfile" "$pid")" &&
		lperf report -i "$SCRATCH/$v.data" --folded >before.txt 2>/dev/null &&
		jit_rm "$pid" && ! test -e "$(printf "$jitfile" "$pid")" &&
		lperf report -i "$SCRATCH/$v.data" --folded >after.txt 2>/dev/null &&
		complete after.txt && cmp before.txt after.txt
	'
	# --python takes CPython's own support where its frames would be read without pausing: no
	# BPF and --nonblocking (without it the threads are paused: t116-python-paused.sh).
	test_expect_success "$v: lperf record --python --nonblocking without BPF picks the trampoline and DWARF stacks itself" '
		LPERF_NO_BPF=1 lperf record --python --nonblocking -o p.data -- "$py" "$W" $LOOPS 2>err &&
		expect_grep "perf map|jitdump" err &&
		pid=$(rec_pid p.data) && [ -n "$pid" ] && jit_rm "$pid" &&
		lperf report -i p.data --folded >f.txt 2>/dev/null && complete f.txt
	'
}

if [ -n "$PY312" ]; then
	python_tests 3.12 "$PY312" perf /tmp/perf-%s.map
else
	test_skip "3.12 -X perf stacks" "no pyenv CPython 3.12 (~/.pyenv/versions/3.12*/bin/python3)"
fi
if [ -n "$PY313" ]; then
	python_tests 3.13 "$PY313" perf_jit /tmp/jit-%s.dump
	# A fork leaves the parent's jitdump damaged (the child flushes its copy of the parent's
	# stdio buffer into it): reading resumes at the next whole record, so the code the parent
	# compiles after the fork is named. (The child's own dump stays empty: os._exit drops it.)
	export PY313
	test_expect_success "3.13 --python -X perf_jit (no BPF) with a fork: the parent's functions after the fork are named" '
		LPERF_NO_BPF=1 lperf record -q --python -o k.data -- "$PY313" -X perf_jit "$TEST_ROOT/tests/workloads/py_fork.py" 2>/dev/null &&
		lperf script -i k.data -F pid,sym >s.txt 2>/dev/null &&
		for p in $(awk "/^[^\t]/ { print \$1 }" s.txt | sort -u); do jit_rm $p; done &&
		n=$(grep -c "py::parent_work" s.txt) && echo "$n samples in parent_work" && [ "$n" -ge 20 ]
	'
	# Where BPF loads --python reads the frames instead, and the kernel follows the fork: the
	# child's functions are named too (its jitdump stays empty).
	test_expect_success "3.13 --python (BPF) with a fork: parent_work and child_work both named, each in its process" '
		lperf record -q --python -o k.data -- "$PY313" "$TEST_ROOT/tests/workloads/py_fork.py" &&
		lperf script -i k.data -F pid,sym >s.txt 2>/dev/null &&
		for p in $(awk "/^[^\t]/ { print \$1 }" s.txt | sort -u); do jit_rm $p; done &&
		fork_named s.txt
	'
else
	test_skip "3.13 -X perf_jit stacks" "no pyenv CPython 3.13 (~/.pyenv/versions/3.13*/bin/python3)"
fi

test_done
