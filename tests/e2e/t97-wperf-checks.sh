#!/bin/sh
# WindowsPerf's checks of a command line, with the words scripts and WindowsPerf's own test
# suite match (wperf_cli_record/sample/stat_test.py, wperf_cli_cpython_dep_record_spe_test.py):
# each refusal is its one line on stderr, exit status 1, before anything runs. lperf's own
# grammar keeps perf's meanings (a bare SPE `ld` is ld=1 there).
# e2e-class: parallel (command-line refusals before anything runs)
. "$(dirname "$0")/lib.sh"
WPERF="$(dirname "$LPERF")/wperf"
ARM="$FIXTURES/sysfs-arm"
NCPU=$(getconf _NPROCESSORS_ONLN)
wperf() { "$WPERF" "$@"; }
# refused EXPECTED-LINE wperf-args...: exit 1, exactly that line on stderr, nothing on stdout
refused() {
	line=$1; shift
	expect_exit 1 wperf "$@" >out 2>err && expect_lines 1 err &&
	{ [ "$(cat err)" = "$line" ] || { echo "got '$(cat err)', expected '$line'" >&2; return 1; }; } &&
	test ! -s out
}

test_expect_success 'SPE filters: NAME=VALUE, a known name, a value in range (Arm fixture)' '
	export LPERF_SYSFS_ROOT=$ARM &&
	refused "incorrect SPE filter: '"'"'ld'"'"' in ld" record -e arm_spe_0/ld/ -c 4 --timeout 3 --json -- python_d.exe -c 1 &&
	refused "incorrect SPE filter: '"'"'branch_filter'"'"' in load_filter=0,branch_filter" record -e arm_spe_0/load_filter=0,branch_filter/ -c 4 -- x &&
	refused "incorrect SPE filter name: '"'"'=1'"'"'" record -e arm_spe_0/=1/ -c 4 -- x &&
	refused "incorrect SPE filter value: load_filter='"'"'one'"'"'." record -e arm_spe_0/load_filter=one/ -c 4 -- x &&
	refused "incorrect SPE filter value: b='"'"'-1'"'"'." record -e arm_spe_0/b=-1/ -c 4 -- x &&
	refused "SPE filter '"'"'st'"'"' value out of range, use: 0-1" record -e arm_spe_0/st=4/ -c 4 -- x &&
	refused "SPE filter '"'"'min_latency'"'"' value out of range, use: 0-65535" record -e arm_spe_0/ld=1,min_latency=0x10000/ -c 4 -- x &&
	lperf stat --dry-run -e arm_spe_0/ld/ -C 0 true >l && expect_grep "load_filter=0x1" l
'

test_expect_success 'SPE on a machine without it: one line naming the event' '
	refused "SPE is not supported by your hardware: arm_spe_0/ld=1/" record -e arm_spe_0/ld=1/ -c 0 -- true
'

test_expect_success 'durations: --timeout, sleep and -i name their option' '
	refused "input: \"2d30m\" to argument '"'"'--timeout'"'"' is invalid" stat -m imix -c 0 --timeout 2d30m --json &&
	refused "input: \"0.001ms\" to argument '"'"'--timeout'"'"' is invalid" stat -e cpu-clock -c 0 sleep 0.001ms &&
	refused "input: \".2m\" to argument '"'"'-i'"'"' is invalid" stat -m imix -c 0 -t -i .2m --timeout 1 -n 1
'

test_expect_success 'sampling intervals: EVENT:N with N up to 0xFFFFFFFF, checked before --pe_file' '
	refused "event interval: 0xp is invalid!" sample -e cpu-clock:0xp --pe_file file.exe -c 1 &&
	refused "event interval: _123 is invalid!" sample -e cpu-clock:_123 --pe_file file.exe -c 1 &&
	refused "event interval: 8589934591 is out of range!" sample -e cpu-clock:8589934591 --pe_file file.exe -c 1
'

test_expect_success '--pe_file and --pdb_file must exist, in the order of the line' '
	refused "PE file '"'"'nosuch.exe'"'"' doesn'"'"'t exist" sample -e cpu-clock:100000 --pe_file nosuch.exe -c 1 &&
	refused "PDB file '"'"'nosuch.db'"'"' doesn'"'"'t exist" sample -e cpu-clock:100000 --pdb_file nosuch.db --pe_file nosuch.exe -c 1 &&
	refused "PE file '"'"'nosuch.exe'"'"' doesn'"'"'t exist" sample -e cpu-clock:100000 --pe_file nosuch.exe --pdb_file nosuch.db -c 1
'

test_expect_success 'record: a process to sample first, then one core' '
	refused "no pid or process name specified, sample address are not de-ASLRed" record -e cpu-clock:20000 &&
	refused "no pid or process name specified, sample address are not de-ASLRed" record -e cpu-clock:20000 -c 0,1 &&
	refused "you can specify only one core for sampling" record -c 0,1 -- TEST &&
	refused "you can specify only one core for sampling" record -v -e cpu-clock:100000 -c 7,6,5,4,3,2,1 --timeout 30 -- python_d.exe -c 1
'

test_expect_success 'cores that do not exist are refused; a descending range is expanded' '
	refused "core index $NCPU not allowed. Use 0-$((NCPU - 1)), see option -c <n>" stat -e cpu-clock -c 0,$NCPU --timeout 0.1 &&
	refused "core index $NCPU not allowed. Use 0-$((NCPU - 1)), see option -c <n>" record -e cpu-clock -c $NCPU -- true &&
	wperf stat -e cpu-clock -c 0-0,0-0 --timeout 0.1 --json >j && expect_grep "core_number" j
'

test_expect_success 'stat without -e or -m: no event specified' '
	refused "no event specified" stat -c 0 sleep 1
'

test_done
