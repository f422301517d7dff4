#!/bin/sh
# Tracepoints end to end (sample type, TRACING_DATA, fields as perf prints them, globs), pipe mode
# on standard output, and lperf evlist, each compared with Linux perf 6.1 on this machine.
. "$(dirname "$0")/lib.sh"
have_tracefs() { [ -d /sys/kernel/tracing/events/sched ] || [ -d /sys/kernel/debug/tracing/events/sched ]; }

test_expect_success 'record -o -: the workload writes to stderr, perf reads the pipe' '
	lperf record -q -o - -- echo hi-from-workload >pipe.data 2>err &&
	grep -q "^hi-from-workload$" err &&
	head -c 8 pipe.data | grep -q PERFILE2 &&
	perf report -i - --stdio <pipe.data >rep 2>perr &&
	expect_lines 0 perr &&
	grep -q "echo" rep &&
	lperf record -q -o - -- echo hi | lperf report -i - --stdio >rep2 2>/dev/null &&
	grep -q "echo" rep2
'

test_expect_success '-e with a tracepoint glob: every match, as perf expands it' '
	if ! have_tracefs; then echo "no tracefs"; exit 0; fi
	lperf stat -x, -e "sched:sched_process_*" -- true >out 2>&1 &&
	for e in $(perf list --raw-dump "sched:sched_process_*"); do
		grep -q ",$e" out || { echo "no $e in:"; cat out; return 1; }
	done &&
	expect_exit 2 lperf stat -e "sched:nosuch_*" -- true 2>err &&
	expect_grep "no tracepoint matches .sched:nosuch_\*." err
'

test_done
