#!/bin/sh
# Symbol tables kept between runs (symbols/symstore.h): the first report of a recording keeps each
# ELF file's sorted symbols in $PERF_BUILDID_DIR/.lperf/syms/BUILDID, the next one maps that
# instead of reading the file's symbol table, and both print the same bytes as a report with an
# empty cache. Two reports at once on one empty cache both print them and leave a store the next
# report uses as it is. A damaged, truncated, foreign or symlinked store is rebuilt; a binary
# stripped in place (its build-id unchanged) is read afresh. Source lines find a debug file
# locally, never through libdebuginfod.
# e2e-class: parallel (symbol store: the same bytes with and without it)
. "$(dirname "$0")/lib.sh"

# A program with 100 functions (a store is kept for files with 64 symbols or more).
gen() {
	echo '#include <stdlib.h>'
	i=0
	while [ $i -lt 100 ]; do
		echo "__attribute__((noinline)) unsigned long f$i(unsigned long x) { for (int k = 0; k < 4000; k++) x = x * 6364136223846793005ul + $i; return x; }"
		i=$((i + 1))
	done
	echo 'int main(int c, char **v) { unsigned long x = 1; long n = c > 1 ? atol(v[1]) : 10;'
	echo 'for (long r = 0; r < n; r++) {'
	i=0
	while [ $i -lt 100 ]; do echo "x = f$i(x);"; i=$((i + 1)); done
	echo '} return x == 42; }'
}
gen >"$SCRATCH/many.c" && cc -O1 -fno-omit-frame-pointer -o "$SCRATCH/many" "$SCRATCH/many.c" || exit 1
ID=$(readelf -n "$SCRATCH/many" | awk '/Build ID/ { print $3 }')
STORE=.debug/.lperf/syms/$ID   # relative to each test's directory (cache ./.debug)
views() { # views OUT: report and script of the recording, with the cache in ./.debug
	(PERF_BUILDID_DIR="$PWD/.debug" && export PERF_BUILDID_DIR &&
	 lperf report -i "$SCRATCH/a.data" --stdio >"$1" &&
	 lperf report -i "$SCRATCH/a.data" --stdio --no-children --sort dso,sym >>"$1" &&
	 lperf script -i "$SCRATCH/a.data" -F ip,sym >>"$1")
}
# same WANT GOT: cmp, with the difference shown when there is one.
same() { cmp "$1" "$2" || { diff "$1" "$2" | head -n 20; ls -l "$1" "$2"; return 1; }; }
# old STORE: dates the store in the past; unchanged STORE: it was not rewritten since.
old() { touch -d '2001-01-01 00:00:00' "$1"; }
unchanged() { test "$(stat -c %Y "$1")" = "$(date -d '2001-01-01 00:00:00' +%s)"; }

test_expect_success 'setup: a recording of a program with 100 functions' '
	lperf record -q -e cpu-clock -F 2999 -g -o "$SCRATCH/a.data" -- "$SCRATCH/many" 300 &&
	views "$SCRATCH/want" && expect_grep "f[0-9]+" "$SCRATCH/want" && test -f "$STORE" &&
	cp "$STORE" "$SCRATCH/good"
'

test_expect_success 'the first report keeps the symbols, the next reads them: the same bytes' '
	views v1 && same "$SCRATCH/want" v1 && same "$SCRATCH/good" "$STORE" &&
	old "$STORE" && views v2 && same "$SCRATCH/want" v2 && unchanged "$STORE"
'

test_expect_success 'two reports at once on one empty cache: both right, the store left is used' '
	for round in 1 2 3; do
		rm -rf .debug &&
		{ views a$round & pid=$!; views b$round; rb=$?; wait $pid; } && test $rb -eq 0 &&
		same "$SCRATCH/want" a$round && same "$SCRATCH/want" b$round &&
		same "$SCRATCH/good" "$STORE" && old "$STORE" &&
		views c$round && same "$SCRATCH/want" c$round && unchanged "$STORE" || exit 1
	done
'

test_expect_success 'a damaged, truncated or foreign store is not believed, and is rebuilt' '
	views v0 && size=$(stat -c %s "$STORE") &&
	printf "\377\377" | dd of="$STORE" bs=1 seek=$((size - 3)) conv=notrunc 2>/dev/null &&
	views v1 && same "$SCRATCH/want" v1 && same "$SCRATCH/good" "$STORE" &&
	truncate -s 50 "$STORE" && views v2 && same "$SCRATCH/want" v2 && same "$SCRATCH/good" "$STORE" &&
	head -c 4096 /dev/urandom >"$STORE" && views v3 && same "$SCRATCH/want" v3 && same "$SCRATCH/good" "$STORE" &&
	other=$(ls .debug/.lperf/syms | grep -v "^$ID\$" | head -n 1) &&
	if [ -n "$other" ]; then
		cp ".debug/.lperf/syms/$other" "$STORE" && views v4 && same "$SCRATCH/want" v4 &&
		same "$SCRATCH/good" "$STORE"
	fi
'

test_expect_success 'a symlink at the store name is replaced, its target untouched' '
	views v0 && rm -f "$STORE" && echo keep >victim && ln -s "$PWD/victim" "$STORE" &&
	views v1 && same "$SCRATCH/want" v1 &&
	test "$(cat victim)" = keep && test -f "$STORE" && test ! -L "$STORE" && same "$SCRATCH/good" "$STORE"
'

test_expect_success 'stripped in place (same build-id): the kept symbols are not used' '
	cp "$SCRATCH/many" many.keep && views v0 && test -f "$STORE" &&
	objcopy --strip-all "$SCRATCH/many" &&
	test "$(readelf -n "$SCRATCH/many" | awk "/Build ID/ { print \$3 }")" = "$ID" &&
	(PERF_BUILDID_DIR="$PWD/empty" && export PERF_BUILDID_DIR &&
	 lperf report -i "$SCRATCH/a.data" --stdio >want2 &&
	 lperf report -i "$SCRATCH/a.data" --stdio --no-children --sort dso,sym >>want2 &&
	 lperf script -i "$SCRATCH/a.data" -F ip,sym >>want2) &&
	test -s "$SCRATCH/want" && ! cmp -s "$SCRATCH/want" want2 && views v1 && same want2 v1 &&
	cp many.keep "$SCRATCH/many"
'

# Source lines look for a separate debug file where libdwfl looks locally, never through
# libdebuginfod (which libdwfl loads, with libcurl and TLS, when nothing is found locally).
test_expect_success 'source lines from a debug file named by .gnu_debuglink; no debuginfod client loaded' '
	cc -O1 -g -fno-omit-frame-pointer -o lines "$SCRATCH/many.c" &&
	objcopy --only-keep-debug lines lines.debug &&
	objcopy --strip-debug --add-gnu-debuglink=lines.debug lines &&
	lperf record -q -e cpu-clock -F 2999 -o l.data -- ./lines 100 &&
	(PERF_BUILDID_DIR="$PWD/c1" && export PERF_BUILDID_DIR &&
	 lperf report -i l.data --stdio --no-children --sort srcline >s1) &&
	expect_grep "many\.c:[0-9]+" s1 &&
	mv lines.debug gone.debug &&
	(PERF_BUILDID_DIR="$PWD/c2" && export PERF_BUILDID_DIR &&
	 LD_DEBUG=files "$LPERF" report -i l.data --stdio --no-children --sort srcline >s2 2>ld.log) &&
	expect_no_grep "many\.c:[0-9]+" s2 && expect_grep "f[0-9]+" s2 && expect_no_grep "libdebuginfod" ld.log
'

test_done
