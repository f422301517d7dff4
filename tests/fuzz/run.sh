#!/bin/sh
# Runs each fuzz harness named (default: all built) for FUZZ_SECONDS (default 60) with libFuzzer,
# one at a time, over a working corpus build/fuzz/corpus/NAME seeded from tests/fuzz/corpus/NAME
# (new inputs go to the working corpus only; crashes, leaks, timeouts and OOMs to
# build/fuzz/crashes/NAME/). Prints one line per harness (executions, coverage, crashes) and
# appends it to build/fuzz/stats.tsv (date, harness, seconds, executions, cov, features,
# crashes), from which docs/fuzzing.md's figures are summed. Exit status 1 when a harness found
# a crash: copy the reproducer into tests/fuzz/corpus/NAME/ once fixed, so that `make check`
# replays it from then on.
cd "$(dirname "$0")/../.." || exit 1
secs=${FUZZ_SECONDS:-60}
[ $# -eq 0 ] && set -- $(ls build/fuzz/ | sed -n 's/^fuzz_\([a-z0-9_]*\)$/\1/p')
status=0
for n in "$@"; do
	bin=build/fuzz/fuzz_$n
	[ -x "$bin" ] || { echo "fuzz: $bin not built (make fuzz-build)"; status=1; continue; }
	mkdir -p build/fuzz/corpus/$n build/fuzz/crashes/$n
	log=build/fuzz/$n.log
	before=$(ls build/fuzz/crashes/$n | wc -l)
	t0=$(date +%s)
	"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
		-artifact_prefix=build/fuzz/crashes/$n/ ${FUZZ_FLAGS:-} \
		build/fuzz/corpus/$n tests/fuzz/corpus/$n >"$log" 2>&1
	rc=$?
	ran=$(($(date +%s) - t0)) # a crash ends a run early: the table counts the time it ran
	after=$(ls build/fuzz/crashes/$n | wc -l)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	crashes=$((after - before))
	printf '%-9s %5ss  %10s execs  cov %6s  ft %6s  crashes %s%s\n' "$n" "$ran" "${execs:-?}" \
		"${cov:-?}" "${ft:-?}" "$crashes" "$([ "$rc" -ne 0 ] && echo "  (exit $rc, see $log)")"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$n" "$ran" "${execs:-0}" \
		"${cov:-0}" "${ft:-0}" "$crashes" >>build/fuzz/stats.tsv
	[ "$crashes" -ne 0 ] || [ "$rc" -ne 0 ] && status=1
done
exit $status
