#!/bin/sh
# perf 6.1's own shell tests as the judge of lperf (issue 20; tests/e2e/perf_shell.sh): all but
# daemon.sh (t92-perf-shell-daemon.sh). Each runs in a private /tmp and HOME; what they check is
# whether a tool's output has the fields, lines and symbols perf's tests look for (of those that
# compare counts, stat_bpf_counters.sh and stat+shadow_stat.sh, the first skips here and the
# second has no hardware counts to compare), so beside other scripts.
# e2e-class: parallel (passed 3 times in both builds beside 2 busy loops at loads of 15-31, perf's runs as well)
. "$(dirname "$0")/lib.sh"
PST_PART=rest
. "$(dirname "$0")/perf_shell.sh"
test_done
