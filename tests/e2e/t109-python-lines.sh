#!/bin/sh
# Python lines in every view (docs/python.md#views): a known answer, tests/workloads/py_lines.py,
# whose work() spends its time on two one-line loops, line 10 twice as many turns as line 12, called
# by main on line 17, called by <module> on line 20. Recorded with frames read from the
# interpreter (2.7-3.11: --python; 3.12/3.13: --python-frames), the Python view names each frame
# py-spy's way, "work (py_lines.py:10)": every frame's line is right in at least 99% of the
# samples, the two lines split 2:1 within three standard deviations of the counts (plus one point
# for the workload's own unevenness), and every format says the same, read back by its own parser
# (the SVG and HTML as XML, speedscope and Firefox as JSON with their files' names and lines,
# pprof's Line entries decoded field by field, go tool pprof -lines when Go is installed).
# perf's views keep CPython's names: report --sort sym says py::work:/path, script the line apart.
# e2e-class: parallel (CPU-time samples: lines right in >= 99% and a 2:1 split in 3 sigma passed in both builds beside t110 at loads of 4-12)
. "$(dirname "$0")/lib.sh"
W="$TEST_ROOT/tests/workloads/py_lines.py"
CHECK="$PYTHON $TEST_ROOT/tests/e2e/pictures_check.py"
DECODE="$PYTHON $TEST_ROOT/tests/e2e/pprof_decode.py"
GO=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null || true)
NODE_PATH="$TEST_ROOT/build/node/node_modules" # t75's npm readers, when it installed them
export NODE_PATH CHECK DECODE GO W

# right FOLDED [MIN [nosplit]]: the samples with a frame of py_lines.py (at least MIN, 500 by
# default) have <module> on 20, main on 17 and work on 10 or 12 as their Python frames in at least
# 99%, and line 10's share of work's is 2/3 within 3 standard deviations plus a point (not with
# nosplit: the paused reader's samples, fewer and less independent of the loop's place on a loaded
# machine, docs/python.md "Without BPF", have their shares checked by t116).
right() {
	awk -v min="${2:-500}" -v nosplit="${3:-}" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		if (line !~ /py_lines\.py/) next
		k = split(line, fr, ";"); np = 0
		for (i = 2; i <= k; i++)
			if (fr[i] ~ / \((py_lines\.py|<frozen [^)]*)(:[0-9]+)?\)$/) py[++np] = fr[i]
		all += n
		if (np == 3 && py[1] == "<module> (py_lines.py:20)" && py[2] == "main (py_lines.py:17)") {
			if (py[3] == "work (py_lines.py:10)") { a += n; next }
			if (py[3] == "work (py_lines.py:12)") { b += n; next }
		}
		if (n > 1) print "  elsewhere:", n, line
	} END {
		p = a + b ? a / (a + b) : 0; tol = a + b ? 3 * sqrt(2 / 9 / (a + b)) + 0.01 : 0
		d = p - 2 / 3; if (d < 0) d = -d
		printf "%d of %d samples with every line right; line 10 %d, line 12 %d: %.4f of work (2/3 +- %.4f)\n",
			a + b, all, a, b, p, tol
		exit !(all >= min && a + b >= 0.99 * all && (nosplit != "" || d <= tol))
	}' "$1"
}

# leaf FOLDED NAME: the samples whose stack ends in the frame NAME.
leaf() {
	awk -v w="$2" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, fr, ";"); if (fr[k] == w) c += n }
		END { print c + 0 }' "$1"
}
# row REPORT NAME: the samples column of report -n's row for the symbol NAME.
row() {
	awk -v w="$2" '{ i = index($0, "[.] "); if (i && substr($0, i + 4) == w) print $2 }' "$1"
}

# formats DATA: every picture and viewer file of the Python view agrees with report --python
# --folded, line by line.
formats() {
	lperf report -i "$1" --python --folded >f.txt 2>/dev/null &&
	lperf report -q -i "$1" --python --flamegraph g.svg --html h.html --speedscope s.json --firefox f.json.gz \
		--pprof p.pb.gz &&
	set -- svg g.svg html h.html speedscope s.json firefox f.json.gz &&
	if [ -d "$NODE_PATH/pprof-format" ] && command -v node >/dev/null; then
		node "$TEST_ROOT/tests/e2e/pprof_stacks.js" p.pb.gz >p.txt && set -- "$@" pprof p.txt
	fi &&
	$CHECK f.txt "$@" &&
	expect_grep "data-k=\"python\" data-n=\"work \(py_lines.py:10\)\"" g.svg &&
	# pprof: the Line entries and the functions' names and files give the same stacks, every one
	$DECODE --lines p.pb.gz >pl.txt && sort f.txt | diff - pl.txt &&
	if [ -n "$GO" ]; then
		"$GO" tool pprof -top -lines p.pb.gz >go.txt 2>/dev/null &&
		for l in 10 12; do
			want=$(leaf f.txt "work (py_lines.py:$l)") &&
			got=$(awk -v w="/py_lines.py:$l" "\$(NF - 1) == \"work\" && substr(\$NF, length(\$NF) - length(w) + 1) == w { print \$1 }" go.txt) &&
			echo "go tool pprof: line $l flat $got, report $want" && [ "$want" -gt 0 ] && [ "$got" = "$want" ] || return 1
		done
	fi
}

# The sanitizer build checks lperf's memory, the same code on every version: there 3.8 (frame
# objects, lnotab) and 3.13 (interpreter frames and the locations table, as 3.11's), and 3.13
# alone paused below.
LINES_VERSIONS="3.8 3.11 3.13" PAUSED_VERSIONS="3.12 3.13"
ldd "$LPERF" 2>/dev/null | grep -q libasan && LINES_VERSIONS="3.8 3.13" PAUSED_VERSIONS=3.13
found=0
for v in $LINES_VERSIONS; do
	py=$(py_for $v)
	[ -z "$py" ] && continue
	found=1
	opt=--python
	case $v in 3.1[23]) opt=--python-frames ;; esac
	export v py opt
	test_expect_success "$v ($opt): every frame's line right in >= 99% of samples, lines 10 and 12 split 2:1" '
		lperf record -q $opt -o "$SCRATCH/l-$v.data" -- "$py" "$W" 200000 150 2>err && cat err &&
		expect_no_grep "approximate|no CPython" err &&
		lperf report -i "$SCRATCH/l-$v.data" --python --folded >f.txt 2>/dev/null && right f.txt
	'
	test_expect_success "$v: the flame graph, HTML, speedscope, Firefox and pprof show the same lines" '
		formats "$SCRATCH/l-$v.data"
	'
done
[ $found = 1 ] || { test_skip "Python lines" "no pyenv CPython 3.8, 3.11 or 3.13"; test_done; }

# own_lines FOLDED: CPython's own frames (-X perf/-X perf_jit, without BPF) with the lines the
# frame reader's reads give them where the reads around the sample agree: no line is wrong
# (<module> 20, main 17, work one of its body's lines 9-13; at most 1% of the samples, for a
# reader starved on a loaded machine), and the lines are there: the outer frames' in at least
# a quarter of the samples, work's in a twentieth (measured on a VM loaded 13-19 on 2 cores:
# 79-98% and 43-75%; work's line changes every 4-7 ms, the reads come every 1-3 ms, and where
# the two around a sample differ it has none; a starved reader's reads more than 10 ms apart
# give no line at all).
own_lines() {
	awk '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		if (line !~ /py_lines\.py/) next
		k = split(line, fr, ";"); bad = 0; m = 0; w = 0; all += n
		for (i = 2; i <= k; i++) {
			if (fr[i] !~ / \(py_lines\.py(:[0-9]+)?\)$/) continue
			if (fr[i] == "<module> (py_lines.py:20)" || fr[i] == "main (py_lines.py:17)") m++
			else if (fr[i] ~ /^work \(py_lines\.py:(9|1[0-3])\)$/) w = 1
			else if (fr[i] ~ /:[0-9]+\)$/) bad = 1
		}
		if (bad) { wrong += n; print "  wrong:", n, line; next }
		if (m == 2) outer += n
		if (w) inner += n
		if (m == 2 && w) every += n
	} END {
		printf "%d samples: every line right %d (%.1f%%), outer lines %d, work'"'"'s line %d, a wrong line %d\n",
			all, every, all ? 100 * every / all : 0, outer, inner, wrong
		exit !(all >= 500 && wrong * 100 <= all && outer * 4 >= all && inner * 20 >= all)
	}' "$1"
}
for v in $PAUSED_VERSIONS; do
	py=$(py_for $v)
	[ -z "$py" ] && continue
	case $v in 3.13) xopt=perf_jit ;; *) xopt=perf ;; esac
	export v py xopt
	# without BPF the default reads the frames with the threads paused at each sample: every line
	test_expect_success "$v, LPERF_NO_BPF=1 --python: paused in place of -X perf, every frame's line right in >= 99% of samples" '
		LPERF_NO_BPF=1 lperf record --python -o p.data -- "$py" "$W" 200000 150 2>err; rc=$?; cat err && test $rc = 0 &&
		expect_grep "in place of -X perf" err && expect_grep "threads paused at each sample" err &&
		expect_no_grep "approximate|perf map|jitdump" err &&
		lperf report -i p.data --python --folded >f.txt 2>/dev/null && right f.txt 200 nosplit
	'
	# -X perf asked for by the command is kept, without BPF too
	test_expect_success "$v, LPERF_NO_BPF=1 --python -- python -X $xopt: CPython's frames get the lines the reads around the sample agree on" '
		{ LPERF_NO_BPF=1 lperf record --python -o x.data -- "$py" -X $xopt "$W" 200000 150 2>err || { cat err; exit 1; }; } &&
		cat err && expect_grep "no BPF" err && expect_grep "its own perf support, as the command asks" err &&
		lperf report -i x.data --stdio >h.txt 2>/dev/null && expect_grep "^# Python stacks: CPython.s own \\(-X perf" h.txt &&
		lperf report -i x.data --python --folded >f.txt 2>/dev/null && own_lines f.txt &&
		n=$(lperf script -i x.data 2>/dev/null | grep -cE "py::work:/.*py_lines\.py\+0x[0-9a-f]+ \(.* line 1[02]\)") &&
		echo "script: $n frames of work with a line" && [ "$n" -gt 0 ]
	'
done

# 3.13 calls a class's Python __init__ through the _Py_InitCleanup shim ("__init__" of file
# "__init__"), which a frame walk finds on the stack; it is no user code and no view shows it.
py=$(py_for 3.13)
if [ -n "$py" ]; then
	export py
	test_expect_success "3.13: a class's Python __init__ sits under its caller, no __init__ shim frame (both readers, dump)" '
		for opt in --python-frames --python; do
			lperf record -q $opt -o i.data -- "$py" "$TEST_ROOT/tests/workloads/py_init.py" 3000 &&
			lperf report -i i.data --python --folded >i.txt 2>/dev/null &&
			expect_no_grep "__init__ \(__init__\)" i.txt &&
			n=$(awk "/;main \(py_init.py:17\);Point.__init__ \(py_init.py:(9|10)\)/ { n += \$NF } END { print n + 0 }" i.txt) &&
			echo "$opt: $n samples in Point.__init__ called by main" && [ "$n" -ge 20 ] || exit 1
		done || exit 1
		# a dump is one instant, which may fall in main between two calls: dumped again until
		# one shows Point.__init__ (30 times at most); none may show the shim
		"$py" "$TEST_ROOT/tests/workloads/py_init.py" 1000000 &
		pid=$!
		sleep 1 && i=0 && : >all.txt &&
		while [ $i -lt 30 ]; do
			lperf dump -p $pid >d.txt && cat d.txt >>all.txt &&
			grep -qE "^ +Point.__init__ \(.*py_init.py:(9|10)\)" d.txt && break
			i=$((i + 1))
		done
		kill $pid; wait $pid; cat d.txt &&
		expect_grep "^ +Point.__init__ \(.*py_init.py:(9|10)\)" d.txt && expect_no_grep "__init__ \(__init__\)" all.txt
	'
fi

for v in 3.11 3.13 3.8; do D="$SCRATCH/l-$v.data"; [ -f "$D" ] && break; done
export D
test_expect_success 'report --python: a row per function and line; --sort srcline: file.py:LINE' '
	lperf report -i "$D" --python --folded >f.txt 2>/dev/null &&
	lperf report -i "$D" --python --stdio --no-children -g none -n -q --sort sym >r.txt 2>/dev/null && cat r.txt &&
	lperf report -i "$D" --python --stdio --no-children -g none -n -q --sort srcline >l.txt 2>/dev/null && cat l.txt &&
	for l in 10 12; do
		want=$(leaf f.txt "work (py_lines.py:$l)") && r=$(row r.txt "work (py_lines.py:$l)") &&
		src=$(awk -v w="py_lines.py:$l" "\$NF == w { print \$2 }" l.txt) &&
		echo "line $l: $want leaf samples, sym row $r, srcline row $src" &&
		[ "$r" = "$want" ] && [ "$src" = "$want" ] || exit 1
	done &&
	# -S matches a label by itself, by its py:: name or by its function
	all=$(awk "/;work \(py_lines.py:[0-9]+\) [0-9]+\$/ { n += \$NF } END { print n }" f.txt) &&
	two=$(( $(leaf f.txt "work (py_lines.py:10)") + $(leaf f.txt "work (py_lines.py:12)") )) &&
	for s in work "work (py_lines.py:10),work (py_lines.py:12)" "^py::work:"; do
		n=$(lperf report -i "$D" --python -S "$s" --folded 2>/dev/null | awk "{ n += \$NF } END { print n }") &&
		want=$all && case $s in *py_lines*) want=$two ;; esac &&
		echo "-S $s: $n, want $want" && [ "$n" = "$want" ] || exit 1
	done
'

test_expect_success '--nolineno (py-spy): one frame per function, func (file.py), the lines merged' '
	lperf report -i "$D" --python --folded >f.txt 2>/dev/null &&
	lperf report -i "$D" --python --nolineno --folded >n.txt 2>/dev/null &&
	lperf script -i "$D" --python --nolineno --folded 2>/dev/null | sort >sn.txt && sort n.txt | diff - sn.txt &&
	expect_no_grep "py_lines\.py:" n.txt &&
	a=$(awk "/;work \(py_lines.py:[0-9]+\) [0-9]+\$/ { n += \$NF } END { print n }" f.txt) &&
	b=$(awk "/;work \(py_lines.py\) [0-9]+\$/ { n += \$NF } END { print n }" n.txt) &&
	echo "work: $a samples by line, $b merged" && [ -n "$a" ] && [ "$a" = "$b" ] &&
	expect_exit 2 "$LPERF" report -i "$D" --nolineno --folded 2>err && expect_grep "nolineno goes with --python" err
'

# record and sample take --nolineno for their pictures (py-spy record --nolineno): the recording
# keeps the lines, the flame graph (and record --pprof-dir's profile) merge them.
for v in 3.11 3.13 3.8; do PYN=$(py_for $v); [ -n "$PYN" ] && break; done
export PYN
test_expect_success 'record/sample --python --nolineno --flamegraph (and --pprof-dir): func (file.py) boxes' '
	opt=--python && case $PYN in *3.1[23]*) opt=--python-frames ;; esac &&
	lperf record -q $opt --nolineno --flamegraph n.svg --pprof-dir pp -o n.data -- "$PYN" "$W" 100000 40 &&
	lperf report -i n.data --python --nolineno --folded >nf.txt 2>/dev/null &&
	expect_grep ";work \(py_lines.py\) [0-9]+\$" nf.txt && $CHECK nf.txt svg n.svg &&
	expect_grep "data-n=\"work \(py_lines.py\)\"" n.svg && expect_no_grep "py_lines\.py:" n.svg &&
	$DECODE --lines pp/n.data.pb.gz >np.txt && sort nf.txt | diff - np.txt &&
	lperf report -i n.data --python --folded >lf.txt 2>/dev/null && expect_grep ";work \(py_lines.py:1[02]\) " lf.txt &&
	lperf sample -q $opt --nolineno --flamegraph s.svg -- "$PYN" "$W" 100000 40 >/dev/null 2>&1 &&
	expect_grep "data-n=\"work \(py_lines.py\)\"" s.svg && expect_no_grep "py_lines\.py:" s.svg &&
	expect_exit 2 "$LPERF" record --python --nolineno -o x.data -- "$PYN" -c 1 2>err &&
	expect_grep "nolineno goes with --python and --flamegraph or --pprof-dir" err &&
	expect_exit 2 "$LPERF" sample --nolineno --flamegraph s.svg -- "$PYN" -c 1 2>err &&
	expect_grep "nolineno goes with --python and --flamegraph" err
'

test_expect_success 'script --python --folded is report'"'"'s; perf'"'"'s views keep py::func:/path' '
	lperf report -i "$D" --python --folded 2>/dev/null | sort >f.txt &&
	lperf script -i "$D" --python --folded 2>/dev/null | sort | diff - f.txt &&
	lperf report -i "$D" --stdio --no-children -g none --sort sym -q >p.txt 2>/dev/null &&
	expect_grep "\[\.\] py::work:/.*py_lines\.py\$" p.txt && expect_no_grep "work \(py_lines" p.txt &&
	lperf report -i "$D" --folded >pf.txt 2>/dev/null && expect_grep ";py::work:/[^;]*py_lines\.py" pf.txt &&
	lperf script -i "$D" >s.txt 2>/dev/null && expect_grep "py::work:/.*py_lines\.py\+0x0 \(\[python\] line 1[02]\)" s.txt
'
test_done
