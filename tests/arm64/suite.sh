#!/bin/sh
# The Arm suite, run inside the emulated Arm64 machine by tests/arm64/check.sh (through
# scripts/arm64-vm.sh): the unit tests built for aarch64, then end-to-end tests of lperf's
# hardware-counter paths on the emulator's armv8_pmuv3 PMU, with known answers from deterministic
# instruction counts (-icount). Prints TAP lines: "ok N - title" / "not ok N - title".
# Files (from --add): loop, shares (static), shares-fp, shares-dwarf, calls (dynamic), leafloop,
# unit/, fixtures/, perf_docs.py, perf-shell/ (perf 6.1's shell tests, adapted copies),
# arm-data/ (Arm's PMU data for wperf man, when the host has it).
cd /work || exit 1
n=0 failed=0
LOG=/tmp/suite.log
t() { # t TITLE COMMAND...: one test; its output is shown when it fails
	n=$((n + 1))
	if "$@" >$LOG 2>&1; then
		echo "ok $n - $T"
	else
		failed=$((failed + 1))
		echo "not ok $n - $T"
		sed 's/^/#   /' $LOG | tail -n 25
	fi
}
fail() { echo "FAIL: $*"; return 1; }
has() { grep -qE -- "$1" "$2" || { echo "no line matching '$1' in $2:"; cat "$2"; return 1; }; }

# --- unit tests built for aarch64: one TAP line per cmocka test.
export FIXTURES=/work/fixtures
# Unit tests that need what the guest does not carry are skipped, with the reason.
unit_skip() {
	case "$1" in
	test_symbols) echo "builds its ELF fixtures with cc, objcopy and strip: no toolchain in the guest" ;;
	test_jitelf) echo "checks its ELF files with binutils' readelf: no binutils in the guest" ;;
	test_srcline) echo "builds its programs with cc and checks lines with addr2line: no toolchain in the guest (its aarch64 case runs on the host with the cross compiler)" ;;
	test_dwarf_funcs) echo "builds its C and C++ programs with cc and g++: no toolchain in the guest" ;;
	test_pfm) echo "x86 libpfm4 tables (skx, zen3): Debian's arm64 libpfm4 carries only Arm's" ;;
	esac
}
for u in unit/test_*; do
	[ -x "$u" ] || continue
	why=$(unit_skip "${u#unit/}")
	if [ -n "$why" ]; then
		n=$((n + 1)); echo "ok $n - arm64 unit ${u#unit/} # skip $why"; continue
	fi
	"$u" >/tmp/unit.log 2>&1
	rc=$?
	name=${u#unit/}
	# Up to cmocka's summary: it lists the failed tests again after "[==========] N test(s) run."
	while read -r line; do
		case "$line" in
		"[==========] "*" run."*) break ;;
		"[       OK ] "*) n=$((n + 1)); echo "ok $n - arm64 unit $name: ${line#\[       OK \] }" ;;
		"[  FAILED  ] "*" test"*) ;;
		"[  FAILED  ] "*) n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - arm64 unit $name: ${line#\[  FAILED  \] }" ;;
		esac
	done </tmp/unit.log
	if [ "$rc" -ne 0 ] && ! grep -q '^\[  FAILED  \]' /tmp/unit.log; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - arm64 unit $name: exit status $rc before its summary"
		tail -n 20 /tmp/unit.log | sed 's/^/#   /'
	fi
done

# --- lperf test reports the PMU, its counters and the CPU.
T="lperf test: armv8_pmuv3 core PMU, its counters and the MIDR"
t sh -c 'lperf test >o && grep -E "pmu.sysfs.core +armv8_pmuv3" o && grep -E "cpu.midr +0x[0-9a-f]{8}" o &&
	grep -E "pmu.gpc_num +7 " o && grep -E "hardware_event.cycles +opens" o'

# --- counting: known answers. loop N retires 4 instructions an iteration.
count() { # count EVENT N: the CSV count of EVENT for ./loop N
	lperf stat -x, -e "$1" -- ./loop "$2" 2>&1 | awk -F, -v e="$1" '$3 == e { print $1 }'
}
# The smallest of three runs: most runs count exactly 4N + 11,612 here, but now and then one
# counts some thousands (once 160,000) more user instructions (seen with either vCPU).
min_count() { # min_count N: the smallest instructions:u of three runs of ./loop N
	m=""
	for _ in 1 2 3; do
		v=$(lperf stat -x, -e instructions:u -- ./loop "$1" 2>&1 >/dev/null | cut -d, -f1)
		echo "loop $1: $v" >&2
		[ -n "$v" ] || return 1
		if [ -z "$m" ] || [ "$v" -lt "$m" ]; then m=$v; fi
	done
	echo "$m"
}
slope_test() {
	a=$(min_count 1000000) && b=$(min_count 3000000) || return 1
	c=$((a - 4000000)); d=$((b - a - 8000000)); echo "1M: $a 3M: $b c: $c slope error: $d"
	[ "${d#-}" -le 8000 ] && [ "$c" -gt 0 ] && [ "$c" -lt 100000 ]
}
# On a quiet host the slope is exactly 4 (3M - 1M = 8,000,000). The emulator splits user from
# kernel counts at each exception, and an interrupt that real time drives (not the guest's
# clock) can leave a few user instructions counted twice: a slower CI host counted 8,004,191.
# The test allows 0.1%, which still tells 4 from any other per-iteration count.
T="instructions:u of a loop of N x 4 instructions is 4N + c, for two N (slope 4, within 0.1%)"
t slope_test
T="cycles, instructions, inst_retired, r08, armv8_pmuv3/event=0x8/ all count the same run"
t sh -c 'lperf stat -x, -e cycles,instructions,inst_retired,r08,armv8_pmuv3/event=0x8/ -- ./loop 1000000 >o 2>&1; cat o
	for e in cycles instructions inst_retired r08 armv8_pmuv3/event=0x8/; do
		v=$(awk -F, -v e=$e "\$3 == e { print \$1 }" o); [ -n "$v" ] && [ "$v" -ge 4000000 ] || exit 1
	done
	i=$(awk -F, "\$3 == \"instructions\" { print \$1 }" o); r=$(awk -F, "\$3 == \"r08\" { print \$1 }" o)
	[ $((i > r ? i - r : r - i)) -lt 20000 ]'
T=":u and :k split instructions into user and kernel (u = 4N + c, k > 0)"
t sh -c 'lperf stat -x, -e instructions:u,instructions:k -- ./loop 1000000 >o 2>&1; cat o
	u=$(awk -F, "\$3 == \"instructions:u\" { print \$1 }" o); k=$(awk -F, "\$3 == \"instructions:k\" { print \$1 }" o)
	[ $((u - 4000000)) -gt 0 ] && [ $((u - 4000000)) -lt 400000 ] && [ "$k" -gt 0 ] && [ "$k" -lt "$u" ]'
T="a group {cycles:u,instructions:u} counts both over the same time (one group), instructions = 4N + c"
t sh -c 'lperf stat -x, -e "{cycles:u,instructions:u}" -- ./loop 1000000 >o 2>&1; cat o
	c=$(awk -F, "\$3 == \"cycles:u\" { print \$4 }" o); r=$(awk -F, "\$3 == \"instructions:u\" { print \$4 }" o)
	i=$(awk -F, "\$3 == \"instructions:u\" { print \$1 }" o)
	[ -n "$c" ] && [ "$c" = "$r" ] && [ "$i" -ge 4000000 ] && [ "$i" -lt 4400000 ] &&
	awk -F, "\$3 ~ /:u\$/ && \$5 != \"100.00\" { exit 1 }" o'
T="12 events on 7 counters multiplex: running below 100%, scaled instructions:u within 2%"
t sh -c 'E=instructions:u; for i in 1 2 3 4 5 6 7 8 9 10 11; do E=$E,inst_retired; done
	lperf stat -x, -e $E -- ./loop 20000000 >o 2>&1; cat o
	base=$(lperf stat -x, -e instructions:u -- ./loop 20000000 2>&1 >/dev/null | cut -d, -f1)
	awk -F, -v base="$base" "\$3 == \"instructions:u\" { d = \$1 - base; if (d < 0) d = -d;
		print \"scaled\", \$1, \"unmultiplexed\", base, \"running\", \$5;
		ok = (\$5 < 100 && \$5 > 0 && d < base * 0.02) } END { exit !ok }" o'
T="the text view of multiplexed events shows running percentages after the counts, as perf"
t sh -c 'E=cycles; for i in 1 2 3 4 5 6 7 8 9 10; do E=$E,inst_retired; done
	lperf stat -e $E -- ./loop 5000000 >o 2>&1; cat o; grep -E "inst_retired .*  \([0-9.]+%\)$" o'
T="Arm metric on these events: a metric over cycles and inst_retired is computed"
t sh -c 'lperf list --metrics >l 2>&1 || lperf list >l 2>&1; for m in $(awk "{print \$1}" l | grep -ixE "ipc|cpi|instructions_per_cycle"); do
	lperf stat -M $m -- ./loop 1000000 >o 2>&1 && cat o && exit 0; done
	lperf stat -e cycles,instructions -- ./loop 1000000 >o 2>&1; cat o; grep -E "insn per cycle|IPC|ipc" o'
T="stat --prometheus in the guest: /metrics serves cycles and instructions, and lperf_ipc is their ratio"
t sh -c 'rm -f stop m; lperf stat --prometheus 127.0.0.1:9464 -e cycles,instructions -- sh -c "./loop 1000000; while [ ! -e stop ]; do sleep 0.1; done" 2>err & p=$!
	ev() { sed -n "s/^lperf_event_total{event=\"$1\",pmu=\"[^\"]*\"} //p" m; }
	i=0; until wget -q -O m http://127.0.0.1:9464/metrics && [ "$(ev instructions)" -ge 4000000 ] 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 600 ] || { touch stop; wait $p; cat err m; exit 1; }; sleep 0.1; done
	touch stop; wait $p; cat m
	c=$(ev cycles); n=$(ev instructions); ipc=$(sed -n "s/^lperf_ipc //p" m)
	grep -q "^# TYPE lperf_ipc gauge$" m && [ "$c" -gt 0 ] &&
	awk -v c="$c" -v n="$n" -v x="$ipc" "BEGIN { d = x - n / c; if (d < 0) d = -d; exit !(d < 1e-4 * n / c) }"'
T="an Arm metric needing events the PMU lacks (imix: inst_spec, ld_spec) is refused clearly"
t sh -c 'lperf stat -M imix -- ./loop 1000 >o 2>&1; cat o; grep -E "not supported|unknown event|not counted" o'

# --- sampling on hardware events. QEMU 7.2 notices an event counter's overflow only when it
# re-evaluates the PMU (a cycle-counter timer, a change of exception level), so instructions:u is
# sampled together with cycles:u: under -icount both count the same instructions and overflow
# together. The shares are read from instructions:u's own samples.
shares_of() { # shares_of FILE EVENT: "sym count" per symbol of EVENT's samples in `lperf script`
	lperf script -i "$1" | awk -v e="$2:" '$0 ~ " " e " " || $0 ~ " " e "$" { for (i = 1; i <= NF; i++) if ($i == e) { s = $(i + 2); sub(/\+.*/, "", s); c[s]++; t++ } }
		END { for (s in c) printf "%s %d %.2f\n", s, c[s], 100 * c[s] / t }'
}
shares_test() {
	lperf record -e cycles:u,instructions:u -c 100000 -o p.data -- ./shares >/dev/null 2>&1 || return 1
	lperf script -i p.data >s.txt || return 1
	awk '{ for (i = 1; i < NF; i++) if ($i == "instructions:u:") { s = $(i + 2); sub(/\+.*/, "", s); c[s]++; t++ } }
		END { for (s in c) printf "%s %d %.2f\n", s, c[s], 100 * c[s] / t }' s.txt >s
	cat s
	awk '$1 == "work_a" { a = $3 } $1 == "work_b" { b = $3 } $1 == "work_c" { c = $3 } $1 ~ /^work/ { n += $2 }
		END { d = a - 60; if (d < 0) d = -d; e = b - 30; if (e < 0) e = -e; f = c - 10; if (f < 0) f = -f;
		exit !(n >= 900 && d <= 1 && e <= 1 && f <= 1) }' s
}
T="record -e instructions:u -c 100000: work_a/b/c get 60/30/10% of samples, each within 1 point"
t shares_test
# The kernel starts a -F event at period 1 and re-estimates the period at each sample, moving
# an eighth of the way: here it overshoots to 4.2M-4.6M instructions by the 7th sample and comes
# down slowly, so the first dozen samples carry 1.2M-4.6M where the steady state's carry 1M. On a
# short run (32M instructions, 20 samples) those few heavy samples decided the hottest
# function (work_b in 3 of 12 runs); 1,500 slices (243M instructions, 243 ms of virtual time
# under -icount) make them a small part. The count is deterministic (86-88 for 100M).
T="record -F 1000 samples cycles:u at about 1 kHz of (virtual) time, hottest in work_a"
t sh -c 'lperf record -F 1000 -e cycles:u -o f.data -- ./shares 1500 >/dev/null 2>&1; lperf report -i f.data --stdio >r 2>&1; cat r
	n=$(sed -n "s/^# Samples: \([0-9]*\).*/\1/p" r); echo "samples: $n"; [ "$n" -ge 120 ] && [ "$n" -le 500 ] && grep -m1 -E "%" r | grep work_a'
T="frame-pointer call graph: work_a <- run_a <- main"
t sh -c 'lperf record -g -e cycles:u -c 100000 -o g.data -- ./shares-fp 50 >/dev/null 2>&1; lperf report -i g.data --folded >r 2>&1; head r
	awk "/main;run_a;work_a [0-9]+\$/ { a += \$NF } /work_a [0-9]+\$/ { t += \$NF } END { print a, t; exit !(t > 0 && a >= 0.9 * t) }" r'
T="DWARF call graph (no frame pointers): work_b <- run_b <- main"
t sh -c 'lperf record --call-graph dwarf -e cycles:u -c 100000 -o d.data -- ./shares-dwarf 50 >/dev/null 2>&1; lperf report -i d.data --folded >r 2>&1; head r
	awk "/main;run_b;work_b [0-9]+\$/ { a += \$NF } /work_b [0-9]+\$/ { t += \$NF } END { print a, t; exit !(t > 0 && a >= 0.9 * t) }" r'
T="wperf record -e inst_retired:PERIOD -c 0 (WindowsPerf's form, as wperf) samples and reports work_a"
t sh -c 'ln -sf "$(command -v lperf)" /tmp/wperf; /tmp/wperf record -e inst_retired:100000,cpu_cycles:100000 -c 0 -- ./shares 200 >o 2>&1; cat o | head -30; grep -E "work_a" o'
# wperf man on this machine: its core (QEMU's max CPU, which Arm's data does not name) is
# armv8-a, and the page comes from Arm's data (scripts/arm-data.sh's, carried in as arm-data/).
man_test() {
	ln -sf "$(command -v lperf)" /tmp/wperf
	LPERF_ARM_DATA=/work/arm-data /tmp/wperf man inst_spec >o 2>&1 || { cat o; return 1; }
	cat o
	LPERF_ARM_DATA=/work/arm-data /tmp/wperf man armv8-a/inst_spec >o2 2>&1 || { cat o2; return 1; }
	cmp o o2 && grep -A1 "^CPU\$" o | grep -qx "    armv8-a" &&
		has "^    inst_spec - Operation speculatively executed\$" o
}
if [ -f arm-data/mapfile.csv ]; then
	T="wperf man inst_spec on this Arm machine: armv8-a's page from Arm's data, as wperf man armv8-a/inst_spec"
	t man_test
else
	n=$((n + 1)); echo "ok $n - wperf man on this Arm machine # skip no build/arm-data (scripts/arm-data.sh needs a linux-source)"
fi

T="the vDSO on aarch64: samples in [vdso] are named __kernel_clock_gettime"
t sh -c 'lperf record -e cycles:u -c 10007 -o v.data -- ./calls vdso 200000 >/dev/null 2>&1; lperf report -i v.data --stdio >r 2>&1; head -20 r
	grep -E "[0-9.]+%.*\[vdso\] +\[\.\] __kernel_clock_gettime" r'
T="PLT stubs on aarch64 (.plt): samples in the stub are named strlen@plt"
t sh -c 'lperf record -e cycles:u -c 1009 -o p.data -- ./calls plt 300000 >/dev/null 2>&1; lperf report -i p.data --stdio >r 2>&1; head -20 r
	grep -E "[0-9.]+%.* calls +\[\.\] strlen@plt" r'
python_test() {
	lperf record --python -g -e cycles:u -c 200000 -o py.data -- python3.13 perf_docs.py 300000 >/dev/null 2>&1 || return 1
	lperf report -i py.data --folded >r || return 1
	awk '/py::foo/ { t += $NF; if ($0 ~ /py::<module>[^;]*;(.*;)?py::baz[^;]*;(.*;)?py::bar[^;]*;(.*;)?py::foo/) a += $NF }
		END { print "foo samples:", t, "under <module>;baz;bar:", a; exit !(t >= 100 && a >= 0.9 * t) }' r
}
inject_test() {
	lperf record -q --call-graph dwarf -e cycles:u -c 500000 -o in.data -- python3.13 -X perf_jit perf_docs.py 100000 || return 1
	lperf inject -v -j -i in.data -o out.data 2>err || { cat err; return 1; }
	cat err
	so=$(ls /tmp/jitted-*.so | head -n 1); [ -n "$so" ] || return 1
	# ELF, 64-bit, little-endian, e_machine 183 (EM_AARCH64)
	od -A d -t u1 -N 20 "$so" | head -n 2
	[ "$(od -A n -t u1 -j 18 -N 2 "$so" | awk '{ print $1, $2 }')" = "183 0" ] || return 1
	lperf report -i out.data --sort sym >rc 2>&1; head -n 20 rc; grep -E "py::foo" rc
}
if command -v python3.13 >/dev/null; then
	T="record --python on CPython 3.13: foo <- bar <- baz <- <module> in >= 90% of foo's samples"
	t python_test
	T="inject -j of a CPython 3.13 -X perf_jit recording writes aarch64 ELF files; report names py::foo"
	t inject_test
fi
# --- frame-pointer chains: the caller of a leaf without a frame record, from the link register
leaf_test() {
	lperf record --call-graph fp -e cycles//u --user-callchains -o lf.data -- ./leafloop 5000000 || return 1
	lperf script -i lf.data -F comm,ip,sym >s || return 1
	head -n 12 s
	tr '\n' ' ' <s | grep -Eq "leafloop[[:space:]]+ [[:xdigit:]]+ leaf[[:space:]]+ [[:xdigit:]]+ parent[[:space:]]+ [[:xdigit:]]+ leafloop"
}
if [ -x leafloop ]; then
	T="record --call-graph fp: leaf <- parent <- leafloop (parent from the sampled link register)"
	t leaf_test
fi

# --- perf 6.1's own shell tests for Arm machines, lperf as perf (a symlink first in PATH; an
# lscpu that says aarch64, which busybox lacks). Exit 0 pass, 2 skip, else fail.
if [ -d perf-shell ]; then
	mkdir -p /tmp/pbin
	ln -sf "$(command -v lperf)" /tmp/pbin/perf
	printf '#!/bin/sh\necho "Architecture:                    aarch64"\n' >/tmp/pbin/lscpu
	chmod 755 /tmp/pbin/lscpu
	for s in perf-shell/*.sh; do
		[ -f "$s" ] || continue
		n=$((n + 1))
		(cd /tmp && PATH=/tmp/pbin:$PATH timeout 300 sh "/work/$s") >/tmp/ps.log 2>&1
		rc=$?
		if [ "$rc" -eq 0 ]; then
			echo "ok $n - perf shell ${s#perf-shell/}"
		elif [ "$rc" -eq 2 ]; then
			echo "ok $n - perf shell ${s#perf-shell/} # skip $(grep -v '^ *$' /tmp/ps.log | tail -n 1)"
		else
			failed=$((failed + 1))
			echo "not ok $n - perf shell ${s#perf-shell/} (exit $rc)"
			sed 's/^/#   /' /tmp/ps.log | tail -n 25
		fi
	done
fi
echo "# arm64 suite: $n tests, $failed failed"
[ "$failed" -eq 0 ]
