#!/bin/sh
# WindowsPerf's command line (`wperf`, the second personality of lperf): the seed documents'
# and WindowsPerf's own example command lines, run with events that exist here (software
# events, or the Arm fixture with --dry-run), printing WindowsPerf's shapes; JSON checked
# against shapes written from WindowsPerf's schemas (tests/e2e/wperf_json.py).
# e2e-class: parallel (WindowsPerf's shapes and JSON, fixture counts; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"
WPERF="$(dirname "$LPERF")/wperf"
ARM="$FIXTURES/sysfs-arm"
NCPU=$(getconf _NPROCESSORS_ONLN)
PY312=/root/.pyenv/versions/3.12.1/bin/python3.12
wperf() { "$WPERF" "$@"; }
wjson() { "$PYTHON" "$TEST_ROOT/tests/e2e/wperf_json.py" "$@"; }

test_expect_success 'build/wperf and lperf wperf are the same personality' '
	wperf >out1 && lperf wperf >out2 && cmp out1 out2 &&
	expect_grep "^WindowsPerf ver\. [0-9.]+ .*WOA profiling with performance counters\.$" out1 &&
	expect_grep "^Use --help for help\.$" out1 &&
	expect_grep "^Report bugs to: " out1 &&
	wperf --help >help &&
	for s in NAME SYNOPSIS OPTIONS "OPTIONS aliases" EXAMPLES; do expect_grep "^$s:$" help || exit 1; done &&
	for c in stat record sample list test detect man; do expect_grep "^    wperf $c " help || exit 1; done &&
	for o in "-h, --help" --version "-v, --verbose" -q -e -m --timeout -t -i -n --annotate \
		--disassemble --image_name --pe_file --pdb_file --sample-display-long \
		--sample-display-row --record_spawn_delay --force-lock "-c, --cpu" -k --dmc -C -E \
		--json "--output, -o" --output-csv --config "--output-prefix, --cwd"; do
		grep -qx -- "    $o" help || { echo "no option line \"$o\""; exit 1; }
	done &&
	! grep -q "wperf record -e arm_spe_0" help &&
	LPERF_SYSFS_ROOT=$ARM wperf --help >spehelp && expect_grep "^    > wperf record -e arm_spe_0/" spehelp
'

test_expect_success 'wperf test --config count.period=N shows the value set; a bad one is refused' '
	wperf test --json --config count.period=34 >c.json &&
	"$PYTHON" -c "import json,sys; r={x[\"Test_Name\"]: x[\"Result\"] for x in json.load(open(sys.argv[1]))[\"Test_Results\"]}; assert r[\"config.count.period\"] == \"34\", r" c.json &&
	{ wperf test --config count.period=3x 2>err; [ $? -eq 2 ]; } &&
	expect_grep "count\.period takes a number" err
'

test_expect_success 'wperf record -- CMD --timeout: exit 0 when the timeout stops the command (as wperf)' '
	wperf record -e cpu-clock -c 0 --timeout 0.3 -- sleep 5 >r &&
	wperf record -e cpu-clock -c 0 -- false >r2
'

test_expect_success 'wperf is a row of lperf'"'"'s command table: listed, and help for it is wperf --help' '
	lperf help >list && expect_grep "^   wperf +WindowsPerf.s command line" list &&
	! grep -q "not in this build" list &&
	lperf help wperf >h1 && wperf --help >h2 && cmp h1 h2 &&
	lperf wperf list >l1 && wperf list >l2 && cmp l1 l2 &&
	wperf man ld_spec >m1 2>&1; lperf man ld_spec >m2 2>&1; cmp m1 m2
'

test_expect_success 'wperf --version: the Component/Version/GitVer/FeatureString table' '
	wperf --version >out &&
	expect_grep "^        Component +Version +GitVer +FeatureString$" out &&
	expect_grep "^        wperf +[0-9]+\.[0-9]+\.[0-9]+ +[0-9a-f]+ +\+pfm\+dw\+capstone\+zlib\+spe$" out &&
	expect_grep "^        wperf-driver +" out &&
	wperf --version --json >v.json && wjson version v.json &&
	LPERF_SYSFS_ROOT=$ARM wperf --version >arm && expect_grep "wperf-driver .*\+perf_event\+spe$" arm
'

test_expect_success 'lperf --version starts like perf version (third word a dotted number)' '
	lperf --version >out &&
	expect_grep "^lperf version [0-9]+\.[0-9]+\.[0-9]+ " out &&
	"$PYTHON" -c "import sys; w = open(sys.argv[1]).read().split()[2]; tuple(map(int, w.split(\".\")))" out
'

test_expect_success 'wperf test: Test Name/Result rows with gpc_nums and spe_device.version_name' '
	LPERF_SYSFS_ROOT=$ARM wperf test >out &&
	expect_grep "^        Test Name +Result$" out &&
	expect_grep "^        spe_device\.version_name +FEAT_SPE$" out &&
	expect_grep "^        gpc_nums\[EVT_CORE\] +[0-9]+$" out &&
	expect_grep "^        pmu_device\.sampling\.INTERVAL_DEFAULT +0x4000000$" out &&
	wperf test --json >t.json && wjson test t.json &&
	LPERF_SYSFS_ROOT=$ARM wperf test -e "{inst_spec,vfp_spec},br_immed_spec" >sched &&
	expect_grep "ioctl_events\[EVT_CORE\]\.index +27,117,120$" sched &&
	expect_grep "ioctl_events\[EVT_CORE\]\.note +\(g0\),\(g0\),\(e\)$" sched
'

test_expect_success 'wperf test: the rows wperf has (vendor Arm Limited, PMU version, counters, devices)' '
	FXN1=$(pwd)/n1 && cp -R "$ARM" "$FXN1" &&
	mkdir -p "$FXN1/devices/system/cpu/cpu0/regs/identification" &&
	echo 0x00000000413fd0c1 >"$FXN1/devices/system/cpu/cpu0/regs/identification/midr_el1" &&
	LPERF_SYSFS_ROOT=$FXN1 wperf test >out &&
	expect_grep "^        pmu_device\.vendor_name +Arm Limited$" out &&
	expect_grep "^        pmu_device\.product_name +neoverse-n1$" out &&
	expect_grep "^        pmu_device\.version_name +FEAT_PMUv3$" out &&
	expect_grep "^        PMU_CTL_QUERY_HW_CFG \[device_id_str\] +core\.stat=core;core\.sample=core;spe\.record=spe$" out &&
	LPERF_SYSFS_ROOT=$FXN1 wperf test --json >t.json && wjson test t.json &&
	rm -r "$FXN1/bus/event_source/devices/arm_spe_0" &&
	LPERF_SYSFS_ROOT=$FXN1 wperf test >nospe &&
	expect_grep "^        spe_device\.version_name +not implemented$" nospe &&
	expect_grep "^        PMU_CTL_QUERY_HW_CFG \[device_id_str\] +core\.stat=core;core\.sample=core$" nospe
'

test_expect_success 'wperf test on a machine whose counters are known: gpc_num, total_gpc_num, counter_idx_map' '
	wperf test >out &&
	if grep -q "\[gpc_num\] *0x" out; then
		n=$(sed -n "s/.*\[gpc_num\] *0x\([0-9a-f]*\)$/\1/p" out) &&
		expect_grep "^        PMU_CTL_QUERY_HW_CFG \[total_gpc_num\] +0x$n$" out &&
		map=$(sed -n "s/.*\[counter_idx_map\] *//p" out) &&
		test "$(echo "$map" | tr , "\n" | sort -u | wc -l)" -eq $((0x$n + 1))
	else
		expect_grep "\[gpc_num\] +unknown" out
	fi
'

test_expect_success 'wperf -m imix is WindowsPerf event group: its order, one group, (g0,imix) in test' '
	LPERF_SYSFS_ROOT=$ARM wperf stat -m imix -c 1 sleep 3 --dry-run >d &&
	sed -n "s/^        \([a-z_]*\) .*/\1/p" d | tr "\n" , >order &&
	expect_grep "^event,cycles,inst_spec,dp_spec,vfp_spec,ase_spec,ld_spec,st_spec,$" order &&
	LPERF_SYSFS_ROOT=$ARM wperf test -m imix >t &&
	expect_grep "ioctl_events\[EVT_CORE\]\.index +27,115,117,116,112,113$" t &&
	expect_grep "ioctl_events\[EVT_CORE\]\.note +\(g0,imix\),\(g0,imix\),\(g0,imix\),\(g0,imix\),\(g0,imix\),\(g0,imix\)$" t &&
	LPERF_SYSFS_ROOT=$ARM wperf test -m imix,icache >t2 &&
	expect_grep "ioctl_events\[EVT_CORE\]\.note +(\(g0,imix\),){6}(\(g1,icache\),){4}\(g1,icache\)$" t2 &&
	LPERF_SYSFS_ROOT=$ARM wperf list --json >l.json &&
	"$PYTHON" -c "import json,sys; m = {x[\"Metric\"]: x[\"Events\"] for x in json.load(open(sys.argv[1]))[\"Predefined_Metrics\"]}; assert m[\"imix\"] == \"{inst_spec,dp_spec,vfp_spec,ase_spec,ld_spec,st_spec}\", m.get(\"imix\"); assert m[\"dtlb\"] == \"{l1d_tlb,l1d_tlb_refill,l2d_tlb,l2d_tlb_refill,inst_retired}\"" l.json &&
	LPERF_SYSFS_ROOT=$ARM lperf stat -m imix -C 1 --dry-run -- true >lp &&
	expect_grep "^        dp_spec " lp
'

test_expect_success 'lperf test also names the SPE version' '
	LPERF_SYSFS_ROOT=$ARM lperf test --no-python >out &&
	expect_grep "^        spe_device\.version_name +FEAT_SPE$" out
'

test_expect_success 'seed: wperf stat -m imix -c 1 sleep 3 (Arm fixture): user mode only, cycle added' '
	LPERF_SYSFS_ROOT=$ARM wperf stat -m imix -c 1 sleep 3 --dry-run >out &&
	expect_grep "^        cycles .* u +-" out &&
	expect_grep "^        inst_spec +armv8_pmuv3_0 .* u +g0 " out &&
	expect_grep "^        ld_spec " out &&
	LPERF_SYSFS_ROOT=$ARM wperf stat -m imix -k -c 1 sleep 3 --dry-run >k &&
	expect_grep "^        inst_spec +armv8_pmuv3_0 .* ukh? +g0 " k
'

test_expect_success 'wperf examples: events, groups, -E custom events, -C custom metrics (Arm fixture)' '
	LPERF_SYSFS_ROOT=$ARM wperf stat -e inst_spec,vfp_spec,ase_spec,ld_spec -c 0 --timeout 3 --dry-run >a &&
	expect_grep "^        ase_spec " a &&
	LPERF_SYSFS_ROOT=$ARM wperf stat -e "{inst_spec,vfp_spec},br_immed_spec" -c 0 sleep 1 --dry-run >b &&
	expect_grep "^        vfp_spec .* g0 " b &&
	LPERF_SYSFS_ROOT=$ARM wperf stat -m imix -e l1i_cache -c 7 --timeout 10.5 --dry-run >c &&
	expect_grep "^        l1i_cache " c &&
	LPERF_SYSFS_ROOT=$ARM wperf stat -E myev:0x1b -e myev -c 0 sleep 1 --dry-run >e &&
	expect_grep "^        r1b +armv8_pmuv3_0 +10 +0x1b " e &&
	printf "# wperf custom metric\ncustomizedmetric:{inst_spec,ld_spec}\n" >customized_config &&
	LPERF_SYSFS_ROOT=$ARM wperf stat -C customized_config -m customizedmetric -c 0 sleep 1 --dry-run >m &&
	expect_grep "^        ld_spec .* g0 " m
'

test_expect_success 'seed and example sampling lines resolve with the Arm fixture (--dry-run)' '
	LPERF_SYSFS_ROOT=$ARM wperf sample -e ld_spec:100000 --pe_file python_d.exe -c 1 --dry-run >s1 &&
	expect_grep "^        ld_spec +armv8_pmuv3_0 +10 +0x70 +0 +0 +u +100000$" s1 &&
	LPERF_SYSFS_ROOT=$ARM wperf sample -e ld_spec:100000 -pe_file python_d.exe -c 1 --dry-run >s2 && cmp s1 s2 &&
	LPERF_SYSFS_ROOT=$ARM wperf sample -e ld_spec:10000 -pe_file python_d.exe -pdb_file /dev/null -image_name python_d.exe -c 1 --dry-run >s3 &&
	expect_grep " 10000$" s3 &&
	LPERF_SYSFS_ROOT=$ARM wperf record -e ld_spec:100000 -c 1 --timeout 30 --annotate --dry-run -- python_d.exe -c 10**10**100 >r1 &&
	expect_grep "core 1, command python_d.exe" r1 &&
	LPERF_SYSFS_ROOT=$ARM wperf record -e arm_spe_0/ld=1,min_latency=64/ -c 8 --disassemble --dry-run -- python_d.exe -c 10**10**100 >r2 &&
	expect_grep "^        arm_spe_0/ld=1,min_latency=64/ +arm_spe_0 +11 +0x200000000 +0 +0x40 +u " r2 &&
	LPERF_SYSFS_ROOT=$ARM wperf record -e ld_spec -k -c 1 --dry-run -- true >r3 &&
	expect_grep "^        ld_spec .* uk +67108864$" r3 &&
	LPERF_SYSFS_ROOT=$ARM wperf stat -m Operation_Mix -c 7 --timeout 3 --dry-run -- python_d.exe -c 10**10**100 >st &&
	expect_grep "^        st_spec " st
'

test_expect_success 'wperf stat -e EV -c 0 --timeout 1: the per-core table, kernel mode excluded' '
	wperf stat -e cpu-clock,page-faults -c 0 --timeout 1 >out &&
	expect_grep "^Performance counter stats for core 0, no multiplexing, kernel mode excluded, on .* core implementation:$" out &&
	expect_grep "^note: .e. - normal event, .gN. - grouped event" out &&
	expect_grep "^        counter value +event name +event idx +event note$" out &&
	expect_grep "^ +[0-9,]+ +cpu-clock +0x00 +e$" out &&
	expect_grep "^ +[0-9.]+ seconds time elapsed$" out &&
	wperf stat -e cpu-clock -k -c 0 --timeout 0.2 >k && expect_grep "kernel mode included" k
'

test_expect_success 'wperf stat with no -c counts all cores (System-wide Overall)' '
	wperf stat -e cpu-clock --timeout 0.3 >out &&
	n=$(grep -c "^Performance counter stats for core" out) && [ "$n" -eq "$NCPU" ] &&
	if [ "$NCPU" -gt 1 ]; then expect_grep "^System-wide Overall:$" out; fi
'

test_expect_success 'sleep N is a duration, not /bin/sleep' '
	start=$(date +%s%N) && wperf stat -e cpu-clock -c 0 sleep 0.5 >out && end=$(date +%s%N) &&
	ms=$(( (end - start) / 1000000 )) && echo "$ms ms" && [ "$ms" -ge 450 ] && [ "$ms" -lt 3000 ] &&
	# the elapsed time it prints: half a second, or what the run took on a loaded machine
	e=$(sed -n "s/^ *\([0-9.]*\) seconds time elapsed$/\1/p" out) && echo "elapsed $e s" &&
	awk -v e="$e" -v ms="$ms" "BEGIN { exit !(e >= 0.45 && e <= ms / 1000 + 0.05) }"
'

test_expect_success 'wperf stat -- COMMAND: pinned to the first -c core, the cores counted' '
	wperf stat -e cpu-clock -c 1 -- sh -c "taskset -cp \$\$" >out &&
	expect_grep "current affinity list: 1$" out &&
	expect_grep "^Performance counter stats for core 1," out &&
	if [ "$NCPU" -gt 1 ]; then
		wperf stat -e cpu-clock -c 1,0 -- sh -c "taskset -cp \$\$" >two &&
		expect_grep "current affinity list: 1$" two &&
		expect_grep "^Performance counter stats for core 0," two
	fi
'

test_expect_success 'stat --json and -o: WindowsPerf stat shape, tables still printed with -o' '
	wperf stat -e cpu-clock,task-clock -c 0,1 sleep 0.2 --json >s.json && wjson stat s.json &&
	"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); c=d[\"core\"][\"cores\"][0][\"Performance_counter\"][0]; assert c[\"event_name\"]==\"cpu-clock\" and c[\"event_idx\"]==\"0x00\" and c[\"event_note\"]==\"e\", c; assert d[\"core\"][\"Kernel_mode\"] is False" s.json &&
	wperf stat -e cpu-clock -c 0 sleep 0.2 -o o.json >tab && wjson stat o.json &&
	expect_grep "counter value" tab
'

test_expect_success 'timeline: -t -i -n --timeout counts N times into wperf_core_C_TIMESTAMP.core.csv' '
	wperf stat -e cpu-clock,task-clock -c 1 -t -i 0.2 -n 3 --timeout 0.3 -v >out &&
	expect_grep "^timeline file: .wperf_core_1_[0-9_]{19}\.core\.csv.$" out &&
	n=$(grep -c "^counting \.\.\. done$" out) && [ "$n" -eq 3 ] &&
	n=$(grep -c "^sleeping \.\.\. done$" out) && [ "$n" -eq 3 ] &&
	f=$(ls wperf_core_1_*.core.csv) &&
	expect_grep "^Multiplexing,FALSE$" "$f" && expect_grep "^Kernel mode,FALSE$" "$f" &&
	expect_grep "^Count interval,0\.20$" "$f" && expect_grep "^Event class,core$" "$f" &&
	expect_grep "^core 1,core 1,$" "$f" && expect_grep "^cpu-clock,task-clock,$" "$f" &&
	n=$(grep -cE "^[0-9]+,[0-9]+,$" "$f") && [ "$n" -eq 3 ]
'

test_expect_success 'timeline: wperf sleeps after the last count too, -n N gives N sleeping lines' '
	wperf stat -e cpu-clock -c 0 -t -i 0 -n 1 --timeout 0.1 >one &&
	n=$(grep -c "^sleeping \.\.\. done$" one) && [ "$n" -eq 1 ] &&
	start=$(date +%s%N) && wperf stat -e cpu-clock -c 0 -t -i 0.5 -n 2 --timeout 0.1 >two &&
	ms=$(( ($(date +%s%N) - start) / 1000000 )) &&
	n=$(grep -c "^sleeping \.\.\. done$" two) && [ "$n" -eq 2 ] && [ "$ms" -ge 1100 ]
'

test_expect_success 'with cpu_cycles in -e the fixed cycle counter is still counted (Arm fixture)' '
	LPERF_SYSFS_ROOT=$ARM wperf stat -e cpu_cycles,inst_spec -c 0 --timeout 1 --dry-run >cc &&
	expect_grep "^        cycles +armv8_pmuv3_0 +0 +0 " cc &&
	expect_grep "^        cpu_cycles +armv8_pmuv3_0 +10 +0x11 " cc &&
	LPERF_SYSFS_ROOT=$ARM wperf stat -e cycles,inst_spec -c 0 --timeout 1 --dry-run >c1 &&
	test "$(grep -c "^        cycles " c1)" -eq 1
'

test_expect_success 'timeline: --output-csv template, --cwd directory, timeline JSON' '
	wperf stat -e cpu-clock -c 1 -t -i 0 -n 2 --timeout 0.2 --output-csv "tl_{core}_{timestamp}.{class}.csv" --cwd outdir --json >tl.json &&
	ls outdir/tl_1_*.core.csv && wjson timeline tl.json &&
	"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"count_timeline\"]==2 and len(d[\"timeline\"])==2, d" tl.json &&
	wperf stat -e cpu-clock -t -i 0 -n 1 --timeout 0.1 -q && ls wperf_system_side_*.core.csv
'

test_expect_success 'SPE filter spellings in both personalities (Arm fixture)' '
	LPERF_SYSFS_ROOT=$ARM wperf stat -e "arm_spe_0/ld=1,min_latency=64/" -c 8 sleep 1 --dry-run >w &&
	expect_grep "arm_spe_0/ld=1,min_latency=64/ +arm_spe_0 +11 " w &&
	LPERF_SYSFS_ROOT=$ARM lperf stat --dry-run -e "arm_spe_0/st=0,ld=0,b=1/" -C 0 sleep 1 >l &&
	expect_grep "arm_spe_0/st=0,ld=0,b=1/ +arm_spe_0 +11 +0x100000000 .*arm_spe_0/branch_filter=0x1/" l &&
	LPERF_SYSFS_ROOT=$ARM lperf stat --dry-run -e "arm_spe_0/ts=1,min=1024/" -C 0 sleep 1 >t &&
	expect_grep "ts_enable=0x1,min_latency=0x400" t
'

test_expect_success 'DSU and DMC spellings map to arm_dsu_* and arm_dmc620_* PMUs' '
	cp -R "$ARM" root && d=root/bus/event_source/devices &&
	mkdir -p $d/arm_dsu_0/format $d/arm_dsu_0/events $d/arm_dmc620_10008c000/format $d/arm_dmc620_10008c000/events &&
	echo 12 >$d/arm_dsu_0/type && echo 0 >$d/arm_dsu_0/cpumask && echo config:0-31 >$d/arm_dsu_0/format/event &&
	echo event=0x2b >$d/arm_dsu_0/events/l3d_cache && echo event=0x2a >$d/arm_dsu_0/events/l3d_cache_refill &&
	echo 13 >$d/arm_dmc620_10008c000/type && echo 0 >$d/arm_dmc620_10008c000/cpumask &&
	echo config:0-4 >$d/arm_dmc620_10008c000/format/event && echo config:5 >$d/arm_dmc620_10008c000/format/clkdiv2 &&
	echo event=0x12,clkdiv2=1 >$d/arm_dmc620_10008c000/events/clkdiv2_rdwr &&
	LPERF_SYSFS_ROOT=$PWD/root wperf stat -e /dsu/l3d_cache,/dsu/l3d_cache_refill -c 0 sleep 1 --dry-run >dsu &&
	expect_grep "arm_dsu_0/l3d_cache/ +arm_dsu_0 +12 +0x2b" dsu &&
	LPERF_SYSFS_ROOT=$PWD/root wperf stat -m l3_cache,ddr_bw -c 0 sleep 1 --dry-run >m &&
	expect_grep "arm_dsu_0/l3d_cache_refill/ " m &&
	expect_grep "arm_dmc620_10008c000/clkdiv2_rdwr/ +arm_dmc620_10008c000 +13 +0x32" m &&
	! LPERF_SYSFS_ROOT=$ARM wperf stat -e /dsu/l3d_cache -c 0 sleep 1 --dry-run 2>err &&
	expect_grep "no DSU .* PMU" err
'

test_expect_success 'wperf list, list -v, -l and list --json (wperf shape)' '
	wperf list >out && expect_grep "^List of pre-defined events \(to be used in -e\)$" out &&
	expect_grep "^        Alias Name +Raw Index +Event Type$" out &&
	expect_grep "^List of supported metrics \(to be used in -m\)$" out &&
	wperf -l >l && cmp out l &&
	LPERF_SYSFS_ROOT=$ARM wperf list -v >v && expect_grep "^        Metric +Events +Formula +Unit +Description$" v &&
	expect_grep "^        load_percentage +\{ld_spec,inst_spec\} " v &&
	expect_grep "^        arm_spe_0/load_filter/ .*\[SPE filter\]" v &&
	wperf list --json >l.json && wjson list l.json &&
	LPERF_SYSFS_ROOT=$ARM wperf list --json >arm.json && wjson list arm.json &&
	wperf list -o o.json >tab && wjson list o.json && expect_grep "Alias Name" tab
'

test_expect_success 'wperf detect: the PMU devices' '
	LPERF_SYSFS_ROOT=$ARM wperf detect >out &&
	expect_grep "^        Device Instance ID +Hardware IDs$" out &&
	expect_grep "/bus/event_source/devices/arm_spe_0 +perf_event type 11$" out &&
	wperf detect --json >d.json && wjson detect d.json
'

test_expect_success 'wperf man and lperf man: events, metrics, groups, CPU/NAME' '
	wperf man neoverse-n1/branch_percentage >m &&
	expect_grep "^CPU$" m && expect_grep "^    neoverse-n1$" m &&
	expect_grep "^    branch_percentage$" m && expect_grep "^FORMULA$" m &&
	expect_grep "^    \(\(\(BR_IMMED_SPEC \+ BR_INDIRECT_SPEC\) / INST_SPEC\) \* 100\)$" m &&
	wperf man neoverse-n1/branch_percentage --json >m.json && wjson man m.json &&
	wperf man cpu-clock >e && expect_grep "^DESCRIPTION$" e &&
	LPERF_SYSFS_ROOT=$ARM lperf man Operation_Mix >g && expect_grep "^METRICS$" g &&
	LPERF_SYSFS_ROOT=$ARM wperf man ld_spec >ld && expect_grep "^    ld_spec - " ld &&
	! wperf man nosuch/x 2>err && expect_grep "CPU name: \"nosuch\" not found, use armv8-a" err &&
	! wperf man no_such_event 2>err2 && expect_grep "\"no_such_event\" not found!" err2
'

test_expect_success 'unknown arguments are warned about and ignored; --force-lock accepted' '
	wperf stat -e cpu-clock -c 0 --timeout 0.1 --bogus-flag --force-lock >out 2>err &&
	expect_grep "^warning: unexpected arg .--bogus-flag. ignored$" err &&
	expect_grep "force-lock: nothing to lock on Linux" err &&
	! wperf stat -e cpu-clock -c 0 --timeout 1m30s 2>err2 && expect_grep "^input: \"1m30s\" to argument .--timeout. is invalid$" err2
'

test_expect_success 'seed: -pe_file/-pdb_file/-image_name with one dash are wperf options' '
	touch python_d.pdb &&
	! wperf sample -e cpu-clock:10000 -pe_file python_d.exe -pdb_file python_d.pdb -image_name python_d.exe -c 1 2>err &&
	expect_grep "^PE file .python_d\.exe. doesn.t exist$" err &&
	! wperf sample -e cpu-clock:100000 --pe_file python_d.exe -c 0,1 2>err2 &&
	expect_grep "^PE file .python_d\.exe. doesn.t exist$" err2
'

test_expect_success 'wperf record -c 1 -- COMMAND: pinned, tables, JSON' '
	wperf record -e cpu-clock:100000 -c 1 --timeout 30 -- sh -c "taskset -cp \$\$; i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done" >out &&
	expect_grep "current affinity list: 1$" out &&
	expect_grep "^base address of .sh.: 0x[0-9a-f]+, runtime delta: 0x[0-9a-f]+$" out &&
	expect_grep "^======================== sample source: cpu-clock, top 50 hot functions ========================$" out &&
	expect_grep "^        overhead +count +symbol$" out &&
	expect_grep ":(dash|bash|sh)$" out &&
	wperf record -e cpu-clock:100000 -c 0 --json -- sh -c "i=0; while [ \$i -lt 50000 ]; do i=\$((i+1)); done" >r.json &&
	wjson record r.json &&
	wperf record -e cpu-clock:100000 -c 0 -v --json -- sh -c "i=0; while [ \$i -lt 50000 ]; do i=\$((i+1)); done" >v.json &&
	wjson record v.json &&
	"$PYTHON" -c "import json,sys; e=json.load(open(sys.argv[1]))[\"sampling\"][\"events\"][0]; p=e[\"pcs\"]; t=[x for x in e[\"samples\"] if x[\"symbol\"] != \"unknown\"][0]; assert p and sum(x[\"count\"] for x in p if x[\"in_symbol\"] == t[\"symbol\"]) == t[\"count\"], (t, p[:3])" v.json
'

test_expect_success 'wperf record --export_perf_data FILE: a perf.data Linux perf reads' '
	wperf record -e cpu-clock:100000 -c 0 -q --export_perf_data wp.data -- sh -c "i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done" &&
	perf report -i wp.data --stdio >rep 2>&1 &&
	expect_grep "^ +[0-9.]+% +(sh|dash) " rep
'

test_expect_success 'wperf record --pdb_file: a separate debug file names a stripped program' '
	printf "#include <stdlib.h>\n__attribute__((noinline)) static long hot_loop_fn(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i * 7; return s; }\nint main(int c, char **v) { return (int)(hot_loop_fn(atol(v[1])) & 1); }\n" >prog.c &&
	cc -O1 -g -Wl,--build-id -o prog prog.c && objcopy --only-keep-debug prog prog.debug && strip prog &&
	wperf record -e cpu-clock:100000 -c 0 -- ./prog 60000000 >plain &&
	expect_no_grep "hot_loop_fn" plain &&
	wperf record -e cpu-clock:100000 -c 0 --pdb_file prog.debug -- ./prog 60000000 >named &&
	expect_grep "^ +[0-9.]+ +[0-9]+ +hot_loop_fn:prog$" named &&
	cc -O1 -g -Wl,--build-id -o other prog.c -DOTHER=1 -Wl,--build-id=0x1234 && objcopy --only-keep-debug other other.debug &&
	wperf record -e cpu-clock:100000 -c 0 --pdb_file other.debug -- ./prog 60000000 >wrong &&
	expect_no_grep "hot_loop_fn" wrong
'

test_expect_success 'wperf record --annotate / --disassemble: wperf blocks per hot function, JSON' '
	printf "#include <stdlib.h>\n__attribute__((noinline)) static long hot_loop_fn(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i * 7; return s; }\nint main(int c, char **v) { return (int)(hot_loop_fn(atol(v[1])) & 1); }\n" >prog.c &&
	cc -O1 -g -o prog prog.c &&
	wperf record -e cpu-clock:100000 -c 0 --annotate -- ./prog 60000000 >a &&
	expect_grep "^hot_loop_fn$" a &&
	sed -n "/^hot_loop_fn$/,/^$/p" a >block && cat block &&
	expect_grep "^        line_number +hits +filename$" block &&
	expect_grep "^        2 +[0-9]+ +.*prog\.c$" block &&
	wperf record -e cpu-clock:100000 -c 0 --disassemble -- ./prog 60000000 >d &&
	expect_grep "^        line_number +hits +filename +instruction_address +disassembled_line$" d &&
	expect_grep "^        2 +[0-9]+ +.*prog\.c +[0-9a-f]+ +address +instruction$" d &&
	expect_grep "^ +[0-9a-f]+ +(add|lea|mov|cmp|jne|imul) " d &&
	wperf record -e cpu-clock:100000 -c 0 --disassemble --json -- ./prog 60000000 >d.json &&
	wjson record d.json &&
	"$PYTHON" -c "import json,sys; e=json.load(open(sys.argv[1]))[\"sampling\"][\"events\"][0]; a=e[\"annotate\"][0]; assert a[\"function_name\"]==\"hot_loop_fn\", a; l=a[\"source_code\"][0]; assert l[\"line_number\"]==2 and l[\"disassembled_line\"][\"disassemble\"], l" d.json
'

if command -v taskset >/dev/null && [ "$NCPU" -gt 1 ]; then
# A program known by a link (Debian's python3 -> python3.11): --pe_file finds its process by
# the name given, the link's target, or the name it was started by (comm, argv[0]).
test_expect_success 'wperf sample --pe_file NAME: the link name, its target, the name started by' '
	mkdir -p pebin && cp "$(command -v dash || command -v sh)" pebin/spin-real &&
	ln -sf spin-real pebin/spin && ln -sf spin pebin/spin2 &&
	taskset -c 1 pebin/spin -c "while :; do :; done" & p1=$! &&
	sleep 0.3 &&
	PATH="$(pwd)/pebin:$PATH" "$WPERF" sample -e cpu-clock:100000 --pe_file spin2 -c 1 --timeout 0.5 >s1 2>e1; r1=$?;
	"$WPERF" sample -e cpu-clock:100000 --pe_file spin -c 1 --timeout 0.5 >s2 2>e2; r2=$?;
	"$WPERF" sample -e cpu-clock:100000 --pe_file pebin/spin -c 1 --timeout 0.5 >s3 2>e3; r3=$?;
	kill $p1; wait $p1 2>/dev/null;
	cat e1 e2 e3; [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ $r3 -eq 0 ] &&
	expect_grep "^base address of .spin2.: 0x" s1 && expect_grep "sample source: cpu-clock" s2 &&
	expect_grep "sample source: cpu-clock" s3 &&
	"$WPERF" sample -e cpu-clock:100000 --pe_file spin -c 1 --timeout 0.2 >s4 2>e4;
	expect_grep "^PE file .spin. doesn.t exist$" e4 &&
	"$WPERF" sample -e cpu-clock:100000 --pe_file pebin/spin -c 1 --timeout 0.2 >s5 2>e5;
	expect_grep "no running process of .pebin/spin. found" e5
'
fi

if [ -x "$PY312" ] && command -v taskset >/dev/null && [ "$NCPU" -gt 1 ]; then
test_expect_success 'acceptance: wperf sample -pe_file python3.12 -c 1 until SIGINT shows big-int multiplication' '
	taskset -c 1 "$PY312" -c "x = 7 ** 300000
while True: y = x * x" &
	py=$! && sleep 0.5 &&
	{ "$WPERF" sample -e cpu-clock:100000 -pe_file "$PY312" -c 1 >out 2>err & } &&
	w=$! && sleep 2.5 && kill -INT $w && wait $w; rc=$?; kill $py; wait $py 2>/dev/null;
	cat out && [ $rc -eq 0 ] &&
	expect_grep "^base address of .python3\.12.: 0x[0-9a-f]+, runtime delta: 0x[0-9a-f]+$" out &&
	expect_grep "Ctrl-C received, quit counting\.\.\. done!$" out &&
	top=$(sed -n "/^        ========/{n;p;q}" out) && echo "top: $top" &&
	echo "$top" | grep -qE " (k_mul|x_mul|k_lopsided_mul):libpython3\.12\.so" &&
	b=$(grep -n "^base address" out | cut -d: -f1) && s=$(grep -n "sample source" out | cut -d: -f1) && [ "$b" -lt "$s" ]
'
test_expect_success 'wperf sample --json: WindowsPerf sampling shape' '
	taskset -c 1 "$PY312" -c "x = 7 ** 300000
while True: y = x * x" &
	py=$! && sleep 0.5 &&
	"$WPERF" sample -e cpu-clock:100000 --pe_file "$PY312" -c 1 --timeout 1 --json >s.json; rc=$?;
	kill $py; wait $py 2>/dev/null; [ $rc -eq 0 ] && wjson sample s.json &&
	"$PYTHON" -c "import json,sys; s=json.load(open(sys.argv[1]))[\"sampling\"]; e=s[\"events\"][0]; assert e[\"type\"]==\"cpu-clock\" and e[\"interval\"]==100000 and s[\"base_address\"]>0, s; assert \"mul\" in e[\"samples\"][0][\"symbol\"], e[\"samples\"][:3]" s.json
'
else
test_skip 'acceptance: wperf sample -pe_file python3.12' "needs $PY312, taskset and 2 CPUs"
test_skip 'wperf sample --json' "needs $PY312"
fi

test_done
