#!/bin/sh
# The paused sampler with many threads (docs/python.md "Without BPF"): with LPERF_NO_BPF=1, a
# Python of 64 threads alive at once plus short-lived threads started and ended one after the
# other during the recording (tests/workloads/py_many.py). Threads started after lperf seized
# the process are traced from their start (PTRACE_O_TRACECLONE), each sampled at its own
# CPU-time alarm: every one of the 64 has samples in work(), and most of the short-lived ones
# in churn() (each spins about a quarter as long); the program runs to its end. Attached with
# -p to a program of 64 threads (each sampled about seven times in the 2 s: at least half of
# them have samples in work()) that goes on starting threads when the GIL lets it, lperf leaves
# after --timeout with no thread traced or stopped, and the program finishes. The rate: an -F
# given is taken up to 1,000 Hz (four times the default's samples per second of CPU at -F 1000,
# fewer at -F 100), a higher one lowered to 1,000 and said so. Counts per thread and per second of
# CPU time, so beside other scripts; the -p case, whose 2 s are wall time, is
# t124-python-paused-attach.sh's, alone.
# e2e-class: parallel (samples per thread and per CPU second, each at its CPU-time alarm; passed 3 times in both builds beside 2 busy loops at loads of 10-20)
. "$(dirname "$0")/lib.sh"
py311_or_skip "many threads, paused"
M="$TEST_ROOT/tests/workloads/py_many.py"
export M

test_expect_success "64 threads and 40 short-lived ones: each sampled, the program ends" '
	LPERF_NO_BPF=1 lperf record --python -o m.data -- "$PY" "$M" 64 2000000 40 "$PWD/done.txt" 2>err; rc=$?
	cat err done.txt; test $rc = 0 &&
	expect_grep "threads paused at each sample" err && expect_no_grep "approximate" err &&
	expect_grep "^done 64 40$" done.txt &&
	lperf script -i m.data >s.txt 2>/dev/null &&
	w=$(tids_in work s.txt) && c=$(tids_in churn s.txt) && echo "work in $w threads, churn in $c" &&
	test "$w" = 64 && test "$c" -ge 20
'

# rate FILE: the paused samples of spin() per second of its CPU time (their count over the sum
# of their periods, each the thread's CPU time since its previous sample)
rate() {
	"$LPERF" script -i "$1" 2>/dev/null | awk '/ cpu-clock: / { for (i = 2; i <= NF; i++) if ($i == "cpu-clock:") p = $(i - 1); hdr = 1; next }
		hdr && /py::spin:/ { n++; t += p; hdr = 0 } /^$/ { hdr = 0 }
		END { if (t > 0) printf "%.1f %d\n", n * 1e9 / t, n; else print "0 0" }'
}
# ratio A B LO HI: whether A / B is within [LO, HI]
ratio() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" "BEGIN { r = a / b; printf \"ratio %.2f\\n\", r; exit !(r >= lo && r <= hi) }"; }
printf "import sys\ndef spin(n):\n    x = 0\n    for i in range(n):\n        x += i\n    return x\nspin(int(sys.argv[1]))\n" >"$SCRATCH/spin.py"
# The default (250 samples a second of a thread's CPU time), -F 1000 (four times as many) and
# -F 100 (0.4 times): the samples of about a second of CPU in spin(), at least 200 of the
# default's; each rate's spread is that of its count (the intervals' coefficient of variation is
# 0.75: 4.7% at 250 samples, 7.5% at 100), so the bounds are beyond four standard deviations.
test_expect_success "-F 1000 pauses four times as often per CPU second as the default, -F 100 less" '
	for f in 250:"" 1000:"-F 1000" 100:"-F 100"; do
		LPERF_NO_BPF=1 lperf record --python ${f#*:} -o r${f%%:*}.data -- "$PY" "$SCRATCH/spin.py" 70000000 2>err${f%%:*} &&
		cat err${f%%:*} && expect_grep "threads that run .${f%%:*} samples a second" err${f%%:*} &&
		expect_grep "ptrace, ${f%%:*} Hz" err${f%%:*} || return 1
	done &&
	set -- $(rate r250.data) $(rate r1000.data) $(rate r100.data) &&
	echo "spin samples per CPU second: default $1 ($2), -F 1000 $3 ($4), -F 100 $5 ($6)" &&
	test "$2" -ge 200 && ratio $3 $1 3 5 && ratio $5 $1 0.25 0.6
'
test_expect_success "-F 5000 is lowered to 1000, and said so" '
	LPERF_NO_BPF=1 lperf record --python -F 5000 -o r.data -- "$PY" "$SCRATCH/spin.py" 1000000 2>err &&
	cat err && expect_grep "1000 samples a second of their CPU time, lowered from 5000: each pause costs" err &&
	expect_grep "ptrace, 1000 Hz" err
'

test_done
