#!/bin/sh
# docs/perf-compat.md says which of perf's commands and options lperf takes; it is generated from
# both programs' help (scripts/perf-compat.py), and this checks it still says what they accept.
# e2e-class: parallel (docs/perf-compat.md from both programs' help)
. "$(dirname "$0")/lib.sh"

if command -v perf >/dev/null 2>&1 && perf version 2>/dev/null | grep -q "perf version 6\.1\."; then
	test_expect_success 'docs/perf-compat.md is what scripts/perf-compat.py makes of perf 6.1 and this lperf' '
		"$PYTHON" "$TEST_ROOT/scripts/perf-compat.py" "$LPERF" >now.md &&
		diff "$TEST_ROOT/docs/perf-compat.md" now.md ||
		{ echo "docs/perf-compat.md is stale: scripts/perf-compat.py build/lperf > docs/perf-compat.md"; false; }
	'
	test_expect_success 'the page names every perf command perf lists, and stat as one lperf has' '
		for c in $(perf --list-cmds); do [ "$c" = help ] || expect_grep "^\| .$c. \|" "$TEST_ROOT/docs/perf-compat.md" || return 1; done &&
		expect_grep "^\| .stat. \| yes \|" "$TEST_ROOT/docs/perf-compat.md"
	'
else
	test_skip "perf's commands and options" "no perf 6.1 here to compare with"
fi
test_done
