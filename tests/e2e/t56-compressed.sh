#!/bin/sh
# Compressed recordings (perf record -z: zstd in PERF_RECORD_COMPRESSED records) both ways: lperf
# reads perf's with the same per-symbol counts as the uncompressed file of the same run, and
# writes files perf 6.1 reads without a warning.
# e2e-class: parallel (compressed and plain recordings of fixed work, compared on the same files)
. "$(dirname "$0")/lib.sh"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O0 -fno-omit-frame-pointer -o "$BIN/shares" "$TEST_ROOT/tests/workloads/shares.c" ||
	{ echo "cannot build the workload"; exit 1; }

if command -v perf >/dev/null && perf record -h 2>&1 | grep -q compression-level; then
	test_expect_success 'perf record -z: lperf report gives the counts of the decompressed file' '
		perf record -q -z -g -F 2000 -e cpu-clock -o "$SCRATCH/z.data" -- "$BIN/shares" 10 2>/dev/null &&
		perf inject -i "$SCRATCH/z.data" -o plain.data &&
		lperf report -i "$SCRATCH/z.data" --sort sym --stdio --no-children -n >z.txt 2>z.err &&
		lperf report -i plain.data --sort sym --stdio --no-children -n >plain.txt &&
		sym_counts z.txt >a && sym_counts plain.txt >b && [ -s a ] && diff a b && ! [ -s z.err ]
	'

	test_expect_success 'perf record -z: lperf and perf report the same counts and stacks' '
		perf report -i "$SCRATCH/z.data" --sort sym --stdio --no-children -n -g none >perf.txt 2>/dev/null &&
		lperf report -i "$SCRATCH/z.data" --sort sym --stdio --no-children -n >z.txt &&
		sym_counts perf.txt >b && sym_counts z.txt >a && diff a b &&
		perf script -i "$SCRATCH/z.data" -F comm,tid,time,ip,sym 2>/dev/null | awk "NF == 2 && \$1 ~ /^[0-9a-f]+$/ { print \$2 }" >p.syms &&
		lperf script -i "$SCRATCH/z.data" -F comm,tid,time,ip,sym | awk "NF == 2 && \$1 ~ /^[0-9a-f]+$/ { print \$2 }" >l.syms &&
		[ -s l.syms ] && same_syms p.syms l.syms
	'

	test_expect_success 'lperf record -z: perf reads it without warnings, counts agree' '
		lperf record -z -g -F 2000 -e cpu-clock -o lz.data -- "$BIN/shares" 10 2>rec.err &&
		expect_grep "compressed \(original [0-9.]+ MB, ratio is [0-9.]+\)" rec.err &&
		perf report -i lz.data --header-only 2>/dev/null | grep -q "# compressed : Zstd, level = 1" &&
		perf report -i lz.data --sort sym --stdio --no-children -n -g none >perf.txt 2>perf.err &&
		! grep -v "^$" perf.err &&
		lperf report -i lz.data --sort sym --stdio --no-children -n >lperf.txt &&
		sym_counts perf.txt >b && sym_counts lperf.txt >a && [ -s a ] && diff a b
	'
else
	test_skip 'compressed recordings' "needs perf with -z (zstd)"
fi

test_expect_success 'lperf record -z LEVEL makes a smaller file with the same samples' '
	lperf record -q -z 3 -F 2000 -e cpu-clock -o z3.data -- "$BIN/shares" 5 &&
	lperf report -i z3.data --sort sym --stdio --no-children -n >z3.txt &&
	n=$(awk "/^# Samples:/ { print \$3 }" z3.txt) && [ -n "$n" ] &&
	lperf record -q -F 2000 -e cpu-clock -o u.data -- "$BIN/shares" 5 &&
	[ $(stat -c %s z3.data) -lt $(stat -c %s u.data) ]
'

test_expect_success 'a bad level and -z on a pipe are usage errors' '
	expect_exit 2 lperf record -z 99 -o x.data -- true 2>err && expect_grep "zstd level" err &&
	expect_exit 2 lperf record -z -o - -- true >/dev/null 2>err && expect_grep "pipe" err
'

test_expect_success 'a damaged zstd stream is one error naming the offset, not a crash' '
	lperf record -q -z -F 2000 -e cpu-clock -o z3.data -- "$BIN/shares" 2 &&
	"$PYTHON" - z3.data bad.data <<-PY &&
	import struct, sys
	d = bytearray(open(sys.argv[1], "rb").read())
	off, size = struct.unpack_from("<QQ", d, 40)
	p = off
	while p < off + size:
	    t, m, s = struct.unpack_from("<IHH", d, p)
	    if t == 81:
	        for i in range(p + 16, min(p + s, p + 64)):
	            d[i] ^= 0xff
	        break
	    p += s
	open(sys.argv[2], "wb").write(d)
	PY
	# with one thread and with two (whose read-ahead runs after the failed walk)
	for j in 1 2; do
		expect_exit 1 lperf report -j$j -i bad.data --stdio >out 2>err &&
		expect_grep "COMPRESSED record at offset 0x[0-9a-f]+" err || return 1
	done
'

test_done
