#!/bin/sh
# lperf probe against perf probe 6.1: the functions --funcs lists, the uprobe_events lines each
# spelling writes, the messages scripts read, -l, -d and its errors, kprobes on a kernel
# without kprobe_events, and events that perf record and lperf record can use. Every probe added
# is deleted at the end (group probe_t88prog).
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"

HAVE_PERF=$(command -v perf >/dev/null && echo 1)
TRACEFS=$(for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do [ -e $d/uprobe_events ] && echo $d && break; done)
if [ -z "$TRACEFS" ] || [ "$(id -u)" != 0 ]; then
	test_skip 'lperf probe' 'needs root and tracefs with uprobe_events'
	test_done; exit
fi
SHIM="$SCRATCH/shim"
mkdir -p "$SHIM" && ln -s "$LPERF" "$SHIM/perf"
P="$SCRATCH/t88prog"
cat >"$SCRATCH/p.c" <<-\EOF
	int g;
	struct t { int *p; int c; };
	__attribute__((noinline)) int foo(int i) { int r = 0; for (int j = 0; j < i; j++) r += j * g; return r; }
	__attribute__((noinline)) int bar(int i, struct t *t) { return i < t->c ? t->p[i] : 0; }
	int main(int argc, char **argv) { struct t s = { &g, argc }; (void)argv; return (foo(argc * 3) + bar(0, &s)) & 1; }
	EOF
cc -g -O1 -o "$P" "$SCRATCH/p.c" || exit 1
cleanup_probes() { "$LPERF" probe -q -d 'probe_t88prog:*' 2>/dev/null; "$LPERF" probe -q -d 'probe_t88prog0:*' 2>/dev/null; true; }
at_exit cleanup_probes
events() { grep "probe_t88prog/" "$TRACEFS/uprobe_events"; }

if [ -n "$HAVE_PERF" ]; then
test_expect_success '--funcs lists what perf probe --funcs lists (default filter, globs, C++, libc)' '
	for b in "$P" /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
		[ -e "$b" ] || continue
		perf probe -x "$b" --funcs >p 2>/dev/null && lperf probe -x "$b" --funcs >l && cmp p l || return 1
	done &&
	perf probe -x "$P" --funcs "f*|m*" >p 2>/dev/null && lperf probe -x "$P" --funcs "f*|m*" >l && cmp p l &&
	perf probe -x "$P" --funcs "!_* & !m*" >p 2>/dev/null && lperf probe -x "$P" --funcs "!_* & !m*" >l && cmp p l &&
	expect_grep "^foo\$" l
'

test_expect_success '--funcs without -x: the kernel functions perf lists' '
	perf probe --funcs >p 2>/dev/null && lperf probe --funcs >l && cmp p l && test "$(wc -l <l)" -gt 1000 &&
	perf probe -F "vfs_*" >p 2>/dev/null && lperf probe -F "vfs_*" >l && cmp p l
'

test_expect_success 'each spelling writes the uprobe_events line perf writes, with perf messages' '
	for spec in foo "foo%return" "foo+4" "x=foo v=%di:s32"; do
		cleanup_probes &&
		perf probe -q -x "$P" -a "$spec" 2>/dev/null && events >pe &&
		perf probe -q -d "probe_t88prog:*" 2>/dev/null &&
		lperf probe -x "$P" -a "$spec" 2>lerr && events >le && cmp pe le || return 1
	done &&
	cleanup_probes && perf probe -x "$P" foo 2>perr >/dev/null && perf probe -d "probe_t88prog:*" 2>/dev/null &&
	lperf probe -x "$P" foo 2>lerr && cmp perr lerr
'

test_expect_success 'duplicates: perf errors and -f; -l as perf lists them' '
	cleanup_probes && lperf probe -q -x "$P" foo &&
	expect_exit 239 lperf probe -x "$P" foo 2>lerr && expect_exit 239 perf probe -x "$P" foo 2>perr &&
	cmp perr lerr &&
	lperf probe -x "$P" -f foo 2>lerr && expect_grep "probe_t88prog:foo_1 +\(on foo in " lerr &&
	lperf probe -q -x "$P" "foo%return" &&
	perf probe -l 2>/dev/null | grep t88prog >pl && lperf probe -l | grep t88prog >ll && cmp pl ll
'

test_expect_success '-d: perf messages, globs, and an error for no match' '
	lperf probe -d foo_1 2>err && echo "Removed event: probe_t88prog:foo_1" >want && cmp want err &&
	lperf probe -d "probe_t88prog:*" 2>err && test "$(wc -l <err)" -eq 2 &&
	! events && expect_exit 254 lperf probe -d "probe_t88prog:*" 2>lerr &&
	expect_exit 254 perf probe -d "probe_t88prog:*" 2>perr && cmp perr lerr
'

test_expect_success 'perf record and lperf record use the probes lperf adds' '
	lperf probe -q -x "$P" foo && lperf probe -q -x "$P" "foo%return" &&
	perf record -q -e probe_t88prog:foo -o p.data -- "$P" 2>/dev/null &&
	perf script -i p.data 2>/dev/null >ps && test "$(grep -c "probe_t88prog:foo: (" ps)" -eq 1 &&
	lperf record -q -e probe_t88prog:foo -e probe_t88prog:foo__return -o l.data -- "$P" a b &&
	perf script -i l.data 2>/dev/null >ls && expect_grep "probe_t88prog:foo__return: \([0-9a-f]+ <- " ls &&
	test "$(wc -l <ls)" -eq 2 && cleanup_probes
'

test_expect_success 'kprobes: the words perf uses where the kernel has no kprobe_events' '
	if [ -e "$TRACEFS/kprobe_events" ]; then echo "kprobe_events present: nothing to compare"; exit 0; fi &&
	expect_exit 254 lperf probe -a do_sys_openat2 2>lerr &&
	expect_exit 254 perf probe -a do_sys_openat2 2>perr && cmp perr lerr
'
else
	test_skip 'lperf probe against perf' 'no perf'
fi

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'DWARF variables and members become the registers perf probe writes' '
	for spec in "bar i t" "bar t->c" "bar v=%di:u32 x=i i:u64 %si"; do
		cleanup_probes &&
		perf probe -x "$P" -a "$spec" 2>perr >/dev/null && events >pe &&
		perf probe -q -d "probe_t88prog:*" 2>/dev/null &&
		lperf probe -x "$P" -a "$spec" 2>lerr && events >le && cmp pe le && cmp perr lerr || return 1
	done && cleanup_probes
'

test_expect_success 'unoptimised code: past the prologue, variables in the frame, as perf' '
	cc -g -O0 -o "$SCRATCH/t88prog0" "$SCRATCH/p.c" &&
	for spec in "bar" "bar t" "main argc s.c s.p" "bar i t->c"; do
		perf probe -x "$SCRATCH/t88prog0" -a "$spec" >perr 2>&1 && grep "probe_t88prog0/" "$TRACEFS/uprobe_events" >pe &&
		perf probe -q -d "probe_t88prog0:*" 2>/dev/null &&
		lperf probe -x "$SCRATCH/t88prog0" -a "$spec" >lerr 2>&1 && grep "probe_t88prog0/" "$TRACEFS/uprobe_events" >le &&
		lperf probe -q -d "probe_t88prog0:*" && cmp pe le && cmp perr lerr || return 1
	done &&
	expect_grep "^Target program is compiled without optimization. Skipping prologue.\$" lerr
'

test_expect_success '-V lists the variables readable at a point as perf probe -V' '
	for args in "-V foo" "-V bar" "-V bar+4" "-V main"; do
		perf probe -x "$P" $args >p 2>&1 && lperf probe -x "$P" $args >l 2>&1 && cmp p l || return 1
	done &&
	for args in "-V bar" "-V main" "-V bar%return"; do
		perf probe -x "$SCRATCH/t88prog0" $args >p 2>&1 && lperf probe -x "$SCRATCH/t88prog0" $args >l 2>&1 &&
		cmp p l || return 1
	done &&
	expect_grep "struct t\*	t" l &&
	expect_exit 254 lperf probe -x "$P" -V nosuch 2>err && expect_exit 254 perf probe -x "$P" -V nosuch 2>perr &&
	cmp perr err
'

test_expect_success '-L shows the source lines as perf probe -L, numbered where a probe can go' '
	cc -g -O2 -o "$SCRATCH/t88prog2" "$SCRATCH/p.c" &&
	for b in "$P" "$SCRATCH/t88prog0" "$SCRATCH/t88prog2"; do
		for f in foo bar main nosuch; do
			perf probe -x "$b" -L $f >p 2>&1; echo $? >>p; lperf probe -x "$b" -L $f >l 2>&1; echo $? >>l
			cmp p l || return 1
		done
	done &&
	lperf probe -x "$SCRATCH/t88prog0" -L bar >l && expect_grep "^<bar@$SCRATCH/p.c:0>\$" l &&
	expect_grep "^      0  " l
'
fi

test_expect_success 'what lperf cannot resolve: perf words (scripts skip on them), nothing added' '
	expect_exit 254 lperf probe -x "$P" "foo nosuchvar" 2>err && expect_grep "^Debuginfo-analysis" err &&
	expect_exit 254 lperf probe -x "$P" "foo:3" 2>err && expect_grep "^Debuginfo-analysis is not supported\.$" err &&
	expect_exit 254 lperf probe -x "$P" nosuch 2>err && expect_grep "^Probe point .nosuch. not found\.$" err &&
	! events
'

CU_SH=/usr/lib/perf-core/tests/shell/test_uprobe_from_different_cu.sh
if [ -r "$CU_SH" ] && command -v gcc >/dev/null; then
test_expect_success "perf's own test_uprobe_from_different_cu.sh with lperf as perf" '
	PATH="$SHIM:$PATH" bash "$CU_SH" >log 2>&1 || { cat log; false; } &&
	expect_grep "Removed event: probe_testfile:foo" log
'
else
	test_skip "perf's test_uprobe_from_different_cu.sh" 'not installed'
fi

test_done
