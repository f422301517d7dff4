#!/bin/sh
# wperf stat's outputs pinned line for line: the per-core and System-wide tables, the stat JSON,
# the -t -i -n timeline (its stdout marks, its CSV file and its JSON), compared with the
# golden shapes in tests/fixtures/golden/e2e/ after masking what a run cannot fix (numbers,
# the CPU's name, column padding). The renderers themselves are pinned byte for byte on
# constructed results by tests/unit/test_wperf_out.c.
# e2e-class: parallel (golden shapes with the numbers masked; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
WPERF="$(dirname "$LPERF")/wperf"
GOLDEN="$FIXTURES/golden/e2e"
NCPU=$(getconf _NPROCESSORS_ONLN)
wperf() { "$WPERF" "$@"; }
# Numbers (with their , and . separators) become N, runs of spaces one space.
mask_text() { sed -E 's/on .* core implementation/on VENDOR core implementation/; s/[0-9]+([,.][0-9]+)*/N/g; s/ +/ /g'; }
mask_csv() { sed -E 's/^Vendor,.*/Vendor,VENDOR/; s/[0-9]+/N/g'; }
same() { # same GOLDEN_NAME FILE
	diff -u "$GOLDEN/$1" "$2"
}

if [ "$NCPU" -gt 1 ]; then
test_expect_success 'wperf stat -c 0,1: two core tables and the System-wide Overall table' '
	wperf stat -e cpu-clock,page-faults -c 0,1 --timeout 0.1 >out &&
	mask_text <out >got && same wperf_stat_two_cores.txt got
'
else
test_skip 'wperf stat -c 0,1' 'needs 2 CPUs'
fi

test_expect_success 'wperf stat --json: the stat object' '
	wperf stat -e cpu-clock,page-faults -c 0 --timeout 0.1 --json >out &&
	mask_text <out >got && same wperf_stat_one_core.json got
'

test_expect_success 'wperf stat -t -i -n -v: the marks on stdout and the timeline CSV' '
	wperf stat -e cpu-clock,page-faults -c 0 -t -i 0.1 -n 2 --timeout 0.1 -v >out &&
	mask_text <out >got && same wperf_timeline_v.txt got &&
	cat wperf_core_0_*.core.csv | mask_csv >csv && same wperf_timeline.csv csv
'

test_expect_success 'wperf stat -t --json: the timeline object, one stat object per count' '
	wperf stat -e cpu-clock,page-faults -c 0 -t -i 0 -n 2 --timeout 0.1 --json >out &&
	mask_text <out >got && same wperf_timeline.json got &&
	cat wperf_core_0_*.core.csv | mask_csv >csv && same wperf_timeline.csv csv
'

test_expect_success 'wperf stat -t -q: the CSV file and nothing on stdout' '
	wperf stat -e cpu-clock,page-faults -c 0 -t -i 0 -n 2 --timeout 0.1 -q >out &&
	expect_lines 0 out && cat wperf_core_0_*.core.csv | mask_csv >csv && same wperf_timeline.csv csv
'

test_expect_success 'wperf stat -o FILE: the tables on stdout, the stat JSON in FILE' '
	wperf stat -e cpu-clock,page-faults -c 0 --timeout 0.1 -o s.json >out &&
	expect_grep "^ +[0-9,]+ +cpu-clock +0x00 +e$" out &&
	mask_text <s.json >got && same wperf_stat_one_core.json got
'

test_expect_success 'wperf stat -t: Ctrl-C ends the timeline at once, in a count or in a sleep' '
	start=$(date +%s%N) &&
	{ "$WPERF" stat -e cpu-clock -c 0 -t -i 5 -n 3 --timeout 2 >a & } && p=$! && sleep 0.7 && kill -INT $p && wait $p &&
	mid=$(date +%s%N) && ms=$(( (mid - start) / 1000000 )) && echo "$ms ms" && [ "$ms" -lt 2500 ] &&
	printf "counting ... done\n" >want && diff -u want a &&
	n=$(cat wperf_core_0_*.core.csv | grep -cE "^[0-9]+,$") && [ "$n" -eq 1 ] &&
	{ "$WPERF" stat -e cpu-clock -c 0 -t -i 5 -n 3 --timeout 0.2 >b & } && p=$! && sleep 1 && kill -INT $p && wait $p &&
	end=$(date +%s%N) && ms=$(( (end - mid) / 1000000 )) && echo "$ms ms" && [ "$ms" -lt 3000 ] &&
	printf "counting ... done\nsleeping ... done\n" >want && diff -u want b
'

# The counting plan (events, modifiers, groups) of wperf's -m/-e on the Arm fixture: the
# first, seventh and eighth columns of --dry-run's table.
plan() { awk '/^ +=====/ { on = 1; next } on && NF { print $1, $7, $8 }'; }
test_expect_success 'wperf stat -m imix,l1d_cache_miss_ratio -e ld_spec (Arm fixture): the plan' '
	LPERF_SYSFS_ROOT=$FIXTURES/sysfs-arm wperf stat -m imix,l1d_cache_miss_ratio -e ld_spec -c 1 sleep 1 --dry-run >out &&
	plan <out >got && same wperf_plan_imix.txt got &&
	LPERF_SYSFS_ROOT=$FIXTURES/sysfs-arm wperf stat -m imix,l1d_cache_miss_ratio -e ld_spec -k -c 1 sleep 1 --dry-run >k &&
	plan <k >gotk && sed "s/ u / ukh /" "$GOLDEN/wperf_plan_imix.txt" >wantk && diff -u wantk gotk
'

# The Arm fixture plus two DSU clusters and a DMC-620 channel.
uncore_root() {
	cp -R "$FIXTURES/sysfs-arm" root && d=root/bus/event_source/devices &&
	for x in 0 1; do
		mkdir -p $d/arm_dsu_$x/format $d/arm_dsu_$x/events &&
		echo 1$x >$d/arm_dsu_$x/type && echo $((x * 4)) >$d/arm_dsu_$x/cpumask &&
		echo config:0-31 >$d/arm_dsu_$x/format/event &&
		echo event=0x2b >$d/arm_dsu_$x/events/l3d_cache && echo event=0x2a >$d/arm_dsu_$x/events/l3d_cache_refill ||
		return 1
	done &&
	m=$d/arm_dmc620_10008c000 && mkdir -p $m/format $m/events && echo 13 >$m/type && echo 0 >$m/cpumask &&
	echo config:0-4 >$m/format/event && echo config:5 >$m/format/clkdiv2 &&
	echo event=0x12,clkdiv2=1 >$m/events/clkdiv2_rdwr
}

test_expect_success 'l3_cache and ddr_bw are metrics of both personalities: every cluster and channel planned' '
	uncore_root &&
	LPERF_SYSFS_ROOT=$PWD/root wperf stat -m l3_cache,ddr_bw -c 0 sleep 1 --dry-run >w &&
	plan <w >gotw && same wperf_plan_uncore.txt gotw &&
	LPERF_SYSFS_ROOT=$PWD/root lperf stat -m l3_cache,ddr_bw -C 0 --dry-run sleep 1 >l &&
	plan <l | sed "s/ ukh / u /" >gotl && sed 1d "$GOLDEN/wperf_plan_uncore.txt" >wantl && diff -u wantl gotl &&
	LPERF_SYSFS_ROOT=$PWD/root lperf list --metrics >list &&
	expect_grep "l3_read_bandwidth" list && expect_grep "ddr_rw_bandwidth" list
'

test_expect_success 'l3_cache without a DSU PMU: one line naming what is missing, exit 1' '
	expect_exit 1 env LPERF_SYSFS_ROOT=$FIXTURES/sysfs-arm "$LPERF" stat -m l3_cache -C 0 sleep 1 2>err &&
	expect_lines 1 err && expect_grep "metric .l3_cache. needs arm_dsu_\* PMUs \(l3d_cache\.\.\.\)" err
'

test_done
