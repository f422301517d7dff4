#!/bin/sh
# The paused sampler (no BPF, docs/python.md "Without BPF") drops the kernel's own samples of
# the processes it pauses (it writes their samples itself); when the ring buffers fill up, the
# kernel's samples lost are counted in record's warning only where the profile lost them: those
# of a paused process (the buffer's sample before the loss and the task after it both of a
# paused process) go to a note of their own. The recording's LOST records still count them all,
# as perf's would. Ring buffers of 4 pages and 8 KiB stack copies (one sample fills a buffer)
# at 10 kHz make the kernel lose samples whatever the machine's load.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
PY=$(py_for 3.11)
[ -z "$PY" ] && [ -x /usr/bin/python3.11 ] && PY=/usr/bin/python3.11
if [ -z "$PY" ]; then
	test_skip "lost samples of paused processes" "no CPython 3.11"
	test_done
	exit 0
fi
W="$TEST_ROOT/tests/workloads/py_shares.py"
export PY W
SMALL="-F 10000 -m 4 --call-graph dwarf,8192"
export SMALL
# counts ERR DATA: "warned noted total": the warning's count (0 without one), the note's (0),
# and the recording's own count of samples lost (report's "Total Lost Samples")
counts() {
	w=$(sed -n "s/^lperf: warning: \([0-9]*\) samples lost .*/\1/p" "$1")
	n=$(sed -n "s/^lperf: note: \([0-9]*\) of the kernel.s samples of the paused Python processes were lost.*/\1/p" "$1")
	t=$(lperf report -i "$2" --stdio 2>/dev/null | sed -n "s/^# Total Lost Samples: \([0-9]*\)/\1/p")
	echo "${w:-0} ${n:-0} ${t:-0}"
}

test_expect_success "a paused Python: its kernel samples lost are noted apart, the recording counts them all" '
	LPERF_NO_BPF=1 lperf record --python $SMALL -o p.data -- "$PY" "$W" 300 2>err; rc=$?
	cat err; test $rc = 0 && expect_grep "threads paused at each sample" err &&
	set -- $(counts err p.data) && echo "warned $1, noted $2, recorded $3" &&
	test "$2" -gt 0 && test "$3" = $(($1 + $2))
'

test_expect_success "no Python: every lost sample warned, none noted" '
	LPERF_NO_BPF=1 lperf record --python $SMALL -o s.data -- sh -c "i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done" 2>err
	cat err; set -- $(counts err s.data) && echo "warned $1, noted $2, recorded $3" &&
	test "$1" -gt 0 && test "$2" = 0 && test "$3" = "$1"
'

test_expect_success "a paused Python and a shell loop: both kinds, adding up to the recording's" '
	LPERF_NO_BPF=1 lperf record --python $SMALL -o b.data -- sh -c "\"\$0\" \"\$1\" 300 & i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done; wait" "$PY" "$W" 2>err
	cat err; set -- $(counts err b.data) && echo "warned $1, noted $2, recorded $3" &&
	test "$1" -gt 0 && test "$2" -gt 0 && test "$3" = $(($1 + $2))
'
test_done
