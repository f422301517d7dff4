#!/bin/sh
# lperf inject --python: the Python frames lperf read from the interpreter (record --python) become
# symbols of one ELF that Linux perf 6.1's report and script name. On each pyenv CPython 2.7,
# 3.8-3.13 the inclusive share of every Python function in perf's report of the injected file is
# the one lperf report --python --nolineno gives of the original recording (its rows named
# func (file.py), perf's py::func:/path/file.py; same samples: equal up to the last printed digit); lperf still reads the injected file; bad input is one line and leaves no
# output behind. With --python-view the stacks are those of lperf report --python, and perf's Self
# column of the Python functions is lperf's too.
# e2e-class: parallel (perf and lperf shares of the same recordings)
. "$(dirname "$0")/lib.sh"

cat >"$SCRATCH/w.py" <<'EOF'
import sys


def a(n):
    x = 0
    for i in range(n):
        x += i
    return x


def b(n):
    return a(n)


def c(n):
    s = 0
    for i in range(n):
        s ^= i
    return s


def main(k):
    for _ in range(k):
        b(60000)
        c(30000)
        sorted(range(20000), key=lambda v: -v)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
EOF
export W="$SCRATCH/w.py"

# Python frames are named py::func:/path/file.py in perf's views and func (file.py) in lperf's
# Python view (report --python --nolineno): LABEL is the awk function that turns the first into
# the second (the file's name, with its directory for __init__.py and __main__.py).
LABEL='
function short(f,  n, p) {
	n = split(f, p, "/")
	if (n > 1 && (p[n] == "__init__.py" || p[n] == "__main__.py")) return p[n - 1] "/" p[n]
	return p[n]
}
function label(s,  i) {
	if (substr(s, 1, 4) != "py::") return s
	s = substr(s, 5); i = index(s, ":")
	return i ? substr(s, 1, i - 1) " (" short(substr(s, i + 1)) ")" : s
}'

# py_shares: "share<TAB>label" of the Python rows of a --children --stdio report on stdin (lperf's
# inlined functions are "name (inlined)").
py_shares() {
	awk "$LABEL"'
	/^ *[0-9.]+% +[0-9.]+% .*\[\.\] / {
		s = $0; sub(/.*\[\.\] /, "", s); sub(/ +$/, "", s); l = label(s)
		if (l ~ /^[^ ]+ \(.+\)$/ && l !~ / \(inlined\)$/) print $1 "\t" l }'
}

# py_self: "share<TAB>label" of the Python rows of a --no-children --stdio report --sort sym on
# stdin (native rows are left out: perf and lperf name some native code apart, a PLT slot perf
# leaves unnamed, see lib.sh).
py_self() {
	awk "$LABEL"'
	/^ *[0-9.]+% +\[[.k]\] / {
		s = $0; sub(/^ *[0-9.]+% +\[[.k]\] /, "", s); sub(/ +$/, "", s); l = label(s)
		if (l ~ /^[^ ]+ \(.+\)$/ && l !~ / \(inlined\)$/) print $1 "\t" l }'
}

# same_shares PERF LPERF: the same Python functions with the same shares (0.01 point for rounding).
# A label may stand for two functions (one name in two directories): rows are matched in order of
# label, then share.
same_shares() {
	test -s "$1" && test -s "$2" &&
	sort -t "	" -k 2,2 -k 1,1n "$1" >"$1.sorted" && sort -t "	" -k 2,2 -k 1,1n "$2" >"$2.sorted" &&
	paste "$1.sorted" "$2.sorted" | awk -F "\t" '
		$2 != $4 { print "perf: " $1 " " $2 "; lperf: " $3 " " $4; bad = 1; next }
		{ d = $1 - $3; if (d < 0) d = -d; if (d > 0.011) { print $2 ": perf " $1 ", lperf " $3; bad = 1 } }
		END { exit bad }'
}

# same_functions A B: lperf's reports of the injected and of the original recording name the same
# Python functions, with the same shares where a label is one row in both. (A label that is two
# rows of the original, one name loaded twice by 3.13's jitdump in one stack, is one symbol name of
# the ELF twice, which lperf's view of the copy makes one row.)
same_functions() {
	test -s "$1" && test -s "$2" &&
	awk -F "\t" 'NR == FNR { a[$2] = $1; na[$2]++; next } { b[$2] = $1; nb[$2]++ }
		END {
			for (k in na) if (!(k in nb)) { print "only in " ARGV[1] ": " k; bad = 1 }
			for (k in nb) if (!(k in na)) { print "only in " ARGV[2] ": " k; bad = 1 }
				else if (na[k] == 1 && nb[k] == 1) {
					d = a[k] - b[k]; if (d < 0) d = -d
					if (d > 0.011) { print k ": " a[k] " and " b[k]; bad = 1 }
				}
			exit bad
		}' "$1" "$2"
}

test_expect_success 'bad input: one line naming it, exit 1, nothing written' '
	expect_exit 1 lperf inject --python -i nothing.data -o out.data 2>err &&
	expect_lines 1 err && expect_grep "nothing.data" err && test ! -e out.data &&
	head -c 1000 /dev/urandom >junk.data &&
	expect_exit 1 lperf inject --python -i junk.data -o out.data 2>err &&
	expect_lines 1 err && expect_grep "junk.data" err && test ! -e out.data &&
	test ! -e out.data.python.so
'

test_expect_success 'usage: pipe output needs --jit-dir; -j and --python do not combine; --python-view needs --python' '
	lperf record -q -e task-clock -o in.data -- true &&
	expect_exit 1 lperf inject --python -i in.data -o - >out 2>err &&
	expect_lines 1 err && expect_grep "jit-dir" err &&
	expect_exit 2 lperf inject --python -j -i in.data -o out.data 2>err &&
	expect_grep "does not combine" err && test ! -e out.data &&
	expect_exit 2 lperf inject --python-view -i in.data -o out.data 2>err &&
	expect_grep "goes with --python" err && test ! -e out.data
'

for v in 2.7 3.8 3.9 3.10 3.11 3.12 3.13; do
	py=$(py_for $v)
	if ! command -v perf >/dev/null; then
		test_skip "CPython $v: perf names the Python functions of the injected file" "no perf"
		continue
	elif [ -z "$py" ]; then
		test_skip "CPython $v: perf names the Python functions of the injected file" "no pyenv CPython $v"
		continue
	fi
	export v py
	test_expect_success "CPython $v: perf report's shares of the Python functions are lperf report --python's" '
		d="$SCRATCH/$v" && mkdir -p "$d" &&
		lperf record -q --python -o "$d/in.data" -- "$py" "$W" 2>err && cat err &&
		lperf inject --python -v -i "$d/in.data" -o "$d/out.data" 2>err && cat err &&
		expect_grep "Python functions in $d/out.data.python.so" err &&
		test -s "$d/out.data.python.so" &&
		perf report -i "$d/out.data" --stdio --children --sort sym -g none --max-stack 4096 2>/dev/null |
			py_shares >perf.txt &&
		lperf report -i "$d/in.data" --python --nolineno --stdio --children --sort sym -g none 2>/dev/null |
			py_shares >lperf.txt &&
		cat perf.txt && same_shares perf.txt lperf.txt &&
		for f in a b c main; do
			expect_grep "	$f \(w\.py\)$" perf.txt || return 1
		done
	'
	test_expect_success "CPython $v: perf script names them in the ELF; lperf reads the injected file" '
		d="$SCRATCH/$v" &&
		perf script -i "$d/out.data" --max-stack 4096 2>/dev/null >s.txt &&
		expect_grep "py::a:([^ ]*/)?w\.py\+0x8 \($d/out\.data\.python\.so\)" s.txt &&
		lperf report -i "$d/out.data" --python --nolineno --stdio --children --sort sym -g none 2>/dev/null |
			py_shares >lperf2.txt &&
		lperf report -i "$d/in.data" --python --nolineno --stdio --children --sort sym -g none 2>/dev/null |
			py_shares >lperf.txt &&
		same_functions lperf2.txt lperf.txt
	'
	test_expect_success "CPython $v: with --python-view perf's Self and Children of Python functions are lperf report --python's" '
		d="$SCRATCH/$v" &&
		lperf inject --python --python-view -i "$d/in.data" -o view.data 2>err &&
		expect_no_grep "max-stack" err &&
		perf report -i view.data --stdio --no-children --sort sym 2>/dev/null | py_self >perf.txt &&
		lperf report -i "$d/in.data" --python --nolineno --stdio --no-children --sort sym 2>/dev/null |
			py_self >lperf.txt &&
		same_shares perf.txt lperf.txt &&
		perf report -i view.data --stdio --children --sort sym -g none 2>/dev/null | py_shares >perf.txt &&
		lperf report -i "$d/in.data" --python --nolineno --stdio --children --sort sym -g none 2>/dev/null |
			py_shares >lperf.txt &&
		same_shares perf.txt lperf.txt && expect_grep "	a \(w\.py\)$" perf.txt
	'
done

fpy=$(py_for 3.11)
if ! command -v perf >/dev/null || [ -z "$fpy" ]; then
	test_skip "a forked Python: each process has its functions in perf" "no perf or no pyenv CPython 3.11"
else
	export fpy
	test_expect_success "a forked Python: each process has its functions in perf, with lperf's shares" '
		lperf record -q --python -o in.data -- "$fpy" "$TEST_ROOT/tests/workloads/py_fork.py" 2000000 &&
		lperf inject --python -v -i in.data -o out.data 2>err && cat err &&
		expect_grep "mapped into 2 processes" err &&
		perf report -i out.data --stdio --children --sort pid,sym -g none --max-stack 4096 2>/dev/null >r.txt &&
		expect_grep "py::child_work:" r.txt && expect_grep "py::parent_work:" r.txt &&
		test "$(grep "py::child_work:" r.txt | awk "{ print \$3 }")" != \
			"$(grep "py::parent_work:" r.txt | awk "{ print \$3 }")" &&
		perf report -i out.data --stdio --children --sort sym -g none --max-stack 4096 2>/dev/null |
			py_shares >perf.txt &&
		lperf report -i in.data --python --nolineno --stdio --children --sort sym -g none 2>/dev/null |
			py_shares >lperf.txt &&
		same_shares perf.txt lperf.txt
	'
fi

test_expect_success 'a recording cut inside its data: one line, the old output and its ELF left as they were' '
	lperf record -q -g -e task-clock -o "$SCRATCH/small.data" -- sh -c "ls / >/dev/null; ls / >/dev/null" &&
	d="$SCRATCH/small.data" &&
	off=$(od -An -t u8 -j 40 -N 8 "$d" | tr -d " ") && size=$(od -An -t u8 -j 48 -N 8 "$d" | tr -d " ") &&
	head -c $((off + size / 2)) "$d" >cut.data &&
	echo old >out.data && echo old >out.data.python.so &&
	expect_exit 1 lperf inject --python -i cut.data -o out.data 2>err &&
	expect_lines 1 err && expect_grep "cut.data" err &&
	test "$(cat out.data)" = old && test "$(cat out.data.python.so)" = old &&
	test "$(ls | grep -c "^out\.data")" -eq 2
'

test_done
