#!/bin/sh
# Kernel samples inside a BPF program are named by the recording, as perf 6.1 names them: record
# asks the kernel for KSYMBOL and BPF_EVENT records (attr.ksymbol, attr.bpf_event) and writes the
# programs already loaded as such records at its start; report and script name such code from them
# (a map and DSO "bpf_prog_<tag>_<function>" per program), never from the /proc/kallsyms of the
# day, which names whatever program is loaded at that address now, or none. A forking workload is
# recorded while lperf's own BPF program (record --off-cpu's follow_fork, on sched_process_fork)
# runs in the background; reports taken before and after that program is gone are the same bytes,
# and perf's report and script of the file name the programs as lperf does.
# e2e-class: parallel (what the recording holds and how each tool names it; passed 3 times in both builds beside 1 to 4 other scripts at loads of 12-30)
. "$(dirname "$0")/lib.sh"

have_perf() { command -v perf >/dev/null 2>&1 && perf record -q -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; }
if [ "$(id -u)" -ne 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	test_skip "BPF programs' samples" "needs root and the kernel's BTF (/sys/kernel/btf/vmlinux)"
	test_done; exit $?
fi
if lperf record --off-cpu -q -o "$SCRATCH/probe.data" -- true 2>&1 | grep -q BUILD_BPF_SKEL; then
	test_skip "BPF programs' samples" "lperf is built without BPF here"
	test_done; exit $?
fi
cc -O1 -pthread -o "$SCRATCH/storm" "$TEST_ROOT/tests/workloads/forkstorm.c" || { echo "cannot build forkstorm"; exit 1; }

# The background program: record --off-cpu of a sleep (its follow_fork program runs on every fork
# of the machine). Ready when the recorder holds its programs (their tags in its fds' fdinfo).
"$LPERF" record -q --off-cpu -o "$SCRATCH/bg.data" -- sleep 600 >"$SCRATCH/bg.out" 2>&1 &
BG=$!
stop_bg() { kill -INT $BG 2>/dev/null; wait $BG 2>/dev/null; BG=; }
at_exit stop_bg
tags=
for i in $(seq 600); do
	tags=$(cat /proc/$BG/fdinfo/* 2>/dev/null | sed -n "s/^prog_tag:[[:space:]]*//p" | sort -u)
	[ -n "$tags" ] && break
	kill -0 $BG 2>/dev/null || break
	sleep 0.1
done
echo "# background programs' tags: $(echo $tags)"
[ -n "$tags" ] || { cat "$SCRATCH/bg.out"; echo "Bail out! the background record --off-cpu loaded no program"; exit 1; }
pattern="bpf_prog_($(echo $tags | tr " " "|"))_[a-z_]+"
export pattern

# The recordings: the storm is recorded again (at most 10 times) until a sample's stack is in
# one of the background's programs (a few a recording here).
test_expect_success 'record -a -g of a forking workload: samples in the background BPF program, named by the recording' '
	n=0 found= &&
	while [ $n -lt 10 ]; do
		n=$((n + 1))
		lperf record -q -a -g -F 4000 -o f.data -- "$SCRATCH/storm" 2 4 >/dev/null 2>&1 &&
			lperf script -i f.data >s1.txt 2>/dev/null && grep -Eq "$pattern" s1.txt && { found=1; break; }
	done &&
	echo "# recorded $n times" && test -n "$found" &&
	grep -E "$pattern" s1.txt | sort | uniq -c | sort -rn | head -5 &&
	grep -E "^[[:space:]]+[0-9a-f]+ $pattern\+0x[0-9a-f]+ \($pattern\)$" s1.txt >bpf1.txt && test -s bpf1.txt &&
	lperf report -i f.data --stdio --sort dso,sym >r1.txt 2>/dev/null &&
	grep -E "$pattern +\[k\] $pattern$" r1.txt >rows1.txt && cat rows1.txt && test -s rows1.txt &&
	cp f.data "$SCRATCH/f.data" && cp s1.txt r1.txt "$SCRATCH/" &&
	lperf record -q -a -e cpu-clock -o - -- true >"$SCRATCH/pipe.data" 2>/dev/null
'

test_expect_success 'the recording holds the programs as KSYMBOL and BPF_EVENT records, as perf writes them' '
	test -s "$SCRATCH/f.data" &&
	lperf evlist -v -i "$SCRATCH/f.data" >ev.txt 2>&1 && expect_grep "ksymbol: 1" ev.txt && expect_grep "bpf_event: 1" ev.txt &&
	have_perf || exit 0
	perf script -i "$SCRATCH/f.data" --show-bpf-events >all.txt 2>/dev/null &&
	grep -E "PERF_RECORD_KSYMBOL addr [0-9a-f]+ len [0-9]+ type 1 flags 0x0 name $pattern$" all.txt >k.txt &&
	test -s k.txt && expect_grep "PERF_RECORD_BPF_EVENT type 1, flags 0, id [0-9]+" all.txt &&
	perf script -i "$SCRATCH/pipe.data" --show-bpf-events >pall.txt 2>/dev/null &&
	grep -Eq "PERF_RECORD_KSYMBOL .* name $pattern$" pall.txt
'

# Compared with perf on the background's programs only, and of those only the ones no program of
# their name left during the recording: others' programs may come and go meanwhile (another test
# running the same program has the same tag), and a late sample in one just unloaded is looked up
# in today's kallsyms by perf (lperf keeps the recorded name).
steady() { # steady RECORDING TEXT: TEXT's lines naming the background's programs that stayed
	perf script -i "$1" --show-bpf-events 2>/dev/null |
		sed -n "s/.*PERF_RECORD_KSYMBOL .* flags 0x1 name //p" | sort -u >"$1.gone"
	grep -E "$pattern" "$2" | grep -vFf "$1.gone"
	return 0
}
# perf 6.1 stops at a KSYMBOL record it cannot process ("failed to process type: 17 [Bad address]")
# when a program of another run was unloaded during the recording, in its own recordings as in
# lperf's: such a recording is made again (perf's), or perf's side of the comparison is left out.
perf_reads() { perf report -i "$1" --stdio --sort dso >/dev/null 2>"$1.err"; ! grep -q "failed to process type: 17" "$1.err"; }
if have_perf; then
test_expect_success 'perf record -a -g: lperf reads its KSYMBOLs as perf does (report rows, script frames)' '
	n=0 && while [ $n -lt 3 ]; do
		n=$((n + 1))
		perf record -q -a -g -F 4000 -o p.data -- "$SCRATCH/storm" 2 4 >/dev/null 2>e.txt || { cat e.txt; false; } || break
		perf_reads p.data && break
	done && echo "# perf recorded $n times" &&
	if ! perf_reads p.data; then cat p.data.err; echo "# perf cannot read its recording (above)"; exit 0; fi &&
	{ perf script -i p.data --show-bpf-events >pk.txt 2>e.txt || { cat e.txt; false; }; } && expect_grep "PERF_RECORD_KSYMBOL" pk.txt &&
	{ perf report -i p.data --stdio --sort dso,sym >pr.txt 2>e.txt || { cat e.txt; false; }; } && steady p.data pr.txt >pr.bpf &&
	{ lperf report -i p.data --stdio --sort dso,sym >lr.txt 2>e.txt || { cat e.txt; false; }; } && steady p.data lr.txt >lr.bpf &&
	cmp pr.bpf lr.bpf &&
	{ perf script -i p.data >ps.txt 2>e.txt || { cat e.txt; false; }; } && steady p.data ps.txt >ps.bpf &&
	{ lperf script -i p.data >ls.txt 2>e.txt || { cat e.txt; false; }; } && steady p.data ls.txt >ls.bpf &&
	cmp ps.bpf ls.bpf && echo "# $(wc -l <ps.bpf) script frames in the background programs"
'
fi

# The background recorder ends: its programs are unloaded.
stop_bg

test_expect_success 'after the background program is gone, report and script print the same bytes; annotate reads no code there' '
	test -s "$SCRATCH/f.data" &&
	lperf script -i "$SCRATCH/f.data" >s2.txt 2>/dev/null && cmp "$SCRATCH/s1.txt" s2.txt &&
	lperf report -i "$SCRATCH/f.data" --stdio --sort dso,sym >r2.txt 2>/dev/null && cmp "$SCRATCH/r1.txt" r2.txt &&
	lperf report -i "$SCRATCH/f.data" --stdio --no-children --sort dso,sym >self.txt 2>/dev/null &&
	sym=$(grep -Eo "\[k\] $pattern$" self.txt | head -1 | cut -c5-) &&
	if [ -n "$sym" ]; then
		echo "annotate $sym" && lperf annotate -i "$SCRATCH/f.data" --stdio "$sym" >a.txt 2>a.err &&
		expect_grep "not annotated: kernel code a KSYMBOL named \(a BPF program\)" a.err
	else echo "# the programs have no samples of their own (only callers): annotate not asked"; fi
'

if have_perf; then
test_expect_success 'perf report and perf script of the same file name the programs as lperf does' '
	test -s "$SCRATCH/f.data" &&
	if ! perf_reads "$SCRATCH/f.data"; then cat "$SCRATCH/f.data.err"; echo "# perf cannot read it (above)"; exit 0; fi &&
	perf report -i "$SCRATCH/f.data" --stdio --sort dso,sym >pr.txt 2>/dev/null &&
	steady "$SCRATCH/f.data" pr.txt >prow.txt && steady "$SCRATCH/f.data" "$SCRATCH/r1.txt" >lrow.txt &&
	cat prow.txt && cmp prow.txt lrow.txt &&
	perf script -i "$SCRATCH/f.data" >ps.txt 2>/dev/null &&
	steady "$SCRATCH/f.data" ps.txt >pb.txt && steady "$SCRATCH/f.data" "$SCRATCH/s1.txt" >lb.txt && cmp pb.txt lb.txt
'

fi

test_expect_success 'record --no-bpf-event: no bpf_event (KSYMBOLs kept), as perf records it' '
	lperf record --no-bpf-event -q -e cpu-clock -o n.data -- true 2>/dev/null &&
	lperf evlist -v -i n.data >ev.txt 2>&1 && expect_grep "ksymbol: 1" ev.txt && expect_no_grep "bpf_event" ev.txt &&
	have_perf || exit 0
	perf record --no-bpf-event -q -e cpu-clock -o pn.data -- true 2>/dev/null &&
	perf evlist -v -i pn.data 2>/dev/null | tr "," "\n" | grep -E "ksymbol|bpf_event" | sed "s/^ *//" >p.bits &&
	perf evlist -v -i n.data 2>/dev/null | tr "," "\n" | grep -E "ksymbol|bpf_event" | sed "s/^ *//" >l.bits &&
	cat l.bits && diff p.bits l.bits
'

test_done
