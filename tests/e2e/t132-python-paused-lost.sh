#!/bin/sh
# The paused sampler (no BPF, docs/python.md "Without BPF") drops the kernel's own samples of
# the processes it pauses (it writes their samples itself); when the ring buffers fill up, the
# kernel's samples lost are counted in record's warning only where the profile lost them: those
# of a paused process (the buffer's sample before the loss and the task after it both of a
# paused process) go to a note of their own. The recording's LOST records still count them all,
# as perf's would, and the file says how many of them were of paused processes (LPERF_LOST), so
# report and script say what record said; perf 6.1 reads the file and counts its LOST records as
# before. Ring buffers of 4 pages and 8 KiB stack copies (a buffer holds one sample) at 10 kHz;
# the paused sampler loses its Python's kernel samples in them whatever the load, a shell loop
# only 1-2% here (none on a fast enough machine), so lperf record is stopped for 0.3 s while a
# shell loop runs (lib.sh's STARVE).
# e2e-class: parallel (tiny buffers and a stopped recorder lose samples whatever the load; the counts are checked against each other)
. "$(dirname "$0")/lib.sh"
py311_or_skip "lost samples of paused processes"
W="$TEST_ROOT/tests/workloads"
export W
SMALL="-F 10000 -m 4 --call-graph dwarf,8192"
export SMALL
# rec DATA CMD...: lperf record --python of CMD into DATA in tiny buffers, its errors in err; as
# root without BPF, or through $RUN (nobody_run)
rec() { d=$1; shift; ${RUN:-env LPERF_NO_BPF=1} "$LPERF" record --python $SMALL -o "$d" -- "$@" 2>err; }
# counts DATA: "warned noted total rwarned rnoted": record's warning's count in err (0 without
# one), its note's (0), the recording's own count of samples lost (report's "Total Lost Samples"),
# and report's warning and note; script says of the losses what report says
counts() {
	w=$(sed -n "s/^lperf: warning: \([0-9]*\) samples lost .*/\1/p" err)
	n=$(sed -n "s/^lperf: note: \([0-9]*\) of the kernel.s samples of the paused Python processes were lost.*/\1/p" err)
	${RUN:-} "$LPERF" report -i "$1" --stdio >rep.out 2>rep.err
	t=$(sed -n "s/^# Total Lost Samples: \([0-9]*\)/\1/p" rep.out)
	${RUN:-} "$LPERF" script -i "$1" 2>scr.err >/dev/null
	grep "lost while recording" rep.err >rep.lost
	grep "lost while recording" scr.err >scr.lost
	diff rep.lost scr.lost >&2 || fail "script does not say what report says of the samples lost"
	rw=$(sed -n "s/^lperf: warning: \([0-9]*\) samples lost while recording .*/\1/p" rep.err)
	rn=$(sed -n "s/^lperf: note: \([0-9]*\) of the kernel.s samples of the paused Python processes were lost while recording.*/\1/p" rep.err)
	echo "${w:-0} ${n:-0} ${t:-0} ${rw:-0} ${rn:-0}"
}
# same_split W N T RW RN: report's warning and note are record's
same_split() {
	echo "record: warned $1, noted $2; file: $3; report: warned $4, noted $5"
	test "$4" = "$1" && test "$5" = "$2" || fail "report's split of the samples lost is not record's"
}
# python_alone DIR: a paused Python alone (DIR/py_shares.py): its losses noted, none warned, the
# same in report; sets noted and total
python_alone() {
	rec p.data "$PY" "$1/py_shares.py" 300; rc=$?
	cat err; test $rc = 0 && expect_grep "threads paused at each sample" err &&
	set -- $(counts p.data) && same_split "$@" && test "$2" -gt 0 && test "$3" = $(($1 + $2)) &&
	noted=$2 total=$3
}
# loop_alone: a shell loop (0.7 s here: the recorder is stopped 0.05 s in, well before its end on a
# machine several times faster), no Python: every loss warned, none noted, in record and report
loop_alone() {
	rec s.data sh -c "$STARVE" starve 0.05 sh -c "i=0; while [ \$i -lt 1000000 ]; do i=\$((i + 1)); done"
	cat err; set -- $(counts s.data) && same_split "$@" && test "$1" -gt 0 && test "$2" = 0 && test "$3" = "$1"
}

test_expect_success "a paused Python: its kernel samples lost are noted apart, the recording counts them all" '
	python_alone "$W"
'

test_expect_success "no Python: every lost sample warned, none noted" '
	loop_alone
'

# (the recorder stopped 0.3 s in, once it has found the Python, while the shell loop still runs:
# it runs about 2 s here)
test_expect_success "a paused Python and a shell loop: both kinds, adding up to the recording's" '
	rec b.data sh -c "$STARVE" starve 0.3 sh -c "\"\$0\" \"\$1\" 300 & i=0; while [ \$i -lt 3000000 ]; do i=\$((i + 1)); done; wait" "$PY" "$W/py_shares.py"
	cat err; set -- $(counts b.data) && same_split "$@" &&
	test "$1" -gt 0 && test "$2" -gt 0 && test "$3" = $(($1 + $2))
'

# As a user (no BPF: the paused sampler without LPERF_NO_BPF): the same split in record and report,
# and perf 6.1 reads the file, its --stats counting the LOST records lperf's --stats counts.
if ! nobody_can "$LPERF" version || ! nobody_can "$PY" -c pass; then
	test_skip "lost samples as nobody" "needs root, unshare, setpriv and an lperf and $PY nobody may run"
	test_done
	exit
fi
WN="$NOBODY_DIR/w"
mkdir "$WN" && chmod 755 "$WN" && cp "$W/py_shares.py" "$WN/" && chmod 644 "$WN/py_shares.py"
export WN
# lost_records DATA REPORT...: the "LOST events" count of REPORT's --stats
lost_records() { f=$1; shift; "$@" -i "$f" --stats 2>/dev/null | sed -n "s/^ *LOST events: *\([0-9]*\).*/\1/p" | head -n 1; }
# perf_reads CMD...: perf 6.1 CMD succeeds on p.data with some output and no error
perf_reads() {
	perf "$@" -f -i p.data >perf.out 2>perf.err; rc=$?
	cat perf.err; test $rc = 0 && test -s perf.out && expect_no_grep "rror|nknown|nvalid" perf.err
}

test_expect_success "as nobody, a paused Python: report says record's split; perf 6.1 reads the file" '
	nobody_cd && RUN=nobody_run && python_alone "$WN" &&
	expect_grep "^# \($noted of them the kernel.s samples of paused Python processes" rep.out &&
	nobody_run "$LPERF" report -i p.data --header-only >h.txt &&
	expect_grep "^# lost of paused Python processes : $noted samples" h.txt &&
	nobody_run "$LPERF" report -i p.data --json >r.json && validate_json report.schema.json r.json &&
	"$PYTHON" -c "import json,sys; d=json.load(open(\"r.json\")); sys.exit(d[\"lost_replaced\"] != $noted)" &&
	l=$(lost_records p.data nobody_run "$LPERF" report) && p=$(lost_records p.data perf report -f) &&
	echo "LOST records: lperf $l, perf $p" && test "$l" -gt 0 && test "$l" = "$p" &&
	perf_reads report --stdio && expect_grep "^# Total Lost Samples: $total\$" perf.out &&
	perf_reads script
'

test_expect_success "as nobody, a busy shell loop in a tiny buffer: every loss warned, in record and report" '
	nobody_cd && RUN=nobody_run && loop_alone &&
	nobody_run "$LPERF" report -i s.data --header-only >h.txt && expect_no_grep "LPERF_LOST|paused Python" h.txt
'
test_done
