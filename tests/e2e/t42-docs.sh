#!/bin/sh
# The docs test: every '$ lperf ...' example of README.md and docs/*.md that can run here runs,
# in document order, in a directory holding the programs the README names (built as make demo
# builds them); its output's shape (the first line shown, token by token; the last line's
# columns) must match what the document shows. Examples that cannot run here (Arm PMU, SPE,
# another process) are listed as skipped with the reason (tests/e2e/docs_examples.py).
# e2e-class: parallel (the shapes of the documents' outputs; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"

W="$SCRATCH/examples"
mkdir -p "$W" &&
cc -O2 -g -fno-omit-frame-pointer -o "$W/work" "$TEST_ROOT/examples/work.c" &&
cc -O0 -g -fno-omit-frame-pointer -o "$W/shares" "$TEST_ROOT/tests/workloads/shares.c" &&
cc -O2 -g -fno-omit-frame-pointer -o "$W/annot" "$TEST_ROOT/tests/workloads/annot.c" &&
cc -O2 -pthread -o "$W/lockwait" "$TEST_ROOT/tests/workloads/lockwait.c" &&
cp "$TEST_ROOT/tests/workloads/perf_docs.py" "$W/ex.py" || exit 1
# record --wall's program (docs/record.md) makes an x86-64 system call itself
[ "$(uname -m)" != x86_64 ] || cc -O1 -g -fno-omit-frame-pointer -o "$W/wall" "$TEST_ROOT/tests/workloads/wall.c" || exit 1

test_expect_success 'every runnable example of README.md and docs/*.md prints the shape its document shows' '
	$PYTHON "$TEST_ROOT/tests/e2e/docs_examples.py" "$TEST_ROOT" "$LPERF" "$W" >docs.tap 2>&1
	rc=$?
	sed "s/^/# /" docs.tap | grep -v "^# ok" >&2
	tail -n 1 docs.tap && grep -c SKIP docs.tap | sed "s/^/skipped (cannot run here): /" &&
	[ $rc = 0 ]
'

test_expect_success 'the docs test catches a document whose output is not what lperf prints' '
	printf "%s\n" "\`\`\`" "\$ lperf version" "lperf 0.1.0 (0123456789ab) +pfm +dw" "\`\`\`" \
		"\`\`\`" "\$ lperf list --events software" "List of software events:" "\`\`\`" >stale.md &&
	! $PYTHON "$TEST_ROOT/tests/e2e/docs_examples.py" "$TEST_ROOT" "$LPERF" "$W" "$PWD/stale.md" >out 2>&1 &&
	expect_grep "^not ok 1 - stale.md: lperf version" out && expect_grep "^not ok 2 - " out
'

test_done
