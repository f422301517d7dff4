#!/bin/sh
# Tracepoints end to end (sample type, TRACING_DATA, fields as perf prints them, globs), pipe mode
# on standard output, and lperf evlist, each compared with Linux perf 6.1 on this machine.
# e2e-class: parallel (fields and headers of the same files compared with perf; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
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

test_expect_success 'a tracepoint recording: RAW in the sample type and TRACING_DATA, as perf records it' '
	if ! have_tracefs; then echo "no tracefs"; exit 0; fi
	lperf record -q -e syscalls:sys_enter_openat -o l.data -- cat /dev/null &&
	perf record -q -e syscalls:sys_enter_openat -o p.data -- cat /dev/null 2>/dev/null &&
	perf evlist -v -i l.data 2>err >ev &&
	expect_lines 0 err &&
	expect_grep "sample_type: IP\|TID\|TIME\|CPU\|PERIOD\|RAW," ev &&
	"$PYTHON" - l.data p.data <<-\EOF
	import struct, sys
	def tracing(path):
	    d = open(path, "rb").read()
	    do, dsz = struct.unpack("<QQ", d[40:56])
	    feats = struct.unpack("<4Q", d[72:104])
	    assert feats[0] & 2, path + ": no TRACING_DATA feature"
	    off, size = struct.unpack("<QQ", d[do + dsz:do + dsz + 16])
	    t = d[off:off + size]
	    assert t[:10] == b"\x17\x08Dtracing" and t[10:14] == b"0.6\0", t[:16]
	    return t
	l, p = tracing(sys.argv[1]), tracing(sys.argv[2])
	i = l.index(b"name: sys_enter_openat")
	j = p.index(b"name: sys_enter_openat")
	assert l[i:i + 600] == p[j:j + 600], "the format differs from that of perf"
	EOF
'

test_expect_success 'perf reads lperf tracepoint recordings (file and pipe) with an empty stderr, same fields as its own' '
	if ! have_tracefs; then echo "no tracefs"; exit 0; fi
	lperf record -q -e syscalls:sys_enter_openat -o l.data -- cat /dev/null &&
	perf record -q -e syscalls:sys_enter_openat -o p.data -- cat /dev/null 2>/dev/null &&
	perf script -i l.data >l.txt 2>lerr && expect_lines 0 lerr &&
	perf script -i p.data >p.txt 2>perr && expect_lines 0 perr &&
	perf report -i l.data --stdio >/dev/null 2>rerr && expect_lines 0 rerr &&
	expect_grep "syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x[0-9a-f]+, flags: 0x[0-9a-f]+, mode: 0x[0-9a-f]+$" l.txt &&
	[ "$(sed "s/.*sys_enter_openat: //; s/filename: 0x[0-9a-f]*/filename: A/" l.txt | sort -u)" = \
	  "$(sed "s/.*sys_enter_openat: //; s/filename: 0x[0-9a-f]*/filename: A/" p.txt | sort -u)" ] &&
	lperf record -q -e sched:sched_switch -e syscalls:sys_enter_openat -o - -- sh -c "sleep 0.01; cat /dev/null" >pipe.data &&
	perf script -i - <pipe.data >pp.txt 2>pperr && expect_lines 0 pperr &&
	expect_grep "^ +sh +[0-9]+ \[[0-9]+\] +[0-9.]+: +sched:sched_switch: prev_comm=sh prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=[A-Z+]+ ==> next_comm=" pp.txt &&
	expect_grep "syscalls:sys_enter_openat: dfd: " pp.txt
'

test_expect_success 'lperf script prints tracepoint fields exactly as perf script does, for files of both tools' '
	if ! have_tracefs; then echo "no tracefs"; exit 0; fi
	lperf record -q -e "sched:sched_switch,syscalls:sys_enter_openat" -o l.data -- sh -c "sleep 0.01; cat /dev/null" &&
	perf record -q -e sched:sched_switch -e syscalls:sys_enter_openat -o p.data -- sh -c "sleep 0.01; cat /dev/null" 2>/dev/null &&
	perf record -q -g -e syscalls:sys_enter_openat -o pg.data -- cat /dev/null 2>/dev/null &&
	for f in l.data p.data pg.data; do
		lperf script -i $f >l.txt 2>lerr && expect_lines 0 lerr &&
		perf script -i $f >p.txt 2>/dev/null &&
		expect_grep "sched_switch: prev_comm=|sys_enter_openat: dfd: " l.txt &&
		{ cmp l.txt p.txt || { diff l.txt p.txt | head; return 1; }; } || return 1
	done &&
	lperf script -i p.data -F comm,tid,event,trace >f.txt &&
	perf script -i p.data -F comm,tid,event,trace >pf.txt 2>/dev/null &&
	cmp f.txt pf.txt
'

test_expect_success 'a uprobe (perf probe -x): both tools record it, both print its (address) field alike' '
	if ! [ -w /sys/kernel/tracing/uprobe_events ]; then echo "no uprobes"; exit 0; fi
	cat >prog.c <<-\EOF &&
	int __attribute__((noinline)) probed(int x) { return x * 3; }
	int main(void) { int s = 0; for (int i = 0; i < 5; i++) s += probed(i); return s == 1; }
	EOF
	cc -O1 -o prog prog.c &&
	perf probe -q -x ./prog -a probed 2>/dev/null || { echo "perf probe cannot add a uprobe here"; exit 0; }
	perf record -q -e probe_prog:probed -o p.data -- ./prog 2>/dev/null
	lperf record -q -e probe_prog:probed -o l.data -- ./prog
	perf probe -q -d probe_prog:probed &&
	lperf script -i p.data >lp.txt 2>lerr && expect_lines 0 lerr &&
	perf script -i p.data >pp.txt 2>/dev/null &&
	expect_grep "probe_prog:probed: \([0-9a-f]+\)$" lp.txt &&
	cmp lp.txt pp.txt &&
	lperf script -i l.data >ll.txt 2>lerr && expect_lines 0 lerr &&
	perf script -i l.data >pl.txt 2>perr && expect_lines 0 perr &&
	expect_lines 5 ll.txt && cmp ll.txt pl.txt
'

test_expect_success 'damaged tracing data: one warning naming the file and offset, fields from this machine' '
	if ! have_tracefs; then echo "no tracefs"; exit 0; fi
	lperf record -q -e syscalls:sys_enter_openat -o l.data -- cat /dev/null &&
	"$PYTHON" - l.data <<-\EOF &&
	import struct, sys
	p = sys.argv[1]; d = bytearray(open(p, "rb").read())
	do, dsz = struct.unpack("<QQ", d[40:56])
	off, size = struct.unpack("<QQ", d[do + dsz:do + dsz + 16])
	i = d.index(b"header_page\0", off) + 12
	d[i:i + 8] = struct.pack("<Q", 1 << 40)   # a hostile size
	open(p, "wb").write(d)
	EOF
	lperf script -i l.data >l.txt 2>err &&
	expect_lines 1 err &&
	expect_grep "l.data: tracing data at offset 0x[0-9a-f]+ \(header_page\): size 1099511627776 is past the end" err &&
	expect_grep "sys_enter_openat: dfd: " l.txt
'

test_expect_success 'lperf evlist (and report --header event lines) print what perf prints for files of both tools; evlist reads a pipe' '
	lperf record -q -e "{cpu-clock,page-faults}" -o lg.data -- sleep 0.02 &&
	perf record -q -e "{cpu-clock,page-faults}" -e task-clock -F 999 -o pg.data -- sleep 0.02 2>/dev/null &&
	files="lg.data pg.data" &&
	if have_tracefs; then
		lperf record -q -e "sched:sched_switch,syscalls:sys_enter_openat" -o lt.data -- sh -c "sleep 0.01; cat /dev/null" &&
		perf record -q -e sched:sched_switch -e syscalls:sys_enter_openat -o pt.data -- true 2>/dev/null &&
		files="$files lt.data pt.data"
	fi &&
	for f in $files; do
		for o in "" -v -F -g --trace-fields "-v -F --trace-fields"; do
			lperf evlist -i $f $o >l.txt 2>lerr && perf evlist -i $f $o >p.txt 2>/dev/null &&
			expect_lines 0 lerr &&
			{ cmp l.txt p.txt || { echo "evlist -i $f $o:"; diff l.txt p.txt; return 1; }; } || return 1
		done
	done &&
	for f in $files; do
		lperf report --header-only -i $f | grep "^# event :" >l.txt &&
		perf report --header-only -i $f 2>/dev/null | grep "^# event :" >p.txt &&
		{ cmp l.txt p.txt || { diff l.txt p.txt; return 1; }; } || return 1
	done &&
	lperf evlist -g -i pg.data >g.txt && expect_grep "^\{cpu-clock,page-faults\}$" g.txt && expect_lines 2 g.txt &&
	perf evlist -g -i lg.data >g.txt 2>/dev/null && expect_grep "^\{cpu-clock,page-faults\}$" g.txt &&
	expect_lines 1 g.txt &&
	if have_tracefs; then
		lperf evlist --trace-fields -i lt.data >t.txt &&
		expect_grep "^sched:sched_switch: trace_fields: prev_comm,prev_pid,prev_prio,prev_state,next_comm,next_pid,next_prio$" t.txt
	fi &&
	lperf record -q -o - -e task-clock -- true >pipe.data &&
	lperf evlist -v -i - <pipe.data >l.txt &&
	expect_grep "^task-clock: type: 1, size: 128, config: 0x1, " l.txt &&
	perf report -i - --stdio <pipe.data 2>/dev/null | grep -q "of event .task-clock.$"
'

test_expect_success 'lperf inject keeps the tracepoint formats: file and pipe, in and out' '
	if ! have_tracefs; then echo "no tracefs"; exit 0; fi
	lperf record -q -e syscalls:sys_enter_openat -o l.data -- cat /dev/null &&
	perf script -i l.data >want.txt 2>/dev/null &&
	lperf inject -i l.data -o f2f.data && perf script -i f2f.data >got.txt 2>err &&
	expect_lines 0 err && cmp want.txt got.txt &&
	lperf inject -i l.data -o - >f2p.data && perf script -i - <f2p.data >got.txt 2>err &&
	expect_lines 0 err && cmp want.txt got.txt &&
	lperf record -q -e syscalls:sys_enter_openat -o - -- cat /dev/null >p.data &&
	lperf inject -i - -o p2f.data <p.data && perf script -i p2f.data >a.txt 2>err &&
	expect_lines 0 err && expect_grep "sys_enter_openat: dfd: " a.txt &&
	lperf inject -i - -o - <p.data >p2p.data && perf script -i - <p2p.data >b.txt 2>err &&
	expect_lines 0 err && cmp a.txt b.txt
'

test_expect_success 'lperf report of a tracepoint recording: sorted by the fields (Trace output), entries and -g graphs as perf' '
	if ! have_tracefs; then echo "no tracefs"; exit 0; fi
	lperf record -q -e "sched:sched_switch,syscalls:sys_enter_openat" -o l.data -- sh -c "sleep 0.01; cat /dev/null" &&
	perf record -q -e syscalls:sys_enter_openat -o p.data -- cat /dev/null 2>/dev/null &&
	for f in l.data p.data; do
		lperf report -i $f --stdio >l.txt 2>lerr && expect_lines 0 lerr &&
		perf report -i $f --stdio >p.txt 2>/dev/null &&
		expect_grep "^# Overhead  Trace output" l.txt &&
		grep "^ .*%" l.txt >le && grep "^ .*%" p.txt >pe && expect_grep "dfd: 0xffffff9c, filename: " le &&
		{ cmp le pe || { diff le pe | head; return 1; }; } &&
		grep "^# Samples\|^# Event count" l.txt >ls && grep "^# Samples\|^# Event count" p.txt >ps &&
		cmp ls ps || return 1
	done &&
	lperf record -q -g -e syscalls:sys_enter_openat -o g.data -- cat /dev/null &&
	lperf report -i g.data --stdio --no-children | grep -v "^#\|^$" >lg.txt &&
	perf report -i g.data --stdio --no-children 2>/dev/null | grep -v "^#\|^$" >pg.txt &&
	expect_grep "^            ---" lg.txt &&
	{ cmp lg.txt pg.txt || { diff lg.txt pg.txt | head; return 1; }; } &&
	lperf report -i l.data --stdio -s comm,sym >s.txt && expect_grep "^# Overhead  Command  Symbol" s.txt &&
	lperf report -i l.data --json -s trace >r.json && validate_json report.schema.json r.json
'

test_done
