#!/bin/sh
# lperf sched record (issue 25): the scheduler's tracepoints as perf sched record takes them
# (every CPU, every hit), read by perf 6.1's sched latency, timehist and map (lperf's own
# analyses of the same files are compared with perf's in t69-sched-analysis.sh).
# e2e-class: parallel (what perf reads of the recording; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -eq 0 ] && command -v perf >/dev/null && [ -n "$(ls -d /sys/kernel/tracing/events/sched /sys/kernel/debug/tracing/events/sched 2>/dev/null)" ]; then
test_expect_success 'sched record: perf sched record'"'"'s events, each hit a sample' '
	lperf sched record -q -o s.data -- sleep 0.2 &&
	perf evlist -i s.data 2>/dev/null | grep "^sched:" | sort >l &&
	perf sched record -o p.data -- true >/dev/null 2>&1 &&
	perf evlist -i p.data 2>/dev/null | grep "^sched:" | sort >p && cmp p l &&
	perf evlist -v -i s.data 2>/dev/null | grep "^sched:sched_switch" | grep -q "sample_period, sample_freq }: 1,"
'

# The command is looked for in timehist, which lists each switch out: latency lists a task only
# with the wakeup that ended its sleep, and on this VM the kernel writes no event of one CPU's
# idle task (perf sched record's own files lack them too: 0 of ~45 swapper events on CPU 1), so
# a sleep that ran on that CPU is missing from perf's latency table whoever recorded it. perf
# 6.1's latency counts a switch only after a wakeup it reads (sched_wakeup, which this kernel's
# sched record does not take: it has sched_waking) or a preemption: four busy loops on the two
# CPUs make sure of preemptions (a lone sleep on a quiet machine once gave a TOTAL of 0).
test_expect_success 'perf sched latency and timehist read it: the command is there' '
	lperf sched record -q -o s.data -- sh -c "for i in 1 2 3 4; do timeout 0.4 sh -c \"while :; do :; done\" & done; sleep 0.2; wait" &&
	perf sched latency -i s.data >lat 2>&1 && expect_grep "^  TOTAL: +\\| +[0-9.]+ ms \\| +[1-9][0-9]* \\|" lat &&
	perf sched timehist -i s.data >th 2>&1 && expect_grep " sleep\\[[0-9]+\\] " th
'
else
test_skip "sched record against perf" "needs root, Linux perf and the sched tracepoints"
fi

test_done
