#!/bin/sh
# lperf inject -j: recordings of JIT code (CPython 3.13 -X perf_jit, Node.js --perf-prof) that
# Linux perf report and perf script resolve after the inject step, as with perf inject --jit.
# e2e-class: parallel (JIT files named per pid, the same recording read by perf; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"

PY=$(ls -d "$HOME"/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.13*/bin/python3 2>/dev/null | head -n 1)
HAVE_PERF=$(command -v perf >/dev/null && echo 1)
export PY

cat >"$SCRATCH/script.py" <<'EOF'
def foo(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def bar():
    t = 0
    for _ in range(30):
        t += foo(20000)
    return t

def main():
    for _ in range(12):
        bar()

main()
EOF

# The sample stacks of a perf script output (blank-line separated) in which py::foo is called
# by py::bar, called by py::main.
complete_stacks() {
	awk 'BEGIN { RS = "" } /py::foo:[^ ]*script\.py/ {
		f = index($0, "py::foo:"); b = index($0, "py::bar:"); m = index($0, "py::main:")
		if (f && b > f && m > b) n++ }
	     END { print n + 0 }' "$1"
}

test_expect_success 'as perf inject: standard input to standard output by default; a missing input named' '
	expect_exit 1 lperf inject -j -i nothing.data 2>err && expect_grep "nothing.data" err &&
	lperf record -q -e task-clock -o in.data -- true && lperf inject <in.data >out.data &&
	lperf report -i out.data --stdio >/dev/null
'

if [ -z "$PY" ]; then
	test_skip 'CPython 3.13 -X perf_jit recordings' 'no pyenv CPython 3.13 (~/.pyenv/versions/3.13*)'
else
test_expect_success 'record CPython 3.13 -X perf_jit with DWARF stacks, then inject' '
	lperf record -q --call-graph dwarf -e cpu-clock -F 999 -o "$SCRATCH/in.data" -- \
		"$PY" -X perf_jit "$SCRATCH/script.py" &&
	lperf inject -v -j -i "$SCRATCH/in.data" -o "$SCRATCH/out.data" 2>err &&
	cp err "$SCRATCH/inject.err" &&
	sed -n "s|.*/jit-\([0-9]*\)\.dump.*|\1|p" err | head -n 1 >"$SCRATCH/pypid" &&
	pid=$(cat "$SCRATCH/pypid") && test -n "$pid" &&
	expect_grep "jit-$pid\.dump( \(stored copy\))?: [0-9]+ code loads, [0-9]+ jitted files in /tmp" err &&
	expect_no_grep "warning" err &&
	ls /tmp/jitted-$pid-*.so >files && test "$(wc -l <files)" -ge 50
'

test_expect_success 'the jitted files are valid ELF with one symbol covering the code' '
	pid=$(cat "$SCRATCH/pypid") &&
	so=$(ls /tmp/jitted-$pid-*.so | head -n 1) &&
	readelf -a -W "$so" >re 2>re.err && test ! -s re.err &&
	expect_grep "DYN \(Shared object file\)" re &&
	expect_grep "FUNC +LOCAL +DEFAULT +1 py::" re &&
	expect_grep "NT_GNU_BUILD_ID" re &&
	readelf --debug-dump=frames "$so" >fr && expect_grep "pc=0+80\.\." fr
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'perf report names the py:: functions only after inject' '
	perf report -i "$SCRATCH/in.data" --stdio --sort sym 2>/dev/null >before &&
	expect_no_grep "py::foo" before &&
	perf report -i "$SCRATCH/out.data" --stdio --sort sym 2>perr >after &&
	expect_no_grep "rror" perr &&
	awk "/\[\.\] py::foo:.*\/script\.py/ { sub(/%/, \"\", \$1); if (\$1 + 0 >= 50) ok = 1 }
	     END { exit !ok }" after || { cat after; exit 1; }
'

test_expect_success 'perf script shows py:: frames in complete Python stacks' '
	pid=$(cat "$SCRATCH/pypid") &&
	perf script -i "$SCRATCH/out.data" 2>/dev/null >s &&
	expect_grep "py::foo:[^ ]*/script\.py\+0x[0-9a-f]+ \(/tmp/jitted-$pid-[0-9]+\.so\)" s &&
	n=$(complete_stacks s) && echo "$n complete stacks" && test "$n" -ge 100
'

test_expect_success 'perf sees the jitted maps instead of the marker, at the code load times' '
	pid=$(cat "$SCRATCH/pypid") &&
	perf script -i "$SCRATCH/out.data" --show-mmap-events 2>/dev/null >m &&
	expect_no_grep "jit-$pid\.dump" m &&
	grep "PERF_RECORD_MMAP2 $pid/[0-9]*: .* @ 0x80 .*r-xs /tmp/jitted-$pid-[0-9]*\.so" m >maps &&
	test "$(wc -l <maps)" -eq "$(ls /tmp/jitted-$pid-*.so | wc -l)" &&
	perf script -i "$SCRATCH/in.data" --show-mmap-events 2>/dev/null | grep "jit-$pid\.dump" >marker &&
	mt=$(awk "{ sub(/:\$/, \"\", \$4); print \$4; exit }" marker) &&
	awk -v mt="$mt" "{ sub(/:\$/, \"\", \$4); if (\$4 + 0 < mt + 0) bad++ } END { exit bad }" maps
'

test_expect_success 'perf reads the output as a pipe (inject -i - -o -)' '
	lperf inject -j -i - -o - <"$SCRATCH/in.data" | perf report -i - --stdio --sort sym 2>perr >r &&
	expect_grep "py::foo:.*/script\.py" r
'

# lperf record stores the dump in the recording, but the recording's path alone is no place to
# write: with the dump gone, the jitted files go only into a directory the user names (--jit-dir).
# (The dump is removed, not moved aside: it may be gone already, since pids wrap at 32768 on the
# test machine and another test that ran a process with this pid removes that pid's files; no
# later test needs it.)
test_expect_success 'a dump file that is gone: nothing written unless --jit-dir DIR; the stored copy then' '
	pid=$(cat "$SCRATCH/pypid") &&
	rm -f /tmp/jit-$pid.dump && touch stamp && sleep 1 &&
	lperf inject -j -i "$SCRATCH/in.data" -o gone.data 2>err; rc=$?
	mkdir jd && lperf inject -j --jit-dir jd -i "$SCRATCH/in.data" -o dir.data 2>err2; rc2=$?
	test "$rc" -eq 0 && test "$rc2" -eq 0 &&
	test -z "$(find /tmp -maxdepth 1 -name "jitted-$pid-*.so" -newer stamp)" &&
	expect_lines 1 err && expect_grep "jit-$pid\.dump.*(no such jitdump on this machine|does not exist)" err &&
	perf script -i gone.data --show-mmap-events 2>/dev/null >m &&
	expect_grep "jit-$pid\.dump" m && expect_no_grep "jitted-" m &&
	if grep -q "(stored copy)" "$SCRATCH/inject.err"; then
		test ! -s err2 && ls jd/jitted-$pid-*.so >/dev/null &&
		perf script -i dir.data --show-mmap-events 2>/dev/null >m2 && expect_grep "jd/jitted-$pid-" m2
	fi
'

test_expect_success 'perf record -k 1 recordings: inject, and a damaged dump warns once' '
	perf record -q -k 1 --call-graph dwarf -e cpu-clock -F 999 -o p.data -- "$PY" -X perf_jit "$SCRATCH/script.py" \
		>/dev/null 2>&1 &&
	perf script -i p.data --show-mmap-events 2>/dev/null |
		sed -n "s|.* /tmp/jit-\([0-9]*\)\.dump\$|\1|p" | head -n 1 >"$SCRATCH/pypid2" &&
	pid=$(cat "$SCRATCH/pypid2") && test -n "$pid" &&
	lperf inject -j -i p.data -o pj.data 2>err && test ! -s err &&
	perf report -i pj.data --stdio --sort sym 2>/dev/null >r &&
	expect_grep "py::foo:.*/script\.py" r &&
	printf "not a jitdump, not at all: 40 bytes or more of it" >/tmp/jit-$pid.dump &&
	lperf inject -j -i p.data -o bad.data 2>err &&
	expect_lines 1 err && expect_grep "jit-$pid\.dump: not a jitdump" err &&
	perf script -i bad.data --show-mmap-events 2>/dev/null >m &&
	expect_grep "jit-$pid\.dump" m && expect_no_grep "jitted-" m
'
else
	test_skip 'Linux perf reads the injected CPython recording' 'perf is not installed'
fi

test_expect_success 'lperf report reads the injected recording too' '
	lperf report -i "$SCRATCH/out.data" --sort sym >rc 2>/dev/null &&
	expect_grep "py::foo:.*/script\.py" rc
'
fi

if ! command -v node >/dev/null; then
	test_skip 'Node.js --perf-prof' 'node is not installed'
elif [ -z "$HAVE_PERF" ]; then
	test_skip 'Node.js --perf-prof' 'perf is not installed'
else
test_expect_success 'Node.js --perf-prof: perf report names the hot JS function after inject' '
	cat >hot.js <<-\EOF &&
	function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * 1.0001; return s; }
	function outer() { let t = 0; for (let k = 0; k < 300; k++) t += hotLoop(100000); return t; }
	console.log(outer());
	EOF
	lperf record -q -g -e cpu-clock -F 999 -o node.data -- node --perf-prof hot.js >/dev/null &&
	lperf inject -j -i node.data -o node-out.data 2>err && test ! -s err &&
	ls jitted-*.so >/dev/null &&
	perf report -i node-out.data --stdio --no-children --sort sym 2>/dev/null >r &&
	expect_grep "\[\.\] JS:\*?~?hotLoop .*hot\.js" r
'
fi

# CPython writes its dump to /tmp, and the jitted files go next to it.
for f in "$SCRATCH/pypid" "$SCRATCH/pypid2"; do
	[ -s "$f" ] || continue
	pid=$(cat "$f")
	rm -f "/tmp/jit-$pid.dump" /tmp/jitted-"$pid"-*.so
done

test_done
