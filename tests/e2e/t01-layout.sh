#!/bin/sh
# The shape of the code (tests/layout.py: the folder graph is docs/architecture.md's table, no file
# circle, unique file names, library code silent, no file over 800
# lines, no function over 120) and the one rule every command shares: output that cannot be
# written is an error.
. "$(dirname "$0")/lib.sh"

test_expect_success 'src/: folders as docs/architecture.md says, no file circle, unique names, sizes' '
	"$PYTHON" "$TEST_ROOT/tests/layout.py" >out || { cat out; false; }
'

test_expect_success 'a write error on stdout fails with a message (list, version, help)' '
	for c in list version help; do
		expect_exit 1 lperf $c >/dev/full 2>err &&
		expect_grep "^lperf: write error on standard output: No space left on device$" err || return 1
	done
'

test_expect_success 'a write error on stdout fails report and script with a message' '
	lperf record -q -e cpu-clock -o rec.data -- sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done" &&
	expect_exit 1 lperf report -i rec.data >/dev/full 2>err &&
	expect_grep "write error on standard output" err &&
	expect_exit 1 lperf script -i rec.data >/dev/full 2>err &&
	expect_grep "write error on standard output" err
'

test_expect_success 'a closed stdout is not an error' '
	lperf version >&-
'
test_done
