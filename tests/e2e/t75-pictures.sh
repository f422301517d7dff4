#!/bin/sh
# Pictures and viewer formats (report --flamegraph/--html/--speedscope/--firefox/--pprof, record
# --flamegraph, lperf diff), read back by independent readers: Python's XML and JSON parsers,
# npm's pprof-format and speedscope's schema, Go's pprof, and headless Chromium for the HTML
# page's own self-test (frames drawn, a click zooms, a search highlights) and a screenshot
# (kept as BUILD/pictures-screenshot.png). Readers come from Debian (chromium, golang-go) and
# npm (installed into build/node); a test whose reader cannot be installed is skipped.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
W="$TEST_ROOT/tests/workloads"
BIN="$SCRATCH/bin"
CHECK="$PYTHON $TEST_ROOT/tests/e2e/pictures_check.py"
mkdir -p "$BIN"
cc -O0 -g -fno-omit-frame-pointer -o "$BIN/shares" "$W/shares.c" &&
sed 's|unit \* 5 / 100 \* 10 / 10|unit * 15 / 100|' "$W/shares.c" >"$SCRATCH/slow.c" &&
cc -O0 -fno-omit-frame-pointer -o "$BIN/slow" "$SCRATCH/slow.c" &&
cc -O1 -fno-omit-frame-pointer -pthread -o "$BIN/threads" "$W/threads.c" || { echo "cannot build workloads"; exit 1; }

# npm readers, installed once into build/node (not globally).
NODE_DIR="$TEST_ROOT/build/node"
NODE_PATH="$NODE_DIR/node_modules"
export NODE_PATH
if command -v npm >/dev/null && ! [ -d "$NODE_PATH/pprof-format" -a -d "$NODE_PATH/speedscope" ]; then
	mkdir -p "$NODE_DIR" &&
	npm install --prefix "$NODE_DIR" --cache "$NODE_DIR/.npm" --no-audit --no-fund --silent \
		pprof-format@2.3.2 speedscope@1.25.0 >/dev/null 2>&1
fi
HAVE_NPM=; [ -d "$NODE_PATH/pprof-format" ] && command -v node >/dev/null && HAVE_NPM=1
SCHEMA="$NODE_PATH/speedscope/dist/release/file-format-schema.json"
[ -n "$HAVE_NPM" ] || test_skip "pprof-format and speedscope read lperf's files" \
	"npm could not install pprof-format and speedscope into build/node (no npm, or no registry)"
CHROME=$(command -v chromium || command -v chromium-browser || true)
GO=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null || true)

# all_formats DATA PREFIX [report options]: every format of DATA, checked against --folded.
all_formats() {
	data=$1 pre=$2; shift 2
	lperf report -i "$data" "$@" --folded >"$pre.folded" &&
	lperf report -q -i "$data" "$@" --flamegraph "$pre.svg" --html "$pre.html" --speedscope "$pre.json" \
		--firefox "$pre.ff.json.gz" --pprof "$pre.pb.gz" &&
	set -- svg "$pre.svg" html "$pre.html" speedscope "$pre.json" firefox "$pre.ff.json.gz" &&
	if [ -n "$HAVE_NPM" ]; then
		node "$TEST_ROOT/tests/e2e/pprof_stacks.js" "$pre.pb.gz" >"$pre.pprof.txt" &&
		set -- "$@" pprof "$pre.pprof.txt"
	fi &&
	$CHECK "$pre.folded" "$@" &&
	if [ -f "$SCHEMA" ]; then "$PYTHON" "$TEST_ROOT/tests/e2e/validate_json.py" "$SCHEMA" "$pre.json"; fi
}

lperf record -q -g -F 4000 -e cpu-clock -o "$SCRATCH/s.data" -- "$BIN/shares" 15 >/dev/null 2>&1

test_expect_success 'shares: every format shows the top stacks with the counts of report --folded' '
	all_formats "$SCRATCH/s.data" s && expect_grep "work_a" s.svg
'

test_expect_success 'threads: every format agrees on a multi-threaded, forking recording' '
	lperf record -q -g -F 4000 -e cpu-clock -o t.data -- "$BIN/threads" >/dev/null &&
	all_formats t.data t &&
	"$PYTHON" - t.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	names = [p["name"] for p in d["profiles"]]
	assert len(names) >= 3, names   # one profile per thread
	EOF
'

test_expect_success 'two events: one graph or profile per event, in the recording'"'"'s order' '
	lperf record -q -g -e cpu-clock,page-faults -o m.data -- "$BIN/shares" 3 &&
	lperf report -q -i m.data --flamegraph m.svg --speedscope m.json --firefox m.ff.gz --pprof m.pb.gz &&
	test "$(grep -c "class=\"graph\"" m.svg)" -eq 2 &&
	"$PYTHON" - m.json m.ff.gz <<-\EOF &&
	import gzip, json, sys
	s = json.load(open(sys.argv[1]))
	ev = [p["name"].split(":")[0] for p in s["profiles"]]
	assert ev[0] == "cpu-clock" and "page-faults" in ev, ev
	f = json.load(gzip.open(sys.argv[2]))
	names = [t["name"] for t in f["threads"]]
	assert names[0].endswith("(cpu-clock)") and any(n.endswith("(page-faults)") for n in names), names
	EOF
	if [ -n "$HAVE_NPM" ]; then
		node "$TEST_ROOT/tests/e2e/pprof_stacks.js" m.pb.gz 2>types.txt >/dev/null &&
		expect_grep "sample types: cpu-clock_samples/count, cpu-clock/nanoseconds, page-faults_samples/count, page-faults/events" types.txt
	fi
'

PY=$(ls -d /root/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.12*/bin/python3 2>/dev/null | tail -n 1)
if [ -n "$PY" ]; then
	test_expect_success 'Python (--python view): every format agrees, Python frames coloured as Python' '
		lperf record -q --python -o py.data -- "$PY" "$W/perf_docs.py" 3000000 &&
		all_formats py.data py --python &&
		expect_grep "data-k=\"python\" data-n=\"foo \\(perf_docs.py" py.svg &&
		expect_grep "Python \\(interpreter frames folded away\\)" py.html
	'
else
	test_skip "Python pictures" "no pyenv CPython 3.12 or 3.13"
fi

test_expect_success 'SVG: title, search and zoom script, icicle with --inverted, well-formed XML' '
	lperf report -q -i "$SCRATCH/s.data" --flamegraph f.svg &&
	lperf report -q -i "$SCRATCH/s.data" --inverted --flamegraph i.svg &&
	expect_grep "Flame graph: .*shares 15" f.svg && expect_grep "Icicle graph" i.svg &&
	expect_grep "cpu-clock: [0-9]+ samples" f.svg && expect_grep "lperfFlame" f.svg &&
	"$PYTHON" -c "import sys, xml.etree.ElementTree as E; [E.parse(f) for f in sys.argv[1:]]" f.svg i.svg
'

test_expect_success 'record --flamegraph draws the run just recorded' '
	lperf record -q -g -F 2000 -e cpu-clock -o r.data --flamegraph r.svg -- "$BIN/shares" 3 &&
	expect_grep "data-n=\"work_a\"" r.svg
'

test_expect_success 'sample --flamegraph draws the live run' '
	lperf sample -q -g --flamegraph live.svg -- "$BIN/shares" 3 >out.txt &&
	expect_grep "data-n=\"work_a\"" live.svg && expect_grep "work_a" out.txt
'

test_expect_success 'lperf diff: the function made slower comes first (text, --json, -g, --flamegraph)' '
	lperf record -q -g -F 4000 -e cpu-clock -o new.data -- "$BIN/slow" 10 &&
	lperf diff -q "$SCRATCH/s.data" new.data >d.txt && cat d.txt &&
	awk "!/^#/ { print \$NF; exit }" d.txt >first && echo work_a | cmp - first &&
	expect_grep "^ +[0-9.]+% +\\+[0-9.]+%  slow +\\[\\.\\] work_a$" d.txt &&
	lperf diff -q --json "$SCRATCH/s.data" new.data >d.json && validate_json diff.schema.json d.json &&
	lperf diff -q -g --json "$SCRATCH/s.data" new.data >g.json && validate_json diff.schema.json g.json &&
	"$PYTHON" - d.json g.json <<-\EOF &&
	import json, sys
	d, g = (json.load(open(f)) for f in sys.argv[1:])
	assert d["rows"][0]["symbol"] == "work_a" and d["rows"][0]["change"] > 5, d["rows"][0]
	assert g["rows"][0]["stack"].endswith("run_a;work_a"), g["rows"][0]
	EOF
	lperf diff -q --flamegraph d.svg "$SCRATCH/s.data" new.data >/dev/null &&
	expect_grep "Differential flame graph" d.svg && expect_grep "change \\+[0-9.]+ points" d.svg
'

test_expect_success 'bad input: a damaged recording gives one line and no picture crash' '
	head -c 3000 "$SCRATCH/s.data" >bad.data &&
	expect_exit 1 lperf report -i bad.data --flamegraph bad.svg 2>err.txt;
	expect_grep "lperf" err.txt &&
	expect_exit 2 lperf diff only-one.data 2>err2.txt
'

if [ -n "$GO" ]; then
	test_expect_success 'go tool pprof -top lists work_a, work_b, work_c with the shares report prints' '
		lperf report -q -i "$SCRATCH/s.data" --pprof p.pb.gz &&
		HOME=$SCRATCH GOCACHE=$SCRATCH/gocache GOTOOLCHAIN=local "$GO" tool pprof -top p.pb.gz >top.txt 2>&1 &&
		cat top.txt &&
		lperf report -i "$SCRATCH/s.data" --sort sym --stdio --no-children >r.txt &&
		for f in work_a work_b work_c; do
			want=$(awk -v s=$f "\$NF == s { sub(\"%\", \"\", \$1); print \$1; exit }" r.txt)
			got=$(awk -v s=$f "\$NF == s { sub(\"%\", \"\", \$2); print \$2; exit }" top.txt)
			echo "$f: report $want%, pprof $got%"
			awk -v a="$want" -v b="$got" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != \"\" && b != \"\" && d < 0.02) }" || exit 1
		done
	'
	test_expect_success 'go tool pprof -lines: functions carry their source file and first line (DWARF)' '
		lperf report -q -i "$SCRATCH/s.data" --pprof p.pb.gz &&
		HOME=$SCRATCH GOCACHE=$SCRATCH/gocache GOTOOLCHAIN=local "$GO" tool pprof -lines -top p.pb.gz >lines.txt 2>&1 &&
		cat lines.txt &&
		expect_grep " work_a .*shares\.c:[0-9]+\$" lines.txt &&
		expect_grep " work_b .*shares\.c:[0-9]+\$" lines.txt
	'
else
	test_skip "go tool pprof -top" "golang-go is not installed (scripts/install-deps.sh installs it)"
fi

if [ -n "$CHROME" ]; then
	test_expect_success 'Chromium: the HTML page tests itself (frames, zoom, search) and a screenshot shows it' '
		lperf report -q -i "$SCRATCH/s.data" --html page.html &&
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chrome" \
			--virtual-time-budget=5000 --dump-dom "file://$PWD/page.html#selftest" >dom.html 2>/dev/null &&
		grep -o "SELFTEST [^<]*" dom.html | head -n 1 | tee st.txt &&
		expect_grep "^SELFTEST PASS frames=[0-9]+ zoomed=" st.txt &&
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chrome" \
			--hide-scrollbars --window-size=1280,1300 --screenshot="$PWD/shot.png" "file://$PWD/page.html" \
			>/dev/null 2>&1 &&
		test -s shot.png && cp shot.png "$(dirname "$LPERF")/pictures-screenshot.png"
	'
	if [ -f "$NODE_PATH/speedscope/dist/release/index.html" ]; then
		test_expect_success 'Chromium: speedscope'"'"'s bundled viewer loads the speedscope file' '
			lperf report -q -i "$SCRATCH/s.data" --speedscope ss.json &&
			cp -r "$NODE_PATH/speedscope/dist/release" viewer &&
			printf "speedscope.loadFileFromBase64(\"ss.json\", \"%s\")\n" "$(base64 -w0 ss.json)" >viewer/profile.js &&
			timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chrome" \
				--allow-file-access-from-files --virtual-time-budget=8000 --dump-dom \
				"file://$PWD/viewer/index.html#localProfilePath=$PWD/viewer/profile.js" >v.html 2>/dev/null &&
			expect_grep "cpu-clock: shares" v.html
		'
	fi
else
	test_skip "Chromium HTML self-test" "chromium is not installed (scripts/install-deps.sh installs it)"
fi

test_done
