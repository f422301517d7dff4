#!/bin/sh
# --call-graph dwarf: complete stacks for code built without frame pointers, unwound at report
# time from the recorded user stack copies.
# e2e-class: parallel (unwinding of fixed-work recordings (cpu-clock samples follow CPU time, not wall time))
. "$(dirname "$0")/lib.sh"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -fomit-frame-pointer -o "$BIN/shares" "$TEST_ROOT/tests/workloads/shares.c" || exit 1

test_expect_success 'a C program without frame pointers gets complete stacks in >= 95% of samples' '
	lperf record -q --call-graph dwarf -e cpu-clock -F 2000 -o "$SCRATCH/d.data" -- "$BIN/shares" 10 &&
	lperf report -i "$SCRATCH/d.data" --folded >f.txt &&
	awk "{ n = \$NF; leaf = \$1; sub(/.*;/, \"\", leaf) }
	     leaf ~ /^work_[abc] / || leaf ~ /^work_[abc]\$/ { }
	     { split(\$1, fr, \";\"); l = fr[length(fr)] }
	     l ~ /^work_[abc]\$/ { all += n; x = substr(l, 6, 1);
	         if (index(\$1, \"main;run_\" x \";work_\" x) && index(\$1, \"_start\")) ok += n }
	     END { printf \"%d of %d leaf samples complete\\n\", ok, all; exit !(all >= 100 && ok >= 0.95 * all) }" f.txt
'

test_expect_success 'the text report shows the callers of each function' '
	lperf report -i "$SCRATCH/d.data" --no-children --sort sym >r.txt &&
	awk "/\\[\\.\\] work_a\$/ { on = 1; next } on && /^\$/ { exit } on { print \$NF }" r.txt | tr "\\n" " " >path &&
	grep -q "work_a run_a main" path || { cat path; exit 1; }
'

test_expect_success 'a stack copy too small ends stacks in [truncated] and says so once' '
	lperf record -q --call-graph dwarf,64 -e cpu-clock -F 1000 -o small.data -- "$BIN/shares" 3 &&
	lperf report -i small.data --folded >f.txt 2>err &&
	expect_grep ";\[truncated\]" f.txt &&
	expect_grep "end in \[truncated\]" err && expect_lines 1 err
'

if command -v perf >/dev/null; then
test_expect_success 'Linux perf unwinds lperf dwarf recordings too' '
	perf report -i "$SCRATCH/d.data" --stdio --no-children --sort sym -G 2>/dev/null >p.txt &&
	expect_grep "run_a" p.txt
'
fi

# A binary whose CIE names register 4096 (a damaged or hostile .eh_frame: libdw would size every
# row it computes by the largest register named, up to 2 GiB): its CFI is not used, its stacks
# end at the sampled function, and report says so in one line naming the file (issue 28). A
# build-id of its own, so that no build-id cache takes it for shares.
test_expect_success 'CFI naming a register past 4095: not used, one warning naming the file' '
	lperf record -q --call-graph dwarf -e cpu-clock -F 2000 -o "$SCRATCH/d2.data" -- "$BIN/shares" 2 &&
	cc -O2 -fomit-frame-pointer -Wl,--build-id=0x6c706572662d686f7374696c65 -o hostile \
		"$TEST_ROOT/tests/workloads/shares.c" && $PYTHON -c "
import sys
b = open(\"hostile\", \"rb\").read()
cie = b\"\\x01zR\\x00\\x01\\x78\\x10\\x01\\x1b\\x0c\\x07\\x08\\x90\\x01\\x00\\x00\"
assert b.count(cie) == 1, b.count(cie)
open(\"hostile\", \"wb\").write(b.replace(cie, cie[:-4] + b\"\\x07\\x80\\x20\\x00\"))
" && ./hostile 1 >/dev/null &&
	lperf record -q --call-graph dwarf -e cpu-clock -F 2000 -o h.data -- ./hostile 20 &&
	lperf report -i h.data --folded >f.txt 2>err &&
	grep -c "its unwind information" err >n && test "$(cat n)" = 1 &&
	expect_grep "^lperf: warning: .*/hostile: its unwind information .* names register numbers past 4095" err &&
	awk "/work_[abc] [0-9]+\$/ { all += \$NF } /main;run_[abc];work_[abc] / { full += \$NF }
	     END { printf \"%d of %d samples in work_ unwound through main\\n\", full, all;
	           exit !(all >= 100 && full <= all / 20) }" f.txt &&
	lperf report -i "$SCRATCH/d2.data" --folded >g.txt 2>err2 && grep -q "main;run_[abc];work_[abc]" g.txt &&
	expect_no_grep "its unwind information" err2
'

test_done
