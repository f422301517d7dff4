#!/bin/sh
# Names that are not valid UTF-8 (issue 28): a program whose file name and functions hold a lone
# surrogate (ED A0 80), bytes 0xFF and 0xF5, U+FFFE and U+FFFF (tests/workloads/badnames.c).
# Every picture and JSON output of its recordings (report's five pictures and --json, annotate
# --json, diff --json and --flamegraph, record --flamegraph, sample --json --flamegraph) is strict
# UTF-8 with those bytes replaced by U+FFFD and parses: xmllint for the SVGs, a JSON reader that
# refuses invalid bytes, escaped lone surrogates, NaN and duplicate keys, the pprof string table
# decoded strictly (tests/e2e/strict_check.py). Headless Chromium draws every frame of each SVG
# flame graph and of the HTML page, zooms on a click at the damaged name's frame and finds it by
# search (tests/e2e/flame_check.html; it fails on an SVG with one raw 0xFF byte, where Chromium
# stops drawing).
# e2e-class: parallel (strict UTF-8 of every output, read back; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
BAD=$(printf 'w\355\240\200\377\357\277\276')
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O0 -fno-omit-frame-pointer -o "$BIN/$BAD" "$TEST_ROOT/tests/workloads/badnames.c" ||
	{ echo "cannot build the workload"; exit 1; }
CHROME=$(command -v chromium || command -v chromium-browser || true)
STRICT="$PYTHON $TEST_ROOT/tests/e2e/strict_check.py"
A="$SCRATCH/a.data" B="$SCRATCH/b.data"
lperf record -q -g -o "$A" -- "$BIN/$BAD" >/dev/null 2>&1
lperf record -q -g -o "$B" --flamegraph "$SCRATCH/rec.svg" -- "$BIN/$BAD" >/dev/null 2>&1

test_expect_success 'report: the five pictures and --json are strict UTF-8 and parse' '
	lperf report -q -i "$A" --flamegraph f.svg --html f.html --speedscope f.json --firefox f.ff.json.gz \
		--pprof f.pb.gz &&
	lperf report -i "$A" --json >r.json &&
	xmllint --noout f.svg &&
	$STRICT f.svg f.html f.json f.ff.json.gz f.pb.gz r.json
'

test_expect_success 'annotate --json, diff --json and --flamegraph, record --flamegraph: strict and parse' '
	lperf annotate -q -i "$A" --json >a.json &&
	lperf diff --json "$A" "$B" >d.json &&
	lperf diff -q --flamegraph d.svg "$A" "$B" &&
	xmllint --noout d.svg "$SCRATCH/rec.svg" &&
	$STRICT a.json d.json d.svg "$SCRATCH/rec.svg"
'

test_expect_success 'sample --json --flamegraph (live): strict and parse' '
	lperf sample -q -g --json --flamegraph s.svg -- "$BIN/$BAD" >s.json &&
	xmllint --noout s.svg &&
	$STRICT s.json s.svg
'

test_expect_success 'the strict reader refuses what the names held before (its own check)' '
	printf "{\"a\": \"\\\\ud800\"}" >esc.json && ! $STRICT esc.json &&
	printf "{\"a\": \"\\377\"}" >ff.json && ! $STRICT ff.json &&
	printf "{\"a\": \"\\357\\277\\276\"}" >fffe.json && ! $STRICT fffe.json &&
	printf "{\"a\": NaN}" >nan.json && ! $STRICT nan.json
'

# chrome_check FILE KIND: flame_check.html's verdict on FILE (in this directory).
chrome_check() {
	n=$(grep -o "<g class=\"f\"" "$1" | wc -l) &&
	cp "$TEST_ROOT/tests/e2e/flame_check.html" . &&
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$SCRATCH/chrome" \
		--allow-file-access-from-files --virtual-time-budget=5000 --dump-dom \
		"file://$PWD/flame_check.html#target=$1&kind=$2&frames=$n&find=hot_%EF%BF%BD" >dom.html 2>/dev/null
	sed -n "s/.*<pre id=\"result\">\(CHECK [^<]*\).*/\1/p" dom.html | tee check.txt
	test "$n" -gt 5 && expect_grep "^CHECK PASS frames=$n " check.txt
}

if [ -n "$CHROME" ]; then
	test_expect_success 'Chromium: report --flamegraph draws every frame, zooms and searches the damaged name' '
		lperf report -q -i "$A" --flamegraph f.svg && chrome_check f.svg svg
	'
	test_expect_success 'Chromium: report --html draws every frame, zooms and searches the damaged name' '
		lperf report -q -i "$A" --html f.html && chrome_check f.html html
	'
	test_expect_success 'Chromium: record --flamegraph and diff --flamegraph draw, zoom and search' '
		cp "$SCRATCH/rec.svg" rec.svg && chrome_check rec.svg svg &&
		lperf diff -q --flamegraph d.svg "$A" "$B" && chrome_check d.svg svg
	'
	test_expect_success 'Chromium: the check fails on an SVG holding one raw 0xFF byte (as lperf wrote them before)' '
		lperf report -q -i "$A" --flamegraph good.svg &&
		sed "s/data-n=\"hot_/data-n=\"\\xffhot_/" good.svg >broken.svg && ! cmp -s good.svg broken.svg &&
		! probe chrome_check broken.svg svg && expect_grep "^CHECK FAIL" check.txt
	'
else
	test_skip "Chromium draws, zooms and searches the pictures" \
		"chromium is not installed (scripts/install-deps.sh installs it)"
fi

test_done
