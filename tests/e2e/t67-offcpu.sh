#!/bin/sh
# record --off-cpu (issue 25): lperf's BPF program on the context switches writes the time threads
# spend blocked, per thread and user stack, as samples of perf's "offcpu-time" event; perf 6.1
# reads lperf's recording (its evlist, report and script), and lperf's report agrees with perf's
# on it. The checks of perf's record_offcpu.sh are here too (t92 runs the script itself): a sleeping
# command's time is under its sleep, and a command's children are followed (perf bench sched
# messaging's 400 workers).
# e2e-class: parallel (what perf reads of the recording, a sleep bounded by its length; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"

HAVE_PERF=$(command -v perf >/dev/null && echo 1)
if [ "$(id -u)" -ne 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	test_skip "record --off-cpu" "needs root and the kernel's BTF (/sys/kernel/btf/vmlinux)"
	test_done; exit $?
fi
if lperf record --off-cpu -q -o "$SCRATCH/probe.data" -- true 2>&1 | grep -q BUILD_BPF_SKEL; then
	test_skip "record --off-cpu" "lperf is built without BPF here"
	test_done; exit $?
fi

test_expect_success 'dry run: the offcpu-time event is listed' '
	lperf record --off-cpu --dry-run -e dummy -- true >out 2>&1 && expect_grep "offcpu-time" out
'

test_expect_success 'a sleeping command: its time off the CPU (0.45 s at least, the run at most), under clock_nanosleep' '
	start=$(date +%s%N) && lperf record -q --off-cpu -e dummy -o s.data -- sleep 0.5 && end=$(date +%s%N) &&
	lperf evlist -i s.data >ev && expect_grep "^offcpu-time$" ev &&
	lperf script -i s.data -F event,period,sym >sc 2>&1 &&
	awk "\$2 == \"offcpu-time:\" { p += \$1 } END { print p + 0 }" sc >ns && ns=$(cat ns) &&
	echo "off-CPU $ns ns, run $((end - start)) ns" && cat sc &&
	test "$ns" -ge 450000000 && test "$ns" -le $((end - start)) &&
	expect_grep "nanosleep" sc
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'perf reads it: evlist, report as record_offcpu.sh asks, script' '
	lperf record -q --off-cpu -e dummy -o s.data -- sleep 0.3 &&
	perf evlist -i s.data 2>/dev/null | grep -q "offcpu-time" &&
	perf report -i s.data -q --percent-limit=90 --stdio 2>/dev/null | grep -E -q sleep &&
	perf script -i s.data -F comm,event 2>/dev/null | grep -q "sleep.*offcpu-time"
'

test_expect_success 'lperf report and perf report: the same share under clock_nanosleep' '
	lperf record -q --off-cpu -e dummy -o s.data -- sleep 0.3 &&
	perf report -i s.data -q --stdio -g none --sort comm,sym 2>/dev/null | grep "nanosleep" | awk "{ print \$1, \$2, \$NF }" >p &&
	lperf report -i s.data -q --stdio -g none --sort comm,sym 2>/dev/null | grep "nanosleep" | awk "{ print \$1, \$2, \$NF }" >l &&
	cat p && test -s p && cmp p l
'

test_expect_success 'a command'"'"'s children are followed (perf bench sched messaging'"'"'s 400 workers)' '
	lperf record -q --off-cpu -e dummy -o m.data -- "$LPERF" bench sched messaging -g 10 >/dev/null &&
	perf script -i m.data -F comm,tid,event 2>/dev/null | awk "\$1 == \"sched-messaging\" && /offcpu-time/ { print \$2 }" |
		sort -u | wc -l >n && echo "$(cat n) threads" && test "$(cat n)" -ge 390 &&
	perf report -i m.data -s comm -q -n -t ";" --percent-limit=90 2>/dev/null | grep -q "sched-messaging"
'
fi

test_done
