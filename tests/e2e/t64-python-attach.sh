#!/bin/sh
# lperf record --python -p PID on a running CPython 3.11 (the documentation's example,
# tests/e2e/pydocs.sh): Python stacks within a second of the first sample, and the process runs on
# unchanged after the detach. Alone on the machine: the second is how soon lperf finds the
# interpreter's layout and state, which a loaded machine delays. The rest of the Python stacks of
# interpreters started without flags are t64-python-noflag.sh's, beside other scripts.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pydocs.sh"
PY311=$(py_for 3.11)
[ -z "$PY311" ] && [ -x /usr/bin/python3.11 ] && PY311=/usr/bin/python3.11
export PY311
if [ -n "$PY311" ]; then
	test_expect_success "-p PID on a running 3.11: Python stacks within a second, the process runs on" '
		"$PY311" "$W" 2000000000 </dev/null >/dev/null 2>&1 &
		pid=$!
		sleep 2 &&
		lperf record -q --python -p $pid --timeout 1s -o p.data &&
		kill -0 $pid &&
		t1=$(cut -d" " -f14 /proc/$pid/stat) && sleep 0.5 && t2=$(cut -d" " -f14 /proc/$pid/stat) &&
		echo "after detach: utime $t1 -> $t2" && [ "$t2" -gt "$t1" ] &&
		grep "^State:" /proc/$pid/status && ! grep -q "^State:.*[tT]" /proc/$pid/status
		r=$?
		kill $pid
		wait $pid 2>/dev/null
		[ $r = 0 ] &&
		lperf script -i p.data -F time,ip,sym >s.txt 2>/dev/null &&
		awk "/^ *[0-9]+\\.[0-9]+:/ { t = \$1 + 0; if (!first) first = t }
		     /py::foo/ && !seen { seen = t; print \"first sample\", first, \"first Python stack\", t }
		     END { exit !(seen && seen - first < 1.0) }" s.txt &&
		lperf report -i p.data --folded >f.txt && complete f.txt
	'
else
	test_skip "-p PID on 3.11" "no CPython 3.11"
fi

test_done
