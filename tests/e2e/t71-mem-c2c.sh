#!/bin/sh
# lperf mem and lperf c2c on Arm SPE and x86 memory-event recordings (docs/mem.md). This machine
# has no PMU: record says so in one line, and its events are checked against fixture sysfs trees
# (Arm SPE, Intel PEBS load latency, AMD IBS); report reads recordings built from SPE packet
# streams (tests/unit/test_spe_c2c.c: two threads on two CPUs storing to offsets 0x0 and 0x8 of
# one cache line and loading them from the peer core; tests/unit/test_spe_perfdata.c: t70's
# recording) and from x86 samples with data sources (tests/unit/test_mem_x86.c: the same two
# writers with local HITMs, a loader touching every level), compared byte for byte with perf 6.1's
# perf mem report / perf c2c report --stdio on the same files.
# e2e-class: parallel (mem/c2c on fixture sysfs trees and recordings, compared with perf)
. "$(dirname "$0")/lib.sh"
F="$FIXTURES/sysfs-arm"
GEN="$(dirname "$LPERF")/tests/test_spe_c2c"
GEN70="$(dirname "$LPERF")/tests/test_spe_perfdata"
GENX86="$(dirname "$LPERF")/tests/test_mem_x86"

test_expect_success 'c2c record and mem record without a memory-sampling PMU: one clear line' '
	expect_exit 2 "$LPERF" c2c record -- true 2>err &&
	expect_lines 1 err && expect_grep "no memory-sampling PMU events: Intel.s PEBS .* AMD.s IBS" err &&
	expect_exit 2 "$LPERF" mem record -- true 2>err &&
	expect_lines 1 err && expect_grep "no memory-sampling PMU events" err &&
	expect_exit 2 "$LPERF" mem record -e list 2>err &&
	expect_lines 1 err && expect_grep "no memory-sampling PMU events" err &&
	test ! -e perf.data
'

test_expect_success 'mem/c2c record on Intel (PEBS load latency) and AMD (IBS): perf 6.1 events' '
	I=$FIXTURES/sysfs-intel A=$FIXTURES/sysfs-amd-ibs &&
	LPERF_SYSFS_ROOT=$I lperf mem record -e list 2>err &&
	expect_grep "^ldlat-loads  : available$" err && expect_grep "^ldlat-stores : available$" err &&
	LPERF_SYSFS_ROOT=$I lperf mem record --dry-run -- true >out &&
	expect_grep "^ +cpu/mem-loads,ldlat=30/P +cpu +4 +0x1cd +0x1e +0 " out &&
	expect_grep "^ +cpu/mem-stores/P +cpu +4 +0x82d0 +0 +0 " out &&
	LPERF_SYSFS_ROOT=$I lperf mem record -t store --ldlat 50 --dry-run -- true >out &&
	expect_no_grep "mem-loads" out && expect_grep "cpu/mem-stores/P" out &&
	LPERF_SYSFS_ROOT=$I lperf mem record -e ldlat-loads --ldlat 50 --dry-run -- true >out &&
	expect_grep "^ +cpu/mem-loads,ldlat=50/P +cpu +4 +0x1cd +0x32 " out && expect_no_grep "mem-stores" out &&
	expect_exit 2 env LPERF_SYSFS_ROOT=$I "$LPERF" mem record -e spe-load -- true 2>err &&
	expect_lines 1 err && expect_grep "not a memory event" err &&
	LPERF_SYSFS_ROOT=$I lperf c2c record --dry-run -- true >out &&
	expect_grep "cpu/mem-loads,ldlat=30/P" out && expect_grep "cpu/mem-stores/P" out &&
	LPERF_SYSFS_ROOT=$A lperf mem record -e list 2>err && expect_grep "^mem-ldst     : available$" err &&
	LPERF_SYSFS_ROOT=$A lperf c2c record --dry-run -- true >out &&
	expect_grep "^ +ibs_op// +ibs_op +11 " out &&
	LPERF_SYSFS_ROOT=$A lperf mem record -t store --dry-run -- true >out && expect_grep "ibs_op//" out
'

test_expect_success 'record -d -W --phys-data --data-page-size -R: the sample fields perf records' '
	lperf record -q -d -W --phys-data --data-page-size -R -T -P --sample-cpu -e cpu-clock -o d.data -- true &&
	"$LPERF" evlist -v -i d.data >ev.txt &&
	expect_grep "ADDR" ev.txt && expect_grep "DATA_SRC" ev.txt && expect_grep "WEIGHT_STRUCT" ev.txt &&
	expect_grep "PHYS_ADDR" ev.txt && expect_grep "DATA_PAGE_SIZE" ev.txt && expect_grep "RAW" ev.txt &&
	expect_grep "mmap_data: 1" ev.txt &&
	if command -v perf >/dev/null; then
		perf record -q -d -W --phys-data --data-page-size -R -e cpu-clock -o p.data -- true 2>/dev/null &&
		perf evlist -v -i p.data 2>/dev/null | grep -o "sample_type: [A-Z_|]*" | tr "|" "\n" | sort >p.bits &&
		perf evlist -v -i d.data 2>/dev/null | grep -o "sample_type: [A-Z_|]*" | tr "|" "\n" | sort >l.bits &&
		# lperf also records each sample'"'"'s CPU, as it always does
		grep -v "^CPU$" l.bits >l2.bits && grep -v "^CPU$" p.bits >p2.bits && diff p2.bits l2.bits
	fi
'

test_expect_success 'c2c record and mem record -t/--ldlat encode perf 6.1 arm64 SPE events' '
	LPERF_SYSFS_ROOT=$F lperf c2c record --dry-run -- true >out &&
	expect_grep "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=1,min_latency=30/ +arm_spe_0 +11 +0x600000003 +0 +0x1e " out &&
	LPERF_SYSFS_ROOT=$F lperf mem record -t load --dry-run -- true >out &&
	expect_grep " 0x200000003 +0 +0x1e " out &&
	LPERF_SYSFS_ROOT=$F lperf mem record --type=store --dry-run -- true >out &&
	expect_grep "store_filter=1/ +arm_spe_0 +11 +0x400000003 +0 +0 " out &&
	LPERF_SYSFS_ROOT=$F lperf mem record --ldlat 64 --dry-run -- true >out &&
	expect_grep " 0x600000003 +0 +0x40 " out &&
	expect_exit 2 "$LPERF" mem record -t bogus -- true 2>err && expect_lines 1 err &&
	expect_exit 2 "$LPERF" c2c bogus 2>err && expect_grep "unknown subcommand" err
'

test_expect_success 'mem and c2c report refuse a recording without memory samples in one line' '
	expect_exit 2 "$LPERF" c2c report -i "$FIXTURES/perfdata/perf61-cpu-clock.data" --stdio 2>err &&
	expect_lines 1 err && expect_grep "holds no memory samples" err &&
	expect_exit 2 "$LPERF" mem report -i "$FIXTURES/perfdata/perf61-cpu-clock.data" 2>err &&
	expect_lines 1 err && expect_grep "holds no memory samples" err
'

if [ ! -x "$GEN" ] || [ ! -x "$GEN70" ] || [ ! -x "$GENX86" ]; then
	test_skip 'SPE recordings' "no $GEN (make unit)"
	test_done; exit
fi

test_expect_success 'c2c report names the falsely shared line, both offsets and both functions' '
	LPERF_SPE_C2C_OUT=$PWD/c2c.data "$GEN" >/dev/null &&
	lperf c2c report -i c2c.data --stdio --no-source -d peer >c.txt &&
	expect_grep "^  Total Shared Cache Lines +: +1$" c.txt &&
	expect_grep "^  Load HIT Local Peer +: +4$" c.txt &&
	expect_grep "^ +0 +0x7ffd00004000 +N/A +0 +100.00% +4 +4 +0 +10 +4 +6 " c.txt &&
	awk "/Distribution Pareto/ { p = 1 } p" c.txt >pareto &&
	expect_grep "^ +0.00% +50.00% .* 0x0 +N/A +0 +0x[0-9a-f]+ +0 +100 +0 +2 +1  \[\.\] c2c_writer_a " pareto &&
	expect_grep "^ +0.00% +50.00% .* 0x8 +N/A +0 +0x[0-9a-f]+ +0 +260 +0 +2 +1  \[\.\] c2c_writer_b " pareto &&
	expect_grep "50.00% +0x0 .* \[\.\] c2c_writer_a" pareto &&
	expect_grep "50.00% +0x8 .* \[\.\] c2c_writer_b" pareto &&
	test "$(grep -c "c2c_writer_" pareto)" -eq 4
'

# perf ends report output with a random tip: drop it and the "#" lines around it
untip() { sed "/^# (/d" "$1" | awk "{ l[NR] = \$0 } END { n = NR; while (n > 0 && (l[n] == \"#\" || l[n] == \"\")) n--; for (i = 1; i <= n; i++) print l[i] }"; }

if ! command -v perf >/dev/null 2>&1; then
	test_skip 'perf 6.1 reads the same recordings' 'no perf'
	test_done; exit
fi

test_expect_success 'x86 memory events: mem report names every level, c2c report the HITM line' '
	LPERF_MEM_X86_OUT=$PWD/x86.data "$GENX86" >/dev/null &&
	lperf mem report -i x86.data --stdio >m.txt &&
	expect_grep "^# Samples: 17  of event .cpu/mem-loads,ldlat=30/P.$" m.txt &&
	expect_grep "^# Samples: 6  of event .cpu/mem-stores/P.$" m.txt &&
	expect_grep "^ +10.75% +2  120 +L3 or L3 hit +\[\.\] mem_x86_writer_a .* HitM +L1 hit +N/A +N/A +131 " m.txt &&
	expect_grep " 45 +LFB/MAB or LFB/MAB hit " m.txt &&
	expect_grep " 36 +L1 or L1 hit .* Yes +N/A +38 " m.txt &&
	expect_grep " 66 +L2 or L2 hit .* N/A +Data +70 " m.txt &&
	lperf c2c report -i x86.data --stdio --no-source >c.txt &&
	expect_grep "^  Load Local HITM +: +4$" c.txt && expect_grep "^  Load Remote HITM +: +1$" c.txt &&
	expect_grep "^  Cachelines sort on +: Total HITMs$" c.txt &&
	expect_grep "^ +0 +0x7ffd00014000 +N/A +0 +80.00% +4 +4 +0 +10 +4 +6 " c.txt &&
	awk "/Distribution Pareto/ { p = 1 } p" c.txt >pareto &&
	expect_grep "^ +0.00% +50.00% .* 0x0 +N/A +0 +0x[0-9a-f]+ +0 +120 +0 +5 +1  \[\.\] mem_x86_writer_a " pareto &&
	expect_grep "^ +0.00% +50.00% .* 0x8 +N/A +0 +0x[0-9a-f]+ +0 +140 +0 +5 +1  \[\.\] mem_x86_writer_b " pareto
'

test_expect_success 'c2c report --stdio: the same text as perf c2c report, every display' '
	LPERF_SPE_C2C_OUT=$PWD/c2c.data "$GEN" >/dev/null &&
	for d in "" "-d peer" "-d tot" "-d lcl" "-d rmt" "--no-source" "-d peer --no-source"; do
		perf c2c report -i c2c.data --stdio $d >p.txt 2>/dev/null &&
		lperf c2c report -i c2c.data --stdio $d >l.txt &&
		expect_grep "Shared Data Cache Line Table" p.txt &&
		diff p.txt l.txt || return 1
	done &&
	lperf c2c report -i c2c.data --stdio -d peer >l.txt &&
	expect_grep "^ .* \[\.\] c2c_writer_a  test_spe_c2c  test_spe_c2c.c:[0-9]+ +0$" l.txt &&
	LPERF_SPE_OUT=$PWD/spe.data "$GEN70" >/dev/null &&
	perf c2c report -i spe.data --stdio -d peer >p.txt 2>/dev/null &&
	lperf c2c report -i spe.data --stdio -d peer >l.txt &&
	expect_grep "^  Load HIT Remote Peer +: +1$" l.txt && diff p.txt l.txt &&
	LPERF_MEM_X86_OUT=$PWD/x86.data "$GENX86" >/dev/null &&
	for d in "" "-d peer" "-d tot" "-d lcl" "-d rmt" "--no-source"; do
		perf c2c report -i x86.data --stdio $d >p.txt 2>/dev/null &&
		lperf c2c report -i x86.data --stdio $d >l.txt &&
		expect_grep "Shared Data Cache Line Table" p.txt &&
		diff p.txt l.txt || return 1
	done
'

test_expect_success 'two NUMA nodes (a sysfs tree with CPU 0 on node 0, CPU 1 on node 1): the Node column as perf' '
	for n in 0 1; do
		mkdir -p sys/devices/system/node/node$n &&
		echo $n >sys/devices/system/node/node$n/cpulist &&
		printf "Node $n MemTotal: 1000 kB\nNode $n MemFree: 500 kB\n" >sys/devices/system/node/node$n/meminfo || return 1
	done &&
	echo 0-1 >sys/devices/system/node/online &&
	mkdir -p sys/devices/system/cpu && echo 0-1 >sys/devices/system/cpu/present &&
	LPERF_SYSFS_ROOT=$PWD/sys LPERF_SPE_C2C_OUT=$PWD/c2n.data "$GEN" >/dev/null &&
	perf c2c report -i c2n.data --stdio --no-source -d peer >p.txt 2>/dev/null &&
	lperf c2c report -i c2n.data --stdio --no-source -d peer >l.txt &&
	expect_grep "c2c_writer_b +test_spe_c2c +1$" l.txt && expect_grep "c2c_writer_a +test_spe_c2c +0$" l.txt &&
	diff p.txt l.txt
'

test_expect_success 'mem report --stdio: the same tables as perf mem report' '
	LPERF_SPE_C2C_OUT=$PWD/c2c.data "$GEN" >/dev/null &&
	LPERF_SPE_OUT=$PWD/spe.data "$GEN70" >/dev/null &&
	LPERF_MEM_X86_OUT=$PWD/x86.data "$GENX86" >/dev/null &&
	for f in c2c.data x86.data spe.data; do
		perf mem report -i $f --stdio >p.raw 2>/dev/null &&
		lperf mem report -i $f --stdio >l.raw &&
		untip p.raw >p.txt && untip l.raw >l.txt &&
		expect_grep "of event .(memory|cpu/mem-loads,ldlat=30/P)." p.txt &&
		diff p.txt l.txt || return 1
	done &&
	for f in c2c.data x86.data spe.data; do
		for o in "-D" "-D -x ," "-D -U" "-D -p" "-p -D -x :"; do
			perf mem report -i $f $o >p.txt 2>/dev/null &&
			lperf mem report -i $f $o >l2.txt &&
			expect_grep "^# PID, TID, IP, ADDR, " l2.txt && diff p.txt l2.txt || return 1
		done
	done &&
	lperf mem report -i x86.data -D >raw.txt && expect_lines 24 raw.txt &&
	expect_grep "^ 6000  6001 0x0000[0-9a-f]+ 0x0167ffd00014000 +0 0x5080144 .*/test_mem_x86:mem_x86_writer_a$" raw.txt &&
	expect_grep "^6000 6001 0x[0-9a-f]+ 0x7ffd00014200 510 0x[0-9a-f]+ .*:mem_x86_walker$" raw.txt &&
	expect_exit 2 "$LPERF" mem report -i x86.data -x , 2>err && expect_grep "go with -D" err &&
	expect_grep "^# Samples: 1  of event .branch-miss.$" l.txt &&
	expect_grep "Remote N/A or N/A .* Peer +Walker miss " l.txt
'

test_done
