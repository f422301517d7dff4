#!/bin/sh
# The GIL (docs/python.md "The GIL"): which thread holds it, read with each Python stack by the BPF
# walker and by the process_vm_readv reader (LPERF_NO_BPF=1), on every pyenv CPython 2.7, 3.6-3.13
# and Debian's python3.11. tests/workloads/py_gil.py runs two threads: spin computes in
# pure Python (it holds the GIL), compress_loop compresses 1 MiB of random bytes with zlib, which
# lets the GIL go while it compresses (about 0.1 s a call), each until it has had half a second of CPU time
# (a loaded machine takes longer, the samples are as many); the main thread sleeps. Known answers:
#  - record --python: both threads' functions are there (the baseline);
#  - record --gil: spin's samples stay, compress_loop's go: it holds the GIL only between two
#    calls, so at most 25% of the two functions' samples are compress_loop's (0-7% measured, 40%
#    without --gil; 25% is over 3 standard deviations above 7% with the 30 samples the test needs
#    at least);
#  - record --wall --python (and its py-spy spelling --idle): the [GIL] root frame marks at least
#    half of spin's wall time (it lets the GIL go only while compress_loop takes it between two
#    calls: 70-100% measured) and at most 25% of compress_loop's (0-1% measured; without BPF a
#    stack read at a batch stands for the 0.1 s around it, so one unlucky read marks 10%);
#  - lperf dump marks spin's thread (active+gil) and never the main thread (waiting on a lock);
#    dump --gil lists spin's thread alone. A thread may let the GIL go for an instant (2.7 does
#    every 100 bytecodes), so each dump is repeated until it shows the holder (50 times at most).
# py-spy's spellings --idle, --native, --subprocesses and --nonblocking are accepted.
# e2e-class: parallel (CPU-time samples and the [GIL] marks' wide margins: passed twice at loads of 13-15)
. "$(dirname "$0")/lib.sh"
W="$TEST_ROOT/tests/workloads/py_gil.py"

# shares FILE: "spin SPIN SPIN_GIL compress COMPRESS COMPRESS_GIL" from the Python view's folded stacks
# (each line's count: samples, or ns for a wall-clock profile).
shares() {
	lperf report -i "$1" --python --folded 2>/dev/null | awk '
		{ n = $NF; g = /\[GIL\]/ }
		/;spin \(/ { s += n; if (g) sg += n }
		/;compress_loop \(/ { h += n; if (g) hg += n }
		END { printf "spin %.0f %.0f compress %.0f %.0f\n", s, sg, h, hg }'
}

# gil_case PY MODE: the recordings' known answers under PY, MODE "" (BPF where lperf may load it)
# or "LPERF_NO_BPF=1".
gil_case() {
	py=$1 env=$2
	wall=--wall
	[ -n "$env" ] && wall=--idle
	env $env "$LPERF" record -q --python -o cpu.data -- "$py" "$W" run "$RUN" >/dev/null 2>err &&
	env $env "$LPERF" record -q --gil -o gil.data -- "$py" "$W" run "$RUN" >/dev/null 2>>err &&
	env $env "$LPERF" record -q $wall --python -o wall.data -- "$py" "$W" run "$RUN" >/dev/null 2>>err || {
		cat err; return 1; }
	set -- $(shares cpu.data); echo "record --python: $*"
	[ "$2" -ge 30 ] && [ "$5" -ge 30 ] || fail "too few samples of spin ($2) or compress_loop ($5) to judge" || return 1
	set -- $(shares gil.data); echo "record --gil: $*"
	[ "$2" -ge 30 ] || fail "record --gil kept $2 samples of spin, the GIL's holder" || return 1
	[ $(($5 * 4)) -le $(($2 + $5)) ] || fail "record --gil kept $5 samples of compress_loop (of $(($2 + $5)))" || return 1
	set -- $(shares wall.data); echo "record $wall --python: $*"
	[ "$2" -gt 0 ] && [ "$5" -gt 0 ] || fail "no wall time in spin or compress_loop" || return 1
	[ $(($3 * 2)) -ge "$2" ] || fail "[GIL] marks $3 ns of spin's $2" || return 1
	[ $(($6 * 4)) -le "$5" ] || fail "[GIL] marks $6 ns of compress_loop's $5" || return 1
	lperf report -i wall.data --stdio 2>/dev/null | grep -q "of event 'wall-clock'" ||
		fail "$wall: not a wall-clock profile"
}

# holder_dump PY: dump marks spin's thread, dump --gil shows it alone.
holder_dump() {
	mkdir r || return 1
	"$1" "$W" hold "$PWD/r" & P=$!
	i=0
	while [ ! -e r/ready ]; do
		kill -0 $P 2>/dev/null || { echo "the workload ended early"; return 1; }
		i=$((i + 1)); [ $i -le 2400 ] || { kill $P; fail "spin not running after 120 s"; return 1; }
		sleep 0.05
	done
	rc=1
	for i in $(seq 50); do
		lperf dump -p $P >d.txt 2>err || break
		# the thread whose stack has spin is marked, the main thread's (waiting) never
		awk '/^Thread/ { t = $0 } /^    spin \(/ { print t }' d.txt >spin.t
		awk '/^Thread/ { t = $0 } /^    hold \(/ { print t }' d.txt >main.t
		grep -q "+gil" main.t && { cat d.txt; fail "the main thread marked"; break; }
		grep -q "(active+gil)" spin.t && { rc=0; break; }
	done
	[ $rc = 0 ] && { cat d.txt; rc=1; } &&
	for i in $(seq 50); do
		lperf dump -p $P --gil >g.txt 2>>err && lperf dump -p $P --gil --json >g.json 2>>err || break
		[ "$(grep -c '^Thread' g.txt)" = 1 ] && grep -q "^    spin (" g.txt &&
			grep -q '"gil": true' g.json && { rc=0; break; }
	done
	kill $P; wait $P 2>/dev/null
	[ $rc = 0 ] && cat g.txt && validate_json dump.schema.json g.json && expect_grep '"gil_only": true' g.json &&
	expect_lines 0 err
}

# Half a second of each thread's CPU time gives a few hundred samples per thread (999 Hz), far above
# the bounds, however loaded the machine.
RUN=0.5
# The sanitizer build checks lperf's own code, which is the same for every version: one
# interpreter per way the holder is found (2.7's global, 3.11's _PyRuntime, 3.13's debug
# offsets) there, pyenv's 3.11 standing for Debian's too; the normal build takes every version.
VERSIONS="2.7 3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13"
SAN=""
ldd "$LPERF" 2>/dev/null | grep -q libasan && SAN=1 VERSIONS="2.7 3.11 3.13"
pys=""
for v in $VERSIONS; do
	py=$(py_for $v)
	if [ -z "$py" ]; then
		test_skip "the GIL of CPython $v" "no pyenv CPython $v installed"
		continue
	fi
	pys="$pys $py"
done
if [ -x /usr/bin/python3.11 ] && { [ -z "$SAN" ] || [ -z "$(py_for 3.11)" ]; }; then
	pys="$pys /usr/bin/python3.11"
fi

for py in $pys; do
	# BPF reads the holder where the layout says (test_pyread checks every version's against its
	# DWARF and reads it live): here once per way it is found, and 3.7's and 3.12's offsets
	case $py in
	*/2.7*|*/3.7*|*/3.11*|*/3.12*|*/3.13*|/usr/bin/python3.11)
		if [ "$(id -u)" = 0 ]; then
			test_expect_success "the GIL's holder read by BPF: --gil keeps spin, drops compress_loop; --wall marks spin ($py)" "
				gil_case '$py' ''
			"
		fi ;;
	esac
	# process_vm_readv reads the holder with the same layouts as BPF (test_pyread checks them
	# on every version): here once per way the holder is found
	case $py in
	*/2.7*|*/3.11*|*/3.13*|/usr/bin/python3.11)
		test_expect_success "the GIL's holder read by process_vm_readv: the same, with --idle ($py)" "
			gil_case '$py' LPERF_NO_BPF=1
		" ;;
	esac
	test_expect_success "dump marks the GIL's holder (active+gil), dump --gil shows it alone ($py)" "
		holder_dump '$py'
	"
done

PY=$(py311)
if [ -n "$PY" ]; then
	test_expect_success "sample --gil: spin's rows, compress_loop's and zlib's at most a fifth of them ($PY)" '
		lperf sample --gil -- "$PY" "$W" run 1.5 >out 2>err || { cat err; return 1; }
		cat out
		set -- $(awk "\$3 ~ /^py::spin:/ { s += \$2 } \$3 ~ /compress|deflate|zlib/ { c += \$2 }
			END { print s + 0, c + 0 }" out)
		[ "$1" -ge 30 ] && [ $(($2 * 4)) -le "$1" ]
	'
	test_expect_success "top --gil: spin's rows, compress_loop's at most a fifth of them ($PY)" '
		lperf top --gil --stdio -d 1 --timeout 4 -- "$PY" "$W" run 3 >out 2>err || { cat err; return 1; }
		# the last table: %Own of spin and of compress_loop
		awk "/^Samples:/ { s = 0; c = 0 } / spin \\(/ { s += \$1 } / compress_loop \\(/ { c += \$1 }
			END { print s + 0, c + 0 }" out >sums && cat sums &&
		awk "{ exit !(\$1 >= 50 && \$2 * 4 <= \$1) }" sums
	'
else
	test_skip "sample --gil, top --gil" "no CPython 3.11"
fi

test_expect_success "py-spy's --idle is --wall: the same events asked" '
	lperf record --idle --dry-run -- true >idle 2>&1 &&
	lperf record --wall --dry-run -- true >wall 2>&1 &&
	diff idle wall
'

test_expect_success "py-spy's --native, --subprocesses, --nonblocking are accepted (lperf does them)" '
	lperf record --native --subprocesses --nonblocking --dry-run -- true >/dev/null &&
	lperf top --help >help 2>&1; expect_grep "[-]-nonblocking" help && expect_grep "[-]-subprocesses" help &&
	expect_exit 2 lperf record --subprocesses --no-inherit -- true 2>err &&
	expect_grep "no-inherit does not" err
'

test_expect_success "--gil needs the Python: said so, exit 2" '
	expect_exit 2 lperf record --gil -a -- 2>err; expect_exit 2 lperf top --gil 2>err2;
	expect_grep "needs the Python" err && expect_grep "needs the Python" err2
'

test_done
