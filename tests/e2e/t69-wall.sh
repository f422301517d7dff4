#!/bin/sh
# record --wall and sample --wall (issue 25): on-CPU samples (cpu-clock) and the time threads
# spend off a CPU (lperf's BPF program, else sched:sched_switch samples weighed by the time to the
# next switch in) in one profile of the wall-clock time. The known answer: a thread that computes
# in work_b and sleeps in wait_a shows each function's share of the time it took, as the program
# itself measured it (the VM's scheduling makes any planned split inexact), within 3 points.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	test_skip "record --wall" "needs root (cpu-clock with kernel stacks, the off-CPU program)"
	test_done; exit $?
fi
HAVE_PERF=$(command -v perf >/dev/null && echo 1)
# BPF where lperf has it (the kernel's BTF, lperf built with it); LPERF_NO_BPF=1 tests the rest.
HAVE_BPF=$(lperf record --off-cpu -q -e dummy -o "$SCRATCH/probe.data" -- true 2>&1 | grep -q BUILD_BPF_SKEL || echo 1)

if [ "$(uname -m)" != x86_64 ] || ! cc -O1 -g -fno-omit-frame-pointer -o "$SCRATCH/wall" "$TEST_ROOT/tests/workloads/wall.c"; then
	test_skip "record --wall" "the test program is x86-64's (an inline system call)"
	test_done; exit $?
fi
WALL=$SCRATCH/wall

# check_split MEASURED WAIT% WORK%: wait_a's share of the two functions' time in the profile is
# the measured one within 3 points. The sampled part (cpu-clock, 4 kHz, about 0.45 s of work_b in
# the 1.5 s runs: ~1,800 samples whose periods add up to the on-CPU time within a few 0.25 ms
# periods, 0.2% of it) and the off-CPU part (exact nanoseconds) are far inside that. What is not
# exact is at each 10 ms round's two switches, the same share of a run of any length.
check_split() {
	read -r wait work <"$1" &&
	awk -v w="$wait" -v k="$work" -v a="$2" -v b="$3" "BEGIN {
		want = 100 * w / (w + k); got = 100 * a / (a + b)
		printf \"measured wait_a %.2f%%, profile %.2f%% (wait_a %s, work_b %s)\\n\", want, got, a, b
		exit !(a > 0 && b > 0 && got - want <= 3 && want - got <= 3) }"
}
# The Children percentages of wait_a and work_b in report's output.
shares() {
	lperf report -i "$1" --stdio --children -g none --sort sym -q 2>/dev/null >rep &&
	awk "\$NF == \"wait_a\" { a = \$1 } \$NF == \"work_b\" { b = \$1 } END { sub(/%/, \"\", a); sub(/%/, \"\", b); print a + 0, b + 0 }" rep
}

if [ -n "$HAVE_BPF" ]; then
test_expect_success 'record --wall, report and its flame graph: wait_a and work_b in the measured split (one wall-clock event)' '
	lperf record --wall -q -o w.data -- "$WALL" 1.5 split 2>err && cat err && ! [ -s err ] &&
	lperf evlist -i w.data >ev && printf "cpu-clock\noffcpu-time\n" >want && diff want ev &&
	s=$(shares w.data) && check_split split $s &&
	lperf report -i w.data --stdio -g none >rep 2>&1 && grep "of event" rep >ev &&
	expect_lines 1 ev && expect_grep "of event .wall-clock." ev &&
	lperf report -i w.data --flamegraph fg.svg 2>/dev/null && expect_grep "wall-clock: " fg.svg &&
	a=$(sed -n "s/.*<title>wait_a ([0-9.]* ms, \([0-9.]*\)%.*/\1/p" fg.svg) &&
	b=$(sed -n "s/.*<title>work_b ([0-9.]* ms, \([0-9.]*\)%.*/\1/p" fg.svg) &&
	check_split split "$a" "$b" &&
	# --folded for flamegraph.pl: each line weighs its time in ns, as the pictures do
	lperf report -i w.data --folded >folded 2>/dev/null &&
	a=$(awk "/;wait_a(;|\$| )/ { n += \$NF } END { print n + 0 }" folded) &&
	b=$(awk "/;work_b(;|\$| )/ { n += \$NF } END { print n + 0 }" folded) &&
	check_split split "$a" "$b"
'

test_expect_success 'sample --wall: the hot functions weighed by time, in the measured split' '
	lperf sample --wall -- "$WALL" 1.5 split >out 2>err && cat out &&
	expect_grep "sample source: wall-clock" out &&
	a=$(awk "\$3 == \"wait_a:wall\" { print \$1 }" out) && b=$(awk "\$3 == \"work_b:wall\" { print \$1 }" out) &&
	check_split split "$a" "$b"
'

test_expect_success 'record --wall --call-graph dwarf: glibc'"'"'s nanosleep under wait_a, the measured split' '
	lperf record --wall --call-graph dwarf -o d.data -- "$WALL" 1.5 split libc 2>err && cat err &&
	expect_grep "sampling sched:sched_switch with stack copies" err &&
	s=$(shares d.data) && check_split split $s
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'perf reads the --wall recording: its two events add up to the wall-clock event' '
	lperf record --wall -q -o w.data -- "$WALL" 1 split &&
	perf report -i w.data --stdio -g none 2>/dev/null >p && grep -q "of event .offcpu-time." p &&
	grep -q "of event .cpu-clock." p &&
	awk "/Event count/ { s += \$NF } END { print s }" p >psum &&
	lperf report -i w.data --stdio -g none 2>/dev/null | awk "/Event count/ { print \$NF }" >lsum &&
	cat psum lsum && test -s lsum && cmp psum lsum
'
fi

test_expect_success 'script and --off-cpu keep the events apart; --wall with -e or --off-cpu is refused' '
	lperf record --wall -q -o w.data -- "$WALL" 0.3 split &&
	lperf script -i w.data -F event 2>/dev/null | sort -u >ev && expect_grep "offcpu-time" ev &&
	expect_grep "cpu-clock" ev &&
	lperf record --off-cpu -e cpu-clock -g -q -o o.data -- "$WALL" 0.3 split &&
	lperf report -i o.data --stdio 2>/dev/null >rep && expect_grep "of event .offcpu-time." rep &&
	expect_exit 2 lperf record --wall -e cycles -- true 2>err && expect_grep "does not go with -e" err &&
	expect_exit 2 lperf record --wall --off-cpu -- true 2>err && expect_grep "either --wall or --off-cpu" err
'
fi

# The Python variant: the switches are sampled too (sched:sched_switch), and the Python walker
# runs at them as at the cpu-clock samples, so the time off a CPU is under py::wait_a and
# work_b's preemptions under py::work_b: the measured split, within 3 points.
PY=$(py311)
if [ -n "$PY" ] && [ -n "$HAVE_BPF" ]; then
cat >"$SCRATCH/wall.py" <<'PROG'
import sys, time
def work_b(s):
    t = time.monotonic()
    x = 0
    while time.monotonic() - t < s:
        for i in range(2000):
            x += i * i
    return time.monotonic() - t
def wait_a(s):
    t = time.monotonic()
    time.sleep(s)
    return time.monotonic() - t
end = time.monotonic() + float(sys.argv[1])
a = w = 0.0
while time.monotonic() < end:
    w += work_b(0.003)
    a += wait_a(0.007)
open(sys.argv[2], "w").write("%d %d\n" % (a * 1e9, w * 1e9))
PROG
test_expect_success 'record --wall --python: py::wait_a and py::work_b in the measured split' '
	lperf record --wall --python -o p.data -- "$PY" "$SCRATCH/wall.py" 1.5 split 2>err && cat err &&
	expect_grep "sampling sched:sched_switch with Python stacks" err &&
	lperf report -i p.data --stdio --children -g none --sort sym -q 2>/dev/null >rep &&
	a=$(awk "\$NF ~ /^py::wait_a:/ { print \$1 + 0 }" rep) && b=$(awk "\$NF ~ /^py::work_b:/ { print \$1 + 0 }" rep) &&
	check_split split "$a" "$b"
'
else
	test_skip "record --wall --python" "no CPython 3.11, or no BPF (its frames would be read approximately)"
fi

test_expect_success 'without BPF: sched:sched_switch samples weighed to the next switch in, said once, the same split' '
	LPERF_NO_BPF=1 lperf record --wall -q -o f.data -- "$WALL" 1.5 split 2>err && cat err &&
	test "$(grep -c "sampling sched:sched_switch" err)" -eq 1 &&
	lperf evlist -i f.data | grep -v "^#" >ev && printf "cpu-clock\nsched:sched_switch\n" >want && diff want ev &&
	s=$(shares f.data) && check_split split $s &&
	if [ -n "$HAVE_PERF" ]; then perf report -i f.data --stdio -g none 2>/dev/null | grep -q "sched:sched_switch"; fi
'

# sample's table is of the tops of the stacks: every switch's time is at __schedule, the top of
# its kernel stack, so that row holds wait_a's time and more (work_b's preemptions).
# The switch's kernel stack starts at __schedule, or at __traceiter_sched_switch while another
# tracer (any BPF program on sched_switch: another lperf, bcc's offcputime) shares the tracepoint.
test_expect_success 'without BPF, sample --wall: the time off a CPU is at __schedule, at least wait_a'"'"'s share' '
	LPERF_NO_BPF=1 lperf sample --wall -- "$WALL" 1.5 split >out 2>err && cat out split &&
	expect_grep "sample source: wall-clock" out && test "$(grep -c "sampling sched:sched_switch" err)" -eq 1 &&
	read -r wait work <split &&
	awk -v w="$wait" -v k="$work" "\$3 ~ /^(__schedule|__traceiter_sched_switch):/ { s += \$1 } END { exit !(s >= 100 * w / (w + k) - 3) }" out
'

test_done
