#!/bin/sh
# The recording order memo (session/order_memo.h): a report of a file without FINISHED_ROUND
# (perf inject -j's output, a few MMAP2 records placed after later samples) writes the order its
# records went out in to $PERF_BUILDID_DIR/.lperf/order, and the next report of the file replays
# it instead of reading each record's start and sorting: every view prints the same bytes as a
# report without the memo, with one thread or two. A file changed since (its times) gets a memo
# of its own; a damaged memo is ignored and written again.
# e2e-class: parallel (its own recording and cache directory)
. "$(dirname "$0")/lib.sh"

PY=$(ls -d "$HOME"/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.13*/bin/python3 2>/dev/null | head -n 1)
MEMOS="$PERF_BUILDID_DIR/.lperf/order"
if [ -z "$PY" ] || ! command -v perf >/dev/null; then
	test_skip 'the order memo of a perf inject -j recording' 'needs perf and a pyenv CPython 3.13'
	test_done
	exit
fi

VIEWS="--stdio
--stdio --no-children
--stdio -g caller --sort dso,sym
--stdio -j2
--json
--folded"

# same FILE: each view's report with the memo (its second run) is the one without (the first).
same() {
	printf "%s\n" "$VIEWS" | while read -r view; do
		rm -rf "$MEMOS"
		# shellcheck disable=SC2086
		lperf report -i "$1" $view >first.out 2>first.err || { echo "first $view failed"; return 1; }
		test "$(ls "$MEMOS" | wc -l)" = 1 || { echo "no memo after $view"; return 1; }
		# shellcheck disable=SC2086
		lperf report -i "$1" $view >second.out 2>second.err || { echo "second $view failed"; return 1; }
		cmp first.out second.out && cmp first.err second.err || { echo "differs: $view"; return 1; }
	done
}

test_expect_success 'setup: perf record of CPython -X perf_jit, perf inject -j' '
	perf record -q -k 1 --call-graph dwarf -e cpu-clock -F 999 -o "$SCRATCH/p.data" -- \
		"$PY" -X perf_jit "$TEST_ROOT/tests/workloads/perf_docs.py" 3000000 >/dev/null 2>&1 &&
	perf inject -j -i "$SCRATCH/p.data" -o "$SCRATCH/pj.data" 2>/dev/null &&
	lperf report -i "$SCRATCH/pj.data" --stdio --sort sym >r 2>/dev/null && expect_grep "py::" r
'

test_expect_success 'the second report replays the first one'"'"'s order: every view the same bytes' '
	same "$SCRATCH/pj.data" &&
	lperf script -i "$SCRATCH/pj.data" >s1 2>/dev/null && lperf script -i "$SCRATCH/pj.data" >s2 2>/dev/null &&
	cmp s1 s2
'

test_expect_success 'a file changed since gets a memo of its own; a damaged one is written again' '
	rm -rf "$MEMOS" && cp "$SCRATCH/pj.data" c.data &&
	lperf report -i c.data --stdio >want 2>/dev/null && cp "$MEMOS"/* good &&
	touch -d "2001-01-01" c.data && lperf report -i c.data --stdio >r1 2>/dev/null && cmp want r1 &&
	test "$(ls "$MEMOS" | wc -l)" = 2 &&
	rm -rf "$MEMOS" && lperf report -i c.data --stdio >/dev/null 2>&1 && memo=$(ls "$MEMOS"/*) &&
	cp "$memo" good && size=$(stat -c %s "$memo") &&
	printf "\377" | dd of="$memo" bs=1 seek=$((size - 3)) conv=notrunc 2>/dev/null &&
	lperf report -i c.data --stdio >r2 2>/dev/null && cmp want r2 && cmp good "$memo" &&
	lperf report -i c.data --stdio >r3 2>/dev/null && cmp want r3
'

test_done
