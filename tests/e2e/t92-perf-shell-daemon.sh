#!/bin/sh
# perf 6.1's own daemon.sh as the judge of lperf daemon (tests/e2e/perf_shell.sh), beside other
# scripts: it waits (sleeps, and polls with 30 s deadlines) on sessions that record `sleep 10` and
# checks their files and states, never a count or a time, in a private /tmp of its own.
# e2e-class: parallel (waits and polls with deadlines; passed 6 times beside busy loops and 3 times beside 2 other scripts, loads of 12-19, both builds)
. "$(dirname "$0")/lib.sh"
PST_PART=daemon
. "$(dirname "$0")/perf_shell.sh"
test_done
