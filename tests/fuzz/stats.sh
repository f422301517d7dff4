#!/bin/sh
# Sums build/fuzz/stats.tsv (written by tests/fuzz/run.sh) per harness: runs, total seconds,
# executions, the highest coverage (edges) and features reached, crashes. The table in
# docs/fuzzing.md is this output.
cd "$(dirname "$0")/../.." || exit 1
f=${1:-build/fuzz/stats.tsv}
[ -f "$f" ] || { echo "no $f: run make fuzz first"; exit 1; }
awk -F'\t' '
	{ runs[$2]++; secs[$2] += $3; execs[$2] += $4; if ($5 > cov[$2]) cov[$2] = $5;
	  if ($6 > ft[$2]) ft[$2] = $6; crash[$2] += $7; if (!seen[$2]++) order[n++] = $2 }
	END {
		printf "| harness | runs | time | executions | exec/s | coverage (edges) | features | crashes |\n"
		printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
		for (i = 0; i < n; i++) { h = order[i]
			printf "| %s | %d | %dm%02ds | %d | %d | %d | %d | %d |\n", h, runs[h], secs[h] / 60,
				secs[h] % 60, execs[h], execs[h] / (secs[h] ? secs[h] : 1), cov[h], ft[h], crash[h] }
	}' "$f"
