#!/bin/sh
# Hints (session/session_hint.c, live_open_notes, cmd_open_failed): one "lperf: hint:" line each,
# after the output, only where the profile shows the fix; never in machine-readable modes
# (--json, -t, --folded, script) and never with -q. Each hint is triggered once and shown quiet
# where it does not apply. Also: -F above the kernel's limit is warned, and a truncated recording
# is read up to where it stops.
# e2e-class: parallel (hints from the shape of fixed-work recordings, not their timing)
. "$(dirname "$0")/lib.sh"

W="$TEST_ROOT/examples/work.c"
cd "$SCRATCH" || exit 1
cc -O2 -g -fomit-frame-pointer -o work_nofp "$W" && cc -O2 -g -fno-omit-frame-pointer -o work_fp "$W" || exit 1

test_expect_success 'frame-pointer chains that stop at the sampled function: --call-graph dwarf is suggested' '
	lperf record -q -g -o "$SCRATCH/nofp.data" "$SCRATCH/work_nofp" >/dev/null &&
	lperf report -i "$SCRATCH/nofp.data" >out 2>err &&
	expect_grep "^lperf: hint: .*% of the call chains stop at the sampled function .mostly in work_nofp.*--call-graph dwarf" err &&
	expect_lines 1 err && [ "$(tail -n 1 err | cut -c1-12)" = "lperf: hint:" ]
'

test_expect_success 'the frame-pointer hint stays quiet: -fno-omit-frame-pointer, DWARF stacks, -q, --json, -t, --folded, script' '
	lperf record -q -g -o fp.data "$SCRATCH/work_fp" >/dev/null &&
	lperf report -i fp.data >/dev/null 2>err && expect_no_grep "hint:" err &&
	lperf record -q --call-graph dwarf -o dw.data "$SCRATCH/work_nofp" >/dev/null &&
	lperf report -i dw.data >/dev/null 2>err && expect_no_grep "hint:" err &&
	N="$SCRATCH/nofp.data" &&
	lperf report -q -i $N >/dev/null 2>err && expect_no_grep "hint:" err &&
	lperf report --json -i $N >/dev/null 2>err && expect_no_grep "hint:" err &&
	lperf report -t, -i $N >/dev/null 2>err && expect_no_grep "hint:" err &&
	lperf report --folded -i $N >/dev/null 2>err && expect_no_grep "hint:" err &&
	lperf script -i $N >/dev/null 2>err && expect_no_grep "hint:" err
'

test_expect_success 'Python without --python: --python is suggested; a C program gets no Python hint' '
	printf "def fib(n):\n    return n if n < 2 else fib(n-1) + fib(n-2)\nprint(fib(29))\n" >app.py &&
	lperf record -q -g -o py.data /usr/bin/python3 app.py >/dev/null &&
	lperf report -i py.data >/dev/null 2>err &&
	expect_grep "^lperf: hint: .*Python interpreter.*record with --python" err &&
	expect_no_grep "call chains stop" err &&
	lperf report -i "$SCRATCH/nofp.data" >/dev/null 2>err && expect_no_grep "Python" err
'

test_expect_success 'Python recorded with --python: no --python hint' '
	if ! lperf test 2>/dev/null | grep -q "stacks: BPF"; then echo "no BPF Python stacks here"; exit 0; fi
	printf "def fib(n):\n    return n if n < 2 else fib(n-1) + fib(n-2)\nprint(fib(31))\n" >app.py &&
	lperf record -q -g --python -o py2.data /usr/bin/python3 app.py >/dev/null &&
	lperf report -i py2.data >/dev/null 2>err && expect_no_grep "hint:" err
'

if command -v node >/dev/null; then
	printf "%s\n" "function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }" \
		"let t = 0; for (let k = 0; k < 30; k++) t += hot(3000000); console.log(t);" >"$SCRATCH/hot.js"
	test_expect_success 'node without --perf-basic-prof: JIT code without names is said, with the flag to use' '
		lperf record -q -g -F 2000 -o n.data -- node "$SCRATCH/hot.js" >/dev/null &&
		lperf report -i n.data >/dev/null 2>err &&
		expect_grep "^lperf: hint: .*JIT code with no names: node .*--perf-basic-prof" err
	'
	test_expect_success 'node with --perf-basic-prof: no JIT hint' '
		lperf record -q -g -F 2000 -o n2.data -- node --perf-basic-prof "$SCRATCH/hot.js" >/dev/null &&
		lperf report -i n2.data >/dev/null 2>err && expect_no_grep "JIT code" err
	'
fi

test_expect_success 'most samples in a stripped library: it is named with where its debug file would be' '
	printf "%s\n" "static unsigned long inner(unsigned long n) { unsigned long x = 1; for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1; return x; }" \
		"__attribute__((noinline)) static unsigned long mid(unsigned long n) { return inner(n) ^ inner(n / 2); }" \
		"unsigned long hot_entry(unsigned long n) { return mid(n) + 1; }" >hot.c &&
	printf "%s\n" "#include <stdio.h>" "unsigned long hot_entry(unsigned long n);" \
		"int main(void) { printf(\"%lu\\n\", hot_entry(200000000UL) & 1); return 0; }" >use.c &&
	cc -O2 -fPIC -shared -Wl,--build-id -o libhot.so hot.c && cp libhot.so libhot.full.so && strip --strip-all libhot.so &&
	cc -O2 -o use use.c -L. -lhot -Wl,-rpath,"$PWD" &&
	id=$(readelf -n libhot.so | awk "/Build ID/ { print \$3 }") &&
	lperf record -q -o s.data ./use >/dev/null &&
	lperf report -i s.data >/dev/null 2>err &&
	expect_grep "^lperf: hint: .*% of the samples are in $PWD/libhot.so, which is stripped" err &&
	d=$(echo "$id" | cut -c1-2) && r=$(echo "$id" | cut -c3-) &&
	expect_grep "/usr/lib/debug/.build-id/$d/$r.debug" err &&
	cp libhot.full.so libhot.so && lperf record -q -o s2.data ./use >/dev/null &&
	lperf report -i s2.data >/dev/null 2>err && expect_no_grep "stripped" err
'

test_expect_success 'report, script and annotate without a recording: make one first; -q silences it' '
	mkdir empty && cd empty &&
	expect_exit 1 lperf report 2>err && expect_grep "^lperf: perf.data: cannot open" err &&
	expect_grep "^lperf: hint: there is no perf.data here: make one first with .lperf record -- COMMAND." err &&
	expect_exit 1 lperf script -i x.data 2>err && expect_grep "lperf record -o x.data -- COMMAND" err &&
	expect_exit 1 lperf annotate -i x.data 2>err && expect_grep "hint: there is no recording at x.data" err &&
	expect_exit 1 lperf report -q 2>err && expect_no_grep "hint:" err &&
	lperf report -i "$SCRATCH/nofp.data" -q >/dev/null 2>err && expect_no_grep "no perf.data" err
'

test_expect_success 'record -F above the kernel limit: a warning naming the limit and its file; a lower -F is quiet' '
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate) &&
	lperf record -F 99999999 -o f.data true 2>err &&
	expect_grep "warning: the maximum sampling frequency .$max Hz. is lower than the 99999999 Hz asked for" err &&
	expect_grep "/proc/sys/kernel/perf_event_max_sample_rate" err &&
	lperf record -F 999 -o f2.data true 2>err && expect_no_grep "maximum sampling frequency" err
'

as_nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
test_expect_success 'record as a normal user: kernel samples left out is said, naming perf_event_paranoid; not for :u or root' '
	if [ "$(id -u)" != 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -lt 2 ] || ! as_nobody "$LPERF" version >/dev/null 2>&1; then
		echo "needs root, setpriv and perf_event_paranoid >= 2"; exit 0
	fi
	U=$(mktemp -d /tmp/lperf-hint.XXXXXX) && chmod 777 "$U" && cp "$SCRATCH/work_fp" "$U/" &&
	as_nobody "$LPERF" record -o "$U/u.data" "$U/work_fp" >/dev/null 2>err &&
	expect_grep "^lperf: hint: kernel samples were left out: kernel.perf_event_paranoid is [0-9]" err &&
	as_nobody "$LPERF" record -q -o "$U/u.data" "$U/work_fp" >/dev/null 2>err && expect_no_grep "hint:" err &&
	as_nobody "$LPERF" record -e cpu-clock:u -o "$U/u.data" "$U/work_fp" >/dev/null 2>err &&
	expect_no_grep "kernel samples" err &&
	lperf record -o r.data "$SCRATCH/work_fp" >/dev/null 2>err && expect_no_grep "kernel samples" err &&
	rm -rf "$U"
'

test_expect_success 'a truncated recording: the readable part is reported, where it stopped is said, exit 1' '
	lperf record -q -o t.data "$SCRATCH/work_fp" >/dev/null &&
	size=$(stat -c %s t.data) && head -c $((size * 2 / 3)) t.data >cut.data &&
	expect_exit 1 lperf report -i cut.data --sort sym >out 2>err &&
	expect_grep "warning: cut.data: truncated: .*the records up to offset 0x[0-9a-f]* are read" err &&
	expect_grep "integer_work" out &&
	expect_grep "the report above covers only the records before this point" err &&
	lperf report -i t.data --sort sym >/dev/null 2>err && expect_no_grep "truncated" err
'

test_done
