#!/bin/sh
# perf 6.1's spellings that its own shell tests use (issue 20), compared with perf on the same
# command or file: event syntax (NAME//MODIFIERS, weak groups), record, report and script options.
# e2e-class: parallel (perf's spellings on the same command or file, -D a bound; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"

have_perf() { command -v perf >/dev/null && perf version >/dev/null 2>&1; }
# The event column of `stat -x,` (the third field).
events_of() { awk -F, 'NF > 3 { print $3 }' "$1"; }
# A PLT slot perf 6.1 leaves unnamed ("@plt") lperf names ("__tunable_get_val@plt",
# docs/annotate.md); a sample lands in one (ld.so or libc starting a program) now and then:
# noplt writes every PLT slot's name as "@plt", and same_text P L compares two outputs so.
noplt() { sed "s/[^ ;,]*@plt/@plt/" "$@"; }
same_text() { noplt "$1" >"$1.noplt" && noplt "$2" >"$2.noplt" && diff "$1.noplt" "$2.noplt"; }

test_expect_success 'events: NAME//MODIFIERS counts as NAME:MODIFIERS and is named as perf names it' '
	lperf stat -x, -e task-clock//u,page-faults//,page-faults//k true >l.csv 2>&1 &&
	events_of l.csv >l.ev &&
	printf "task-clock//u\npage-faults//\npage-faults//k\n" >want &&
	diff want l.ev &&
	if have_perf; then
		perf stat -x, -e task-clock//u,page-faults//,page-faults//k true 2>p.csv &&
		events_of p.csv >p.ev && diff p.ev l.ev
	fi &&
	k=$(awk -F, "\$3 == \"page-faults//k\" { print \$1 }" l.csv) &&
	u=$(awk -F, "\$3 == \"page-faults//\" { print \$1 }" l.csv) &&
	[ "$u" -gt "$k" ]
'

test_expect_success 'events: a weak group {a,b}:W counts, named as perf names its members' '
	lperf stat -x, -e "{task-clock,page-faults}:W,{task-clock,context-switches}:uW" true >l.csv 2>&1 &&
	events_of l.csv >l.ev &&
	printf "task-clock\npage-faults\ntask-clock:u\ncontext-switches:u\n" >want && diff want l.ev &&
	awk -F, "\$3 == \"page-faults\" && \$1 > 0 { ok = 1 } END { exit !ok }" l.csv &&
	if have_perf; then
		perf stat -x, -e "{task-clock,page-faults}:W" true 2>p.csv &&
		events_of p.csv >p.ev && head -n 2 l.ev >l2.ev && diff p.ev l2.ev
	fi
'

test_expect_success 'events: W twice, or W on nothing, is refused with perf-like reasons' '
	expect_exit 2 lperf stat -e "{task-clock}:WW" true 2>err &&
	expect_grep "invalid modifier .WW." err &&
	expect_exit 2 lperf stat -e "nosuchevent//u" true 2>err &&
	expect_grep "nosuchevent" err
'

# The attr bits perf evlist -v shows for a recording, one per line, sorted (NAME: VALUE).
attr_bits() { perf evlist -v -i "$1" | tr ',' '\n' | sed 's/^ *//' | grep -E "^($2):" | sort; }

spin() { # a CPU-bound program running $1 ms
	[ -x ./spin ] || printf '%s\n' '#include <stdlib.h>' '#include <time.h>' \
		'int main(int c, char **v) { struct timespec a, b; long ms = c > 1 ? atol(v[1]) : 300;' \
		'clock_gettime(CLOCK_MONOTONIC, &a); do clock_gettime(CLOCK_MONOTONIC, &b);' \
		'while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms); return 0; }' |
		cc -O1 -x c -o spin - || return 1
	./spin "$@"
}

test_expect_success 'record --per-thread: no inherit, the first thread only, perf reads it' '
	lperf record --per-thread -e task-clock -o l.data -- sh -c "true; ls >/dev/null" 2>err &&
	have_perf || exit 0
	perf record --per-thread -e task-clock -o p.data -- sh -c "true; ls >/dev/null" 2>/dev/null &&
	attr_bits l.data "inherit|enable_on_exec" >l.bits && attr_bits p.data "inherit|enable_on_exec" >p.bits &&
	diff p.bits l.bits &&
	perf report -i l.data -q --sort comm 2>perr >l.rep && ! [ -s perr ] &&
	expect_grep "sh" l.rep && expect_no_grep "ls" l.rep
'

test_expect_success 'record --user-callchains, --all-user, --all-kernel set the attr bits perf sets' '
	have_perf || exit 0
	for o in "--user-callchains -g" --all-user --all-kernel; do
		lperf record $o -e task-clock -o l.data true 2>/dev/null &&
		perf record $o -e task-clock -o p.data true 2>/dev/null &&
		attr_bits l.data "exclude_[a-z_]*" >l.bits && attr_bits p.data "exclude_[a-z_]*" | grep -v exclude_guest >p.bits &&
		echo "$o: $(cat l.bits)" && diff p.bits l.bits || exit 1
	done &&
	perf evlist -i l.data >l.names && perf evlist -i p.data >p.names && diff p.names l.names
'

# -D's known answer is a bound, not a share of samples (a loaded machine gives the program less
# CPU in either part): the program prints when it started (CLOCK_MONOTONIC, the recording's clock
# with -k mono), and no sample is older than 150 ms after that, less the few ms from the command's
# start to its main(). The command is named in the report though its exec came before the events
# were enabled.
test_expect_success 'record -D MS enables the events MS ms after the start; -D -1 never' '
	printf "%s\n" "#include <stdio.h>" "#include <stdlib.h>" "#include <time.h>" \
		"int main(int c, char **v) { struct timespec a, b; long ms = c > 1 ? atol(v[1]) : 300;" \
		"clock_gettime(CLOCK_MONOTONIC, &a); fprintf(stderr, \"start %ld.%09ld\\n\", (long)a.tv_sec, a.tv_nsec);" \
		"do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);" \
		"return 0; }" | cc -O1 -x c -o tspin - &&
	lperf record -k mono -D 150 -F 1000 -e task-clock -o d.data ./tspin 400 2>err &&
	expect_grep "^Events disabled" err && expect_grep "^Events enabled" err &&
	start=$(sed -n "s/^start //p" err) && first=$(lperf script -i d.data -F time | head -n 1 | tr -d " :") &&
	echo "started $start, first sample $first" &&
	awk -v s="$start" -v f="$first" "BEGIN { exit !(f - s >= 0.140) }" &&
	lperf report -i d.data --stdio --sort comm 2>/dev/null >rep && expect_grep "%  tspin" rep &&
	lperf record -D -1 -e task-clock -o z.data ./tspin 100 2>err &&
	expect_grep "0 samples" err
'

test_expect_success 'record --intr-regs: perf names the registers, perf script -F iregs reads them' '
	lperf record --intr-regs=\? >l.regs &&
	if have_perf; then perf record --intr-regs=\? 2>&1 | head -n 1 | sed "s/ *$//" >p.regs; diff p.regs l.regs; fi &&
	lperf record --intr-regs=di,r8 -e task-clock -c 100000 -o i.data true 2>/dev/null &&
	have_perf || exit 0
	attr_bits i.data "sample_regs_intr" >bits && expect_grep "0x10020" bits &&
	perf script -F ip,sym,iregs -i i.data >out 2>err && ! [ -s err ] &&
	expect_grep "ABI:2 +DI:0x[0-9a-f]+ +R8:0x" out &&
	expect_exit 2 lperf record --intr-regs=xyz true 2>err && expect_grep "unknown register .xyz." err
'

# --off-cpu records perf's offcpu-time event where lperf's BPF program loads (t67 checks its
# times); where it cannot, the warning is a perf's without BPF skeletons, which scripts skip on.
test_expect_success 'record --off-cpu: the offcpu-time event, or the warning of a perf without BPF skeletons; --no-bpf-event is accepted' '
	lperf record --off-cpu -o o.data --quiet true >out 2>&1 && cat out &&
	if grep -q "BUILD_BPF_SKEL" out; then
		expect_grep "^Warning: option .off-cpu. is being ignored" out
	else
		lperf evlist -i o.data >ev && expect_grep "^offcpu-time$" ev
	fi &&
	lperf record --no-bpf-event -q -o n.data true
'

test_expect_success 'report --stats and --task print what perf prints for the same file' '
	lperf record -z -g -F 2000 -o z.data -- sh -c "dd count=300 if=/dev/urandom of=/dev/null 2>/dev/null; true" 2>/dev/null &&
	lperf report -i z.data --stats >l.stats && expect_grep "COMPRESSED events:" l.stats &&
	expect_grep "^ +TOTAL events: +[0-9]+$" l.stats && expect_grep "stats:$" l.stats &&
	lperf report -i z.data --task >l.task && expect_grep "^ +[0-9]+ +[0-9]+ +-?[0-9]+ \| *dd$" l.task &&
	have_perf || exit 0
	perf report -i z.data --stats >p.stats 2>/dev/null && diff p.stats l.stats &&
	perf report -i z.data --task >p.task 2>/dev/null && diff p.task l.task
'

test_expect_success 'report --stats of a pipe counts the attr, name and feature records, as perf' '
	lperf record -e task-clock -o - -- ls >p.pipe 2>/dev/null &&
	lperf report -i - --stats <p.pipe >l.o && expect_grep "^ +ATTR events: +1 " l.o && expect_grep "FEATURE events:" l.o &&
	have_perf || exit 0
	perf report -i - --stats <p.pipe 2>/dev/null | grep -v "stats:\$" >p.c && grep -v "stats:\$" l.o >l.c && diff p.c l.c
'

test_expect_success 'report --task reads a pipe; --header names the compression as perf does' '
	lperf record -e task-clock:u -o - -- sh -c "true" 2>/dev/null | lperf report -i - --task >t &&
	expect_grep "\| *sh$" t &&
	lperf record -z -o z.data true 2>/dev/null &&
	lperf report -i z.data --header >l.h && expect_grep "^# compressed : Zstd, level = 1, ratio = [0-9]+$" l.h &&
	have_perf || exit 0
	perf report -i z.data --header 2>/dev/null | grep "^# compressed" >p.c && grep "^# compressed" l.h >l.c && diff p.c l.c
'

test_expect_success 'report -F comm,dso,sym shows those columns and no Overhead; -F overhead,sym both' '
	lperf record -F 2000 -o f.data -- dd count=300 if=/dev/urandom of=/dev/null 2>/dev/null &&
	lperf report -i f.data --stdio -F comm,dso,sym >l.f &&
	expect_grep "^# Command +Shared Object +Symbol" l.f && expect_no_grep "Overhead" l.f &&
	expect_grep "^  dd +" l.f &&
	lperf report -i f.data --stdio -F overhead,sym >l.o &&
	expect_grep "^# Overhead +Symbol" l.o &&
	if have_perf; then
		perf report -i f.data --stdio -F comm,dso,sym 2>/dev/null | grep "^# [A-Z]" | tr -s " " | sed "s/ *$//" >p.h &&
		grep "^# [A-Z]" l.f | tr -s " " | sed "s/ *$//" >l.h && diff p.h l.h
	fi
'

test_expect_success 'script -F iregs, -F,-time, --comm, --pid, --tid, -S and --time print what perf prints' '
	lperf record --intr-regs=di,r8 -e task-clock -c 100000 -o s.data -- sh -c "ls >/dev/null; true" 2>/dev/null &&
	lperf script -F ip,sym,iregs -i s.data >l.iregs && expect_grep " ABI:2 +DI:0x[0-9a-f]+ +R8:0x[0-9a-f]+ $" l.iregs &&
	lperf script -F,-time -i s.data >l.notime && expect_no_grep "[0-9]+\.[0-9]{6}:" l.notime &&
	have_perf || exit 0
	perf script -F ip,sym,iregs -i s.data >p.iregs 2>/dev/null && same_text p.iregs l.iregs &&
	perf script -F,-time -i s.data >p.notime 2>/dev/null && same_text p.notime l.notime &&
	for o in "--comm ls" "--comm sh,ls"; do
		lperf script $o -i s.data >l.o && perf script $o -i s.data >p.o 2>/dev/null && same_text p.o l.o || exit 1
	done &&
	pid=$(perf script -F pid -i s.data | tail -n 1 | tr -d " ") &&
	lperf script --pid $pid -i s.data >l.o && perf script --pid $pid -i s.data >p.o 2>/dev/null && same_text p.o l.o &&
	lperf script --tid $pid -i s.data >l.o && perf script --tid $pid -i s.data >p.o 2>/dev/null && same_text p.o l.o &&
	[ -s l.o ] &&
	sym=$(perf script -F ip,sym -i s.data | awk "NR == 2 { print \$2 }") &&
	lperf script -S "$sym" -i s.data >l.o && perf script -S "$sym" -i s.data >p.o 2>/dev/null && same_text p.o l.o && [ -s l.o ] &&
	range=$(perf script -F time -i s.data | sed -n "3p;8p" | tr -d " :" | paste -sd, -) &&
	lperf script --time "$range" -i s.data >l.o && perf script --time "$range" -i s.data >p.o 2>/dev/null &&
	same_text p.o l.o && [ "$(wc -l <l.o)" -ge 5 ] &&
	expect_exit 2 lperf script --time nonsense -i s.data 2>err && expect_grep "not a time range" err
'

test_expect_success 'report --time keeps the samples perf keeps (rows compared sorted: ties order apart)' '
	lperf record -e task-clock -c 100000 -o t.data -- sh -c "ls >/dev/null; true" 2>/dev/null &&
	have_perf || exit 0
	range=$(perf script -F time -i t.data | sed -n "3p;12p" | tr -d " :" | paste -sd, -) &&
	lperf report --time "$range" -i t.data --stdio -q 2>/dev/null | grep % | noplt | sort >l.o &&
	perf report --time "$range" -i t.data --stdio -q 2>/dev/null | grep % | noplt | sort >p.o &&
	diff p.o l.o && [ "$(wc -l <l.o)" -ge 3 ]
'

calls_program() {
	printf '%s\n' '#include <stdlib.h>' 'volatile long s;' \
		'__attribute__((noinline)) void c(long n) { for (long i = 0; i < n; i++) s += i; }' \
		'__attribute__((noinline)) void b(long n) { c(n); c(n / 2); s++; }' \
		'__attribute__((noinline)) void a(long n) { b(n); c(n); s++; }' \
		'int main(int argc, char **argv) { long n = argc > 1 ? atol(argv[1]) : 20000000;' \
		'for (int k = 0; k < 5; k++) { a(n); b(n); } return 0; }' |
		cc -O1 -g -fno-omit-frame-pointer -x c -o calls -
}

test_expect_success 'report -g graph|fractal|flat|folded|caller print what perf prints for the same file' '
	calls_program && lperf record -g -F 999 -e task-clock -o c.data ./calls 2>/dev/null &&
	lperf report -i c.data --stdio -g folded --no-children >l.folded &&
	expect_grep "^[0-9.]+% c;(.*;)?main;__libc_start_call_main$" l.folded &&
	lperf report -i c.data --stdio -g flat --no-children >l.flat &&
	expect_grep "^           [0-9.]+%$" l.flat && expect_grep "^                main$" l.flat &&
	have_perf || exit 0
	for m in graph fractal flat folded caller "fractal,0.5,callee"; do
		lperf report -i c.data --stdio -g $m --no-children --percent-limit 3 2>/dev/null | grep -v "^#" | sed -e :a -e "/^\n*\$/{\$d;N;ba" -e "}" >l.o &&
		perf report -i c.data --stdio -g $m --no-children --percent-limit 3 2>/dev/null | grep -v "^#" | sed -e :a -e "/^\n*\$/{\$d;N;ba" -e "}" >p.o &&
		echo "-g $m" && diff p.o l.o || exit 1
	done
'

test_expect_success 'report -t SEP and -q print what perf prints (rows compared sorted: ties order apart)' '
	lperf record -e task-clock -c 100000 -o t.data -- sh -c "ls >/dev/null; true" 2>/dev/null &&
	lperf report -i t.data -q -s comm -n -t ";" >l.o &&
	expect_no_grep "^#" l.o && awk -F";" "NF == 3 && \$2 + 0 > 0 { ok = 1 } END { exit !ok }" l.o &&
	have_perf || exit 0
	# PLT slots as "@plt" (noplt)
	for o in "-t ;" "-t ; -n -s comm" "-t , -n" "-q -s comm -n -t ;" "-q"; do
		lperf report -i t.data --stdio $o 2>/dev/null | grep -v "^\$" | grep -v "^# [^OC]" | grep -v "^#\$" |
			noplt | sort >l.o &&
		perf report -i t.data --stdio $o 2>/dev/null | grep -v "^\$" | grep -v "^# [^OC]" | grep -v "^#\$" |
			noplt | sort >p.o &&
		echo "$o" && diff p.o l.o || exit 1
	done
'

test_expect_success 'script -G (--hide-call-graph) prints the lines perf prints' '
	calls_program && lperf record -g -F 999 -e task-clock -o g.data ./calls 2000000 2>/dev/null &&
	lperf script -G -i g.data >l.o && expect_no_grep "^	" l.o &&
	have_perf || exit 0
	perf script -G -i g.data >p.o 2>/dev/null && same_text p.o l.o
'

test_expect_success 'record -j/--branch-filter and -b: perf'"'"'s filter words; refused where no PMU records branches, as perf' '
	expect_exit 2 lperf record -j any,nosuch -o b.data true 2>err && expect_grep "unknown branch filter .nosuch." err &&
	if lperf record -j any,save_type,u -e task-clock -o b.data true 2>err; then
		have_perf && perf record -j any,save_type,u -e task-clock -o p.data true 2>/dev/null ||
			fail "lperf recorded branches where perf cannot"
	else
		expect_grep "cannot sample the branch stack of event .task-clock." err &&
		if have_perf; then ! perf record -j any,save_type,u -e task-clock -o p.data true 2>/dev/null; fi &&
		expect_exit 1 lperf record -b -e task-clock -o b.data true 2>err &&
		expect_grep "cannot sample the branch stack" err
	fi
'

test_expect_success 'options: a unique prefix of a long option is that option, as in perf; perf'"'"'s --comms/--dsos' '
	lperf record -e task-clock -c 100000 -o o.data -- sh -c "ls >/dev/null; true" 2>/dev/null &&
	lperf report -i o.data -q --comms ls >a && [ -s a ] && expect_no_grep " sh " a &&
	lperf report -i o.data -q --dsos "[kernel.kallsyms]" >c && [ -s c ] && expect_no_grep "ld-linux" c &&
	lperf report -i o.data -q --dso "[kernel.kallsyms]" >c2 && diff c c2 &&
	# --co is ambiguous in both (perf: --comms or --column-widths; lperf: --comm or --color)
	expect_exit 2 lperf report -i o.data --co ls 2>err && expect_grep "ambiguous option .--co." err &&
	lperf script -i o.data --comms ls >d && lperf script -i o.data --comm ls >e && diff d e &&
	lperf record --all-u -e task-clock -o u.data true 2>/dev/null &&
	expect_exit 2 lperf report -i o.data --s 2>err && expect_grep "ambiguous option .--s. \(could be --sort, " err
'

test_done
