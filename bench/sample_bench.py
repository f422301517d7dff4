#!/usr/bin/env python3
"""Sampling benchmarks: lperf record/report/script/sample against Linux perf on identical work.

  sample_bench.py LPERF SHARES_FP SHARES_O2 RSS WORKDIR

1. What recording costs the workload: tests/workloads/shares.c run bare, under `lperf record`
   and under `perf record`, at 999 and 9,999 Hz, with frame-pointer call chains (-O0 build) and
   DWARF stack copies (-O2 -fomit-frame-pointer build). The workload's own wall time is taken
   inside the recording (RSS launches it), so neither tool's start-up or post-processing counts.
2. What the recordings weigh: file size / samples, samples counted by one reader for both files.
3. Reading a large recording (>= 200,000 samples with call chains): `report --stdio` and
   `script` of each tool on each tool's file, wall time and peak memory.
4. Live: `lperf sample` against `perf record` followed by `perf report`, time to the answer.

Ratios are lperf / perf: under 1 means lperf is cheaper. Timings are medians of BENCH_RUNS runs
(default 5); BENCH_QUICK=1 means 1 run, a shorter workload and a smaller large file."""
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time

LPERF, SHARES_FP, SHARES_O2, RSS, WORKDIR = sys.argv[1:6]
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
RUNS = int(os.environ.get("BENCH_RUNS", "1" if QUICK else "5"))
SCALE = 10 if QUICK else 40          # shares SCALE: about SCALE * 25 ms of CPU on this VM
BIG_MIN = 20000 if QUICK else 200000  # samples the large recording must hold
BIG_FREQ = 10000                      # per task; past ~12 kHz the VM's timer cost explodes
BIG_SCALE = 25 if QUICK else 240      # two shares of this scale at BIG_FREQ: ~1,000 samples per unit
EVENT = ["-e", "cpu-clock"]           # no hardware PMU on the benchmark VM
CALLGRAPHS = [("fp (-g), -O0", "fp", SHARES_FP, ["-g"]),
              ("dwarf,8192, -O2", "dwarf", SHARES_O2, ["--call-graph", "dwarf,8192"])]
FREQS = [999, 9999]
TOOLS = [("lperf", [LPERF]), ("perf", ["perf"])]


def die(msg):
    sys.exit(f"bench: {msg}")


def launch(argv, out=None, lines=1):
    """Runs argv under the RSS launcher; returns the last `lines` result lines as
    (kib, wall, exit) tuples, innermost first."""
    cmd = [RSS] + (["-o", out] if out else []) + argv
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rows = []
    for line in res.stdout.splitlines()[-lines:]:
        f = line.split()
        if len(f) != 3:
            die(f"unexpected launcher output {line!r} from {' '.join(argv)}")
        rows.append((int(f[0]), float(f[1]), int(f[2])))
    if len(rows) != lines or any(r[2] != 0 for r in rows):
        die(f"{' '.join(argv)} failed: {rows}")
    return rows


def fresh(path):
    for p in (path, path + ".old"):
        if os.path.exists(p):
            os.unlink(p)


def record_argv(tool, freq, cg, out, cmd):
    return tool + ["record", "-q"] + EVENT + ["-F", str(freq)] + cg + ["-o", out, "--"] + cmd


def count(path):
    """Samples and lost samples of a recording. perf script is the reference count;
    lperf report --json must agree (a free cross-check of lperf's reader)."""
    res = subprocess.run(["perf", "script", "-i", path, "-F", "pid", "-G"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    if res.returncode:
        die(f"perf script -i {path} failed")
    n = res.stdout.count(b"\n")
    js = subprocess.run([LPERF, "report", "--json", "-q", "-i", path], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
    if js.returncode:
        die(f"lperf report --json -i {path} failed")
    d = json.loads(js.stdout)
    if d["samples"] != n:
        print(f"  note: {path}: perf script counts {n} samples, lperf report {d['samples']}")
    # perf writes a loss twice (the kernel's LOST record and its own LOST_SAMPLES summary);
    # lperf only the first: the larger of the two is the loss either way.
    return n, max(d["lost_records"], d["lost_samples"])


def med(v):
    return statistics.median(v)


def sysctl(name):
    try:
        with open(f"/proc/sys/kernel/{name}") as f:
            return f.read().strip()
    except OSError:
        return "?"


def busy_cpus():
    """CPUs' worth of other work over one second, from /proc/stat (the load average would
    still hold the previous benchmark's work)."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]
    t0, i0 = snap()
    time.sleep(1)
    t1, i1 = snap()
    return (os.cpu_count() or 1) * (1 - (i1 - i0) / max(t1 - t0, 1))


def busy_note():
    """Other work on a 2-core VM moves every wall time here: say so rather than hide it."""
    busy = busy_cpus()
    if busy > 0.3:
        print(f"note: {busy:.1f} CPUs busy with other work at the start: the figures are noisy\n")


def header():
    perf_v = subprocess.run(["perf", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    lperf_v = subprocess.run([LPERF, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    print(f"\nlperf sampling vs perf: {lperf_v.splitlines()[0] if lperf_v else LPERF} / {perf_v}; "
          f"{time.strftime('%Y-%m-%d')}, {platform.release()}, {os.cpu_count()} CPUs, "
          f"perf_event_max_sample_rate {sysctl('perf_event_max_sample_rate')}")
    print(f"event cpu-clock; workload tests/workloads/shares.c {SCALE}; median of {RUNS} run(s); "
          "ratio = lperf / perf (under 1: lperf is cheaper)\n")


def bench_record():
    """Sections 1 and 2."""
    bare = {b: [] for _, _, b, _ in CALLGRAPHS}
    work, tool_wall, tool_kib = {}, {}, {}
    for rep in range(RUNS):
        # Interleaved, the tools' order alternating, so drift on the VM falls on every column alike.
        for b in bare:
            bare[b].append(launch([b, str(SCALE)])[0][1])
        for title, tag, b, cg in CALLGRAPHS:
            for f in FREQS:
                for name, tool in (TOOLS if rep % 2 == 0 else TOOLS[::-1]):
                    out = os.path.join(WORKDIR, f"{name}-{f}-{tag}.data")
                    fresh(out)
                    inner, outer = launch(record_argv(tool, f, cg, out, [RSS, b, str(SCALE)]), lines=2)
                    os.sync()  # the next run starts with no writeback of this file pending
                    key = (title, f, name)
                    work.setdefault(key, []).append(inner[1])
                    tool_wall.setdefault(key, []).append(outer[1])
                    tool_kib.setdefault(key, []).append(outer[0])

    print("1. Workload slowdown under record (the workload's own wall time; slowdown = / bare)\n")
    print(f"{'call graph, build':20} {'Hz':>5} {'bare ms':>8} {'lperf ms':>9} {'slow':>6} "
          f"{'perf ms':>8} {'slow':>6} {'ratio':>6}")
    for title, tag, b, cg in CALLGRAPHS:
        bw = med(bare[b])
        for f in FREQS:
            lw, pw = med(work[(title, f, "lperf")]), med(work[(title, f, "perf")])
            print(f"{title:20} {f:5d} {bw*1e3:8.1f} {lw*1e3:9.1f} {lw/bw:6.2f} {pw*1e3:8.1f} "
                  f"{pw/bw:6.2f} {lw/pw:6.2f}")

    print("\n   The whole record command (start-up, workload, draining, post-processing) and its peak RSS\n")
    print(f"{'call graph, build':20} {'Hz':>5} {'lperf ms':>9} {'perf ms':>8} {'ratio':>6} "
          f"{'lperf KiB':>10} {'perf KiB':>9} {'ratio':>6}")
    for title, tag, b, cg in CALLGRAPHS:
        for f in FREQS:
            lw, pw = med(tool_wall[(title, f, "lperf")]), med(tool_wall[(title, f, "perf")])
            lk, pk = max(tool_kib[(title, f, "lperf")]), max(tool_kib[(title, f, "perf")])
            print(f"{title:20} {f:5d} {lw*1e3:9.1f} {pw*1e3:8.1f} {lw/pw:6.2f} {lk:10d} {pk:9d} {lk/pk:6.2f}")
    print("   perf 6.1 record waits up to 1 s at exit for its side-band thread (a 1 s poll; "
          "--no-bpf-event avoids it),\n   and reads the whole file back for build-ids, hence its "
          "peak RSS on large files (--no-buildid avoids it)")

    print("\n2. Bytes per sample (file size / samples, the last run's files; samples counted by "
          "perf script for both)\n")
    print(f"{'call graph, build':20} {'Hz':>5} {'tool':>5} {'samples':>8} {'lost':>6} {'bytes':>11} "
          f"{'B/sample':>9} {'ratio':>6}")
    for title, tag, b, cg in CALLGRAPHS:
        for f in FREQS:
            per = {}
            for name, _ in TOOLS:
                out = os.path.join(WORKDIR, f"{name}-{f}-{tag}.data")
                n, lost = count(out)
                size = os.path.getsize(out)
                per[name] = size / max(n, 1)
                ratio = f"{per['lperf'] / per['perf']:6.2f}" if name == "perf" else ""
                print(f"{title:20} {f:5d} {name:>5} {n:8d} {lost:6d} {size:11d} {per[name]:9.1f} {ratio:>6}")
                fresh(out)


def record_big(name, tool):
    """A recording of >= BIG_MIN samples with call chains: both CPUs busy at BIG_FREQ."""
    out = os.path.join(WORKDIR, f"big-{name}.data")
    scale = BIG_SCALE
    for _ in range(3):
        fresh(out)
        cmd = ["sh", "-c", f'"$0" {scale} & "$0" {scale}; wait', SHARES_FP]
        (_, wall, _), = launch(record_argv(tool, BIG_FREQ, ["-g"], out, cmd))
        n, lost = count(out)
        if n >= BIG_MIN:
            return out, n, lost, wall, os.path.getsize(out)
        scale = math.ceil(scale * BIG_MIN * 1.15 / max(n, 1))
    die(f"{name} record gave only {n} samples in {out} (wanted {BIG_MIN})")


def bench_read():
    """Section 3."""
    files = []
    print(f"\n3. Reading a large recording: -F {BIG_FREQ} -g, two shares_fp on both CPUs\n")
    for name, tool in TOOLS:
        out, n, lost, wall, size = record_big(name, tool)
        print(f"   {name:5} record: {n} samples ({lost} lost), {size / 1e6:.1f} MB, {wall:.1f} s")
        files.append((name, out, n))
    os.sync()  # no writeback of the fresh files during the timed reads
    print()
    print(f"{'command':16} {'file (samples)':22} {'lperf ms':>9} {'perf ms':>8} {'ratio':>6} "
          f"{'lperf KiB':>10} {'perf KiB':>9} {'ratio':>6}")
    for cmd in (["report", "--stdio"], ["script"]):
        for fname, path, n in files:
            walls = {name: [] for name, _ in TOOLS}
            kib = {name: 0 for name, _ in TOOLS}
            for rep in range(RUNS + 1):
                # Alternating, after one untimed warm-up each: both read from the page cache.
                for name, tool in TOOLS:
                    (k, w, _), = launch(tool + cmd + ["-i", path], out=os.devnull)
                    if rep:
                        walls[name].append(w)
                        kib[name] = max(kib[name], k)
            lw, pw, lk, pk = med(walls["lperf"]), med(walls["perf"]), kib["lperf"], kib["perf"]
            print(f"{' '.join(cmd):16} {fname + ' (' + str(n) + ')':22} {lw*1e3:9.1f} {pw*1e3:8.1f} "
                  f"{lw/pw:6.2f} {lk:10d} {pk:9d} {lk/pk:6.2f}")
    for _, path, _ in files:
        fresh(path)


def bench_live():
    """Section 4: the hot functions of a run, live (lperf sample) or record then report (perf)."""
    print(f"\n4. Live: `lperf sample CMD` vs `perf record CMD && perf report --stdio` (no call graphs),"
          " whole wall time and peak RSS\n")
    print(f"{'Hz':>5} {'lperf ms':>9} {'perf ms':>8} {'ratio':>6} {'lperf KiB':>10} {'perf KiB':>9} "
          f"{'ratio':>6}")
    out = os.path.join(WORKDIR, "live-perf.data")
    for f in FREQS:
        lw, pw, lk, pk = [], [], 0, 0
        for _ in range(RUNS):
            live = [LPERF, "sample", "-q"] + EVENT + ["-F", str(f), "--", SHARES_FP, str(SCALE)]
            (k, w, _), = launch(live, out=os.devnull)
            lw.append(w)
            lk = max(lk, k)
            fresh(out)
            rec = shlex.join(record_argv(["perf"], f, [], out, [SHARES_FP, str(SCALE)]))
            rep = f"exec perf report --stdio -i {shlex.quote(out)}"
            (k, w, _), = launch(["sh", "-c", f"{rec} && {rep}"], out=os.devnull)
            pw.append(w)
            pk = max(pk, k)
        print(f"{f:5d} {med(lw)*1e3:9.1f} {med(pw)*1e3:8.1f} {med(lw)/med(pw):6.2f} {lk:10d} {pk:9d} "
              f"{lk/pk:6.2f}")
    fresh(out)


def main():
    if not shutil.which("perf"):
        die("Linux perf is not installed (apt-get install linux-perf)")
    os.makedirs(WORKDIR, exist_ok=True)
    rate = sysctl("perf_event_max_sample_rate")
    header()
    busy_note()
    bench_record()
    bench_read()
    bench_live()
    if sysctl("perf_event_max_sample_rate") != rate:
        print(f"\nwarning: the kernel lowered perf_event_max_sample_rate from {rate} to "
              f"{sysctl('perf_event_max_sample_rate')} during the run (sampling interrupts took too "
              "long): the high-frequency figures above are suspect")


if __name__ == "__main__":
    main()
