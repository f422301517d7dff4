#!/usr/bin/env python3
"""DWARF report and Python end-to-end benchmarks: lperf against Linux perf on identical work.

  python_bench.py LPERF SHARES_O2 RSS WORKDIR PERF_DOCS

5. `report --stdio` of DWARF recordings: tests/workloads/shares.c built -O2 -fomit-frame-pointer,
   recorded at 999 Hz with --call-graph dwarf,8192 by each tool; each tool's report reads both
   files (perf unwinds with its own libdw/libunwind, lperf with libdw).
6. Python end to end, the CPython docs' example (tests/workloads/perf_docs.py) under pyenv's 3.13:
   `lperf record --python` + `lperf report --python` against perf's documented pipeline,
   `perf record -X perf_jit` + `perf inject -j` + `perf report`. Each step's wall time, the
   files' sizes, the share of foo samples whose Python stack is complete
   (py::<module> -> py::baz -> py::bar -> py::foo) and the /tmp files each run leaves behind.

Ratios are lperf / perf: under 1 means lperf is cheaper. Timings are medians of BENCH_RUNS runs
(default 5); BENCH_QUICK=1 means 1 run and shorter workloads."""
import collections
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

LPERF, SHARES_O2, RSS, WORKDIR, PERF_DOCS = sys.argv[1:6]
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
RUNS = int(os.environ.get("BENCH_RUNS", "1" if QUICK else "5"))
DWARF_SCALE = 40 if QUICK else 120      # shares SCALE: about SCALE * 23 ms of CPU on the VM
PY_LOOPS = 10000000 if QUICK else 30000000  # perf_docs.py: about 36 ms per million on the VM
PY_FRAMES = ["<module>", "baz", "bar", "foo"]  # the complete stack, root first


def die(msg):
    sys.exit(f"bench: {msg}")


def launch(argv):
    """Runs argv under the RSS launcher, its stdout to /dev/null; returns (kib, wall)."""
    res = subprocess.run([RSS, "-o", os.devnull] + argv, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    f = res.stdout.split()
    if len(f) != 3:
        die(f"unexpected launcher output {res.stdout!r} from {' '.join(argv)}")
    if f[2] != "0":
        die(f"{' '.join(argv)} exited with {f[2]}")
    return int(f[0]), float(f[1])


def output(argv):
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         errors="replace")
    if res.returncode:
        die(f"{' '.join(argv)} failed")
    return res.stdout


def fresh(*paths):
    for path in paths:
        for p in (path, path + ".old"):
            if os.path.exists(p):
                os.unlink(p)


def med(v):
    return statistics.median(v)


def samples_and_pid(path):
    """Samples in a recording, counted by one reader for both tools' files (perf script, no
    call chains), and the pid that has most of them (the workload's)."""
    pids = collections.Counter(output(["perf", "script", "-i", path, "-F", "pid", "-G"]).split())
    if not pids:
        die(f"{path} holds no samples")
    return sum(pids.values()), int(pids.most_common(1)[0][0])


def busy_note():
    """CPUs' worth of other work over one second, from /proc/stat: on a 2-core VM it moves
    every wall time here, so say so rather than hide it."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]
    t0, i0 = snap()
    time.sleep(1)
    t1, i1 = snap()
    busy = (os.cpu_count() or 1) * (1 - (i1 - i0) / max(t1 - t0, 1))
    if busy > 0.3:
        print(f"note: {busy:.1f} CPUs busy with other work at the start: the figures are noisy")


def bench_dwarf_report():
    print(f"\n5. report --stdio of DWARF recordings: shares-o2 {DWARF_SCALE}, -e cpu-clock -F 999 "
          "--call-graph dwarf,8192\n")
    recorders = [("lperf", [LPERF, "record", "-q"]),
                 ("perf", ["perf", "record", "-q", "-k", "1", "--no-bpf-event"])]
    files = []
    for name, rec in recorders:
        out = os.path.join(WORKDIR, f"dwarf-{name}.data")
        fresh(out)
        _, wall = launch(rec + ["-e", "cpu-clock", "-F", "999", "--call-graph", "dwarf,8192",
                                "-o", out, "--", SHARES_O2, str(DWARF_SCALE)])
        n, _ = samples_and_pid(out)
        print(f"   {name:5} record: {n} samples, {os.path.getsize(out) / 1e6:.1f} MB, {wall:.1f} s")
        files.append((name, out, n))
    os.sync()  # no writeback of the fresh files during the timed reads
    print()
    print(f"{'file':6} {'samples':>7} {'lperf s':>8} {'samples/s':>10} {'perf s':>8} {'samples/s':>10} "
          f"{'ratio':>6} {'lperf KiB':>10} {'perf KiB':>9} {'ratio':>6}")
    readers = [("lperf", [LPERF]), ("perf", ["perf"])]
    for fname, path, n in files:
        walls = {name: [] for name, _ in readers}
        kib = {name: 0 for name, _ in readers}
        for rep in range(RUNS + 1):
            # After one untimed warm-up each, alternately: both read from the page cache.
            for name, tool in (readers if rep % 2 == 0 else readers[::-1]):
                k, w = launch(tool + ["report", "--stdio", "-i", path])
                if rep:
                    walls[name].append(w)
                    kib[name] = max(kib[name], k)
        lw, pw = med(walls["lperf"]), med(walls["perf"])
        print(f"{fname:6} {n:7d} {lw:8.2f} {n / lw:10.0f} {pw:8.2f} {n / pw:10.0f} {lw / pw:6.2f} "
              f"{kib['lperf']:10d} {kib['perf']:9d} {kib['lperf'] / kib['perf']:6.2f}")
    fresh(*(p for _, p, _ in files))


def find_python():
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin/python3")))
    return found[-1] if found else None


def py_name(frame):
    """'foo' for a frame named py::foo:/path/file.py (perf script adds +0xOFF); else None."""
    if not frame.startswith("py::"):
        return None
    return frame[4:].split(":", 1)[0]


def stack_shares(stacks):
    """(foo samples, of which complete) from (weight, Python frames root first) pairs."""
    foo = full = 0
    for weight, frames in stacks:
        if "foo" in frames:
            foo += weight
            full += weight if frames == PY_FRAMES else 0
    return foo, full


def lperf_stacks(path):
    for line in output([LPERF, "report", "-i", path, "--python", "--folded"]).splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            yield int(count), [n for n in map(py_name, stack.split(";")) if n]


def perf_stacks(path):
    """perf script prints each sample's header line, then its frames leaf first
    ('ADDR SYM+0xOFF (DSO)'), then a blank line."""
    frames = None
    for line in output(["perf", "script", "-i", path]).splitlines() + [""]:
        if not line.strip():
            if frames is not None:
                yield 1, frames[::-1]
            frames = None
        elif not line[0].isspace():
            frames = []
        elif frames is not None:
            f = line.split(None, 2)
            name = py_name(f[1]) if len(f) > 1 else None
            if name:
                frames.append(name)


def leftovers(pid):
    """The /tmp files a Python run of this pid left: the jitdump it wrote, and the one ELF
    per JIT function that perf inject -j writes."""
    return sorted(glob.glob(f"/tmp/jit-{pid}.dump") + glob.glob(f"/tmp/jitted-{pid}-*.so"))


def bench_python():
    py = find_python()
    print(f"\n6. Python end to end: the CPython docs' example, perf_docs.py {PY_LOOPS}")
    if not py:
        print("   skipped: no CPython 3.13 under ~/.pyenv/versions (pyenv install 3.13)")
        return
    ver = output([py, "--version"]).strip()
    print(f"   {py} ({ver})\n")
    a = os.path.join(WORKDIR, "py-lperf.data")
    b = os.path.join(WORKDIR, "py-perf.data")
    bj = b + ".jit"
    script = [PERF_DOCS, str(PY_LOOPS)]
    steps = {
        "lperf": [("record", [LPERF, "record", "-q", "--python", "-o", a, "--", py] + script),
                  ("report", [LPERF, "report", "-i", a, "--python", "--stdio"])],
        "perf": [("record", ["perf", "record", "-q", "-k", "1", "--call-graph", "dwarf", "-F", "999",
                             "--no-bpf-event", "-o", b, "--", py, "-X", "perf_jit"] + script),
                 ("inject", ["perf", "inject", "-j", "-i", b, "-o", bj]),
                 ("report", ["perf", "report", "-i", bj, "--stdio"])],
    }
    walls = collections.defaultdict(list)
    kib = collections.defaultdict(int)
    last = {}  # the last run's figures per tool: files, stacks, leftovers
    launch([py, PERF_DOCS, "1000"])  # warm the interpreter's files into the page cache
    for rep in range(RUNS):
        walls["bare"].append(launch([py] + script)[1])
        for tool in (["lperf", "perf"] if rep % 2 == 0 else ["perf", "lperf"]):
            fresh(a, b, bj)
            for step, argv in steps[tool]:
                k, w = launch(argv)
                walls[(tool, step)].append(w)
                kib[(tool, step)] = max(kib[(tool, step)], k)
            walls[(tool, "total")].append(sum(walls[(tool, s)][-1] for s, _ in steps[tool]))
            path = a if tool == "lperf" else b
            n, pid = samples_and_pid(path)
            if rep == RUNS - 1:
                foo, full = stack_shares(lperf_stacks(a) if tool == "lperf" else perf_stacks(bj))
                size = os.path.getsize(path)
                injected = os.path.getsize(bj) if tool == "perf" else 0
                left = leftovers(pid)
                kept = f"{len(left)} files in /tmp ({sum(1 for f in left if f.endswith('.dump'))} jitdump, " \
                       f"{sum(1 for f in left if f.endswith('.so'))} jitted-{pid}-*.so)"
                last[tool] = (n, size, injected, foo, full, kept)
            for f in leftovers(pid):  # only what this run's Python (this pid) wrote
                os.unlink(f)
    fresh(a, b, bj)

    print(f"   bare run (no profiler): {med(walls['bare']):.2f} s\n")
    print(f"{'step':30} {'lperf s':>8} {'perf s':>8} {'ratio':>6} {'lperf KiB':>10} {'perf KiB':>9}")
    # (row, lperf's wall step, perf's, the steps whose peak RSS the row shows for each)
    rows = [("record", "record", "record", ["record"], ["record"]),
            ("perf inject -j", None, "inject", [], ["inject"]),
            ("report --stdio", "report", "report", ["report"], ["report"]),
            ("total", "total", "total", ["record", "report"], ["record", "inject", "report"])]
    for title, lstep, pstep, lks, pks in rows:
        pw = med(walls[("perf", pstep)])
        pk = max(kib[("perf", s)] for s in pks)
        if lstep:
            lw = med(walls[("lperf", lstep)])
            lk = max(kib[("lperf", s)] for s in lks)
            print(f"{title:30} {lw:8.2f} {pw:8.2f} {lw / pw:6.2f} {lk:10d} {pk:9d}")
        else:
            print(f"{title:30} {'-':>8} {pw:8.2f} {'':6} {'-':>10} {pk:9d}")
    print("   total ratio compares lperf record + report with perf record + inject + report\n")
    print(f"{'tool':6} {'samples':>7} {'recording B':>12} {'B/sample':>9} {'injected B':>11} {'foo':>5} "
          f"{'complete':>9} {'share':>6}  left in /tmp")
    for tool in ("lperf", "perf"):
        n, size, injected, foo, full, kept = last[tool]
        share = f"{100 * full / foo:5.1f}%" if foo else f"{'-':>6}"
        inj = f"{injected:11d}" if injected else f"{'-':>11}"
        print(f"{tool:6} {n:7d} {size:12d} {size / max(n, 1):9.0f} {inj} {foo:5d} {full:9d} {share}  {kept}")
    (ln, lsize, _, _, _, _), (pn, psize, pinj, _, _, _) = last["lperf"], last["perf"]
    print(f"   bytes per sample, lperf / perf: {(lsize / max(ln, 1)) / (psize / max(pn, 1)):.2f} (lperf "
          "--python copies 16 KiB of stack per sample, perf's default 8 KiB);\n   lperf's recording / "
          f"perf's recording + injected copy: {lsize / (psize + pinj):.2f}")
    print("   complete: foo samples whose Python frames are exactly py::<module> -> baz -> bar -> foo\n"
          "   (lperf report --python --folded; perf script of the injected file). The files this benchmark's\n"
          "   runs left in /tmp were then removed, by pid.")


def main():
    if not shutil.which("perf"):
        die("Linux perf is not installed (apt-get install linux-perf)")
    os.makedirs(WORKDIR, exist_ok=True)
    print(f"\nlperf vs perf: DWARF reports and Python end to end; median of {RUNS} run(s); "
          "ratio = lperf / perf (under 1: lperf is cheaper)")
    busy_note()
    bench_dwarf_report()
    bench_python()


if __name__ == "__main__":
    main()
