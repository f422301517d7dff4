#!/bin/sh
# Runs WindowsPerf's own pytest suite (wperf-scripts/tests of a WindowsPerf checkout) against
# lperf's wperf personality and prints its counts per test file (docs/wperf.md, "WindowsPerf's
# test suite"). Nothing of the suite is kept in this tree: it is copied to a temporary directory
# and adapted there, at run time, in three ways that change no assertion:
#   1. string commands given to subprocess are split as Windows' CreateProcess splits them
#      (the pytest plugin lperf_wperf_shim.py);
#   2. `N_CORES//8` (//6), a range() step, is made at least 1 (0 on fewer than 8 cores aborts
#      the whole run);
#   3. `wperf` and `wperf.exe` (links to lperf) are on PATH and beside the tests.
#
# Usage: WPERF_TESTS=DIR tests/wperf-suite/run.sh [PYTEST ARGS, e.g. test files or -k EXPR]
#   WPERF_TESTS   a WindowsPerf checkout, or its wperf-scripts/tests directory
#   LPERF         the lperf binary (default build/lperf)
#   WPERF_SYSFS   n1 (default): tests/fixtures/sysfs-arm with a Neoverse-N1 MIDR_EL1;
#                 arm: the fixture as is; host: this machine's own sysfs
#   WPERF_TIMEOUT seconds allowed per test (default 300; needs python3-pytest-timeout)
#   WPERF_ARM64=1 run it in the emulated Arm machine instead (scripts/arm64-vm.sh --python, with
#                 build/arm64/lperf; tests/wperf-suite/guest.sh runs pytest there, with trixie's
#                 pytest and jsonschema from arm64-site.sh); give it the files that count, e.g.
#                 every file with a `no PMU` row in docs/wperf.md (wperf_cli_stat_test.py
#                 wperf_cli_timeline_test.py ... wperf_cli_record_test.py; ARM64_VM_TIMEOUT, s)
#   WPERF_KEEP=1  keep the temporary directory (its path is printed)
#   WPERF_LIST=1  list each failing test with the first line of its failure
# Exit status 0 when no test failed for a reason other than the "cannot apply" table.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ -n "${WPERF_TESTS:-}" ] || { echo "wperf-suite: set WPERF_TESTS to a WindowsPerf checkout" >&2; exit 2; }
src=$WPERF_TESTS
[ -d "$src/wperf-scripts/tests" ] && src=$src/wperf-scripts/tests
[ -f "$src/common.py" ] && [ -f "$src/pytest.ini" ] ||
	{ echo "wperf-suite: $WPERF_TESTS: no wperf-scripts/tests (common.py, pytest.ini) there" >&2; exit 2; }
lperf=${LPERF:-$root/build/lperf}
case $lperf in /*) ;; *) lperf=$(pwd)/$lperf ;; esac
[ -x "$lperf" ] || [ "${WPERF_ARM64:-0}" = 1 ] || { echo "wperf-suite: $lperf: not built (make all)" >&2; exit 2; }
py=/usr/bin/python3
[ -x "$py" ] && "$py" -c 'import pytest' 2>/dev/null || py=python3
"$py" -c 'import pytest, jsonschema' 2>/dev/null ||
	{ echo "wperf-suite: needs pytest and jsonschema (scripts/install-deps.sh)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lperf-wsuite.XXXXXX")
[ "${WPERF_KEEP:-0}" = 1 ] && echo "wperf-suite: working in $tmp" || trap 'rm -rf "$tmp"' EXIT
cp -R "$src" "$tmp/tests"
# Adaptation 2: a range() step N_CORES//8 (//6...) becomes at least 1.
sed -i -E '/range\(/ s#N_CORES *// *([0-9]+)#max(1, N_CORES//\1)#g' "$tmp"/tests/*.py
# Adaptation 3: the wperf command, by the names the suite uses.
mkdir "$tmp/bin"
for n in wperf wperf.exe; do
	ln -s "$lperf" "$tmp/bin/$n"
	ln -s "$lperf" "$tmp/tests/$n"
done
case ${WPERF_SYSFS:-n1} in
host) unset LPERF_SYSFS_ROOT ;;
arm | n1)
	cp -R "$root/tests/fixtures/sysfs-arm" "$tmp/sysfs"
	if [ "${WPERF_SYSFS:-n1}" = n1 ]; then
		# Neoverse N1 r3p1: implementer 0x41, variant 3, architecture 0xf, part 0xd0c, rev 1.
		d=$tmp/sysfs/devices/system/cpu/cpu0/regs/identification
		mkdir -p "$d" && echo 0x00000000413fd0c1 >"$d/midr_el1"
	fi
	export LPERF_SYSFS_ROOT="$tmp/sysfs" ;;
*) echo "wperf-suite: WPERF_SYSFS must be n1, arm or host" >&2; exit 2 ;;
esac
# The counters cannot be opened where the machine has no hardware PMU of its own (an x86 VM
# with the Arm fixture): the "no PMU" rows of the classification apply then.
nopmu=--no-pmu
[ "$(uname -m)" = aarch64 ] && [ -z "${LPERF_SYSFS_ROOT:-}" ] &&
	ls -d /sys/bus/event_source/devices/armv8_pmuv3* >/dev/null 2>&1 && nopmu=

list=
[ "${WPERF_LIST:-0}" = 1 ] && list=--list
if [ "${WPERF_ARM64:-0}" = 1 ]; then
	# The guest has its own PMU and sysfs: guest.sh adds the fixture's event names to it.
	rm -f "$tmp"/tests/wperf "$tmp"/tests/wperf.exe
	mkdir -p "$root/build/arm64/vm"
	"$root/scripts/arm64-python.sh" "$root/build/arm64/vm/python.cpio" >&2
	"$here/arm64-site.sh" "$root/build/arm64/pytest-site" >&2
	cp -R "$root/build/arm64/pytest-site" "$tmp/site"
	cp -R "$root/tests/fixtures/sysfs-arm/bus/event_source/devices/armv8_pmuv3_0/events" "$tmp/events"
	# Arm's PMU data for `wperf man` (make's arm-data target), as guest.sh's arm-data/.
	data=
	[ -f "$root/build/arm-data/mapfile.csv" ] && data="--add $root/build/arm-data"
	echo "wperf-suite: $src in the emulated Arm machine"
	ARM64_VM_TIMEOUT=${ARM64_VM_TIMEOUT:-3600} "$root/scripts/arm64-vm.sh" --python \
		--add "$tmp/tests" --add "$tmp/site" --add "$tmp/events" $data --add "$here/guest.sh" \
		--add "$here/lperf_wperf_shim.py" -- sh guest.sh "$@" | tr -d '\r' >"$tmp/console.log"
	sed -n '/^=== junit begin$/,/^=== junit end$/p' "$tmp/console.log" | sed '1d;$d' >"$tmp/junit.xml"
	sed -n '1,/^=== junit begin$/p' "$tmp/console.log" | grep -v '^=== junit' | tail -n 5
	[ -s "$tmp/junit.xml" ] || { tail -n 40 "$tmp/console.log"; exit 1; }
	"$py" "$here/counts.py" "$tmp/junit.xml" "$root/docs/wperf.md" $list
	exit
fi

timeout_opt=
"$py" -c 'import pytest_timeout' 2>/dev/null && timeout_opt="--timeout=${WPERF_TIMEOUT:-300}"
echo "wperf-suite: $src against $lperf (sysfs: ${LPERF_SYSFS_ROOT:-host})"
(cd "$tmp/tests" && PATH="$tmp/bin:$PATH" PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" \
	PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -p lperf_wperf_shim -p no:cacheprovider \
	-q --junitxml="$tmp/junit.xml" $timeout_opt "$@" >"$tmp/pytest.log" 2>&1)
tail -n 3 "$tmp/pytest.log"
[ -s "$tmp/junit.xml" ] || { cat "$tmp/pytest.log"; exit 1; }
"$py" "$here/counts.py" "$tmp/junit.xml" "$root/docs/wperf.md" $nopmu $list
