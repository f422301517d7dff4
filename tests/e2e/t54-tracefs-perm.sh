#!/bin/sh
# Tracepoints for a user who may not read tracefs (mounted mode 0700, as Debian mounts it): lperf
# says it cannot read it and how to permit it, as perf does, never that it is not mounted; and
# where it really is not mounted it says that. Sysfs trees under LPERF_SYSFS_ROOT stand in for /sys.
# e2e-class: parallel (tracefs permission messages on private mktemp trees)
. "$(dirname "$0")/lib.sh"

as_nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
can_nobody() { [ "$(id -u)" = 0 ] && as_nobody "$LPERF" version >/dev/null 2>&1; }
# A sysfs tree nobody can walk: kernel/tracing/events inside, tracing of MODE.
tree() {
	T=$(mktemp -d /tmp/lperf-tracefs.XXXXXX) && chmod 755 "$T" &&
	mkdir -p "$T/kernel/tracing/events/sched/sched_switch" && chmod 755 "$T/kernel" &&
	echo 316 >"$T/kernel/tracing/events/sched/sched_switch/id" && chmod "$1" "$T/kernel/tracing" &&
	echo "$T"
}

test_expect_success 'tracefs mode 0700 as nobody: stat and record say it cannot be read and how to remount' '
	if ! can_nobody; then echo "needs root and setpriv"; exit 0; fi
	T=$(tree 700) &&
	expect_exit 2 as_nobody env LPERF_SYSFS_ROOT=$T "$LPERF" stat -e sched:sched_switch true 2>err &&
	expect_grep "no permission to read tracefs at $T/kernel/tracing" err &&
	expect_grep "mount -o remount,mode=755 $T/kernel/tracing" err &&
	expect_no_grep "not mounted\|no tracefs\|unknown event" err &&
	expect_exit 2 as_nobody env LPERF_SYSFS_ROOT=$T "$LPERF" record -e sched:sched_switch -o /dev/null true 2>err &&
	expect_grep "no permission to read tracefs" err &&
	as_nobody env LPERF_SYSFS_ROOT=$T "$LPERF" test >out 2>&1 &&
	expect_grep "tracefs  *$T/kernel/tracing not readable" out && expect_no_grep "tracefs  *not mounted" out &&
	rm -rf "$T"
'

test_expect_success 'the same tree readable (mode 0755): no permission message, the tracepoint is found' '
	if ! can_nobody; then echo "needs root and setpriv"; exit 0; fi
	T=$(tree 755) &&
	as_nobody env LPERF_SYSFS_ROOT=$T "$LPERF" test >out 2>&1 &&
	expect_grep "tracefs  *$T/kernel/tracing$" out &&
	as_nobody env LPERF_SYSFS_ROOT=$T "$LPERF" stat -e sched:sched_switch true 2>err;
	expect_no_grep "no permission to read tracefs\|not mounted" err &&
	rm -rf "$T"
'

test_expect_success 'tracefs not mounted (no events/): it says not mounted, not a permission problem' '
	if ! can_nobody; then echo "needs root and setpriv"; exit 0; fi
	T=$(tree 755) && rm -rf "$T/kernel/tracing/events" &&
	expect_exit 2 as_nobody env LPERF_SYSFS_ROOT=$T "$LPERF" stat -e sched:sched_switch true 2>err &&
	expect_grep "no tracefs under" err && expect_no_grep "permission" err &&
	as_nobody env LPERF_SYSFS_ROOT=$T "$LPERF" test >out 2>&1 &&
	expect_grep "tracefs  *not mounted" out &&
	rm -rf "$T"
'

test_expect_success 'the real /sys as nobody: lperf and perf agree whether tracefs can be read' '
	if ! can_nobody || ! have_tracefs; then echo "needs root, setpriv and tracefs"; exit 0; fi
	as_nobody perf stat -e sched:sched_switch true >/dev/null 2>perr
	as_nobody "$LPERF" stat -e sched:sched_switch true >/dev/null 2>lerr
	if grep -q "No permissions to read" perr; then
		expect_grep "no permission to read tracefs" lerr && expect_grep "remount,mode=755" lerr
	else
		expect_no_grep "no permission to read tracefs" lerr
	fi
'

test_done
