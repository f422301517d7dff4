#!/bin/sh
# Root writes its outputs safely next to another user (issue 28): in a shared 1777 directory
# under /tmp and in /tmp itself (names of this run's own), nobody plants symbolic links to a root-only
# file and world-writable files at every path lperf writes (the recording and the names of its
# old temporaries, inject -o, stat -o, test -o, the five pictures, wperf's timeline CSV and -o
# JSON). lperf refuses them in one line, never writes through a link, never leaves root's data in
# a file nobody owns; -f replaces the link itself. The SPE temporary is in a private directory.
# e2e-class: parallel (refusals of planted links in mktemp and per-run names; waits on conditions)
. "$(dirname "$0")/lib.sh"
WPERF="$(dirname "$LPERF")/wperf"

as_nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
can_nobody() { [ "$(id -u)" = 0 ] && as_nobody true 2>/dev/null; }
# shared KIND: "dir" a fresh 1777 directory under /tmp (names as they are), "tmp" /tmp itself
# (names prefixed with this run's own); then the victim, root's, mode 0600, outside either.
shared() {
	if [ "$1" = dir ]; then
		D=$(mktemp -d /tmp/lperf-shared.XXXXXX) && chmod 1777 "$D" && P=
	else
		D=/tmp P=lperf-t98.$$.$(date +%N).
	fi
	V=$(mktemp "$SCRATCH/victim.XXXXXX") && echo secret >"$V" && chmod 600 "$V" && echo "$D $V $P"
}
cleanup() { if [ -z "$P" ]; then rm -rf "$D"; else rm -f "$D/$P"*; fi; rm -f "$V"; }
# plant D NAME...: a link to the victim at each NAME (and old-style temporaries for the next pids)
plant_links() {
	d=$1; shift
	for n in "$@"; do
		as_nobody ln -s "$V" "$d/$P$n" || return 1
		p=$$; i=0
		while [ $i -lt 40 ]; do as_nobody ln -s "$V" "$d/$P$n.tmp.$((p + i))"; i=$((i + 1)); done
	done
}
plant_files() {
	d=$1; shift
	for n in "$@"; do as_nobody sh -c "echo theirs >'$d/$P$n' && chmod 666 '$d/$P$n'" || return 1; done
}
victim_intact() { [ "$(cat "$V")" = secret ] || fail "the victim was written through a link"; }
OUTS="perf.data inj.data st.txt test.json f.svg f.html f.json f.fx.json.gz f.pb.gz"
P=

for kind in dir tmp; do
test_expect_success "symlinks at every output in a shared directory ($kind): refused, not followed" '
	if ! can_nobody; then echo "needs root and setpriv"; exit 0; fi
	set -- $(shared '$kind') && D=$1 V=$2 P=${3:-} &&
	"$LPERF" record -q -g -o "$D/${P}src.data" -- true 2>/dev/null &&
	plant_links "$D" $OUTS &&
	expect_exit 1 "$LPERF" record -o "$D/${P}perf.data" -- true 2>err &&
	expect_grep "not writing .$D/${P}perf.data.: it is a symbolic link" err &&
	expect_exit 1 "$LPERF" inject -i "$D/${P}src.data" -o "$D/${P}inj.data" 2>err &&
	expect_grep "symbolic link" err &&
	expect_exit 1 "$LPERF" stat -o "$D/${P}st.txt" -- true 2>err && expect_grep "symbolic link" err &&
	expect_exit 1 "$LPERF" stat --append -o "$D/${P}st.txt" -- true 2>err && expect_grep "symbolic link" err &&
	! "$LPERF" test -o "$D/${P}test.json" >/dev/null 2>err && expect_grep "symbolic link" err &&
	for p in "--flamegraph f.svg" "--html f.html" "--speedscope f.json" "--firefox f.fx.json.gz" "--pprof f.pb.gz"; do
		set -- $p
		expect_exit 1 "$LPERF" report -i "$D/${P}src.data" $1 "$D/$P$2" >/dev/null 2>err || exit 1
		expect_grep "symbolic link" err || exit 1
	done &&
	victim_intact &&
	"$LPERF" record -q -f -o "$D/${P}perf.data" -- true 2>/dev/null &&
	test ! -L "$D/${P}perf.data" && test "$(stat -c %U:%a "$D/${P}perf.data")" = root:600 && victim_intact &&
	"$LPERF" report -f -i "$D/${P}src.data" --flamegraph "$D/${P}f.svg" >/dev/null 2>&1 &&
	test ! -L "$D/${P}f.svg" && test "$(stat -c %U "$D/${P}f.svg")" = root && victim_intact &&
	cleanup
'

test_expect_success "planted world-writable files ($kind): root never writes its data into them" '
	if ! can_nobody; then echo "needs root and setpriv"; exit 0; fi
	set -- $(shared '$kind') && D=$1 V=$2 P=${3:-} &&
	"$LPERF" record -q -g -o "$D/${P}src.data" -- true 2>/dev/null &&
	plant_files "$D" $OUTS &&
	expect_exit 1 "$LPERF" record -o "$D/${P}perf.data" -- true 2>err &&
	expect_grep "not writing .$D/${P}perf.data.: it belongs to another user .uid 65534" err &&
	expect_exit 1 "$LPERF" inject -i "$D/${P}src.data" -o "$D/${P}inj.data" 2>err &&
	expect_exit 1 "$LPERF" stat -o "$D/${P}st.txt" -- true 2>err &&
	expect_exit 1 "$LPERF" stat --append -o "$D/${P}st.txt" -- true 2>err &&
	! "$LPERF" test -o "$D/${P}test.json" >/dev/null 2>err && expect_grep "another user" err &&
	for p in "--flamegraph f.svg" "--html f.html" "--speedscope f.json" "--firefox f.fx.json.gz" "--pprof f.pb.gz"; do
		set -- $p
		expect_exit 1 "$LPERF" report -i "$D/${P}src.data" $1 "$D/$P$2" >/dev/null 2>err || exit 1
		expect_grep "another user" err || exit 1
	done &&
	for n in $OUTS; do [ "$(cat "$D/$P$n")" = theirs ] || fail "$n was written"; done &&
	ls -A "$D" | grep -F "$P" | grep -v "${P}src.data$" | sort >left &&
	printf "$P%s\n" $OUTS | sort >want && diff -u want left && cleanup
'
done

test_expect_success 'wperf: timeline CSV names for the next seconds and -o planted: refused' '
	if ! can_nobody; then echo "needs root and setpriv"; exit 0; fi
	set -- $(shared dir) && D=$1 V=$2 &&
	now=$(date +%s) && i=0 &&
	while [ $i -lt 8 ]; do
		as_nobody ln -s "$V" "$D/wperf_core_0_$(date -d @$((now + i)) +%Y_%m_%d_%H_%M_%S).core.csv"; i=$((i + 1))
	done &&
	(cd "$D" && ! "$WPERF" stat -e cpu-clock -c 0 -t -i 0 -n 1 --timeout 0.1 >out 2>err) &&
	expect_grep "symbolic link" "$D/err" && victim_intact &&
	as_nobody ln -s "$V" "$D/w.json" &&
	! "$WPERF" stat -e cpu-clock -c 0 --timeout 0.1 --json -o "$D/w.json" >/dev/null 2>err &&
	expect_grep "symbolic link" err && victim_intact &&
	rm -rf "$D" "$V"
'

test_expect_success 'a refused output is said before the workload runs; /dev/null still works' '
	"$LPERF" record -q -o /dev/null -- true &&
	"$LPERF" stat -o /dev/null -- true &&
	ln -s /nonexistent link.data &&
	expect_exit 1 "$LPERF" record -o link.data -- touch ran 2>err &&
	test ! -e ran && grep -v "note:" err >err1 && expect_lines 1 err1
'

test_expect_success 'a write that fails half way (file size limit) leaves the previous picture and recording' '
	"$LPERF" record -q -g -o src.data -- true 2>/dev/null &&
	echo previous >f.svg && cp src.data keep.data &&
	(trap "" XFSZ; ulimit -f 1; "$LPERF" report -i src.data --flamegraph f.svg >/dev/null 2>err1;
	 echo $? >rc1;
	 "$LPERF" record -q -g -o src.data -- "$LPERF" test -w noploop 1 2>err3; echo $? >rc3) &&
	test "$(cat rc1)" = 1 && expect_grep "cannot write .f.svg.: File too large" err1 &&
	test "$(cat f.svg)" = previous && test "$(cat rc3)" != 0 && cmp src.data keep.data &&
	! ls -A | grep "tmp"
'

# A process named with a lone surrogate (as CPython's surrogateescape writes bytes), a byte 0xFF
# and U+FFFE: every picture and JSON output decodes as strict UTF-8, the SVG is well-formed XML.
test_expect_success 'names with invalid UTF-8: pictures and JSON are strict UTF-8 and parse' '
	bad=$(printf "b\355\240\200\377\357\277\276d") && cp "$(command -v dash || command -v sh)" "./$bad" &&
	"$LPERF" record -q -g -o bad.data -- "./$bad" -c "i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done" &&
	"$LPERF" report -i bad.data --sort comm --stdio >txt && grep -q "b" txt &&
	"$LPERF" report -q -i bad.data --flamegraph f.svg --html f.html --speedscope f.json \
		--firefox f.ff.json.gz --pprof f.pb.gz &&
	"$LPERF" report -i bad.data --json >r.json &&
	gzip -dc f.ff.json.gz >ff.json && gzip -dc f.pb.gz >pb &&
	xmllint --noout f.svg &&
	$PYTHON -c "
import json, sys
for n in [\"f.svg\", \"f.html\", \"f.json\", \"ff.json\", \"r.json\"]:
    t = open(n, \"rb\").read().decode(\"utf-8\")  # strict: raises on surrogates, 0xFF, overlongs
    assert \"\\ufffe\" not in t and \"\\uffff\" not in t, n
    assert \"\\ufffd\" in t or \"\\\\ufffd\" in t, n + \": the name was not replaced\"
    if n.endswith(\"json\"):
        json.loads(t)
pb = open(\"pb\", \"rb\").read()
assert b\"\\xed\\xa0\\x80\" not in pb and b\"\\xff\" + b\"\\xef\" not in pb and b\"\\xef\\xbf\\xbe\" not in pb
"
'

test_expect_success 'a newline in a command name does not split --folded lines' '
	nl=$(printf "a\nb;c d") && cp "$(command -v dash || command -v sh)" "./$nl" &&
	"$LPERF" record -q -g -o nl.data -- "./$nl" -c "i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done" &&
	"$LPERF" report -i nl.data --folded >folded && test -s folded &&
	! grep -v " [0-9][0-9]*$" folded && grep -q "^a_b_c_d;" folded
'

# record -p follows its target by pidfd: in a pid namespace of its own, the target is killed and
# a new process is given the same pid (ns_last_pid); the recording ends anyway (perf does too).
test_expect_success 'record -p PID ends when the target exits even though its pid is reused' '
	if [ "$(id -u)" != 0 ] || ! unshare --pid --fork --mount-proc true 2>/dev/null; then
		echo "needs root and unshare"; exit 0; fi
	cat >reuse.sh <<-\EOF &&
	sleep 1000 & P=$!
	"$LPERF" record -q -o reuse.data -p $P 2>err &
	R=$!
	# attached: record holds its perf events open (not a fixed sleep: a slow start would
	# attach to the pid only after its reuse)
	i=0; until ls -l /proc/$R/fd 2>/dev/null | grep -q "perf_event" || [ $i -ge 300 ]; do sleep 0.1; i=$((i+1)); done
	kill $P; wait $P 2>/dev/null
	echo $((P - 1)) >/proc/sys/kernel/ns_last_pid
	sleep 1000 & Q=$!
	[ $Q = $P ] || echo "pid not reused ($P, $Q)"
	i=0; while kill -0 $R 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
	if kill -0 $R 2>/dev/null; then echo "record still running"; kill -INT $R; wait $R; else echo "record ended"; fi
	kill $Q
	EOF
	unshare --pid --fork --mount-proc sh reuse.sh >out 2>&1 &&
	cat out && grep -q "^record ended$" out && ! grep -q "not reused" out && test -s reuse.data
'

# A DWARF bomb: a small program with a .zdebug_info that inflates to 1 GiB (1,000:1). report
# of a DWARF-stack recording refuses it in one line naming the file, in about the time and memory
# of the same program's report without the bomb (lperf without the caps: 2.6 s and 1.1 GB; perf
# reads no inline frames from it). The same program built without .eh_frame makes libdwfl's
# unwinder ask for .debug_frame at every frame, which opens the DWARF (CI once sampled code
# without CFI and inflated the bomb that way: 1 GB). The bounds: the bomb-free run's plus 1 s of CPU and 48 MB, and for
# a build without ASan also 1 s and 100 MB (the issue's; ASan's bomb-free report alone takes ~100 MB).
test_expect_success 'compressed DWARF bomb: refused in one line, bounded time and memory' '
	cat >p.c <<-\EOF &&
	static inline __attribute__((always_inline)) long f(long x) { for (int i = 0; i < 1000; i++) x = x * 31 + i; return x; }
	long g(long x) { return f(x) + 1; }
	int main(void) { long s = 0; for (long i = 0; i < 300000; i++) s += g(i); return (int)(s & 1); }
	EOF
	cc -O1 -g0 -o p p.c &&
	$PYTHON -c "
import zlib, struct
size = 1 << 30
c = zlib.compressobj(9)
out = [b\"ZLIB\", struct.pack(\">Q\", size)]
chunk = bytes(16 << 20)
for _ in range(size // len(chunk)):
    out.append(c.compress(chunk))
out.append(c.flush())
open(\"bomb.bin\", \"wb\").write(b\"\".join(out))
" &&
	objcopy --add-section .zdebug_info=bomb.bin p bomb && test "$(stat -c %s bomb)" -lt 2000000 &&
	# without .eh_frame: each unwind asks libdwfl for .debug_frame, which would open the DWARF
	cc -O1 -g0 -fno-asynchronous-unwind-tables -o q p.c && objcopy --add-section .zdebug_info=bomb.bin q nobomb &&
	"$LPERF" record -q --call-graph dwarf -o b.data ./bomb 2>/dev/null &&
	"$LPERF" record -q --call-graph dwarf -o p.data ./p 2>/dev/null &&
	"$LPERF" record -q --call-graph dwarf -o nb.data ./nobomb 2>/dev/null &&
	"$LPERF" record -q --call-graph dwarf -o q.data ./q 2>/dev/null &&
	asan=0 && { ! ldd "$LPERF" | grep -q libasan || asan=1; } &&
	for v in "--stdio p b bomb" "--pprof=x.pb.gz p b bomb" "--stdio q nb nobomb"; do
		set -- $v &&
		# CPU seconds (user + system), which a loaded machine does not stretch as it does wall time
		/usr/bin/time -f "%U %S %M" -o base "$LPERF" report -i $2.data $1 >/dev/null 2>&1 &&
		/usr/bin/time -f "%U %S %M" -o usage "$LPERF" report -i $3.data $1 >/dev/null 2>err &&
		echo "$1 $4: without the bomb $(cat base), with it $(cat usage) (user s, system s, max KiB)" &&
		read u0 y0 kb0 <base && read u y kb <usage &&
		s0=$(awk "BEGIN { print $u0 + $y0 }") && secs=$(awk "BEGIN { print $u + $y }") &&
		test "$kb" -lt $((kb0 + 49152)) && awk "BEGIN { exit !($secs < $s0 + 1) }" &&
		{ [ $asan = 1 ] || { test "$kb" -lt 102400 && awk "BEGIN { exit !($secs < 1) }"; }; } &&
		cat err && grep -c "inflate" err >n && test "$(cat n)" = 1 &&
		expect_grep "^lperf: warning: .*/$4: its compressed DWARF would inflate to 1024 MiB from" err ||
		return 1
	done
'

test_expect_success 'messages: a full standard output names its errno; --python of a file without x; -p of another user' '
	"$LPERF" record -q -o s.data -- true 2>/dev/null &&
	expect_exit 1 "$LPERF" report -i s.data --stdio >/dev/full 2>err &&
	expect_grep "write error on standard output: No space left on device" err &&
	printf "#!/bin/sh\n" >noexec.py && chmod 644 noexec.py &&
	expect_exit 2 "$LPERF" record --python -o x.data -- ./noexec.py 2>err &&
	expect_grep "cannot run .\./noexec\.py.: Permission denied" err && expect_no_grep "Python interpreter" err &&
	if can_nobody; then
		sleep 30 & P=$! &&
		(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$LPERF" stat -p $P -e task-clock -- sleep 0.1) 2>err;
		kill $P;
		expect_grep "on process $P: it belongs to another user \(uid 0\)" err && expect_no_grep "paranoid" err
	fi
'

test_expect_success 'a huge JIT symbol file is not copied into the recording (256 MiB in all)' '
	"$LPERF" record -o jm.data -- sh -c "truncate -s 300M /tmp/perf-\$\$.map; echo \$\$ >pid;
		i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done" 2>err;
	rm -f "/tmp/perf-$(cat pid).map" &&
	expect_grep "perf-$(cat pid)\.map: 300 MiB not stored in the recording \(it keeps at most 256 MiB" err &&
	test "$(stat -c %s jm.data)" -lt 10000000
'

# Samples the ring buffers lost are written as perf record writes them at its end (a
# LOST_SAMPLES total), so perf report's '# Total Lost Samples' line says them, as lperf's does.
test_expect_success 'lost samples: perf report and lperf report show the same Total Lost Samples' '
	cat >busy.c <<-\EOF &&
	int main(void) { volatile long s = 0; for (long i = 0; i < 300000000; i++) s += i; return 0; }
	EOF
	cc -O0 -o busy busy.c &&
	"$LPERF" record -m 1 -F 30000 --call-graph dwarf,2048 -o lost.data -- ./busy 2>err &&
	expect_grep "samples lost" err &&
	"$LPERF" report -i lost.data --stdio 2>/dev/null | grep "^# Total Lost Samples" >mine &&
	n=$(sed "s/.*: //" mine) && test "$n" -gt 0 &&
	if command -v perf >/dev/null; then
		perf report -i lost.data --stdio 2>/dev/null | grep "^# Total Lost Samples" >theirs && diff -u theirs mine
	fi
'

test_expect_success 'daemon: a lock file another user planted in the base is refused' '
	if ! can_nobody; then echo "needs root and setpriv"; exit 0; fi
	set -- $(shared dir) && D=$1 V=$2 &&
	printf "[daemon]\nbase=%s\n[session-s1]\nrun = -e cpu-clock -m 1 sleep 30\n" "$D" >c &&
	as_nobody sh -c "echo theirs >$D/lock && chmod 666 $D/lock" &&
	! "$LPERF" daemon start --config c 2>err && cat err &&
	expect_grep "cannot open .$D/lock.: Operation not permitted" err &&
	test "$(cat "$D/lock")" = theirs && cleanup
'

test_done
