#!/bin/sh
# Runs in the emulated Arm machine (scripts/arm64-vm.sh, from tests/wperf-suite/run.sh with
# WPERF_ARM64=1), in /work beside the adapted suite (tests/), the pytest packages (site/), the
# Arm fixture's event names (events/) and Arm's PMU data for wperf man (arm-data/). QEMU's PMU
# publishes only the events it counts; WindowsPerf's
# suite names the architecture's recommended ones too (ld_spec, inst_spec...). Their names are
# put beside QEMU's (a copy of its events/ with the fixture's added, bound over it: the added
# ones open, and count 0, as QEMU does not count them) and a Neoverse-N1 MIDR_EL1 over cpu0's
# (the suite's Neoverse tables apply). The real sysfs stays otherwise: the counters are probed as
# on any Arm machine, so gpc_num is the PMU's. Prints pytest's JUnit XML between markers.
#   sh guest.sh [PYTEST ARGS]
cd /work || exit 1
pmu=
for d in /sys/bus/event_source/devices/armv8_* /sys/bus/event_source/devices/armv9_*; do
	[ -d "$d/events" ] && pmu=$d && break
done
if [ -n "$pmu" ] && [ -d events ]; then
	mkdir -p /tmp/pmu-events && cp "$pmu"/events/* /tmp/pmu-events/
	for f in events/*; do
		[ -e "/tmp/pmu-events/${f##*/}" ] || cp "$f" /tmp/pmu-events/
	done
	mount --bind /tmp/pmu-events "$pmu/events" || echo "guest: cannot bind the event names" >&2
fi
midr=/sys/devices/system/cpu/cpu0/regs/identification/midr_el1
if [ -f "$midr" ]; then
	echo 0x00000000413fd0c1 >/tmp/midr_el1
	mount --bind /tmp/midr_el1 "$midr" || echo "guest: cannot bind midr_el1" >&2
fi
mkdir -p /tmp/bin
lperf=$(command -v lperf)
for n in wperf wperf.exe; do
	ln -sf "$lperf" "/tmp/bin/$n"
	ln -sf "$lperf" "tests/$n"
done
export PATH="/tmp/bin:$PATH" PYTHONPATH="/work/site:/work" PYTHONDONTWRITEBYTECODE=1
# Arm's PMU data for `wperf man`, carried in as arm-data/ when the host has it.
[ -f /work/arm-data/mapfile.csv ] && export LPERF_ARM_DATA=/work/arm-data
timeout_opt=
python3 -c 'import pytest_timeout' 2>/dev/null && timeout_opt=--timeout=${WPERF_TIMEOUT:-300}
# Each test's result as it ends (-v) goes to the console too: a host can follow a long run in
# build/arm64/vm/run.*/console.
cd tests && python3 -m pytest -p lperf_wperf_shim -p no:cacheprovider -v --junitxml=/tmp/junit.xml \
	$timeout_opt "$@" 2>&1 | grep -E "(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)( |$)|^=+ .* in [0-9.]+s"
echo "=== junit begin"
cat /tmp/junit.xml
echo
echo "=== junit end"
