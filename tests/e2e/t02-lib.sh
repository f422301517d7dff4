#!/bin/sh
# The e2e library itself (lib.sh): a failing check fails its case wherever it runs, even where its
# exit status is lost (an unchained line, a function, a loop, a pipeline, a subshell, a background
# job, a command substitution), and a check used as a condition through probe does not. Each case
# runs a small script of cases of its own against lib.sh and reads its TAP lines.
# e2e-class: parallel (lib.sh on scripted cases; its sleeps only order background jobs the library waits for)
. "$(dirname "$0")/lib.sh"

# inner NAME SNIPPET: a script of one case (SNIPPET, in single quotes there: it must not hold one)
# sourcing lib.sh; its output goes to NAME.out, its status to NAME.rc.
inner() {
	{
		echo ". \"$TEST_ROOT/tests/e2e/lib.sh\""
		echo "test_expect_success 'inner' '$2'"
		echo "test_done"
	} >"$1.sh" &&
	{ LPERF_TEST_BG_WAIT=${BG_WAIT:-30} sh "$1.sh" >"$1.out" 2>&1; echo $? >"$1.rc"; } &&
	echo "== $1:" && cat "$1.out"
}
# fails NAME SNIPPET / passes NAME SNIPPET: the inner case fails (passes), and so does its script.
fails() { inner "$@" && grep -qx "not ok 1 - inner" "$1.out" && [ "$(cat "$1.rc")" = 1 ]; }
passes() { inner "$@" && grep -qx "ok 1 - inner" "$1.out" && [ "$(cat "$1.rc")" = 0 ]; }

test_expect_success 'a case passes, and fails by its exit status, as before' '
	passes ok "echo x >x.txt && expect_grep x x.txt && expect_lines 1 x.txt" &&
	fails status "echo x >x.txt && expect_grep y x.txt" &&
	grep -q "no line matching .y. in x.txt" status.out
'

test_expect_success 'an unchained fail, or one in a function, fails the case though the snippet ends with 0' '
	fails bare "[ 1 = 2 ] || fail one is not two
	true" &&
	grep -q "FAIL: one is not two" bare.out &&
	grep -q "checks in it failed" bare.out &&
	fails func "f() { expect_grep nothing /dev/null; echo went on; }
	f
	true" &&
	fails loop "for i in 1 2 3; do within \$i 2 10; done; true" &&
	fails pipe "echo 5 | while read n; do expect_exit 0 test \$n -lt 3; done" &&
	fails subst "x=\$(fail in a command substitution; echo y) && [ \$x = y ]"
'

test_expect_success 'a fail in a subshell or a background job fails the case, waited for or not' '
	fails sub "(expect_no_grep root /etc/passwd); true" &&
	fails bg "{ sleep 0.2; fail late in the background; } & pid=\$!
	wait \$pid
	true" &&
	fails bgnowait "{ sleep 0.5; fail after the snippet ended; } &
	true" &&
	passes bgok "{ sleep 0.2; expect_grep root /etc/passwd; } &
	true"
'

test_expect_success 'a check in probe, as a condition, leaves no mark; the checks after it still do' '
	passes probe "if probe expect_grep nothing /dev/null; then false; fi &&
	! probe within 1 2 10 && while ! probe expect_exit 0 test -e done; do touch done; done &&
	probe fail not counted || true" &&
	passes nested "f() { probe expect_grep nothing /dev/null || true; }; probe f; ! probe f; true" &&
	fails after "probe fail not counted || true
	fail counted
	true" &&
	sed -n "/checks in it failed/,\$p" after.out >marks &&
	grep -q "FAIL: counted" marks && ! grep -q "not counted" marks
'

test_expect_success 'a background job still running LPERF_TEST_BG_WAIT seconds after the snippet is named' '
	BG_WAIT=1 && passes left "sleep 4 & true" &&
	grep -q "^# background job [0-9]* (sleep 4 ) still running after the snippet" left.out
'

test_expect_success 'each case has its own mark: a failed case does not fail the next' '
	{
		echo ". \"$TEST_ROOT/tests/e2e/lib.sh\""
		echo "test_expect_success one \"fail first; true\""
		echo "test_expect_success two \"dir=/nonexistent; LPERF_TEST_MARK_X=1; true\""
		echo "test_done"
	} >two.sh &&
	{ sh two.sh >two.out 2>&1; echo $? >two.rc; } && cat two.out &&
	grep -qx "not ok 1 - one" two.out && grep -qx "ok 2 - two" two.out && [ "$(cat two.rc)" = 1 ]
'

# A program built with -fsanitize=address: "leak" leaks (LeakSanitizer reports at exit, status 23,
# after its output), "overflow" writes past a heap block, anything else is clean.
cat >"$SCRATCH/san.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void *__attribute__((noinline)) block(size_t n) { return malloc(n); }
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "leak")) {
		char *p = block(64);
		p[0] = 1;
		p = NULL;
	} else if (argc > 1 && !strcmp(argv[1], "overflow")) {
		volatile int i = 8;
		char *p = block(8);
		p[i] = 1;
		free(p);
	}
	puts("out");
	return 0;
}
EOF
if cc -O0 -g -fsanitize=address -o "$SCRATCH/san" "$SCRATCH/san.c" 2>/dev/null; then
	test_expect_success 'under a sanitizer build, a report from a command whose status is lost fails the case' '
		(LPERF="$SCRATCH/san" && export LPERF &&
		 passes clean "\"\$LPERF\" | grep -q out; x=\$(\"\$LPERF\"); [ \$x = out ]" &&
		 fails leakpipe "\"\$LPERF\" leak | grep -q out" &&
		 grep -q "LeakSanitizer: detected memory leaks" leakpipe.out &&
		 grep -q "sanitizer reports written in the case" leakpipe.out &&
		 fails leaksubst "x=\$(\"\$LPERF\" leak) && [ \$x = out ]" &&
		 fails overflowbg "\"\$LPERF\" overflow >/dev/null 2>&1 & wait; true" &&
		 grep -q "AddressSanitizer: heap-buffer-overflow" overflowbg.out &&
		 fails leaksh "sh -c \"\\\"\$LPERF\\\" leak; exit 0\"")
	'
else
	test_skip 'under a sanitizer build, a report from a command whose status is lost fails the case' 'no cc -fsanitize=address'
fi

test_done
