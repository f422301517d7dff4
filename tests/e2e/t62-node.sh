#!/bin/sh
# Node.js JIT code by name: --perf-basic-prof (perf map) and --perf-prof (jitdump), no inject.
# e2e-class: parallel (JIT names read back; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
if ! command -v node >/dev/null; then
	test_skip 'Node.js JIT names' "node is not installed"
	test_done
	exit
fi
printf '%s\n' \
	'function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) { s += i % 7; } return s; }' \
	'function main() { let t = 0; for (let k = 0; k < 30; k++) t += hotLoop(3000000); console.log(t); }' \
	'main();' >"$SCRATCH/hot.js"

for flag in --perf-basic-prof --perf-prof; do
	test_expect_success "node $flag: the hot JS function appears by name, also after /tmp is cleaned" '
		lperf record -q -g -F 2000 -e cpu-clock -o n.data -- node '"$flag"' "$SCRATCH/hot.js" >/dev/null &&
		lperf report -i n.data --no-children --sort sym -g none >r.txt &&
		pct=$(awk "/JS:\\*?hotLoop/ { sub(\"%\", \"\", \$1); print \$1; exit }" r.txt) &&
		echo "hotLoop: $pct%" && awk -v p="$pct" "BEGIN { exit !(p >= 20) }" &&
		pid=$(lperf script -i n.data -F pid | awk "{ print \$1; exit }") &&
		rm -f /tmp/perf-$pid.map /tmp/jit-$pid.dump isolate-*.log &&
		lperf report -i n.data --no-children --sort sym -g none >after.txt &&
		expect_grep "JS:\\*?hotLoop" after.txt
	'
done

if command -v perf >/dev/null; then
	test_expect_success 'a perf map owned by another user or reached by a symlink is refused; -f accepts it' '
		perf record -q -g -F 999 -e cpu-clock -o p.data -- node --perf-basic-prof "$SCRATCH/hot.js" >/dev/null 2>&1 &&
		pid=$(lperf script -i p.data -F pid | awk "{ print \$1; exit }") && map=/tmp/perf-$pid.map &&
		lperf report -i p.data --no-children --sort sym -g none >own.txt 2>/dev/null &&
		expect_grep "JS:\\*?hotLoop" own.txt &&
		chown 65534 "$map" &&
		lperf report -i p.data --no-children --sort sym -g none >other.txt 2>err &&
		expect_no_grep "JS:\\*?hotLoop" other.txt && expect_grep "$map" err &&
		lperf report -f -i p.data --no-children --sort sym -g none >forced.txt 2>/dev/null &&
		expect_grep "JS:\\*?hotLoop" forced.txt &&
		chown 0 "$map" && mv "$map" "$map.real" && ln -s "$map.real" "$map" &&
		lperf report -i p.data --no-children --sort sym -g none >link.txt 2>err2 &&
		expect_no_grep "JS:\\*?hotLoop" link.txt && expect_grep "symlink|symbolic" err2;
		rc=$?; rm -f "$map" "$map.real"; exit $rc
	'
fi

test_done
