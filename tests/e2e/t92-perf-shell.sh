#!/bin/sh
# perf 6.1's own shell tests as the judge of lperf (issue 20; tests/e2e/perf_shell.sh): all but
# daemon.sh (t92-perf-shell-daemon.sh), alone on the machine: among them are scripts that compare
# counts and sample totals of runs on a loaded machine.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
PST_PART=measuring
. "$(dirname "$0")/perf_shell.sh"
test_done
