#!/bin/sh
# make demo: lperf's main job on the bundled workloads. Today that is counting; each new
# capability extends this script.
set -e
cd "$(dirname "$0")/.."
LPERF=${1:-build/lperf}
mkdir -p build/examples
cc -O2 -g -fno-omit-frame-pointer -o build/examples/work examples/work.c

# A Python for the Python workload: pyenv's newest 3.12+ when there is one, else python3.
PY=""
if command -v pyenv >/dev/null 2>&1; then
	for v in $(pyenv versions --bare 2>/dev/null | sort -V -r); do
		case "$v" in 3.1[2-9]*|3.[2-9][0-9]*) PY="$(pyenv root)/versions/$v/bin/python3"; break ;; esac
	done
fi
[ -n "$PY" ] || PY=$(command -v python3)

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step lperf test
"$LPERF" test --no-python | head -n 30

step lperf stat -- build/examples/work
"$LPERF" stat -- build/examples/work

step lperf stat -e task-clock,page-faults,context-switches -m software -- "$PY" examples/work.py 3000000
"$LPERF" stat -e task-clock,page-faults,context-switches -m software -- "$PY" examples/work.py 3000000

step lperf stat -I 250 -e task-clock,page-faults -- build/examples/work
"$LPERF" stat -I 250 -e task-clock,page-faults -- build/examples/work

step lperf stat -a -A --timeout 1s -e cpu-clock,context-switches
"$LPERF" stat -a -A --timeout 1s -e cpu-clock,context-switches

step "lperf stat -m imix -c 1 sleep 1      # WindowsPerf's spelling; needs a hardware PMU"
"$LPERF" stat -m imix -c 1 sleep 1 || true

step "LPERF_SYSFS_ROOT=tests/fixtures/sysfs-arm lperf stat --dry-run -m imix -c 1 sleep 1"
LPERF_SYSFS_ROOT=tests/fixtures/sysfs-arm "$LPERF" stat --dry-run -m imix -c 1 sleep 1

step "lperf record -g -o build/examples/work.data -- build/examples/work"
"$LPERF" record -g -e cpu-clock -o build/examples/work.data -- build/examples/work

step "lperf report -i build/examples/work.data --no-children --sort comm,dso,sym"
"$LPERF" report -i build/examples/work.data --no-children --sort comm,dso,sym -g none | head -n 20

step "lperf sample -e cpu-clock:250000 --sample-display-row 5 -- build/examples/work"
"$LPERF" sample -e cpu-clock:250000 --sample-display-row 5 -- build/examples/work

step "lperf record --python -o build/examples/py.data -- $PY examples/work.py 3000000"
"$LPERF" record --python -o build/examples/py.data -- "$PY" examples/work.py 3000000

step "lperf report -i build/examples/py.data --python --no-children --sort sym"
"$LPERF" report -i build/examples/py.data --python --no-children --sort sym | head -n 30

step "lperf report -i build/examples/py.data --python --folded   # for flamegraph.pl / speedscope"
"$LPERF" report -i build/examples/py.data --python --folded | sort -k2 -n -r | head -n 5
