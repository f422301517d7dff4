#!/bin/sh
# A program rebuilt after it was recorded (tests/workloads/rebuilt.c, rebuilt with -DREBUILT:
# other functions at the recorded addresses): report, script, the pictures, annotate and diff
# resolve the recording's build through the build-id cache (filled by lperf record, or by perf
# record in the same directory), with frame pointers and with DWARF stacks (the cached copy's
# CFI); where the cache has no copy (-N), each such DSO is named once on stderr and its samples
# stay addresses, never the rebuilt file's names.
# e2e-class: parallel (rebuilt binaries resolved through the build-id cache: same file, same report)
. "$(dirname "$0")/lib.sh"

HAVE_PERF=$(command -v perf >/dev/null && echo 1)
W="$TEST_ROOT/tests/workloads/rebuilt.c"
N=60000000
# the first build, and the rebuild at the same path (fp: frame pointers; dw: for DWARF stacks)
build_fp() { cc -O1 -g -fno-omit-frame-pointer "$@" -o "$SCRATCH/fp" "$W"; }
build_dw() { cc -O1 -g -fomit-frame-pointer "$@" -o "$SCRATCH/dw" "$W"; }
# what a user reads: report's rows and graphs, script, the folded stacks and the flame graph
views() { # views DATA PREFIX
	lperf report -i "$1" --no-children --stdio >"$2.report" 2>"$2.report.err" &&
	lperf script -i "$1" >"$2.script" 2>"$2.script.err" &&
	lperf report -i "$1" --folded >"$2.folded" 2>"$2.folded.err" &&
	lperf report -i "$1" --flamegraph "$2.svg" 2>"$2.svg.err"
}
same_views() { # same_views A B: every view identical, and no warning
	for v in report script folded svg; do
		# (a loaded machine may lose a sample while recording: that warning is not the point)
		grep -v "samples lost while recording" "$2.$v.err" >"$2.$v.err2"
		cmp "$1.$v" "$2.$v" && expect_no_grep "warning|build-id" "$2.$v.err2" || return 1
	done
}
# no view names the rebuilt program's functions; each warns once naming PATH, and its samples
# are addresses
unresolved_views() { # unresolved_views PREFIX PATH
	for v in report script folded svg; do
		expect_no_grep "rebuilt_|rb_alpha|rb_beta" "$1.$v" &&
		[ "$(grep -c "^lperf: warning: $2 has build-id .*, the recording.s is .* has no copy: its samples are not resolved" "$1.$v.err")" = 1 ] ||
			{ echo "view $v"; cat "$1.$v.err"; return 1; }
	done &&
	expect_grep "\[\.\] 0x0000" "$1.report" && expect_grep "\[unknown\] \($2\)" "$1.script"
}

test_expect_success 'lperf record -g, rebuilt: report, script, --folded, --flamegraph as before, from the cache' '
	build_fp && lperf record -q -g -e task-clock -o a.data "$SCRATCH/fp" $N &&
	views a.data before && expect_grep "\[\.\] rb_alpha" before.report && expect_grep "rb_beta" before.folded &&
	build_fp -DREBUILT && nm "$SCRATCH/fp" | grep -q rebuilt_alpha &&
	views a.data after && same_views before after
'

test_expect_success 'lperf record -g -N, rebuilt: one warning per DSO, addresses, never the rebuilt names' '
	build_fp && lperf record -q -N -g -e task-clock -o n.data "$SCRATCH/fp" $N &&
	build_fp -DREBUILT && views n.data after && unresolved_views after "$SCRATCH/fp"
'

test_expect_success 'annotate and diff of a rebuilt program read the cached copy' '
	build_fp && lperf record -q -e task-clock -o old.data "$SCRATCH/fp" $N &&
	build_fp -DREBUILT && lperf record -q -e task-clock -o new.data "$SCRATCH/fp" $N &&
	lperf annotate -i old.data --stdio rb_alpha >an.txt 2>an.err &&
	expect_grep "Disassembly of rb_alpha" an.txt && test ! -s an.err &&
	lperf diff old.data new.data >d.txt 2>d.err && test ! -s d.err &&
	expect_grep "rb_alpha" d.txt && expect_grep "rebuilt_alpha" d.txt
'

test_expect_success 'lperf record --call-graph dwarf, rebuilt: stacks unwound with the cached copy (CFI)' '
	build_dw && lperf record -q --call-graph dwarf -e task-clock -o d.data "$SCRATCH/dw" $N &&
	views d.data before && expect_grep "main;rb_outer;rb_alpha" before.folded &&
	build_dw -DREBUILT && views d.data after && same_views before after
'

test_expect_success 'lperf record --call-graph dwarf -N, rebuilt: not unwound with the rebuilt CFI, and no stack-size advice' '
	build_dw && lperf record -q -N --call-graph dwarf -e task-clock -o dn.data "$SCRATCH/dw" $N &&
	build_dw -DREBUILT && views dn.data after && unresolved_views after "$SCRATCH/dw" &&
	expect_no_grep "dwarf,SIZE" after.report.err &&
	expect_grep "stacks end in \[truncated\] in a file that is not the recorded build" after.report.err
'

if [ -n "$HAVE_PERF" ]; then
test_expect_success 'perf record -g (perf fills the cache), rebuilt: lperf shows the recording.s symbols' '
	build_fp && perf --buildid-dir "$PERF_BUILDID_DIR" record -q -g -e task-clock -o p.data "$SCRATCH/fp" $N 2>/dev/null &&
	views p.data before && expect_grep "\[\.\] rb_alpha" before.report &&
	build_fp -DREBUILT && views p.data after && same_views before after
'
test_expect_success 'perf record -g -N, rebuilt: lperf warns once per DSO and shows addresses' '
	build_fp && perf --buildid-dir "$PERF_BUILDID_DIR" record -q -N -g -e task-clock -o pn.data "$SCRATCH/fp" $N 2>/dev/null &&
	build_fp -DREBUILT && views pn.data after && unresolved_views after "$SCRATCH/fp"
'
test_expect_success 'perf record --call-graph dwarf, rebuilt: lperf unwinds with the cached copy' '
	build_dw && perf --buildid-dir "$PERF_BUILDID_DIR" record -q --call-graph dwarf -e task-clock -o pd.data "$SCRATCH/dw" $N 2>/dev/null &&
	views pd.data before && expect_grep "main;rb_outer;rb_alpha" before.folded &&
	build_dw -DREBUILT && views pd.data after && same_views before after
'
else
	test_skip 'perf record -g, rebuilt' 'no perf'
	test_skip 'perf record -g -N, rebuilt' 'no perf'
	test_skip 'perf record --call-graph dwarf, rebuilt' 'no perf'
fi

test_done
