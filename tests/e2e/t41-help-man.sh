#!/bin/sh
# Help and manual pages that say what the binary does: 'lperf --help' lists every command of the
# table; the pages lperf-COMMAND(1) are written from the option tables the parser uses, so every
# option --help shows is on the page; make install puts them under share/man/man1; 'lperf man'
# stays for events and says so when given a command; unknown short options get no list of
# unrelated letters.
# e2e-class: parallel (help and man pages; make install into the scratch directory)
. "$(dirname "$0")/lib.sh"

MAN="$(dirname "$LPERF")/man"

test_expect_success 'lperf --help and lperf help list every command, and each has --help' '
	lperf --help >top.txt && lperf help >top2.txt && cmp top.txt top2.txt &&
	lperf help --commands >cmds &&
	[ "$(wc -l <cmds)" -ge 15 ] &&
	while read -r c; do
		expect_grep "^   $c +[^ ]" top.txt || return 1
		lperf $c --help >/dev/null 2>&1 || lperf $c -h >/dev/null 2>&1 || { echo "$c --help fails"; return 1; }
	done <cmds &&
	expect_no_grep "not in this build" top.txt
'

test_expect_success 'the generator writes lperf(1) and one page per command (as the build did); man renders each without a warning' '
	sh "$TEST_ROOT/scripts/man-pages.sh" "$LPERF" "$SCRATCH/man" &&
	if [ -d "$MAN" ]; then diff -r "$MAN" "$SCRATCH/man" || return 1; fi &&
	MAN="$SCRATCH/man" && [ -f "$MAN/lperf.1" ] &&
	lperf help --commands | grep -v "^help$" >cmds &&
	while read -r c; do
		[ -f "$MAN/lperf-$c.1" ] || { echo "no page for $c"; return 1; }
		head -n 1 "$MAN/lperf-$c.1" | grep -q "^\.TH LPERF" || return 1
		LC_ALL=C MANWIDTH=100 man --warnings -l "$MAN/lperf-$c.1" >page.txt 2>warn.txt &&
		expect_lines 0 warn.txt && expect_grep "^NAME" page.txt || return 1
	done <cmds
'

test_expect_success 'the pages cannot drift: every long option of lperf COMMAND --help is on its page' '
	for c in stat record report script annotate diff top sample list probe inject evlist buildid-cache; do
		lperf $c --help 2>/dev/null | grep -oE "^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*" | grep -oE "\-\-[a-z][a-z0-9-]*" | sort -u >opts.$c &&
		[ -s opts.$c ] || { echo "no options for $c"; return 1; }
		lperf help --man $c >page.$c &&
		while read -r o; do
			r=$(echo "$o" | sed "s/-/\\\\\\\\-/g") &&
			grep -q -- "$r" page.$c || { echo "$c: $o not on the page"; return 1; }
		done <opts.$c || return 1
	done
'

test_expect_success 'make install puts the pages under share/man/man1' '
	(cd "$TEST_ROOT" && make -s -o all install DESTDIR="$SCRATCH/inst" >/dev/null 2>&1) &&
	[ -f "$SCRATCH/inst/usr/local/share/man/man1/lperf.1" ] &&
	[ -f "$SCRATCH/inst/usr/local/share/man/man1/lperf-record.1" ] &&
	[ -f "$SCRATCH/inst/usr/local/share/man/man1/lperf-stat.1" ]
'

test_expect_success 'lperf help COMMAND off a terminal is the short form, lperf COMMAND --help' '
	lperf help record >a.txt && lperf record --help >b.txt && cmp a.txt b.txt
'

test_expect_success 'lperf man COMMAND says man is for events and where the command help is; events still work' '
	expect_exit 2 lperf man record 2>err &&
	expect_grep "describes events, metrics and metric groups; .record. is a command: see .lperf help record." err &&
	expect_no_grep "not found|Ensure it is compatible" err &&
	lperf man task-clock >out 2>&1 || lperf man cpu-clock >out 2>&1 || true
	expect_no_grep "is a command" out
'

test_expect_success 'unknown short options: no list of unrelated letters; long ones still get the closest spelling' '
	expect_exit 2 lperf stat -D true 2>err && expect_grep "^lperf stat: unknown option .-D.$" err &&
	expect_no_grep "did you mean" err &&
	expect_exit 2 lperf record -N -Z true 2>err && expect_no_grep "did you mean" err &&
	expect_exit 2 lperf stat --repat 2 true 2>err && expect_grep "did you mean .--repeat.\?" err
'

test_expect_success 'a perf command lperf lacks is said to be one (trace: where lperf helps); a typo gets the closest' '
	expect_exit 2 lperf trace 2>err &&
	expect_grep "^lperf: .trace. is a perf command that lperf does not have; count system calls with .lperf stat -e raw_syscalls:sys_enter." err &&
	expect_exit 2 lperf kmem 2>err && expect_grep "is a perf command that lperf does not have$" err &&
	expect_exit 2 lperf tpo 2>err && expect_grep "not an lperf command; did you mean .top.\?" err
'

test_done
