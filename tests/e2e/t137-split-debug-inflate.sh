#!/bin/sh
# A program whose DWARF is in a separate debug file with zlib-compressed sections, as Debian's
# -dbg packages ship libc's (/usr/lib/debug/.build-id/XX/REST.debug, under --symfs here):
# lperf inflates those sections itself (symbols/dwarfzip.c, libdeflate) before libdw opens the
# file. Its inline rows and source lines are the ones lperf reads from the unstripped program
# (libdw's own inflation of nothing), with and without --threads; a debug file whose
# .debug_info is damaged gets one warning naming the file and the section, and the report goes
# on without its inline frames.
# e2e-class: parallel (split debug files under --symfs in the scratch directory)
. "$(dirname "$0")/lib.sh"

BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -Wl,--build-id -o "$SCRATCH/full" "$TEST_ROOT/tests/workloads/inline_hot.c" || exit 1
objcopy --only-keep-debug --compress-debug-sections=zlib "$SCRATCH/full" "$SCRATCH/hot.debug" &&
	objcopy --strip-debug "$SCRATCH/full" "$BIN/inline_hot" || exit 1
ID=$(readelf -n "$BIN/inline_hot" 2>/dev/null | awk '/Build ID/ { print $3 }')
DBG=usr/lib/debug/.build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-).debug
# Three roots: the unstripped program; the stripped one and its debug file; the same, damaged.
for r in whole split bad; do mkdir -p "$SCRATCH/$r$BIN" "$SCRATCH/$r/$(dirname "$DBG")"; done
cp "$SCRATCH/full" "$SCRATCH/whole$BIN/inline_hot"
cp "$BIN/inline_hot" "$SCRATCH/split$BIN/inline_hot"
cp "$BIN/inline_hot" "$SCRATCH/bad$BIN/inline_hot"
cp "$SCRATCH/hot.debug" "$SCRATCH/split/$DBG"
cp "$SCRATCH/hot.debug" "$SCRATCH/bad/$DBG"
# Damage .debug_info's deflate blocks in the middle (its header and zlib header kept).
set -- $(readelf -S -W "$SCRATCH/hot.debug" 2>/dev/null | sed -n 's/.*\] \.debug_info *[A-Z]* *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\).*/\1 \2/p')
python3 -c "
import sys
off, size = int(sys.argv[2], 16), int(sys.argv[3], 16)
with open(sys.argv[1], 'r+b') as f:
    f.seek(off + 24 + (size - 24) // 2)
    b = f.read(64)
    f.seek(off + 24 + (size - 24) // 2)
    f.write(bytes(x ^ 0x5a for x in b))
" "$SCRATCH/bad/$DBG" "$1" "$2" || exit 1

lperf record -q --call-graph dwarf -F 999 -e cpu-clock -o "$SCRATCH/l.data" -- "$BIN/inline_hot" 3 >/dev/null 2>&1
# report ROOT [ARGS]: lperf report of the recording under --symfs ROOT, with an empty cache
# (a first run: nothing kept of an earlier one).
report() {
	root=$1; shift
	rm -rf "$PWD/cache.$$"
	PERF_BUILDID_DIR="$PWD/cache.$$" "$LPERF" report -i "$SCRATCH/l.data" --symfs "$SCRATCH/$root" --stdio "$@"
	rc=$?
	rm -rf "$PWD/cache.$$"
	return $rc
}

test_expect_success 'split debug file: the inline graphs and rows of the unstripped program' '
	for j in 1 2; do
		report whole -j$j --no-children >w.txt 2>w.err &&
		report split -j$j --no-children >s.txt 2>s.err &&
		expect_grep "adler \(inlined\)" s.txt && cmp w.txt s.txt || return 1
	done
'

test_expect_success 'split debug file: source lines and script srcline as the unstripped program' '
	report whole --no-children --sort srcline,sym >w.txt &&
	report split --no-children --sort srcline,sym >s.txt &&
	expect_grep "inline_hot.c:[0-9]" s.txt && cmp w.txt s.txt &&
	PERF_BUILDID_DIR="$PWD/c1" lperf script -i "$SCRATCH/l.data" --symfs "$SCRATCH/whole" -F ip,sym,srcline >w.txt &&
	PERF_BUILDID_DIR="$PWD/c2" lperf script -i "$SCRATCH/l.data" --symfs "$SCRATCH/split" -F ip,sym,srcline >s.txt &&
	expect_grep "inline_hot.c:[0-9]" s.txt && cmp w.txt s.txt
'

test_expect_success 'damaged .debug_info: one warning naming the file and the section, no inline rows' '
	for j in 1 2; do
		report bad -j$j --no-children >b.txt 2>b.err || return 1
		expect_grep "$DBG: section \.debug_info: its zlib data is damaged" b.err &&
		test "$(grep -c "\.debug_info" b.err)" = 1 &&
		expect_no_grep "\(inlined\)" b.txt && expect_grep "inline_hot" b.txt || return 1
	done
'

test_done
