#!/bin/sh
# Node.js JIT code by name: --perf-basic-prof (perf map) and --perf-prof (jitdump), no inject.
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

test_done
