#!/bin/sh
# The harness that runs WindowsPerf's own test suite (tests/wperf-suite/run.sh, docs/wperf.md):
# on a small stand-in for the suite, its three run-time adaptations (string commands split as
# CreateProcess splits them, a range() step N_CORES//8 made at least 1, wperf.exe beside the
# tests) and its classification of the tests that cannot apply (docs/wperf.md's table).
# e2e-class: parallel (the wperf-suite harness on a stand-in suite)
. "$(dirname "$0")/lib.sh"
RUN="$TEST_ROOT/tests/wperf-suite/run.sh"

if /usr/bin/python3 -c 'import pytest, jsonschema' 2>/dev/null || python3 -c 'import pytest, jsonschema' 2>/dev/null; then
test_expect_success 'the adaptations: string commands run, N_CORES//8 collects, wperf.exe is there' '
	mkdir -p co/wperf-scripts/tests && t=co/wperf-scripts/tests &&
	printf "[pytest]\naddopts = -ra\n" >$t/pytest.ini &&
	cat >$t/common.py <<-\EOF2 &&
	import subprocess
	def run_command(args, cwd=None):
	    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
	    return p.communicate()
	EOF2
	cat >$t/wperf_cli_fake_test.py <<-\EOF2 &&
	import json, os, pytest
	from common import run_command
	N_CORES = 4
	@pytest.mark.parametrize("cores", [",".join(str(c) for c in range(0, N_CORES, N_CORES//8))])
	def test_step(cores):
	    assert cores.startswith("0,1")
	def test_string_command():
	    out, _ = run_command("wperf --version --json")
	    assert json.loads(out)["Version"][0]["Component"] == "wperf"
	def test_quoted_words():
	    out, _ = run_command("wperf test --json --config \"count.period=13\"")
	    r = {x["Test_Name"]: x["Result"] for x in json.loads(out)["Test_Results"]}
	    assert r["config.count.period"] == "13"
	def test_wperf_exe_beside():
	    assert os.path.exists("wperf.exe")
	EOF2
	printf "def test_lock():\n    assert False\n" >$t/wperf_cli_lock_test.py &&
	WPERF_TESTS=$(pwd)/co LPERF="$LPERF" "$RUN" >out 2>&1; rc=$?; cat out &&
	[ $rc -eq 0 ] &&
	expect_grep "^wperf_cli_fake_test.py +4 +4 +0 +0$" out &&
	expect_grep "^wperf_cli_lock_test.py +1 +0 +0 +1$" out &&
	expect_grep "^wperf suite: 4 passed, 0 failed, 1 cannot apply$" out
'

test_expect_success 'a failure outside the table counts as a difference (exit 1, listed)' '
	mkdir -p co2/tests && t=co2/tests &&
	printf "[pytest]\n" >$t/pytest.ini && printf "\n" >$t/common.py &&
	printf "def test_differs():\n    assert False, \"lperf prints this differently\"\n" >$t/wperf_cli_x_test.py &&
	WPERF_LIST=1 WPERF_TESTS=$(pwd)/co2/tests LPERF="$LPERF" "$RUN" >out 2>&1; rc=$?; cat out &&
	[ $rc -eq 1 ] && expect_grep "^wperf suite: 0 passed, 1 failed, 0 cannot apply$" out &&
	expect_grep "wperf_cli_x_test.py::test_differs: failed: AssertionError: lperf prints this differently" out
'
else
test_skip 'the wperf suite harness' 'needs pytest and jsonschema (scripts/install-deps.sh)'
test_skip 'a failure outside the table' 'needs pytest'
fi

test_expect_success 'the CreateProcess split of the shim' '
	PYTHONPATH="$TEST_ROOT/tests/wperf-suite" "$PYTHON" -c "
from lperf_wperf_shim import split_windows as s
assert s(\"wperf stat -e ld_spec -c 0\") == [\"wperf\", \"stat\", \"-e\", \"ld_spec\", \"-c\", \"0\"]
assert s(\"a \\\"b c\\\" d\") == [\"a\", \"b c\", \"d\"]
assert s(\"x\\\\\\\\y \\\"q\\\\\\\"r\\\"\") == [\"x\\\\\\\\y\", \"q\\\"r\"], s(\"x\\\\\\\\y \\\"q\\\\\\\"r\\\"\")
assert s(\"  lead  trail  \") == [\"lead\", \"trail\"]
assert s(\"e \\\"\\\"\") == [\"e\", \"\"]
"
'

test_done
