#!/bin/sh
# `wperf man` as WindowsPerf prints it, with the checks of WindowsPerf's own suite
# (wperf_cli_man_test.py, wperf_cli_man_ts_test.py) written again here so that CI, which has no
# WindowsPerf checkout, keeps them: Arm's per-CPU data (the cache `make` extracts from Debian's
# linux-source, build/arm-data, scripts/arm-data.sh) gives each CPU's events, titles, descriptions, metrics and
# groups; aliases are their CPU; names a CPU lacks and unknown CPUs are warnings; pages are
# filled to 81 columns; --json and --output FILE write WindowsPerf's Manual_Results JSON.
# e2e-class: parallel (wperf man on the Arm data cache)
. "$(dirname "$0")/lib.sh"
WPERF="$(dirname "$LPERF")/wperf"
wperf() { "$WPERF" "$@"; }
wjson() { "$PYTHON" "$TEST_ROOT/tests/e2e/wperf_json.py" "$@"; }
# A page: CPU, NAME and DESCRIPTION, nothing on stderr, no line over 81 columns.
page() { # page CPU/NAME OUT
	wperf man "$1" >"$2" 2>"$2.err" || { cat "$2.err" >&2; return 1; }
	[ ! -s "$2.err" ] || { cat "$2.err" >&2; return 1; }
	expect_grep "^CPU$" "$2" && expect_grep "^NAME$" "$2" && expect_grep "^DESCRIPTION$" "$2" &&
	! awk 'length > 81 { print FILENAME ": " length ": " $0; bad = 1 } END { exit !bad }' "$2"
}
not_found() { # not_found CPU/NAME NAME
	! wperf man "$1" >o 2>e && [ ! -s o ] &&
	grep -qF "warning: \"$2\" not found! Ensure it is compatible with the specified CPU" e ||
	{ echo "wperf man $1:" >&2; cat o e >&2; return 1; }
}

if [ ! -f "$TEST_ROOT/build/arm-data/mapfile.csv" ] && [ -z "${LPERF_ARM_DATA:-}" ]; then
	test_expect_success 'Arm'"'"'s data is in the cache (make arm-data)' '
		echo "build/arm-data is missing: make installs it (scripts/arm-data.sh)" >&2; false'
	test_done
	exit
fi

test_expect_success 'no argument: wperf'"'"'s warning, exit 1' '
	expect_exit 1 wperf man 2>err >out && [ ! -s out ] &&
	expect_grep "^warning: no argument\(s\) specified, specify an event" err
'

test_expect_success 'an unknown CPU: a warning naming the CPUs of the data' '
	for cpu in "" ".!!33" never-verse-n1 new_arm_cpu; do
		for a in ld_spec ipc Miss_Ratio SVE_INST_SPEC; do
			! wperf man "$cpu/$a" 2>err && ! grep -q "unexpected arg" err &&
			grep -qF "warning: CPU name: \"$cpu\" not found, use armv8-a, armv9-a, " err &&
			for c in neoverse-n1 neoverse-n2 neoverse-v1 neoverse-v2; do
				grep -q " $c[,.]" err || return 1
			done || return 1
		done
	done
'

test_expect_success 'armv8-a and armv9-a: the architecture'"'"'s events, no metrics; no trace outputs in armv8-a' '
	for cpu in armv8-a armv9-a; do
		for e in ld_spec remote_access_rd l3d_cache_lmiss_rd; do page "$cpu/$e" "$cpu-$e" || return 1; done
		not_found "$cpu/Operation_Mix" Operation_Mix || return 1
	done &&
	for n in 0 1 2 3; do not_found armv8-a/trcextout$n trcextout$n || return 1; done &&
	expect_grep "^    remote_access_rd - Attributable memory read access to another socket" armv8-a-remote_access_rd
'

test_expect_success 'armv9-a, neoverse-n2, neoverse-v2: trace buffer and trace unit events' '
	for cpu in armv9-a neoverse-n2 neoverse-v2; do
		for e in trb_wrap trcextout0 trcextout1 trcextout2 trcextout3; do
			page "$cpu/$e" "$cpu-$e" || return 1
		done
	done &&
	expect_grep "^    trb_wrap - Trace buffer current write pointer wrapped$" neoverse-n2-trb_wrap
'

# Newer data (Linux 6.13 on, trixie-backports' linux-source; bookworm's 6.12 lacks them): Neoverse
# N3 and V3, and the Armv9 events of Arm's 2024 data in both architectures.
data=${LPERF_ARM_DATA:-$TEST_ROOT/build/arm-data}
if grep -q "arm/neoverse-v3," "$data/mapfile.csv"; then
	test_expect_success 'Neoverse N3 and V3, and the 2024 common events' '
		for cpu in neoverse-n3 neoverse-v3; do
			page "$cpu/ld_spec" ld && page "$cpu/sw_incr" sw && page "$cpu/ipc" i &&
			page "$cpu/MPKI" m && page "$cpu/Operation_Mix" o && page "$cpu/Miss_Ratio" r &&
			expect_grep "^    $cpu$" ld &&
			expect_grep "^    ld_spec - Operation speculatively executed, load$" ld &&
			grep -q "Counts speculatively executed load operations" ld &&
			grep -q "Counts software writes to the PMSWINC_EL0" sw &&
			expect_grep "^    per cycle$" i && grep -q branch_mpki m &&
			grep -q load_percentage o && grep -q branch_misprediction_ratio r || return 1
		done &&
		for e in trb_wrap trcextout0 trcextout3; do page "neoverse-n3/$e" t || return 1; done &&
		for cpu in armv8-a armv9-a; do
			page "$cpu/stall_frontend_membound" s && page "$cpu/br_immed_mis_pred_retired" b || return 1
		done
	'
else
	test_skip 'Neoverse N3 and V3, and the 2024 common events' "$data is Linux 6.12's"
fi

test_expect_success 'an event: the CPU, its title and the CPU'"'"'s own description' '
	for cpu in neoverse-v1 neoverse-v2 neoverse-n1 neoverse-n2 neoverse-n2-r0p0 neoverse-n2-r0p3; do
		page "$cpu/ld_spec" ld && page "$cpu/sw_incr" sw &&
		expect_grep "^    ld_spec - Operation speculatively executed, load$" ld &&
		grep -q "Counts speculatively executed load operations" ld &&
		expect_grep "^    sw_incr - Instruction architecturally executed" sw &&
		grep -q "Counts software writes to the PMSWINC_EL0" sw || return 1
	done &&
	page neoverse-n2-r0p3/ld_spec ld && expect_grep "^    neoverse-n2$" ld
'

test_expect_success 'a metric: EVENTS, FORMULA and UNIT' '
	for cpu in neoverse-v1 neoverse-v2 neoverse-n1 neoverse-n2 neoverse-n2-r0p1; do
		page "$cpu/branch_percentage" b && page "$cpu/crypto_percentage" c && page "$cpu/ipc" i &&
		expect_grep "^EVENTS$" b && expect_grep "^FORMULA$" b && expect_grep "^UNIT$" b &&
		expect_grep "^    br_immed_spec, br_indirect_spec, inst_spec$" b &&
		expect_grep "^    percent of operations$" c && expect_grep "^    crypto_spec, inst_spec$" c &&
		expect_grep "^    inst_retired, cpu_cycles$" i && expect_grep "^    per cycle$" i &&
		expect_grep "^    \(?INST_RETIRED / CPU_CYCLES\)?$" i || return 1
	done
'

test_expect_success 'a group of metrics: its METRICS' '
	for cpu in neoverse-v1 neoverse-v2 neoverse-n1 neoverse-n2 neoverse-n2-r0p0; do
		page "$cpu/MPKI" m && page "$cpu/Miss_Ratio" r && page "$cpu/Operation_Mix" o &&
		expect_grep "^METRICS$" m && grep -q branch_mpki m &&
		expect_grep "^    Miss_Ratio - Miss Ratio$" r && grep -q branch_misprediction_ratio r &&
		grep -q load_percentage o || return 1
	done
'

test_expect_success 'an alias prints what its CPU prints' '
	for e in ld_spec sve_inst_spec ase_sve_int64_spec; do
		wperf man neoverse-n2/$e >n2 &&
		for a in neoverse-n2-r0p0 neoverse-n2-r0p1 neoverse-n2-r0p3; do
			wperf man $a/$e >al && cmp n2 al || return 1
		done
	done
'

test_expect_success 'a name the CPU lacks: the warning with the name as given after the first /' '
	for cpu in neoverse-v1 neoverse-n2-r0p3; do
		for a in "" ip_c tomorrow_land Miss_Rati0 neoverse-n1/Miss_Ratio "SVE-INST_--/ld_specSPEC" ...; do
			not_found "$cpu/$a" "$a" || return 1
		done
	done
'

test_expect_success '--json: Manual_Results; --output FILE writes it and the page is printed' '
	for cpu in neoverse-v1 neoverse-v2 neoverse-n1 neoverse-n2 neoverse-n2-r0p3; do
		wperf man $cpu/ld_spec --json >j.json && wjson man j.json &&
		wperf man $cpu/sw_incr --output f.json >page && wjson man f.json &&
		expect_grep "^NAME$" page || return 1
	done &&
	wperf man neoverse-n1/branch_percentage --json >b.json && wjson man b.json &&
	"$PYTHON" -c "import json,sys; r=json.load(open(sys.argv[1]))[\"Manual_Results\"]; f=[x[\"Field_Type\"] for x in r]; assert f==[\"CPU\",\"NAME\",\"EVENTS\",\"DESCRIPTION\",\"FORMULA\",\"UNIT\"], f; assert r[0][\"Result\"]==\"neoverse-n1\"" b.json &&
	wperf man neoverse-n1/Miss_Ratio --json >g.json && grep -q "\"METRICS\"" g.json
'

test_expect_success 'no line over 81 columns, long descriptions filled, not cut' '
	for cpu in neoverse-v1 neoverse-v2 neoverse-n1 neoverse-n2; do
		for a in ld_spec sw_incr ipc Miss_Ratio crypto_percentage; do page "$cpu/$a" out || return 1; done
	done &&
	page neoverse-n1/sw_incr sw && tr -s " \n" "  " <sw >flat &&
	grep -q "there is no need to do a read/increment/write sequence to the PMSWINC_EL0 register" flat
'

test_expect_success 'hostile data: a damaged file of the cache is one error line naming it' '
	cp -R "$TEST_ROOT/tests/fixtures/armdata" data &&
	printf "[{\"EventName\": \"LD_SPEC\"" >data/recommended.json &&
	! LPERF_ARM_DATA=$PWD/data wperf man neoverse-n1/ld_spec >out 2>err &&
	expect_lines 1 err && expect_grep "^error: .*data/recommended.json: the JSON ends early" err &&
	printf "[{\"EventName\": \"\\377\"}]" >data/recommended.json &&
	! LPERF_ARM_DATA=$PWD/data wperf man neoverse-n1/ld_spec 2>err &&
	expect_lines 1 err && expect_grep "recommended.json: offset .*invalid JSON" err &&
	! LPERF_ARM_DATA=$PWD/none wperf man neoverse-n1/ld_spec 2>err &&
	expect_lines 1 err && expect_grep "linux-source.*none/mapfile.csv" err
'

test_done
