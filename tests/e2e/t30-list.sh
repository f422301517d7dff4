#!/bin/sh
# lperf list: events by source, metrics and groups, filters, JSON, and an Arm PMU fixture.
# e2e-class: parallel (event lists against sysfs and fixtures)
. "$(dirname "$0")/lib.sh"
ARM="$FIXTURES/sysfs-arm"
SYSFS_PMUS=/sys/bus/event_source/devices
have_core_pmu() {
	[ -d "$SYSFS_PMUS/cpu" ] || [ -d "$SYSFS_PMUS/cpu_core" ] || ls -d "$SYSFS_PMUS"/armv* >/dev/null 2>&1
}

test_expect_success 'list shows the software events as available' '
	lperf list >out &&
	expect_grep "^List of pre-defined events \(to be used in -e\)$" out &&
	expect_grep "^software events \([0-9]+\):$" out &&
	for e in cpu-clock task-clock page-faults context-switches; do
		expect_grep "^        $e( OR [a-z-]+)? +0x[0-9a-f]+ +\[Software event\]$" out || return 1
	done
'

test_expect_success 'list marks cycles and the cache events unavailable without a hardware PMU' '
	if have_core_pmu; then echo "this machine has a core PMU"; exit 0; fi
	lperf list >out &&
	expect_grep "^        cpu-cycles OR cycles +0x0 +\[Hardware event\] \[not available here: no hardware PMU\]$" out &&
	expect_grep "^        L1-dcache-load-misses +0x10000 +\[Hardware cache event\] \[not available here: no hardware PMU\]$" out &&
	expect_grep "^        imix +arm \[not available here: no Arm PMU\] " out
'

test_expect_success 'list shows metrics with formula and unit, and metric groups' '
	lperf list >out &&
	expect_grep "^List of supported metrics \(to be used in -m\)$" out &&
	expect_grep "^        Metric +Architecture +Unit +Formula$" out &&
	expect_grep "^        cpus_utilized +any +CPUs +task-clock / \(duration_time \* 1e9\)$" out &&
	expect_grep "^        ipc +arm.* +per cycle +inst_retired / cpu_cycles$" out &&
	expect_grep "^List of supported groups of metrics \(to be used in -m\)$" out &&
	expect_grep "^        Operation_Mix +arm.* +branch_percentage, " out
'

test_expect_success 'list -v adds descriptions' '
	lperf list -v >out &&
	expect_grep "^        Alias Name +Raw Index +Event Type +Description$" out &&
	expect_grep "^        Metric +Architecture +Unit +Formula +Events +Description$" out &&
	expect_grep "^        Group +Architecture +Metrics +Description$" out &&
	lperf list >plain &&
	expect_no_grep "Description" plain
'

test_expect_success 'list --json validates and agrees with this machine' '
	lperf list --json >out.json &&
	validate_json list.schema.json out.json &&
	HW=$(have_core_pmu && echo 1 || echo 0) python3 - out.json <<-\EOF
	import json, os, sys
	d = json.load(open(sys.argv[1]))
	ev = {e["Alias_Name"]: e for e in d["Predefined_Events"]}
	assert ev["cpu-clock"]["Available"] is True and ev["cpu-clock"]["Section"] == "software"
	assert ev["cpu-clock"]["Type"] == 1 and ev["cpu-clock"]["Reason"] is None
	cyc = ev["cpu-cycles"]
	assert cyc["Other_Name"] == "cycles" and cyc["Type"] == 0, cyc
	if os.environ["HW"] == "0":
	    assert cyc["Available"] is False and cyc["Reason"] == "no hardware PMU", cyc
	m = [x for x in d["Predefined_Metrics"] if x["Metric"] == "ipc" and x["Architecture"] == "arm"]
	assert len(m) == 1 and m[0]["Formula"] == "inst_retired / cpu_cycles", m
	assert m[0]["Events"] == "{inst_retired,cpu_cycles}" and m[0]["Event_List"] == ["inst_retired", "cpu_cycles"]
	g = {x["Group"]: x for x in d["Predefined_Groups_of_Metrics"]}
	assert "imix" in g and "load_percentage" in g["imix"]["Metric_List"], g.get("imix")
	EOF
'

test_expect_success 'a FILTER names a section: list software' '
	lperf list software >out &&
	expect_grep "^software events" out &&
	expect_grep "^        cpu-clock " out &&
	expect_no_grep "^hardware events" out &&
	expect_no_grep "Hardware cache event" out
'

test_expect_success 'perf keywords pick a kind of event: hw, sw, cache, pmu, tracepoint, sdt, metric' '
	lperf list sw >sw &&
	expect_grep "^software events \([0-9]+\):$" sw &&
	expect_no_grep "^hardware|^sysfs|Tracepoint|List of supported metrics" sw &&
	lperf list sw cache >swc &&
	expect_grep "^software events" swc && expect_grep "^hardware cache events" swc &&
	expect_no_grep "^hardware events" swc &&
	lperf list metric >m &&
	expect_grep "^List of supported metrics" m && expect_no_grep "^List of pre-defined events" m &&
	lperf list sdt >sdt && expect_lines 0 sdt &&
	lperf list pmu >pmu && expect_no_grep "^software events" pmu
'

test_expect_success 'a FILTER is a case-insensitive substring or a glob' '
	lperf list --events FAULTS >out &&
	expect_grep "^        page-faults OR faults " out &&
	expect_grep "^        major-faults " out &&
	expect_no_grep "task-clock" out &&
	lperf list --events "c*-clock" >glob &&
	expect_grep "^        cpu-clock " glob &&
	expect_no_grep "task-clock" glob &&
	lperf list --metrics "*_mpki" >m &&
	expect_grep "^        branch_mpki " m &&
	expect_no_grep "^        ipc " m &&
	expect_no_grep "^List of pre-defined events" m
'

test_expect_success 'a FILTER with a colon lists tracepoints' '
	if ! [ -d /sys/kernel/tracing/events/sched ]; then echo "no tracefs here"; exit 0; fi
	lperf list sched:sched_switch >out &&
	expect_grep "^tracepoint events \([0-9]+\):$" out &&
	expect_grep "^        sched:sched_switch +0x[0-9a-f]+ +\[Tracepoint event\]$" out &&
	lperf list >all &&
	expect_grep "^        sched:sched_switch +0x[0-9a-f]+ +\[Tracepoint event\]$" all &&
	lperf list --json >all.json &&
	expect_no_grep "Tracepoint event" all.json &&
	lperf list --tracepoints --events "sched:sched_w*" >tp &&
	expect_grep "^        sched:sched_wakeup " tp
'

test_expect_success 'list --raw-dump: names on one line, as perf 6.1 prints them' '
	for w in hw sw cache pmu sdt metricgroups; do
		lperf list --raw-dump $w >$w.out &&
		expect_lines 0 $w.out || return 1
	done &&
	grep -qw cpu-clock sw.out && grep -qw duration_time sw.out &&
	expect_no_grep " OR " sw.out &&
	expect_no_grep "  " sw.out &&
	[ "$(cat sw.out | tr " " "\n" | grep -v "^$" | head -12 | sort | tr "\n" " ")" = \
	  "$(cat sw.out | tr " " "\n" | grep -v "^$" | head -12 | tr "\n" " ")" ] &&
	grep -qw software metricgroups.out &&
	lperf list --raw-dump metrics >m.out &&
	expect_lines 1 m.out &&
	grep -qw cpus_utilized m.out &&
	expect_no_grep "imix|inst_retired" m.out &&
	if [ "$(perf list --raw-dump pmu 2>/dev/null)" != "" ]; then
		[ "$(lperf list --raw-dump pmu)" = "$(perf list --raw-dump pmu)" ] ||
		{ echo "pmu: lperf $(lperf list --raw-dump pmu), perf $(perf list --raw-dump pmu)"; return 1; }
	fi &&
	if [ -d /sys/kernel/tracing/events/sched ]; then
		lperf list --raw-dump tracepoint >tp.out &&
		grep -qw sched:sched_switch tp.out &&
		[ "$(lperf list --raw-dump "sched:*")" = "$(perf list --raw-dump "sched:*")" ] &&
		[ "$(lperf list --raw-dump "sched:*")" = "$(tr " " "\n" <tp.out | grep "^sched:" | tr "\n" " ")" ]
	fi
'

test_expect_success 'perf shell tests stat_all_pmu/metrics/metricgroups.sh with lperf as perf: non-empty loops pass' '
	dir=/usr/lib/perf-core/tests/shell
	if ! [ -f $dir/stat_all_pmu.sh ]; then echo "no perf shell tests installed"; exit 0; fi
	mkdir shim && printf "#!/bin/sh\nexec \"%s\" \"\$@\"\n" "$LPERF" >shim/perf && chmod +x shim/perf &&
	for t in stat_all_metrics stat_all_metricgroups stat_all_pmu; do
		PATH="$PWD/shim:$PATH" bash $dir/$t.sh >$t.log 2>&1 || { cat $t.log; return 1; }
	done &&
	[ "$(grep -c "^Testing " stat_all_metrics.log)" -ge 6 ] &&
	grep -q "^Testing cpus_utilized" stat_all_metrics.log &&
	grep -q "^Testing software" stat_all_metricgroups.log &&
	if [ -n "$(lperf list --raw-dump pmu)" ]; then grep -q "^Testing " stat_all_pmu.log; fi
'

test_expect_success '--events and --metrics show one part' '
	lperf list --events >ev &&
	expect_no_grep "List of supported metrics" ev &&
	expect_grep "List of pre-defined events" ev &&
	lperf list --metrics >m &&
	expect_no_grep "List of pre-defined events" m &&
	expect_grep "List of supported metrics" m &&
	expect_grep "List of supported groups of metrics" m &&
	lperf list --json --metrics >m.json &&
	validate_json list.schema.json m.json &&
	"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"Predefined_Events\"] == [] and d[\"Predefined_Metrics\"]" m.json
'

test_expect_success 'no match: exit 1 with a suggestion' '
	expect_exit 1 lperf list page-fualts >out 2>err &&
	expect_lines 0 out &&
	expect_grep "no event, metric or metric group matches .page-fualts.; did you mean .page-faults.\?" err
'

test_expect_success '--pfm adds libpfm4 tables (a forced x86 PMU here)' '
	if [ "$(uname -m)" != x86_64 ]; then echo "not x86-64"; exit 0; fi
	LIBPFM_FORCE_PMU=amd64_fam19h lperf list --pfm --events "RETIRED_SSE_AVX_FLOPS*" >out &&
	expect_grep "^libpfm4 PMU amd64_fam19h[a-z0-9_]* \([0-9]+ events\):$" out &&
	expect_grep "^        RETIRED_SSE_AVX_FLOPS:MULT_FLOPS +0x[0-9a-f]+ +\[libpfm4 event\]" out &&
	lperf list --events >plain &&
	expect_no_grep "libpfm4 event" plain
'

test_expect_success '--metric-file adds user metrics; a bad file is one error line' '
	lperf list -C "$FIXTURES/metrics/good.txt" --metrics >out &&
	expect_grep "^        branch_rate +any \(user\) +per branch +branch-misses / \(branches \+ 0\)$" out &&
	expect_grep "^        customizedmetric +any \(user\) +\{inst_spec,vfp_spec,ase_spec,ld_spec\}$" out &&
	expect_grep "^        mine +any \(user\) +branch_rate, sw_rate, IPC$" out &&
	expect_exit 1 lperf list --metric-file "$FIXTURES/metrics/bad_formula.txt" 2>err &&
	expect_lines 1 err &&
	expect_grep "bad_formula.txt:[0-9]+: " err
'

test_expect_success 'usage errors exit 2' '
	expect_exit 2 lperf list --bogus 2>err &&
	expect_grep "unknown option .--bogus." err &&
	expect_exit 2 lperf list "" 2>err &&
	expect_grep "empty FILTER" err
'

test_expect_success 'Arm fixture: the Arm events are listed as available' '
	LPERF_SYSFS_ROOT="$ARM" lperf list --events >out &&
	expect_grep "^sysfs PMU armv[89]_[a-z0-9_]+ \(type [0-9]+, [0-9]+ events\):$" out &&
	for e in ld_spec inst_spec st_spec inst_retired cpu_cycles; do
		expect_grep "^        $e +0x[0-9a-f]+ +\[Kernel PMU event\]$" out || return 1
	done &&
	LPERF_SYSFS_ROOT="$ARM" lperf list "ld_*" >ld &&
	expect_grep "^        ld_spec " ld &&
	expect_no_grep "inst_spec" ld
'

test_expect_success 'Arm fixture: the Arm metrics and groups are available' '
	LPERF_SYSFS_ROOT="$ARM" lperf list --metrics >out &&
	expect_grep "^        ipc +arm +per cycle +inst_retired / cpu_cycles$" out &&
	expect_grep "^        load_percentage +arm +percent of operations +ld_spec / inst_spec \* 100$" out &&
	expect_grep "^        imix +arm +integer_dp_percentage, " out &&
	LPERF_SYSFS_ROOT="$ARM" lperf list --json >out.json &&
	validate_json list.schema.json out.json &&
	python3 - out.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	ev = {e["Alias_Name"]: e for e in d["Predefined_Events"]}
	for name in ("ld_spec", "inst_spec"):
	    assert ev[name]["Available"] is True and ev[name]["Section"] == "sysfs", ev[name]
	arm = [m for m in d["Predefined_Metrics"] if m["Architecture"] == "arm"]
	assert arm and all(m["Available"] for m in arm), [m["Metric"] for m in arm if not m["Available"]]
	g = [x for x in d["Predefined_Groups_of_Metrics"] if x["Group"] == "imix"]
	assert g and g[0]["Available"] is True, g
	EOF
'

test_done
