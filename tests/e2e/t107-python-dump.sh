#!/bin/sh
# lperf dump -p PID (src/python/pydump.c, docs/dump.md): every thread's Python stack of a running
# CPython, now. tests/workloads/py_dump.py parks three threads and the main thread in known
# functions at known lines (each leaves a ready file from the line it then stays on, so the test
# waits for the files, never a fixed time); on every pyenv CPython 2.7, 3.6-3.13 and Debian's
# python3.11, as root and as nobody (on the Pythons nobody may run), every thread is named by its
# threading.Thread name (the kernel's in the JSON's comm) with its tid and every frame's function
# and line is right (tests/e2e/pydump_check.py), --locals gives the known arguments and locals of
# known types (None, bool, small and big ints, floats, latin-1/UCS-2/UCS-4 str, bytes, containers,
# a cell variable, a cut long str) at known frames with their reprs, the JSON (with --locals)
# matches its schema and says the same, --native has the same Python frames with the C frames
# where the eval loop ran them (sorted's between a key function and its caller), --nonblocking
# reads the same stacks, and the process runs
# on unharmed after the pause (its threads finish their blocked reads and it exits 0). A dead pid,
# a process that is no Python, another user's process and an unsupported version get their
# documented errors.
# e2e-class: parallel (Python stacks at known lines; waits on ready files, never a fixed time)
. "$(dirname "$0")/lib.sh"
CHECK="$TEST_ROOT/tests/e2e/pydump_check.py"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
# The workload and its ready directories where nobody can reach them too.
PUB=$(mktemp -d /tmp/lperf-dump.XXXXXX)
at_exit 'rm -rf "$PUB"'
chmod 755 "$PUB"
cp "$TEST_ROOT/tests/workloads/py_dump.py" "$PUB/py_dump.py"
chmod 644 "$PUB/py_dump.py"
W="$PUB/py_dump.py"

can_nobody() { [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && $NOBODY env -C / "$@" >/dev/null 2>&1; }

# The read system call's number, which the blocked threads sit in (/proc/PID/task/TID/syscall).
case $(uname -m) in
x86_64) READ_NR=0 ;;
aarch64) READ_NR=63 ;;
*) READ_NR= ;;
esac

# blocked_in_read PID: the workload's three blocked threads are in read(2). Until they are (a
# thread's ready file is made just before its read, and it may first wait for the GIL the
# spinner holds, or hold it while the spinner waits), the spinner is not always running.
blocked_in_read() {
	[ -n "$READ_NR" ] || return 0
	n=0
	for t in /proc/$1/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		dump-a|dump-b|dump-main) [ "$(cut -d" " -f1 "$t/syscall" 2>/dev/null)" = "$READ_NR" ] && n=$((n + 1)) ;;
		esac
	done
	[ $n = 3 ]
}

# start AS PY DIR: the workload under PY (AS: "" for this user, $NOBODY for nobody) with its
# ready files in DIR; P is its pid. Returns once its four threads are in place (5 files: the
# threads' and the pipe's, and the three blocked threads in read(2)), 120 s at most.
start() {
	mkdir -p "$3" && chmod 777 "$3"
	$1 env -C / "$2" "$W" "$3" & P=$!
	i=0
	while [ "$(ls "$3" | wc -l)" -lt 5 ] || ! blocked_in_read $P; do
		kill -0 $P 2>/dev/null || { echo "the workload ended early"; return 1; }
		i=$((i + 1))
		[ $i -le 2400 ] || { echo "the workload's threads not in place after 120 s"; return 1; }
		sleep 0.05
	done
}

# started PID NAME: waits until PID runs the executable NAME (a child started with & may not
# have exec'd yet), 60 s at most.
started() {
	i=0
	until [ "$(basename "$(readlink /proc/$1/exe)")" = "$2" ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || { echo "pid $1 does not run $2"; return 1; }
		sleep 0.05
	done
}

# no_stopped_thread PID: no thread of PID is left stopped (t or T) after a dump.
no_stopped_thread() {
	for s in /proc/$1/task/*/stat; do
		st=$(sed 's/.*) //' "$s" | cut -d" " -f1)
		case $st in t|T) echo "thread $s left in state $st"; return 1 ;; esac
	done
}

# dump_all AS PY VERSION: the whole check of one interpreter.
dump_all() {
	AS=$1 R=$(mktemp -d "$PUB/ready.XXXXXX")
	start "$AS" "$2" "$R" &&
	$AS "$LPERF" dump -p $P >dump.txt 2>err && cat dump.txt &&
	no_stopped_thread $P &&
	$AS "$LPERF" dump -p $P --locals >loc.txt 2>>err && cat loc.txt &&
	$AS "$LPERF" dump -p $P --json -l >dump.json 2>>err &&
	validate_json dump.schema.json dump.json &&
	$AS "$LPERF" dump -p $P --native --json >nat.json 2>>err &&
	validate_json dump.schema.json nat.json &&
	"$PYTHON" "$CHECK" "$W" $P "$3" dump.txt dump.json loc.txt nat.json &&
	$AS "$LPERF" dump --nonblocking -p $P >nb.txt 2>>err &&
	expect_grep "^Python $3 .*read without pausing" nb.txt &&
	# the spinner holds the GIL at one instant and not at the next: the holder mark may differ
	sed -e 2d -e "s/(active+gil)/(active)/" dump.txt >a && sed -e 2d -e "s/(active+gil)/(active)/" nb.txt >b &&
	diff a b &&
	no_stopped_thread $P &&
	expect_lines 0 err &&
	printf abc >"/proc/$P/fd/$(cat "$R/pipe")" && wait $P
	rc=$?
	kill $P 2>/dev/null
	return $rc
}

for v in 2.7 3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13; do
	py=$(py_for $v)
	if [ -z "$py" ]; then
		test_skip "dump of CPython $v's threads" "no pyenv CPython $v installed"
		continue
	fi
	test_expect_success "dump of CPython $v's threads: every thread named, every frame's function and line ($py)" "
		dump_all '' '$py' $v
	"
	if can_nobody "$py" -c pass; then
		test_expect_success "dump of CPython $v's threads as nobody, of nobody's process" "
			dump_all '$NOBODY' '$py' $v
		"
	fi
done
if [ -x /usr/bin/python3.11 ]; then
	test_expect_success "dump of Debian's python3.11 (a static executable)" "
		dump_all '' /usr/bin/python3.11 3.11
	"
	if can_nobody /usr/bin/python3.11 -c pass; then
		test_expect_success "dump of Debian's python3.11 as nobody, of nobody's process" "
			dump_all '$NOBODY' /usr/bin/python3.11 3.11
		"
	else
		test_skip "dump as nobody" "needs root and setpriv"
	fi
else
	test_skip "dump of Debian's python3.11" "/usr/bin/python3.11 is not installed"
fi

test_expect_success 'a dead pid: "no process with pid N", exit 1' '
	sh -c "exit 0" & d=$!; wait $d
	expect_exit 1 lperf dump -p $d 2>err &&
	expect_grep "^lperf: no process with pid $d\$" err
'

test_expect_success 'a process that is no Python: said so, exit 1' '
	sleep 600 & s=$!
	started $s sleep && expect_exit 1 lperf dump -p $s 2>err; rc=$?
	kill $s
	[ $rc = 0 ] && expect_grep "^lperf: pid $s \(sleep\) is not a Python process lperf can read" err
'

test_expect_success 'an unsupported version (an executable named python3.5 or python3.14): said so, exit 1' '
	cp "$(command -v sleep)" python3.5 && cp python3.5 python3.14 || return 1
	./python3.5 600 & a=$!
	./python3.14 600 & b=$!
	started $a python3.5 && expect_exit 1 lperf dump -p $a 2>err5; r1=$?
	started $b python3.14 && expect_exit 1 lperf dump -p $b 2>err14; r2=$?
	kill $a $b
	[ $r1 = 0 ] && [ $r2 = 0 ] &&
	expect_grep "pid $a runs Python 3.5 .*: lperf reads the frames of CPython 2.7 and 3.6 to 3.13" err5 &&
	expect_grep "pid $b runs Python 3.14 .*: lperf reads the frames of CPython 2.7 and 3.6 to 3.13" err14
'

if can_nobody "$LPERF" version; then
	test_expect_success "another user's process: permission denied, with what to do" '
		sleep 600 & s=$!
		started $s sleep && expect_exit 1 $NOBODY "$LPERF" dump -p $s 2>err; rc=$?
		kill $s
		[ $rc = 0 ] &&
		expect_grep "^lperf: pid $s belongs to user 0, not to you \(user 65534\): permission denied .*run lperf as that user or as root" err
	'
else
	test_skip "another user's process" "needs root and setpriv"
fi

# traced PID: waits until PID has a tracer, 60 s at most.
traced() {
	i=0
	until [ "$(awk '/^TracerPid:/ { print $2 }' /proc/$1/status)" != 0 ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || { echo "pid $1 not traced after 60 s"; return 1; }
		sleep 0.05
	done
}

if command -v strace >/dev/null; then
	test_expect_success 'a process traced already (strace): said so, --nonblocking named as the way; --nonblocking reads it' '
		R=$(mktemp -d "$PUB/ready.XXXXXX")
		start "" "$PYTHON" "$R" || { kill $P; return 1; }
		strace -p $P -o /dev/null 2>/dev/null & S=$!
		traced $P && expect_exit 1 lperf dump -p $P 2>err && lperf dump --nonblocking -p $P >nb.txt; rc=$?
		kill $S; wait $S; kill $P
		[ $rc = 0 ] &&
		expect_grep "^lperf: pid $P: permission denied pausing its threads \(is it traced already, by a debugger or strace\?\); --nonblocking reads it without pausing" err &&
		expect_grep "^Thread [0-9]+ \(idle\) \[Worker A\]" nb.txt && expect_grep "^    leaf_a \(.*py_dump.py:[0-9]+\)" nb.txt
	'
else
	test_skip "a process traced already" "no strace here"
fi

test_expect_success 'usage: -p is required; --native needs the pause' '
	expect_exit 2 lperf dump 2>err && expect_grep "PID is required" err &&
	expect_exit 2 lperf dump -p 1 --native --nonblocking 2>err && expect_grep "not with --nonblocking" err &&
	expect_exit 2 lperf dump -l 2>err && expect_grep "PID is required" err
'

test_done
