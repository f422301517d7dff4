#!/bin/sh
# The kernel symbol snapshot (symbols/ksnap.h): `lperf record` of kernel samples writes
# $PERF_BUILDID_DIR/.lperf/ksyms/BUILDID when the cache has no usable one (as perf record stores
# kallsyms), else the first report that needs it does; later reports read it instead of
# /proc/kallsyms, and every report prints the same bytes as one that reads /proc/kallsyms itself.
# A damaged or another kernel's snapshot is rebuilt (by record, or by a report that reads a
# damaged part: it checks each part the first time it reads it), a symlink planted at
# its name is never written through, and reports running at once leave one valid file. Needs
# root (kernel addresses) and the kernel's build-id.
# e2e-class: parallel (the snapshot's files and bytes, in a build-id cache of its own)
. "$(dirname "$0")/lib.sh"

KID=$(lperf buildid-list -k 2>/dev/null)
KPTR=$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null || echo 2)
if [ "$(id -u)" != 0 ] || [ -z "$KID" ] || [ "$KPTR" -gt 1 ]; then
	test_skip 'kernel symbol snapshot' 'needs root, kptr_restrict <= 1 and the kernel build-id'
	test_done
	exit
fi
SNAP="$PERF_BUILDID_DIR/.lperf/ksyms/$KID"
HAVE_STRACE=$(command -v strace >/dev/null && echo 1)
# traced OUT: the report into OUT, the files it opened into ./trace (strace, when there is one;
# LeakSanitizer cannot run under ptrace, so an ASan build is traced without it).
traced() {
	if [ -z "$HAVE_STRACE" ]; then : >trace; lperf report -i k.data --stdio --sort dso,sym >"$1"; return; fi
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat -o trace "$LPERF" report -i k.data --stdio --sort dso,sym >"$1"
}
# Did the traced report read /proc/kallsyms? (Without strace both hold.)
read_kallsyms() { [ -z "$HAVE_STRACE" ] || grep -q "/proc/kallsyms" trace; }
not_read_kallsyms() { [ -z "$HAVE_STRACE" ] || ! grep -q "/proc/kallsyms" trace; }
# blind CMD...: CMD with /proc/kallsyms empty (an empty file mounted over it in a mount
# namespace of its own), so that only the snapshot can name kernel symbols; "" when the machine
# cannot (no unshare, no mount namespaces).
BLIND=$(unshare -m sh -c 'mount --bind /dev/null /proc/kallsyms && test ! -s /proc/kallsyms && echo 1' 2>/dev/null)
blind() { unshare -m sh -c 'mount --bind /dev/null /proc/kallsyms && exec "$@"' blind "$@"; }
# dd spends its time copying zeros in the kernel: kernel samples for certain. -N: this recording
# leaves the cache alone (no snapshot), for the report's own tests below.
record_dd() { lperf record -q -e cpu-clock -F 4999 "$@" -- dd if=/dev/zero of=/dev/null bs=64k count=40000 2>/dev/null; }
test_expect_success 'setup: a recording with kernel samples, and its report from /proc/kallsyms' '
	record_dd -N -o k.data &&
	LPERF_KALLSYMS=/proc/kallsyms lperf report -i k.data --stdio --sort dso,sym >want &&
	expect_grep "\[k\]" want && test ! -e "$SNAP" &&
	cp k.data "$SCRATCH/k.data" && cp want "$SCRATCH/want"
'

test_expect_success 'record writes the snapshot: the first report after it reads no /proc/kallsyms, same bytes' '
	cp "$SCRATCH/k.data" "$SCRATCH/want" . &&
	rm -rf "$PERF_BUILDID_DIR/.lperf" &&
	record_dd -o r.data && test -f "$SNAP" && test "$(stat -c %a "$SNAP")" = 600 &&
	traced r1 && not_read_kallsyms && cmp want r1 &&
	if test -n "$BLIND"; then blind "$LPERF" report -i k.data --stdio --sort dso,sym >r2 && cmp want r2; fi
'

test_expect_success 'record keeps a good snapshot, -N and -B write none, --buildid-dir is honoured' '
	cp "$SCRATCH/k.data" "$SCRATCH/want" . &&
	rm -rf "$PERF_BUILDID_DIR/.lperf" &&
	record_dd -o r.data && ino=$(stat -c %i "$SNAP") &&
	record_dd -o r.data && test "$(stat -c %i "$SNAP")" = "$ino" &&
	rm -f "$SNAP" && record_dd -N -o r.data && test ! -e "$SNAP" &&
	record_dd -B -o r.data && test ! -e "$SNAP" &&
	lperf --buildid-dir "$PWD/other" record -q -e cpu-clock -F 4999 -o r.data -- \
		dd if=/dev/zero of=/dev/null bs=64k count=40000 2>/dev/null &&
	test ! -e "$SNAP" && test -f "other/.lperf/ksyms/$KID" &&
	lperf --buildid-dir "$PWD/other" report -i k.data --stdio --sort dso,sym >r1 && cmp want r1
'

test_expect_success 'record rebuilds a damaged, truncated or another kernel'"'"'s snapshot' '
	cp "$SCRATCH/k.data" "$SCRATCH/want" . &&
	rm -rf "$PERF_BUILDID_DIR/.lperf" &&
	record_dd -o r.data && size=$(stat -c %s "$SNAP") &&
	printf "\377\377\377\377" | dd of="$SNAP" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null &&
	record_dd -o r.data && traced r1 && not_read_kallsyms && cmp want r1 &&
	truncate -s $((size - 1)) "$SNAP" &&
	record_dd -o r.data && test "$(stat -c %s "$SNAP")" -gt $((size / 2)) &&
	traced r2 && not_read_kallsyms && cmp want r2 &&
	printf "\377\377\377\377" | dd of="$SNAP" bs=1 seek=16 conv=notrunc 2>/dev/null &&
	record_dd -o r.data && traced r3 && not_read_kallsyms && cmp want r3 &&
	if test -n "$BLIND"; then blind "$LPERF" report -i k.data --stdio --sort dso,sym >r4 && cmp want r4; fi
'

test_expect_success 'the first report writes the snapshot (mode 0600), the second reads it: same bytes' '
	cp "$SCRATCH/k.data" "$SCRATCH/want" . &&
	rm -rf "$PERF_BUILDID_DIR/.lperf" &&
	lperf report -i k.data --stdio --sort dso,sym >r1 && cmp want r1 &&
	test -f "$SNAP" && test "$(stat -c %a "$SNAP")" = 600 &&
	traced r2 && not_read_kallsyms && cmp want r2 &&
	lperf report -i k.data --stdio --sort dso,sym >r3 && cmp want r3
'

# A report checks each part of the snapshot (2,048 entries, 64 KB of names) when it first reads
# it: a byte flipped every 32 KB past the header damages every part, whichever it reads.
damage_every_part() {
	dsize=$(stat -c %s "$SNAP") && doff=4096 &&
	while [ $doff -lt "$dsize" ]; do
		printf "\377" | dd of="$SNAP" bs=1 seek=$doff conv=notrunc 2>/dev/null || return 1
		doff=$((doff + 32768))
	done
}
test_expect_success 'a truncated or damaged snapshot is rebuilt, the report unchanged' '
	cp "$SCRATCH/k.data" "$SCRATCH/want" . &&
	lperf report -i k.data --stdio --sort dso,sym >/dev/null && test -f "$SNAP" &&
	size=$(stat -c %s "$SNAP") &&
	truncate -s $((size - 1)) "$SNAP" &&
	traced r1 && read_kallsyms && cmp want r1 && test "$(stat -c %s "$SNAP")" -gt $((size / 2)) &&
	printf "\377\377\377\377" | dd of="$SNAP" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null &&
	traced r2 && cmp want r2 &&
	damage_every_part && traced r3 && read_kallsyms && cmp want r3 &&
	traced r5 && not_read_kallsyms && cmp want r5 &&
	: >"$SNAP" && traced r4 && read_kallsyms && cmp want r4 && test -s "$SNAP"
'

test_expect_success 'a symlink at the snapshot name is replaced, never written through' '
	cp "$SCRATCH/k.data" "$SCRATCH/want" . &&
	mkdir -p "$(dirname "$SNAP")" && rm -f "$SNAP" &&
	echo keep >victim && ln -s "$PWD/victim" "$SNAP" &&
	lperf report -i k.data --stdio --sort dso,sym >r1 && cmp want r1 &&
	test "$(cat victim)" = keep && test -f "$SNAP" && test ! -L "$SNAP"
'

test_expect_success 'four reports at once: the same output, one valid snapshot, no temporary left' '
	cp "$SCRATCH/k.data" "$SCRATCH/want" . &&
	rm -f "$SNAP" &&
	for i in 1 2 3 4; do { lperf report -i k.data --stdio --sort dso,sym >p$i || fail "report $i: exit $?"; } & done; wait &&
	for i in 1 2 3 4; do cmp want p$i || return 1; done &&
	test -f "$SNAP" && ! ls -A "$(dirname "$SNAP")" | grep -q tmp &&
	traced r1 && not_read_kallsyms && cmp want r1
'

test_expect_success 'buildid-cache -P removes the snapshot too, never what a link in it points to' '
	cp "$SCRATCH/k.data" . &&
	lperf report -i k.data --stdio >/dev/null && test -f "$SNAP" &&
	echo keep >victim && ln -s "$PWD/victim" "$(dirname "$SNAP")/planted" &&
	lperf buildid-cache -P && test ! -e "$PERF_BUILDID_DIR/.lperf" && test "$(cat victim)" = keep
'

test_done
