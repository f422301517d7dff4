#!/bin/sh
# make demo: lperf's main jobs on the bundled workloads, in build/examples. It builds the
# programs the README's examples run (./shares, ./annot, ex.py), then counts, samples, reports
# and draws them. Each step prints the command it runs, exactly as run (it runs that very text),
# and the demo ends with the pictures and where they were written.
set -e
cd "$(dirname "$0")/.."
LPERF=$(cd "$(dirname "${1:-build/lperf}")" && pwd)/$(basename "${1:-build/lperf}")
D=build/examples
mkdir -p "$D"
cc -O2 -g -fno-omit-frame-pointer -o "$D/work" examples/work.c
cc -O0 -g -fno-omit-frame-pointer -o "$D/shares" tests/workloads/shares.c
cc -O2 -g -fno-omit-frame-pointer -o "$D/annot" tests/workloads/annot.c
cp tests/workloads/perf_docs.py "$D/ex.py"
cp examples/work.py "$D/work.py"
cd "$D"
# The commands read as the README's: `lperf` is the binary under test.
lperf() { "$LPERF" "$@"; }

# A Python for the Python workload: pyenv's newest 3.12+ when there is one, else python3.
PY=""
if command -v pyenv >/dev/null 2>&1; then
	for v in $(pyenv versions --bare 2>/dev/null | sort -V -r); do
		case "$v" in 3.1[2-9]*|3.[2-9][0-9]*) PY="$(pyenv root)/versions/$v/bin/python3"; break ;; esac
	done
fi
[ -n "$PY" ] || PY=$(command -v python3)

# run 'COMMAND': prints it, then runs that same text.
run() { printf '\n\033[1m$ %s\033[0m\n' "$1"; eval "$1"; }

echo "make demo: the programs are in $(pwd): ./work, ./shares, ./annot, ex.py (Python: $PY)"
run "lperf test --no-python | head -n 30"
run "lperf stat -- ./work"
run "lperf stat -e task-clock,page-faults,context-switches -- $PY work.py 3000000"
run "lperf stat -I 250 -e task-clock,page-faults -- ./work"
run "lperf stat -a -A --timeout 1s -e cpu-clock,context-switches"
run "LPERF_SYSFS_ROOT=$(cd ../.. && pwd)/tests/fixtures/sysfs-arm lperf wperf stat --dry-run -m imix -c 1 sleep 1   # WindowsPerf's spelling, on an Arm PMU's sysfs"
run "lperf record -g -F 4000 -e cpu-clock -- ./shares 20"
run "lperf report --no-children --sort comm,dso,sym -n -g none --stdio | head -n 20"
run "lperf sample -e cpu-clock:250000 --sample-display-row 4 -- ./shares 10"
run "lperf record --python -o py.data -- $PY ex.py"
run "lperf report -i py.data --python --no-children --sort sym -g none --stdio | head -n 20"
run "lperf report -i py.data --python --folded | awk '{ print \$NF, \$0 }' | sort -n -r | cut -d' ' -f2- | head -n 3   # the heaviest stacks, for flamegraph.pl, speedscope"
run "lperf record -g -o annot.data -- ./annot"
run "lperf report -i annot.data --sort srcline -n --no-children -g none --stdio | head -n 16"
run "lperf report --flamegraph shares.svg --html shares.html --speedscope shares.speedscope.json"
run "lperf report -i py.data --python --flamegraph py.svg --html py.html"
echo
echo "The pictures (open them in a browser; the .speedscope.json in https://www.speedscope.app):"
for f in shares.svg shares.html shares.speedscope.json py.svg py.html; do
	[ -f "$f" ] && echo "  $(pwd)/$f"
done
