#!/bin/sh
# The paused sampler (no BPF, docs/python.md "Without BPF") unwinds with DWARF also a CPython
# built with frame pointers (python/pymethod.c): the paused threads give their registers and
# stack copy, which DWARF unwinds, where --python would otherwise take frame pointers. No
# CPython here is built with them (pyenv's 3.12 and 3.13, Debian's 3.11: no
# -fno-omit-frame-pointer, no frame-pointer prologues), so tests/workloads/py_claims_fp.c runs
# pyenv's 3.12 and 3.13 but tells lperf's probe they have frame pointers: their frames read
# without pausing (--python-frames --nonblocking), lperf takes frame pointers for them, as it
# would for such a build; paused, it takes DWARF, and the 44-frame stack of py_deep.py is whole
# with every line (frame pointers would have broken the native part of these builds' stacks).
# e2e-class: parallel (whole stacks and lines of paused threads, not shares)
. "$(dirname "$0")/lib.sh"
KNOWN="$TEST_ROOT/tests/e2e/pyknown_check.py"
export KNOWN
for v in 3.12 3.13; do
	real=$(py_for $v)
	if [ -z "$real" ]; then
		test_skip "$v built with frame pointers, paused" "no pyenv CPython $v"
		continue
	fi
	fake="$SCRATCH/python$v-fp"
	if ! cc -O2 -DREAL="\"$real\"" -o "$fake" "$TEST_ROOT/tests/workloads/py_claims_fp.c"; then
		test_skip "$v built with frame pointers, paused" "no C compiler"
		continue
	fi
	export fake v
	test_expect_success "$v that says it has frame pointers: frame pointers without pausing, DWARF paused, stacks whole" '
		LPERF_NO_BPF=1 lperf record --python-frames --nonblocking -o n.data -- "$fake" -c pass 2>err
		cat err; expect_grep "frame-pointer unwinding" err &&
		LPERF_NO_BPF=1 lperf record --python -o p.data -- "$fake" "$TEST_ROOT/tests/workloads/py_deep.py" 44 20000000 2>err; rc=$?
		cat err; test $rc = 0 && expect_grep "threads paused" err && expect_grep "DWARF unwinding" err &&
		expect_no_grep "frame-pointer" err &&
		lperf report -i p.data --python --folded >f.txt 2>/dev/null && $PYTHON "$KNOWN" deep f.txt 44
	'
done
test_done
