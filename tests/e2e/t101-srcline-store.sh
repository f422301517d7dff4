#!/bin/sh
# Source lines kept between runs (symbols/srcline_store.h): the first source-line report of a
# recording keeps the lines it looked up in $PERF_BUILDID_DIR/.lperf/lines/BUILDID, the next one
# answers from there without opening the separate debug files, and both print the same bytes as
# a report with an empty cache, for report --sort srcline,srcfile and script -F ip,sym,srcline.
# A damaged store is rebuilt; a binary stripped in place (its build-id unchanged) or a store that
# is a symlink is not believed.
# e2e-class: parallel (source-line store: the same bytes with and without it)
. "$(dirname "$0")/lib.sh"

HAVE_STRACE=$(command -v strace >/dev/null && echo 1)
cc -O2 -g -fno-omit-frame-pointer -o "$SCRATCH/annot" "$TEST_ROOT/tests/workloads/annot.c" || exit 1
ID=$(readelf -n "$SCRATCH/annot" | awk '/Build ID/ { print $3 }')
STORE="$PERF_BUILDID_DIR/.lperf/lines/$ID"
views() { # views OUT: the source-line views, in one file
	lperf report -i "$SCRATCH/a.data" --stdio --no-children --sort srcline >"$1" &&
		lperf report -i "$SCRATCH/a.data" --stdio --no-children --sort srcfile,sym >>"$1" &&
		lperf script -i "$SCRATCH/a.data" -F ip,sym,srcline >>"$1"
}
# fresh OUT: the views with an empty cache directory (nothing kept before, nothing kept after).
fresh() { (PERF_BUILDID_DIR="$PWD/empty.$$" && export PERF_BUILDID_DIR && views "$1") && rm -rf "$PWD/empty.$$"; }
# traced OUT [REPORT ARGS]: a report (default: --sort srcline of a.data) with the cache in ./c,
# the files it opened in ./trace.
traced() {
	out=$1; shift
	[ $# -gt 0 ] || set -- -i "$SCRATCH/a.data" --no-children --sort srcline
	(PERF_BUILDID_DIR="$PWD/c" && export PERF_BUILDID_DIR &&
	 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" && export ASAN_OPTIONS &&
	 strace -f -e trace=openat -o trace "$LPERF" report --stdio "$@" >"$out")
}
debug_opens() { grep -c "/usr/lib/debug/.* = [0-9]" trace || :; }

test_expect_success 'setup: a recording of annot (-g), lines in its own DWARF and in libc' '
	lperf record -q -e cpu-clock -F 2999 -o "$SCRATCH/a.data" -- "$SCRATCH/annot" 3 &&
	fresh "$SCRATCH/want" && expect_grep "annot.c:" "$SCRATCH/want" && test ! -e "$STORE"
'

test_expect_success 'the first report keeps its lines, the next reads them: the same bytes' '
	views v1 && cmp "$SCRATCH/want" v1 && test -f "$STORE" &&
	views v2 && cmp "$SCRATCH/want" v2
'

if [ -n "$HAVE_STRACE" ]; then
# libc's separate debug file (libc6-dbg) is opened for its symbols by every report, and once
# more for its DWARF by the first only; without it, nothing to see.
test_expect_success 'with every line kept, the DWARF of a separate debug file is not opened' '
	traced t1 && n1=$(debug_opens) &&
	traced t2 && cmp t1 t2 && n2=$(debug_opens) &&
	echo "debug file opens: $n1 then $n2" &&
	if [ "$n1" -gt 0 ]; then test "$n2" -lt "$n1"; fi
'
else
	test_skip 'the DWARF of a separate debug file is not opened' 'no strace'
fi

test_expect_success 'a damaged store is not believed, and is rebuilt' '
	views v0 && size=$(stat -c %s "$STORE") &&
	printf "\377\377" | dd of="$STORE" bs=1 seek=$((size - 3)) conv=notrunc 2>/dev/null &&
	views v1 && cmp "$SCRATCH/want" v1 &&
	truncate -s 50 "$STORE" && views v2 && cmp "$SCRATCH/want" v2 &&
	test "$(stat -c %s "$STORE")" -gt 50
'

test_expect_success 'a symlink at the store name is replaced, its target untouched' '
	rm -f "$STORE" && echo keep >victim && ln -s "$PWD/victim" "$STORE" &&
	views v1 && cmp "$SCRATCH/want" v1 &&
	test "$(cat victim)" = keep && test -f "$STORE" && test ! -L "$STORE"
'

# DWARF call chains: report expands inline frames (libdw's inline chains) in every run.
test_expect_success 'inline frames of DWARF call chains are kept too: the same bytes' '
	lperf record -q -e cpu-clock -F 999 --call-graph dwarf -o d.data -- "$SCRATCH/annot" 2 &&
	(PERF_BUILDID_DIR="$PWD/e" && export PERF_BUILDID_DIR &&
	 lperf report -i d.data --stdio >w1 && lperf report -i d.data --stdio >w2 &&
	 lperf report -i d.data --stdio --no-children -g caller >w3) &&
	cmp w1 w2 && expect_grep "hot_loop" w1 &&
	(PERF_BUILDID_DIR="$PWD/f" && export PERF_BUILDID_DIR &&
	 lperf report -i d.data --stdio --no-children -g caller >w4) && cmp w3 w4 &&
	if [ -n "$HAVE_STRACE" ]; then
		traced x1 -i d.data && n1=$(debug_opens) && traced x2 -i d.data && n2=$(debug_opens) &&
		cmp x1 x2 && cmp w1 x1 && echo "debug file opens: $n1 then $n2" &&
		if [ "$n1" -gt 0 ]; then test "$n2" -lt "$n1"; fi
	fi
'

# A call-graph report needs the chains' functions only: it keeps them without the lines (no line
# table decoded); a later source-line view or script's srcline looks the lines up then.
test_expect_success 'chains kept without their lines: later srcline views print the same bytes' '
	lperf record -q -e cpu-clock -F 999 --call-graph dwarf -o d.data -- "$SCRATCH/annot" 2 &&
	(PERF_BUILDID_DIR="$PWD/g" && export PERF_BUILDID_DIR &&
	 lperf report -i d.data --stdio >g0 && expect_grep "hot_loop" g0 &&
	 lperf script -i d.data -F ip,sym,srcline >g1 &&
	 lperf report -i d.data --stdio --no-children --sort srcline >g2 &&
	 lperf script -i d.data -F ip,sym,srcline >g3) &&
	(PERF_BUILDID_DIR="$PWD/h" && export PERF_BUILDID_DIR &&
	 lperf script -i d.data -F ip,sym,srcline >h1 &&
	 lperf report -i d.data --stdio --no-children --sort srcline >h2) &&
	cmp h1 g1 && cmp h1 g3 && cmp h2 g2 && expect_grep "annot.c:" h1
'

test_expect_success 'stripped in place (same build-id): the kept lines are not used' '
	cp "$SCRATCH/annot" annot.keep && views v0 && test -f "$STORE" &&
	objcopy --strip-debug "$SCRATCH/annot" &&
	test "$(readelf -n "$SCRATCH/annot" | awk "/Build ID/ { print \$3 }")" = "$ID" &&
	fresh want2 && ! cmp -s "$SCRATCH/want" want2 &&
	views v1 && cmp want2 v1 &&
	cp annot.keep "$SCRATCH/annot"
'

test_done
