#!/bin/sh
# perf's build-id cache and the commands around it, compared with Linux perf 6.1: buildid-cache
# (-a, -l, -r, -p, --buildid-dir) makes the same tree as perf's, record fills it with the DSOs
# hit (-N: none, -B: no build-ids at all, --buildid-all: every DSO), buildid-list agrees with
# perf's on the same file, inject -b adds the build-ids of the DSOs hit (pipes too), and perf's
# own buildid.sh and pipe_test.sh pass with lperf as perf.
# e2e-class: parallel (build-id cache trees and lists compared with perf on the same files)
. "$(dirname "$0")/lib.sh"

HAVE_PERF=$(command -v perf >/dev/null && echo 1)
SHIM="$SCRATCH/shim"
mkdir -p "$SHIM" && ln -s "$LPERF" "$SHIM/perf"
printf 'int main(void) { return 0; }\n' | cc -Wl,--build-id=sha1 -o "$SCRATCH/prog" -x c - || exit 1
ID=$(readelf -n "$SCRATCH/prog" | awk '/Build ID/ {print $3}')
# the tree of a cache without perf's SDT note cache ("probes", empty here)
tree() { (cd "$1" && find . ! -name probes -printf '%p %y %l\n' | sort); }

test_expect_success 'buildid-cache -a: the link and the copy where perf puts them' '
	lperf --buildid-dir c buildid-cache -v -a "$SCRATCH/prog" 2>err &&
	expect_grep "^Adding $ID $SCRATCH/prog: Ok" err &&
	test "$(readlink c/.build-id/$(echo $ID | cut -c1-2)/$(echo $ID | cut -c3-))" = "../..$SCRATCH/prog/$ID" &&
	cmp c$SCRATCH/prog/$ID/elf "$SCRATCH/prog" &&
	lperf --buildid-dir c buildid-cache -l >l && echo "$ID $SCRATCH/prog" >want && cmp want l
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'the same tree and list as perf buildid-cache, also after -r and -p' '
	perf --buildid-dir "$PWD/p" buildid-cache -a "$SCRATCH/prog" 2>/dev/null &&
	lperf --buildid-dir c buildid-cache -a "$SCRATCH/prog" &&
	tree p >pt && tree c >ct && cmp pt ct &&
	perf --buildid-dir "$PWD/p" buildid-cache -l >pl 2>/dev/null && lperf --buildid-dir c buildid-cache -l >cl && cmp pl cl &&
	perf --buildid-dir "$PWD/p" buildid-cache -r "$SCRATCH/prog" 2>/dev/null && lperf --buildid-dir c buildid-cache -r "$SCRATCH/prog" &&
	tree p >pt && tree c >ct && cmp pt ct &&
	PERF_BUILDID_DIR=c lperf buildid-cache -a "$SCRATCH/prog" && lperf --buildid-dir c buildid-cache -p "$SCRATCH/prog" &&
	lperf --buildid-dir c buildid-cache -l >cl && test ! -s cl
'
else
	test_skip 'the same tree as perf buildid-cache' 'no perf'
fi

test_expect_success 'record caches the DSOs hit; -N caches none, -B writes no build-ids' '
	lperf --buildid-dir c record -q -e task-clock -o a.data "$SCRATCH/prog" &&
	lperf buildid-list -i a.data >ids && test -s ids &&
	while read id name; do
		test -L c/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-) || fail "$name not cached"
	done <ids &&
	lperf --buildid-dir n record -q -N -e task-clock -o n.data "$SCRATCH/prog" &&
	test ! -e n && lperf buildid-list -i n.data >nids && test -s nids &&
	lperf --buildid-dir b record -q -B -e task-clock -o b.data "$SCRATCH/prog" &&
	test ! -e b && lperf buildid-list -i b.data >bids && test ! -s bids
'

test_expect_success 'record --buildid-all: every DSO mapped, the program and libc included' '
	lperf --buildid-dir c record -q --buildid-all -e task-clock -o all.data "$SCRATCH/prog" &&
	lperf buildid-list -i all.data >ids &&
	expect_grep "^$ID $SCRATCH/prog\$" ids && expect_grep "libc\.so" ids &&
	lperf --buildid-dir c buildid-cache -l >l && expect_grep "^$ID $SCRATCH/prog\$" l
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'buildid-list agrees with perf buildid-list on perf and lperf recordings' '
	perf --buildid-dir "$PWD/p" record -q --buildid-all -e task-clock -o p.data "$SCRATCH/prog" 2>/dev/null &&
	perf buildid-list -i p.data 2>/dev/null | sort -u >pl && lperf buildid-list -i p.data | sort -u >ll &&
	comm -13 pl ll >extra && test ! -s extra && expect_grep "^$ID $SCRATCH/prog\$" ll &&
	lperf record -q --buildid-all -N -e task-clock -o l.data "$SCRATCH/prog" &&
	perf buildid-list -i l.data 2>/dev/null | sort -u >pl && lperf buildid-list -i l.data | sort -u >ll &&
	comm -13 pl ll >extra && test ! -s extra && expect_grep "^$ID $SCRATCH/prog\$" ll &&
	lperf buildid-list -k >k && perf buildid-list -k >pk 2>/dev/null && cmp k pk &&
	mkdir m && lperf --buildid-dir "$PWD/m" buildid-cache -a "$SCRATCH/prog" &&
	perf --buildid-dir "$PWD/m" buildid-cache -M p.data >pm 2>/dev/null &&
	lperf --buildid-dir "$PWD/m" buildid-cache -M p.data >lm && cmp pm lm && expect_no_grep "$ID" lm
'
test_expect_success 'perf buildid-list --with-hits finds the build-ids of lperf recordings' '
	lperf record -q -N -e task-clock -o h.data "$SCRATCH/prog" &&
	perf buildid-list -H -i h.data 2>/dev/null >ph && test -s ph && expect_no_grep "^ " ph &&
	lperf buildid-list -H -i h.data >lh && cmp ph lh
'
else
	test_skip 'buildid-list agrees with perf' 'no perf'
	test_skip 'perf buildid-list --with-hits of lperf recordings' 'no perf'
fi

test_expect_success 'as perf, an unknown command says what scripts look for; as lperf its own' '
	expect_exit 1 "$SHIM/perf" nosuchcmd 2>err &&
	echo "perf: '"'"'nosuchcmd'"'"' is not a perf-command. See '"'"'perf --help'"'"'." >want && cmp want err &&
	expect_exit 2 lperf nosuchcmd 2>err && expect_grep "is not an lperf command" err
'

test_expect_success 'version --build-options in perf layout' '
	lperf version --build-options >v &&
	expect_grep "^ +libbfd: \[ OFF \]  # HAVE_LIBBFD_SUPPORT$" v &&
	expect_grep "^ +zstd: \[ on  \]  # HAVE_ZSTD_SUPPORT$" v &&
	expect_grep "^ +libelf: \[ on  \]  # HAVE_LIBELF_SUPPORT$" v &&
	test "$(grep -c "^ *[a-z_0-9-]*: \[ \(on \|OFF\) \]  # HAVE_" v)" -ge 20
'

cat >"$SCRATCH/nop.c" <<-\EOF
	#include <signal.h>
	#include <unistd.h>
	volatile int done;
	static void stop(int sig) { (void)sig; done = 1; }
	__attribute__((noinline)) void noploop(void) { while (!done) continue; }
	int main(void) { signal(SIGALRM, stop); alarm(1); noploop(); return 0; }
	EOF
cc -O1 -o "$SCRATCH/nop" "$SCRATCH/nop.c" || exit 1
NOPID=$(readelf -n "$SCRATCH/nop" | awk '/Build ID/ {print $3}')

test_expect_success 'record --call-graph dwarf: every DSO of the sampled process (the unwinder reads them)' '
	lperf record -q -N --call-graph dwarf -e task-clock:u -o d.data "$SCRATCH/nop" &&
	lperf buildid-list -i d.data >ids && expect_grep "^$NOPID $SCRATCH/nop\$" ids && expect_grep "libc\.so" ids
'

test_expect_success 'inject -b in a pipe: build-id records ahead of the samples, the DSOs cached' '
	lperf record -q -B -e task-clock:u -o - "$SCRATCH/nop" | lperf --buildid-dir c inject -b >piped &&
	lperf buildid-list -i - <piped >ids && expect_grep "^$NOPID $SCRATCH/nop\$" ids &&
	test -L c/.build-id/$(echo $NOPID | cut -c1-2)/$(echo $NOPID | cut -c3-) &&
	lperf report -i - <piped --stdio 2>err >r && expect_grep "noploop" r
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'perf reads what inject -b writes: pipe to pipe, pipe to file, file to pipe' '
	lperf record -q -B -e task-clock:u -o - "$SCRATCH/nop" | lperf inject -b | perf report -i - --stdio 2>/dev/null >r1 &&
	expect_grep "noploop" r1 &&
	lperf record -q -B -e task-clock:u -o - "$SCRATCH/nop" | lperf inject -b -o f.data &&
	perf buildid-list -i f.data 2>/dev/null >ids && expect_grep "^$NOPID $SCRATCH/nop\$" ids &&
	perf record -q -B -e task-clock:u -o p.data "$SCRATCH/nop" 2>/dev/null &&
	lperf inject -b -i p.data | perf buildid-list -i - 2>/dev/null >pids && expect_grep "^$NOPID $SCRATCH/nop\$" pids &&
	lperf inject -b -i p.data | perf report -i - --stdio 2>/dev/null >r3 && expect_grep "noploop" r3
'
else
	test_skip 'perf reads what inject -b writes' 'no perf'
fi

PIPE_SH=/usr/lib/perf-core/tests/shell/pipe_test.sh
if [ -r "$PIPE_SH" ] && lperf report --help 2>&1 | grep -q -- "--task"; then
test_expect_success "perf's own tests/shell/pipe_test.sh with lperf as perf" '
	PATH="$SHIM:$PATH" bash "$PIPE_SH" >log 2>&1 || { cat log; false; } &&
	test "$(grep -c "noploop" log)" -eq 3
'
else
	test_skip "perf's pipe_test.sh" 'not installed, or no report --task'
fi

BUILDID_SH=/usr/lib/perf-core/tests/shell/buildid.sh
if [ -r "$BUILDID_SH" ] && command -v readelf >/dev/null; then
test_expect_success "perf's own tests/shell/buildid.sh with lperf as perf" '
	PATH="$SHIM:$PATH" bash "$BUILDID_SH" >log 2>&1 || { cat log; false; } &&
	test "$(grep -c "^OK for" log)" -eq 4
'
else
	test_skip "perf's buildid.sh" 'linux-perf tests not installed'
fi

test_done
