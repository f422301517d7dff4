#!/bin/sh
# The default `record --python` on CPython 3.12 and 3.13 (docs/python.md, "Which source"): where
# lperf's BPF program loads (root), the frames are read from the interpreter at each sample in
# place of -X perf/-X perf_jit, so stacks are whole to 1,024 frames with every line: 44- and
# 124-frame recursions whole with no [truncated], a 2,000-frame one cut at 1,024 (and at
# --python-depth N) with [truncated] where the cut frames belong, the right line in every frame
# of >= 99% of the samples, and the 60/30/10 known answer (tests/workloads/py_split.py, which
# measures its own split) within three standard deviations of its counts, with its lines. Without
# BPF (LPERF_NO_BPF=1) the frames are read with the threads paused at each sample, in place of
# -X perf too: the 124-frame stack whole with every line. -X perf asked for by the command
# (python -X perf) stays, whose exact chains stop where the sample's stack copy ends: those
# stacks are completed from the reads around the sample where they agree, else say [truncated]
# at the root.
# e2e-class: parallel (CPU-time samples: whole stacks, lines and the 60/30/10 answer in 4 sigma passed in both builds beside t109 at loads of 4-12)
. "$(dirname "$0")/lib.sh"
DEEP="$TEST_ROOT/tests/workloads/py_deep.py"
SHARES="$TEST_ROOT/tests/workloads/py_split.py"

# py_view FOLDED: report --python --folded with each Python frame's label (func (file.py:LINE))
# named as the other views name it (py::func), for py_depth.
py_view() { sed -E 's/(^|;)([^;]+) \([^;()]+\.py(:[0-9]+)?\)/\1py::\2/g' "$1"; }

# no_cut FOLDED: at most 1% of the samples in leaf say [truncated] anywhere (a native unwinding
# can still stop short now and then; the Python frames are whole).
no_cut() {
	awk '/py::leaf/ { n += $NF; if (/\[truncated\]/) t += $NF } END { printf "%d of %d samples in leaf cut\n", t, n; exit !(n && t <= 0.01 * n) }' "$1"
}

# py_chains SCRIPT: one line per sample of `lperf script` output with Python frames, its Python
# frames innermost first as NAME:LINE ("leaf:11 deep:16 deep:19 ... <module>:26"; LINE 0: none,
# as in CPython's own frames).
py_chains() {
	awk '/^[^\t]/ { if (c != "") print c; c = ""; next }
	     /py::/ { n = $2; sub(/^py::/, "", n); sub(/:.*/, "", n); l = 0
		      if (match($0, / line [0-9]+\)/)) l = substr($0, RSTART + 6, RLENGTH - 7) + 0
		      c = c (c == "" ? "" : " ") n ":" l }
	     END { if (c != "") print c }' "$1"
}

# deep_lines SCRIPT DEPTH: of the samples in leaf (at least 50), at least 99% name every frame's
# line: leaf 10 or 11 (its loop), the innermost deep 16 (the call of leaf), the other DEPTH-1
# deep 19, <module> 26.
deep_lines() {
	py_chains "$1" | awk -v want="$2" '$1 ~ /^leaf:/ {
		all++
		good = ($1 == "leaf:10" || $1 == "leaf:11") && NF == want + 2 && $NF == "<module>:26"
		for (i = 2; good && i <= want + 1; i++)
			good = $i == (i == 2 ? "deep:16" : "deep:19")
		if (good) ok++
	} END {
		printf "%d of %d samples in leaf have the right line in each of their %d Python frames\n", ok, all, want + 2
		exit !(all >= 50 && ok >= 0.99 * all)
	}'
}

# shares SCRIPT ANSWER: the samples whose innermost Python frame is a work function (at least
# 1,000): work_a, work_b and work_c each within four standard deviations (binomial, from the
# count) of the share of CPU time the workload measured itself (ANSWER; about 60%, 30%, 10%), and
# at least 99% of them with the loop's line and <module>'s call line. Four, as t116: at three,
# the six shares of a run would fail about one run in sixty by chance (work_c once at 3.4).
shares() {
	py_chains "$1" | awk '
	BEGIN {
		right["work_a"] = "work_a:14 <module>:35"; right["work_b"] = "work_b:20 <module>:37"
		right["work_c"] = "work_c:26 <module>:39"
	}
	FILENAME == ARGV[1] { want[$1] = $2 / 100; next }
	{ f = $1; sub(/:.*/, "", f) }
	f in right { all++; c[f]++; if ($0 == right[f]) ok++ }
	END {
		bad = all < 1000 || length(want) != 3
		for (f in want) {
			p = want[f]; got = c[f] / (all ? all : 1); tol = 4 * sqrt(p * (1 - p) / (all ? all : 1))
			printf "%s: %.2f%% of %d samples (measured %.2f%% +- %.2f)\n", f, 100 * got, all, 100 * p, 100 * tol
			if (got - p > tol || p - got > tol) bad = 1
		}
		printf "%d of %d with the right lines\n", ok, all
		exit !(!bad && ok >= 0.99 * all)
	}' "$2" -
}

py_for() { # the newest pyenv python3 of a version
	for h in "${HOME:-/root}" /root; do
		p=$(ls -d "$h"/.pyenv/versions/"$1".*/bin/python3 2>/dev/null | tail -n 1)
		[ -n "$p" ] && { echo "$p"; return; }
	done
}

if [ "$(id -u)" != 0 ]; then
	test_skip "3.12/3.13 default --python read by BPF" "needs root (lperf's BPF program)"
fi
for v in 3.12 3.13; do
	py=$(py_for $v)
	if [ -z "$py" ]; then
		test_skip "$v default --python" "no pyenv CPython $v"
		continue
	fi
	export py v
	[ "$(id -u)" = 0 ] || continue
	test_expect_success "$v: --python reads the frames by BPF in place of -X perf; 44- and 124-frame stacks whole, every line right" '
		lperf record --python -o a.data -- "$py" "$DEEP" 44 5000000 2>err &&
		expect_grep "reading its frames at each sample \(BPF" err && expect_no_grep "perf map|jitdump" err &&
		lperf report -i a.data --folded >f.txt 2>/dev/null && py_depth f.txt 44 0 99 && no_cut f.txt &&
		lperf report -i a.data --python --folded >p.txt 2>/dev/null && py_view p.txt >f.txt && py_depth f.txt 44 0 99 &&
		lperf script -i a.data >s.txt 2>/dev/null && deep_lines s.txt 44 &&
		lperf record -q --python -o b.data -- "$py" "$DEEP" 124 5000000 &&
		lperf report -i b.data --folded >f.txt 2>/dev/null && py_depth f.txt 124 0 99 && no_cut f.txt &&
		lperf script -i b.data >s.txt 2>/dev/null && deep_lines s.txt 124
	'
	test_expect_success "$v: a 2,000-frame stack is cut at 1,024 and at --python-depth 100, with [truncated]" '
		lperf record -q --python -o c.data -- "$py" "$DEEP" 2000 5000000 &&
		lperf report -i c.data --folded >f.txt 2>/dev/null && py_depth f.txt 1023 1 99 &&
		lperf report -i c.data --python --folded >p.txt 2>/dev/null && py_view p.txt >f.txt && py_depth f.txt 1023 1 99 &&
		lperf record -q --python --python-depth 100 -o d.data -- "$py" "$DEEP" 2000 5000000 &&
		lperf report -i d.data --folded >f.txt 2>/dev/null && py_depth f.txt 99 1 99
	'
	# (the sanitizer build: 3.13's, the same code reads 3.12's frames in the tests around it)
	[ "$v" = 3.12 ] && ldd "$LPERF" 2>/dev/null | grep -q libasan ||
	test_expect_success "$v: the 60/30/10 known answer, each share within its 4 sigma, lines right" '
		lperf record -q --python -o e.data -- "$py" "$SHARES" 600 20000 answer.txt &&
		lperf script -i e.data >s.txt 2>/dev/null && shares s.txt answer.txt
	'
	test_expect_success "$v without BPF: paused in place of -X perf, a 124-frame stack whole, every line right" '
		LPERF_NO_BPF=1 lperf record --python -o m.data -- "$py" "$DEEP" 124 50000000 2>err; rc=$?; cat err && test $rc = 0 &&
		expect_grep "threads paused at each sample" err && expect_no_grep "perf map|jitdump|approximate" err &&
		lperf report -i m.data --folded >f.txt 2>/dev/null && py_depth f.txt 124 0 99 && no_cut f.txt &&
		lperf script -i m.data >s.txt 2>/dev/null && deep_lines s.txt 124
	'
	case $v in 3.13) xopt=perf_jit ;; *) xopt=perf ;; esac
	export xopt
	# -X perf asked for: CPython's own support, exact but as deep as the stack copy reaches (about 30
	# frames here); the frames beyond come from the interpreter's, read at each batch, where
	# the reads before and after the sample agree on them (the workload stays a second at
	# depth after leaf, so a read follows its last samples). Otherwise the cut is said; no
	# sample has <module> at another depth (joined wrong); at most 1% are neither (a native
	# unwinding that stopped before CPython's first frame). A line is right or not given: the
	# innermost deep's 16, the others' 19 (CPython's frames get one where the reads agree).
	test_expect_success "$v without BPF, python -X $xopt: a 124-frame stack completed from the reads around the sample, else [truncated]" '
		LPERF_NO_BPF=1 lperf record --python -o n.data -- "$py" -X $xopt "$DEEP" 124 10000000 1 2>err &&
		expect_grep "as the command asks" err && expect_grep "frames beyond the stack copy" err &&
		lperf report -i n.data --python --folded >p.txt 2>/dev/null && py_view p.txt >f.txt &&
		awk "/py::leaf/ { n += \$NF; d = gsub(/py::deep/, \"&\"); m = gsub(/py::<module>/, \"&\"); t = gsub(/\\[truncated\\];py::deep/, \"&\")
			if (d == 124 && m == 1 && !t) whole += \$NF; else if (m == 0 && t == 1 && d < 124) cut += \$NF; else if (m) wrong += \$NF; else other += \$NF }
		     END { printf \"%d whole, %d cut, %d joined wrong, %d other of %d\\n\", whole, cut, wrong, other, n
			   exit !(n >= 50 && !wrong && other <= 0.01 * n && whole >= 0.5 * n) }" f.txt &&
		lperf script -i n.data >s.txt 2>/dev/null &&
		py_chains s.txt | awk "\$1 ~ /^leaf:/ && \$NF ~ /^<module>:/ { all++; ok1 = \$NF == \"<module>:26\"
			for (i = 2; i < NF; i++) if (\$i != \"deep:0\" && \$i != (i == 2 ? \"deep:16\" : \"deep:19\")) ok1 = 0
			ok += ok1 } END { print ok, all; exit !(all && ok == all) }"
	'
done

test_done
