#!/bin/sh
# A recording with 1,000,000 MMAP2 records (issue 28: the address space was a sorted array that
# shifted on every insert, 296 s). lperf report reads a pipe-mode stream of one real recording
# followed by a million mappings at distinct addresses, and the same stream whose million
# mappings all replace one another at one address (the same bytes to read and parse, an address
# space of one map): CPU time, not wall time, so that a loaded machine does not stretch it
# (tests/e2e/mmap2_flood.py). The flood costs at most three times the baseline plus one second,
# and where lperf is built without ASan, the issue's bound: under 5 s.
# e2e-class: parallel (CPU time, not wall time, against a baseline of the same run; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"

test_expect_success '1,000,000 MMAP2 records: report costs about what the same records at one address cost' '
	lperf record -q -o - -- true >t.pipe &&
	$PYTHON "$TEST_ROOT/tests/e2e/mmap2_flood.py" "$LPERF" t.pipe 1000000 >times &&
	cat times && read line <times && distinct=${line#distinct=} && distinct=${distinct% *} &&
	same=${line#* same=} &&
	awk "BEGIN { exit !($distinct < 3 * $same + 1) }" &&
	if ! ldd "$LPERF" | grep -q libasan; then awk "BEGIN { exit !($distinct < 5) }"; fi
'

test_done
