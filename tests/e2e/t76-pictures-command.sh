#!/bin/sh
# The pictures name the profiled program (issue 22): the flame graph's title and the HTML page's
# Command come from the recording's command line without the recorder's own options, also when
# the recording did not use "--" (lperf's and perf's recordings); a long command ends in an
# ellipsis that fits the title (whole in its tooltip); speedscope opens on the busiest profile.
# e2e-class: parallel (pictures' titles from the recorded command line)
. "$(dirname "$0")/lib.sh"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -o "$BIN/inline_hot" "$TEST_ROOT/tests/workloads/inline_hot.c" &&
cc -O1 -pthread -o "$BIN/threads" "$TEST_ROOT/tests/workloads/threads.c" &&
cc -O0 -fno-omit-frame-pointer -o "$BIN/shares" "$TEST_ROOT/tests/workloads/shares.c" || { echo "cannot build workloads"; exit 1; }

# The icicle's frames by depth: the sampled functions at depth 1, widest first.
cat >"$SCRATCH/icicle.py" <<'EOF'
import re, sys
svg = open(sys.argv[1]).read()
g = [(m.group(3), int(m.group(2)), float(m.group(1))) for m in
     re.finditer(r'<g class="f[^"]*" data-x="[0-9.]+" data-w="([0-9.]+)" data-d="(\d+)" data-k="[a-z]+" data-n="([^"]*)"', svg)]
assert g, "no frames"
top = sorted([x for x in g if x[1] == 1], key=lambda x: -x[2])
assert top[0][0] == "work_a", top[:3]
assert {n for n, d, w in top[:3]} == {"work_a", "work_b", "work_c"}, top[:5]
depth = {n: d for n, d, w in g if n in ("run_a", "main")}
assert depth.get("run_a") == 2 and depth.get("main", 0) >= 3, depth
EOF

title() { grep -o '<text class="title"[^>]*>[^<]*' "$1" | sed 's/.*>//'; }

test_expect_success 'no "--": the title and Command are the program, not the recorder' '
	cd "$BIN" &&
	lperf record -q -g -F 999 -e cpu-clock -o "$SCRATCH/l.data" ./inline_hot 1 50 >/dev/null &&
	lperf report -q -i "$SCRATCH/l.data" --flamegraph "$SCRATCH/l.svg" --html "$SCRATCH/l.html" &&
	title "$SCRATCH/l.svg" >t.txt && cat t.txt &&
	test "$(cat t.txt)" = "Flame graph: ./inline_hot 1 50" &&
	grep -q "Command</th><td>./inline_hot 1 50<" "$SCRATCH/l.html"
'

if command -v perf >/dev/null; then
test_expect_success "perf's recording without \"--\": the program too" '
	cd "$BIN" &&
	perf record -q -g -F 999 -o "$SCRATCH/p.data" ./inline_hot 1 50 >/dev/null 2>&1 &&
	lperf report -q -i "$SCRATCH/p.data" --flamegraph "$SCRATCH/p.svg" &&
	test "$(title "$SCRATCH/p.svg")" = "Flame graph: ./inline_hot 1 50"
'
fi

test_expect_success 'a long command: an ellipsis inside the width, the whole command in the tooltip' '
	long=$(printf "x%.0s" $(seq 1 300)) &&
	lperf record -q -F 999 -o "$SCRATCH/long.data" -- "$BIN/inline_hot" 1 100 "$long" >/dev/null &&
	lperf report -q -i "$SCRATCH/long.data" --flamegraph long.svg &&
	title long.svg >t.txt && cat t.txt &&
	test $(wc -m <t.txt) -le 130 && grep -q "…\$" t.txt &&
	grep -q "<title>$BIN/inline_hot 1 100 $long</title>" long.svg
'

test_expect_success 'speedscope opens on the profile with the most samples' '
	lperf record -q -F 999 -e cpu-clock -o "$SCRATCH/t.data" -- "$BIN/threads" >/dev/null &&
	lperf report -q -i "$SCRATCH/t.data" --speedscope s.json &&
	"$PYTHON" - s.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	n = [len(p["samples"]) for p in d["profiles"]]
	assert len(n) > 1 and n[d["activeProfileIndex"]] == max(n), (d["activeProfileIndex"], n)
	EOF
'

test_expect_success 'the HTML page has one set of zoom and search controls (the page'"'"'s)' '
	lperf report -q -i "$SCRATCH/l.data" --html one.html &&
	test $(grep -c "id=\"reset\"" one.html) = 1 && test $(grep -c "id=\"q\"" one.html) = 1 &&
	expect_no_grep "class=\"btn (reset|search)\"" one.html &&
	lperf report -q -i "$SCRATCH/l.data" --flamegraph one.svg &&
	expect_grep "class=\"btn reset\"" one.svg
'

test_expect_success '--inverted: an icicle merged from the sampled functions (work_a widest at the top)' '
	lperf record -q -g -F 2000 -e cpu-clock -o "$SCRATCH/s.data" -- "$BIN/shares" 5 &&
	lperf report -q -i "$SCRATCH/s.data" -G --flamegraph ice.svg &&
	expect_grep "Icicle graph" ice.svg &&
	"$PYTHON" "$SCRATCH/icicle.py" ice.svg
'

test_done
