#!/bin/sh
# Python thread names in the recording's views (docs/python.md#views): record --python stores each
# thread's threading.Thread name with the stacks, and the Python view (report --python, its
# --sort comm/tid, --folded, script --python, speedscope's and Firefox's thread lanes) names the
# thread by it where the kernel says "python3"; perf's views keep the kernel's name.
# tests/workloads/py_threads.py starts two threading.Threads (target worker, spin_a in the first,
# spin_b in the second), named by CPython "Thread-1 (worker)" and "Thread-2 (worker)" (3.10+;
# "Thread-1", "Thread-2" before), and joins them from MainThread. On pyenv's 3.8, 3.11 and 3.13,
# with BPF (as root) and without (LPERF_NO_BPF=1 --nonblocking: the process_vm_readv reader; on
# 3.13 also CPython's -X perf_jit; the reader that pauses the threads, LPERF_NO_BPF's default, takes
# about 200 samples a second of CPU, too few of this short workload: t116-python-paused.sh).
# e2e-class: parallel (thread names in the views; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
W="$TEST_ROOT/tests/workloads/py_threads.py"

# names_case PY ENV: the three names, each thread's functions under its own name.
names_case() {
	py=$1 env=$2
	case $py in
	*/3.8*) t1=Thread-1 t2=Thread-2 ;;
	*) t1="Thread-1 (worker)" t2="Thread-2 (worker)" ;;
	esac
	nb=
	[ -n "$env" ] && nb=--nonblocking
	env $env "$LPERF" record -q --python $nb -o t.data -- "$py" "$W" 3000000 >/dev/null 2>err || { cat err; return 1; }
	# report --python --sort comm,tid: a row per thread, named by Python; no "python3" left
	"$LPERF" report -i t.data --python --stdio -q --no-children -g none --sort comm,tid 2>/dev/null |
		awk 'NF > 2 { $1 = ""; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); print }' | sort >rows.txt
	printf "%s\n" MainThread "$t1" "$t2" | sort >want.txt
	cat rows.txt
	diff want.txt rows.txt || { echo "report --python --sort comm,tid: not the three Python names"; return 1; }
	# each worker's own function under its name (folded: the name with _ for spaces), never the other's
	"$LPERF" report -i t.data --python --folded 2>/dev/null >f.txt
	f1=$(echo "$t1" | tr " " _) f2=$(echo "$t2" | tr " " _)
	a=$(awk -v t="$f1" 'index($0, t ";") == 1 && /;spin_a \(/ { n += $NF } END { print n + 0 }' f.txt)
	b=$(awk -v t="$f2" 'index($0, t ";") == 1 && /;spin_b \(/ { n += $NF } END { print n + 0 }' f.txt)
	x=$(awk -v t="$f1" -v u="$f2" '(index($0, t ";") == 1 && /;spin_b \(/) || (index($0, u ";") == 1 && /;spin_a \(/) { n += $NF }
		END { print n + 0 }' f.txt)
	echo "spin_a under $t1: $a; spin_b under $t2: $b; under the other thread: $x"
	[ "$a" -ge 20 ] && [ "$b" -ge 20 ] && [ "$x" = 0 ] || return 1
	# script --python: the comm column; speedscope's profiles and Firefox's threads
	"$LPERF" script -i t.data --python 2>/dev/null | grep -q "^ *$t1 " || { echo "script --python: no $t1"; return 1; }
	# perf's views keep the kernel's name
	"$LPERF" report -i t.data --stdio -q --no-children -g none --sort comm 2>/dev/null >k.txt
	expect_grep "% +python3" k.txt && expect_no_grep "MainThread|Thread-1" k.txt || return 1
	# Firefox's threads are in their process, named by the kernel
	"$LPERF" report -q -i t.data --python --speedscope s.json --firefox f.json.gz || return 1
	"$PYTHON" - "$t1" "$t2" "$(awk 'NF { print $2; exit }' k.txt)" <<-'EOF'
	import gzip, json, sys
	want = {"MainThread", sys.argv[1], sys.argv[2]}
	ss = {p["name"].split(": ", 1)[1].rsplit(" (pid ", 1)[0] for p in json.load(open("s.json"))["profiles"]}
	th = json.load(gzip.open("f.json.gz"))["threads"]
	fx = {t["name"].rsplit(" (", 1)[0] for t in th}
	proc = {t["processName"] for t in th}
	print("speedscope:", sorted(ss), "firefox:", sorted(fx), "processes:", sorted(proc))
	sys.exit(ss != want or fx != want or proc != {sys.argv[3]})
	EOF
}

found=0
for v in 3.8 3.11 3.13; do
	py=$(py_for $v)
	[ -z "$py" ] && continue
	found=1
	export py
	if [ "$(id -u)" = 0 ]; then
		test_expect_success "$v, BPF: every thread named by Python in report --python, script, speedscope, Firefox" '
			names_case "$py" ""
		'
	fi
	test_expect_success "$v, LPERF_NO_BPF=1: every thread named by Python in the same views" '
		names_case "$py" LPERF_NO_BPF=1
	'
done
[ $found = 1 ] || test_skip "Python thread names" "no pyenv CPython 3.8, 3.11 or 3.13"
test_done
