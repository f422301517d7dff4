#!/bin/sh
# report --threads N (issue 27): the samples are resolved (call chains, DWARF unwinding, symbols,
# inline frames) by N - 1 worker threads and handed to the report in the recording's order, so every
# view is the one-thread run's byte for byte: -j1 (no workers) against -j2 (one) and -j3 (two) and the default
# (the online CPUs the load leaves), on recordings of each kind the suite makes: lperf's DWARF and frame-pointer
# stacks, two events in one file, perf's DWARF recording, a Python one (--python).
# e2e-class: parallel (report --threads: the same output as one thread on the same files)
. "$(dirname "$0")/lib.sh"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -o "$BIN/inline_hot" "$TEST_ROOT/tests/workloads/inline_hot.c" &&
cc -O2 -g -fno-omit-frame-pointer -o "$BIN/shares" "$TEST_ROOT/tests/workloads/shares.c" ||
	{ echo "cannot build the workloads"; exit 1; }

# same FILE [VIEW]: each view of FILE (VIEWS, and VIEW) with -j2, -j3 and the default is -j1's,
# standard output and standard error (the notes: cut stacks are counted by the workers).
same() {
	f=$1
	{ printf "%s\n" "$VIEWS"; [ -n "${2:-}" ] && printf "%s\n" "$2"; } | while read -r view; do
		# shellcheck disable=SC2086
		lperf report -i "$f" -j1 $view >one.out 2>one.err || { echo "-j1 $view failed"; cat one.err; return 1; }
		for j in -j2 "--threads 3" ""; do
			# shellcheck disable=SC2086
			lperf report -i "$f" $j $view >n.out 2>n.err || { echo "$j $view failed"; cat n.err; return 1; }
			cmp one.out n.out && cmp one.err n.err || { echo "differs: $j $view"; diff one.out n.out | head -20; return 1; }
		done
		[ -s one.out ] || { echo "empty: $view"; return 1; }
	done
}

VIEWS="--stdio
--stdio --no-children
--stdio -g caller --sort dso,sym
--stdio --no-inline --sort sym,srcline
--json
--folded"

test_expect_success 'DWARF stacks with inline frames (lperf record --call-graph dwarf)' '
	lperf record -q --call-graph dwarf -F 999 -e cpu-clock -o "$SCRATCH/d.data" -- "$BIN/inline_hot" 3 >/dev/null 2>&1 &&
	same "$SCRATCH/d.data"
'

test_expect_success 'the pictures of the DWARF recording (speedscope, pprof) are the same files' '
	mkdir one two &&
	(cd one && lperf report -i "$SCRATCH/d.data" -j1 --speedscope s.json --pprof p.pb.gz 2>err) &&
	(cd two && lperf report -i "$SCRATCH/d.data" -j2 --speedscope s.json --pprof p.pb.gz 2>err) &&
	cmp one/s.json two/s.json && cmp one/p.pb.gz two/p.pb.gz && cmp one/err two/err && [ -s one/s.json ]
'

test_expect_success 'frame-pointer chains and two events (lperf record -g -e cpu-clock,task-clock)' '
	lperf record -q -g -F 1999 -e cpu-clock,task-clock -o g.data -- "$BIN/shares" 20 >/dev/null 2>&1 &&
	same g.data
'

test_expect_success 'DWARF stacks of two events, each a different process' '
	lperf record -q --call-graph dwarf,4096 -F 999 -e cpu-clock,task-clock -o m.data -- \
		sh -c "\"$BIN/shares\" 10; \"$BIN/inline_hot\" 2" >/dev/null 2>&1 &&
	same m.data
'

if command -v perf >/dev/null; then
	test_expect_success "perf's DWARF recording (perf record --call-graph dwarf)" '
		perf record -q --call-graph dwarf -F 999 -o p.data -- "$BIN/inline_hot" 3 >/dev/null 2>&1 &&
		same p.data
	'
else
	test_skip "perf's DWARF recording" "no perf"
fi

PY313=$(py_for 3.13)
if [ -n "$PY313" ]; then
	test_expect_success 'Python stacks (lperf record --python), the Python view too' '
		lperf record -q --python -o py.data -- "$PY313" "$TEST_ROOT/tests/workloads/perf_docs.py" 3000000 \
			>/dev/null 2>&1 &&
		same py.data "--stdio --python"
	'
else
	test_skip "Python stacks" "no CPython 3.13 under ~/.pyenv"
fi

test_expect_success '--threads takes 1 to 64 threads' '
	lperf record -q -F 999 -e cpu-clock -o s.data -- "$BIN/shares" 2 >/dev/null 2>&1 &&
	expect_exit 2 lperf report -i s.data -j0 --stdio 2>e0 && expect_grep "1\.\.64" e0 &&
	expect_exit 2 lperf report -i s.data --threads 65 --stdio 2>e1 && expect_grep "1\.\.64" e1 &&
	lperf report -i s.data --threads 64 --stdio >/dev/null
'

test_done
