#!/bin/sh
# record --switch-output (issue 26): the recording rotates into perf.data.<timestamp> files, each a
# whole recording that perf 6.1 reads (the kernel and the process described again at each switch),
# on SIGUSR2, past a size or every period; --switch-max-files bounds how many stay; --control's
# FIFO answers ping with ack, as perf daemon expects of its sessions. At a switch the next file
# describes the command's children again and the buffers' last records stay in the file closed.
# e2e-class: parallel (files per switch and what perf reads of them, polls with deadlines; passed 3 times in both builds beside 1 to 4 other scripts at loads of 12-30)
. "$(dirname "$0")/lib.sh"
BUSY='end=$(($(date +%s)+3)); while [ $(date +%s) -lt $end ]; do :; done'
# The same, saying it started (the recording is set up by then: the command runs after record
# has opened its events and taken its signals): SIGUSR2 is sent only after that, not after a
# sleep that a loaded machine may outlast.
BUSY_SAY='touch started; end=$(($(date +%s)+3)); while [ $(date +%s) -lt $end ]; do :; done'
# The same, busy until told to stop (./stop; 60 s at most).
BUSY_STOP='touch started; end=$(($(date +%s)+60)); while [ ! -e stop ] && [ $(date +%s) -lt $end ]; do :; done'
# started: waits (20 s at most) until the workload has started
started() { i=0; while [ ! -e started ]; do i=$((i + 1)); [ $i -lt 200 ] || return 1; sleep 0.1; done; }
# switched N: waits (20 s at most) until N rotated files are there, the last signal's switch done
switched() {
	i=0; while [ "$(ls | grep -c "^perf\.data\.[0-9]\{16\}$")" -lt "$1" ]; do
		i=$((i + 1)); [ $i -lt 200 ] || return 1; sleep 0.1; done
}

# ack: the answer on the ack FIFO (standard input), waiting at most 20 s
ack() { timeout 20 sh -c 'read -r a && echo "$a"'; }

# every file: perf report reads it and finds the busy shell's samples
all_read_by_perf() {
	for f in "$@"; do
		# a period in which the workload was not sampled is a file without samples, which perf
		# report refuses to show ("has no samples!"): perf must still read it (perf script)
		# (perf 6.1 says so with exit status 0 or 255, depending on the file's other records)
		perf report -i "$f" --stdio --sort comm >out 2>&1
		if grep -q "has no samples" out; then
			perf script -i "$f" >/dev/null 2>out || { echo "perf cannot read $f"; cat out; return 1; }
		else
			grep -Eq '%[[:space:]]+(sh|date)' out || { echo "perf shows no workload in $f"; cat out; return 1; }
		fi
	done
}

test_expect_success '--switch-output=1s: a file a second, each one perf reads' '
	mkdir t1 && cd t1 &&
	t0=$(date +%s.%N) &&
	"$LPERF" record -e cpu-clock --switch-output=1s -- sh -c "$BUSY" 2>err &&
	t1=$(date +%s.%N) &&
	n=$(ls | grep -c "^perf\.data\.[0-9]\{16\}$") &&
	# the workload runs 2 to 3 s: at least one switch; at most one file per second the recording
	# lasted and the last one (a loaded machine starts it late and slows it: measured, not assumed)
	echo "$n files in $t0 .. $t1" &&
	[ "$n" -ge 2 ] && awk -v n=$n -v a=$t0 -v b=$t1 "BEGIN { exit !(n <= b - a + 1) }" || { ls; cat err; exit 1; } &&
	[ ! -e perf.data ] &&
	expect_grep "Dump perf.data.[0-9]{16} ]" err &&
	expect_grep "Captured and wrote .* perf.data.<timestamp>" err &&
	all_read_by_perf perf.data.*
'

# The workload runs until the third switch (a loaded machine gives it a smaller share of a CPU:
# 3 s of it once wrote less than 300 KB).
test_expect_success '--switch-output=SIZE with --switch-max-files 2: at most two files stay' '
	mkdir t2 && cd t2 || exit 1
	"$LPERF" record -e cpu-clock --switch-output=100K --switch-max-files 2 -- sh -c "$BUSY_STOP" 2>err & pid=$!
	started && i=0 && while [ "$(grep -c "Dump perf.data" err)" -lt 3 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	touch stop; wait $pid &&
	[ $(grep -c "Dump perf.data" err) -ge 3 ] &&
	[ $(ls | grep -c "^perf\.data\.") = 2 ] &&
	all_read_by_perf perf.data.*
'

test_expect_success '--switch-output (signal): a file per SIGUSR2 and one at the end' '
	"$LPERF" record -q -e cpu-clock --switch-output -- sh -c "$BUSY_STOP" & pid=$! &&
	started && sleep 0.5 && kill -USR2 $pid && switched 1 && sleep 0.5 && kill -USR2 $pid && switched 2
	rc=$?; touch stop; wait $pid && [ $rc = 0 ] &&
	[ $(ls | grep -c "^perf\.data\.") = 3 ] &&
	all_read_by_perf perf.data.*
'

test_expect_success '--control fifo: ping is acknowledged, stop ends the recording' '
	mkfifo ctl ack || exit 1
	"$LPERF" record -q -e cpu-clock --control=fifo:ctl,ack -- sleep 20 & pid=$! &&
	exec 8<>ack && timeout 20 sh -c "echo ping >ctl" && [ "$(ack <&8)" = ack ] &&
	echo stop >ctl && [ "$(ack <&8)" = ack ] &&
	# stop ends the command by SIGTERM, and record exits with its status, 143, as perf 6.1 does
	wait $pid; rc=$?; exec 8>&- && echo "record: exit $rc" && [ $rc = 143 ] &&
	perf report -i perf.data --stdio >out 2>&1 || { cat out; exit 1; }
'

# span FILE: seconds between the first and the last sample perf script shows
span() { perf script -i "$1" -F time 2>/dev/null | tr -d ' :' | awk 'NR == 1 { a = $1 } { b = $1 } END { print b - a }'; }
# in_buffers FILE: the file holds no more samples than -m 1's buffers can (one 4 KiB data page
# a CPU, a sample at least 24 bytes: lperf's cpu-clock ones are 48), what --overwrite promises
# whatever the load; the 3 s busy loop gives thousands of samples without it (at a load of 15,
# where it gets an eighth of a CPU, still about 1,500), so older ones were overwritten. (Not a
# bound on the span in seconds: a starved workload fills a page in more than a second.)
in_buffers() {
	n=$(perf script -i "$1" -F time 2>/dev/null | wc -l) && cap=$(($(getconf _NPROCESSORS_ONLN) * 4096 / 24)) &&
	echo "$1: $n samples over $(span "$1") s, the buffers hold at most $cap" &&
	[ "$n" -gt 0 ] && [ "$n" -le "$cap" ]
}

test_expect_success '--overwrite: only the newest records (as much as the buffers hold), processes named' '
	"$LPERF" record -q -e cpu-clock --overwrite -m 1 -- sh -c "$BUSY" &&
	in_buffers perf.data &&
	all_read_by_perf perf.data
'

test_expect_success '--overwrite --switch-output: a file of the newest records per SIGUSR2' '
	"$LPERF" record -q -e cpu-clock --overwrite --switch-output -m 1 -- sh -c "$BUSY_SAY" & pid=$! &&
	started && sleep 1 && kill -USR2 $pid && wait $pid &&
	{ [ $(ls | grep -c "^perf\.data\.") = 2 ] || { ls; exit 1; }; } &&
	for f in perf.data.*; do in_buffers $f || exit 1; done &&
	all_read_by_perf perf.data.*
'

# A child the command started before a switch runs on into the next file: that file names it
# (its maps described again), and a child that ended before the switch has all its samples in the
# file it ended in (the buffers are drained at the switch).
test_expect_success 'a switch: the next file names the running children, the last one keeps the ended ones' '
	cc -O0 -g -fno-omit-frame-pointer -o shares "$TEST_ROOT/tests/workloads/shares.c" || exit 1
	"$LPERF" record -q -e task-clock --switch-output -- sh -c "./shares 5; ./shares 60 & sleep 0.3; kill -USR2 \$PPID; wait" &&
	set -- $(ls perf.data.*) && [ $# = 2 ] &&
	for f in "$@"; do
		perf report -i $f --stdio --sort comm,dso,sym >out 2>&1 &&
		expect_grep "shares +\[\.\] work_a" out && ! grep -E "shares +\[unknown\]" out || { cat out; exit 1; }
	done
'

test_expect_success 'bad --switch-output values are usage errors' '
	expect_exit 2 "$LPERF" record --switch-output=10X -- true 2>err &&
	expect_grep "switch-output" err &&
	expect_exit 2 "$LPERF" record -o - --switch-output -- true 2>err &&
	expect_grep "needs a file" err
'

test_done
