"""Where lperf report's time goes (issue 27): beside targets_bench's 7a and 7d rows, for lperf's
first run (its cache emptied) and its second run of the same recording,

- a `perf stat`-style block measured by perf stat itself (software events: this machine has no
  hardware PMU): task-clock and CPUs utilized, user and sys time, page faults, context switches,
  and the peak RSS that bench/rss measures (perf stat has no such event); user and sys are the
  kernel's split of the run by its ticks (rusage), coarse for a run of a few milliseconds;
- the CPU time split by part of lperf: `perf record -e cpu-clock -g` of the same runs, each
  sample's self time given to lperf's source directory (src/symbols, src/unwind...: each
  function's file from the binary's DWARF, `nm -l`), a shared library by name (libc split into
  malloc/free, mem*/str*, pthread locks and the rest), or the kernel, split by the call chain's
  way in: page faults (of mapped files, of memory), reading files (read/pread), /proc/kallsyms,
  other syscalls (named), and the rest (interrupts, exec).

Why frame-pointer chains are enough although lperf is built -O2 without frame pointers: the
split is by self time, the sample's own address (exact in any build); only the kernel's part of
the chain is walked, and the kernel unwinds itself (ORC). (--kernel-callchains would spare the
user chains, but perf 6.1's script then prints no address for a sample taken in user space.)

perf record and perf stat set PERF_BUILDID_DIR to their own cache (~/.debug) for what they run,
so lperf's cache directory is passed through `env` (perf stat) or the shell loop (perf record).
The figures are per run: the median over BENCH_RUNS perf stat runs; a part's ms is its share of
the profile's samples (all runs) times perf stat's task-clock. Sampling at BENCH_BREAKDOWN_HZ
(default 10,000; perf's "max" makes the kernel lower perf_event_max_sample_rate for the whole
machine when its handler runs long) slows the profiled runs, 10-25% here, every part alike
(the shares held from 2 to 20 kHz): the header line says by how much.
Nothing here may stop the bench: a tool that cannot run (no permission) prints why, and the
rest goes on."""
import bisect
import os
import re
import shlex
import shutil
import statistics
import subprocess

HZ = int(os.environ.get("BENCH_BREAKDOWN_HZ", "10000"))
MAX_PARTS = 8          # parts printed; the rest on one "other" line
TOP_FUNCS = 3          # functions named per part
KERNEL_IP = 0xffff800000000000

STAT_EVENTS = "task-clock,page-faults,context-switches,cpu-migrations"
MALLOC_RE = re.compile(r"^(__libc_)?(malloc|free|calloc|realloc|cfree|memalign|posix_memalign)$|"
                       r"^_int_|^__?(libc_)?(malloc|free)|malloc_consolidate|^unlink_chunk|"
                       r"^sysmalloc|^tcache|^systrim|^alloc_perturb|^_dl_.*alloc")
MEMSTR_RE = re.compile(r"^__(mem|str|wmem|wcs|stp|raw)[a-z]*|^(mem|str)[a-z]*$")
KALLSYMS_RE = re.compile(r"kallsyms|^s_show$|^s_next$|^s_start$|^update_iter|^get_ksymbol")
READ_CALLS = {"read", "pread64", "readv", "preadv", "preadv2"}
FILE_FAULT = {"do_read_fault", "do_cow_fault", "do_shared_fault", "filemap_fault",
              "filemap_map_pages", "do_fault"}


class Skip(Exception):
    """A tool could not run: the reason, printed in place of its figures."""


def _why(err):
    lines = [ln.strip() for ln in (err or "").splitlines() if ln.strip()
             and not ln.startswith("[ perf record")]
    pick = [ln for ln in lines if "rror" in ln or "ermission" in ln or "paranoid" in ln]
    return (pick or lines or ["no message"])[0][:150]


# -- perf stat ---------------------------------------------------------------------------

def _parse_stat(text):
    """perf stat's own report: {event: value} plus elapsed, user and sys in seconds."""
    got = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([\d.,]+)\s+(?:msec\s+)?([a-z][\w-]*)\b", line)
        if m and m.group(2) in STAT_EVENTS.split(","):
            got[m.group(2)] = float(m.group(1).replace(",", ""))
        m = re.match(r"^\s*([\d.]+) seconds (time elapsed|user|sys)", line)
        if m:
            got[m.group(2).split()[0]] = float(m.group(1))
    return got


def _stat_runs(ctx, first):
    """One perf stat per run (perf stat -r prints no user and sys time): [figures]."""
    out = os.path.join(ctx["work"], "breakdown.stat")
    runs = []
    for _ in range(ctx["runs"]):
        if first:
            shutil.rmtree(ctx["cache"], ignore_errors=True)
        # perf in the C locale (its numbers unseparated), lperf in the bench's own
        lc = [f"LC_ALL={os.environ['LC_ALL']}"] if "LC_ALL" in os.environ else ["-u", "LC_ALL"]
        argv = (["perf", "stat", "-o", out, "-e", STAT_EVENTS, "--", "env"] + lc +
                [f"PERF_BUILDID_DIR={ctx['cache']}", ctx["rss"], "-o", os.devnull] + ctx["report"])
        res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, LC_ALL="C"))
        text = ""
        if os.path.exists(out):
            with open(out) as f:
                text = f.read()
            os.unlink(out)
        got = _parse_stat(text)
        if ":u " in text or ":u\n" in text:
            got["note"] = f"user space only ({_paranoid()}): no context switches, faults of user space"
        f = res.stdout.split()
        if res.returncode or "task-clock" not in got or "user" not in got:
            raise Skip(f"perf stat: {_why(res.stderr + text)}")
        if len(f) != 3 or f[2] != "0":
            raise Skip(f"lperf report failed under perf stat ({res.stdout.strip()!r})")
        got["kib"] = int(f[0])
        runs.append(got)
    if "note" in runs[0]:
        print(f"{ctx['pad']}{runs[0]['note']}")
    return runs


def _paranoid():
    """Why perf counts or samples user space only, as this user may."""
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            return f"perf_event_paranoid {f.read().strip()}, not root"
    except OSError:
        return "no permission"


def _stat_lines(runs):
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k not in ("kib", "note")}
    tc = [r["task-clock"] for r in runs]
    spread = (f"( +- {100 * statistics.stdev(tc) / len(tc) ** 0.5 / max(statistics.mean(tc), 1e-9):.1f}% ), "
              if len(tc) > 1 else "")
    ms = med["task-clock"]
    return [
        f"{ms:12.2f} msec task-clock        # {ms / 1000 / max(med['time'], 1e-9):5.2f} CPUs utilized  "
        f"{spread}{med['time'] * 1000:.1f} ms elapsed",
        f"{med['user'] * 1000:12.2f} msec user              # {med['sys'] * 1000:.2f} msec sys",
        f"{med['page-faults']:12,.0f}      page-faults       # {med['page-faults'] / max(ms, 1e-9):.1f} K/sec",
        f"{med['context-switches']:12,.0f}      context-switches  # {med['cpu-migrations']:,.0f} cpu-migrations; "
        f"peak RSS {max(r['kib'] for r in runs) / 1024:.1f} MB (bench/rss, the highest)",
    ]


# -- lperf's functions by source directory ----------------------------------------------

def load_symbols(lperf):
    """lperf's functions from its DWARF (nm -l): ({name: [(addr, size, part)]}, sorted table of
    (addr, size, name, part)). part = the defining file's directory under the tree, src/symbols."""
    res = subprocess.run(["nm", "-l", "-S", "--defined-only", lperf], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    root = os.path.dirname(os.path.dirname(os.path.realpath(lperf))) + os.sep
    byname, table = {}, []
    for line in res.stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) (?:([0-9a-f]+) )?[tTwWiI] (\S+)(?:\t(.*):\d+)?$", line)
        if not m:
            continue
        path = m.group(4) or ""
        if path.startswith(root):
            part = os.path.dirname(path[len(root):]) or "."
        else:
            part = "lperf, other" if not path else os.path.dirname(path)
        ent = (int(m.group(1), 16), int(m.group(2) or "0", 16), m.group(3), part)
        byname.setdefault(ent[2], []).append(ent)
        table.append(ent)
    table.sort()
    return byname, table


def _lperf_part(syms, frame, bases, pid):
    """A sample's part and function in lperf's own code. A name defined once gives its file
    (and teaches the process's load base); a static name in several files is told apart by
    address, the base learned from the others."""
    byname, table = syms
    ip, name, off = frame["ip"], frame["sym"], frame["off"]
    ents = byname.get(name, [])
    if len(ents) == 1:
        bases[pid] = ip - off - ents[0][0]
        return ents[0][3], name
    if pid in bases:
        addr = ip - bases[pid]
        i = bisect.bisect_right(table, (addr, 1 << 64)) - 1
        if i >= 0 and addr < table[i][0] + max(table[i][1], 1):
            return table[i][3], table[i][2]
    return (ents[0][3] if ents else "lperf, other"), name


# -- the profile -------------------------------------------------------------------------

def _lib_part(dso, sym):
    base = os.path.basename(dso)
    if base.startswith("libc.so") or base.startswith("libc-"):
        if MALLOC_RE.search(sym):
            return "libc: malloc/free"
        if MEMSTR_RE.search(sym):
            return "libc: mem*/str*"
        if sym.startswith(("pthread_", "__pthread", "__lll_", "__futex")):
            return "libc: pthread locks"
        return "libc: other"
    if base.startswith(("libdw", "libelf")):
        return "libdw/libelf"
    if base.startswith("libz."):
        return "zlib"
    if base.startswith("ld-linux") or base.startswith("ld-"):
        return "ld.so"
    if base.startswith("[") or not base:
        return "user, unknown"
    return base.split(".so")[0]


def _kernel_part(chain):
    """The kernel's part of a sample: its chain walked from the sampled function outwards to
    the first page fault or system call entry. (part, name to list)."""
    leaf = chain[0]
    for i, fn in enumerate(chain):
        if fn in ("asm_exc_page_fault", "exc_page_fault"):
            files = any(f in FILE_FAULT for f in chain[:i])
            return ("kernel: page faults (" + ("files)" if files else "memory)"), leaf)
        if fn in ("do_syscall_64", "entry_SYSCALL_64", "entry_SYSCALL_64_after_hwframe"):
            call = chain[i - 1] if i else "syscall entry"
            call = re.sub(r"^(__x64_sys_|__do_sys_|__se_sys_|ksys_)", "", call)
            if any(KALLSYMS_RE.search(f) for f in chain[:i]):
                return ("kernel: /proc/kallsyms", leaf)
            if call in READ_CALLS:
                return ("kernel: reading files", leaf)
            if call.startswith(("exit_to_user_mode", "syscall_exit")):
                call = "return work"
            return ("kernel: other syscalls", call)
    return ("kernel: other", leaf)


def _samples(path):
    """(comm, pid, period ns, [frames]) of perf script's view of path, streamed."""
    argv = ["perf", "script", "-i", path, "-F", "comm,pid,tid,period,ip,sym,symoff,dso"]
    env = {k: v for k, v in os.environ.items() if k != "PERF_BUILDID_DIR"}
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         errors="replace", env=env)
    head, frames = None, []
    for line in p.stdout:
        if not line.strip():
            continue
        if not line[0].isspace():
            if head:
                yield head + (frames,)
            m = re.match(r"^(.*?)\s+(\d+)/\d+\s+(\d+)\s*$", line)
            head, frames = ((m.group(1), int(m.group(2)), int(m.group(3))) if m else None), []
            continue
        m = re.match(r"^\s*([0-9a-f]+) (.*?)(?:\+0x([0-9a-f]+))? \((.*)\)\s*$", line)
        if m and head:
            frames.append({"ip": int(m.group(1), 16), "sym": m.group(2), "off": int(m.group(3) or "0", 16),
                           "dso": m.group(4)})
    if head:
        yield head + (frames,)
    p.wait()


def _profile(ctx, first):
    """perf record of BENCH_RUNS runs in one shell loop: {part: {function: ns}}, samples."""
    out = os.path.join(ctx["work"], "breakdown.data")
    cache = shlex.quote(ctx["cache"])
    one = f"PERF_BUILDID_DIR={cache} {' '.join(map(shlex.quote, ctx['report']))} >/dev/null 2>&1"
    body = (f"rm -rf {cache}; " if first else "") + one
    script = f"i=0; while [ $i -lt {ctx['runs']} ]; do {body}; i=$((i+1)); done"
    res = subprocess.run(["perf", "record", "-N", "-B", "-F", str(HZ), "-e", "cpu-clock", "-g", "-o", out, "--", "sh", "-c", script],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        if res.returncode or not os.path.exists(out):
            raise Skip(f"perf record: {_why(res.stderr)}")
        comm = os.path.basename(ctx["report"][0])[:15]
        parts, n, bases = {}, 0, {}
        for c, pid, period, frames in _samples(out):
            if c != comm or not frames:
                continue
            leaf = frames[0]
            if leaf["ip"] >= KERNEL_IP:
                part, fn = _kernel_part([f["sym"] for f in frames])
            elif os.path.realpath(leaf["dso"]) == ctx["lperf_real"]:
                part, fn = _lperf_part(ctx["syms"], leaf, bases, pid)
            else:
                fn = leaf["sym"].split("@")[0] if leaf["sym"] != "[unknown]" else "(no symbol)"
                part = _lib_part(leaf["dso"], fn)
            fns = parts.setdefault(part, {})
            fns[fn] = fns.get(fn, 0) + period
            n += 1
        if not n:
            raise Skip(f"perf record took no samples of {comm} ({_why(res.stderr)})")
        ev = subprocess.run(["perf", "evlist", "-i", out], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout
        return parts, n, ":u" in ev
    finally:
        for p in (out, out + ".old"):
            if os.path.exists(p):
                os.unlink(p)


def _profile_lines(parts, n, runs, stat_ms, of_what="task-clock"):
    """The parts, largest first: ms a run as their share of the samples times perf stat's
    task-clock (sampling slows every part alike, about 1 us a sample here, so shares hold while
    sampled times grow), or the sampled time where perf stat could not run."""
    tot = {p: sum(f.values()) for p, f in parts.items()}
    whole = sum(tot.values())
    sampled = whole / 1e6 / runs
    scale = (stat_ms / sampled if stat_ms else 1.0) / 1e6 / runs
    order = sorted(tot, key=lambda p: -tot[p])
    shown, rest = order[:MAX_PARTS], order[MAX_PARTS:]
    of = (f"sampled runs {100 * (sampled / stat_ms - 1):+.0f}%), ms of {of_what}" if stat_ms
          else "ms sampled)")
    lines = [f"where it goes (perf record -F {HZ} -e cpu-clock -g: {n:,} samples in {runs} run(s), {of}"]
    for p in shown:
        fns = sorted(parts[p].items(), key=lambda kv: -kv[1])[:TOP_FUNCS]
        names = ", ".join(f"{fn[:32]} {ns * scale:.1f}" for fn, ns in fns)
        lines.append(f"{p:28} {tot[p] * scale:6.1f} ms {100 * tot[p] / whole:3.0f}%  {names}")
    if rest:
        ns = sum(tot[p] for p in rest)
        names = ", ".join(f"{p} {tot[p] * scale:.1f}" for p in rest[:TOP_FUNCS])
        lines.append(f"{'other (' + str(len(rest)) + ' parts)':28} {ns * scale:6.1f} ms "
                     f"{100 * ns / whole:3.0f}%  {names}")
    return lines


# -- the whole -----------------------------------------------------------------------------

def show(lperf, rss, path, cache, args, runs, work, indent="   "):
    """Prints both runs' blocks for lperf report --stdio of path (args: lperf report's own
    options). Leaves cache as a second run finds it."""
    ctx = {"cache": cache, "rss": rss, "runs": max(runs, 1), "work": work,
           "report": [lperf, "report"] + list(args) + ["--stdio", "-i", path],
           "lperf_real": os.path.realpath(lperf)}
    pad = ctx["pad"] = indent + "  "
    try:
        ctx["syms"] = load_symbols(lperf)
    except OSError as e:
        ctx["syms"] = ({}, [])
        print(f"{pad}(nm: {e}; lperf's functions are not split by directory)")
    for first in (True, False):
        title = "first run (cache emptied before each)" if first else "second run"
        print(f"{indent}lperf report, {title}: perf stat, median of {ctx['runs']} run(s)")
        if not first:  # a second run's cache: the one a first run leaves
            subprocess.run(["env", f"PERF_BUILDID_DIR={cache}"] + ctx["report"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stat_ms = None
        try:
            stat = _stat_runs(ctx, first)
            stat_ms = statistics.median(r["task-clock"] for r in stat)
            for line in _stat_lines(stat):
                print(pad + line)
        except Skip as e:
            print(f"{pad}skipped: {e}")
        try:
            parts, n, user_only = _profile(ctx, first)
            of_what = "task-clock"
            if user_only:  # the kernel's share unknown: the parts are shares of user time
                print(f"{pad}user space only ({_paranoid()}): the parts share perf stat's user time")
                stat_ms = statistics.median(r["user"] for r in stat) * 1000 if stat_ms else None
                of_what = "user time"
            for line in _profile_lines(parts, n, ctx["runs"], stat_ms, of_what):
                print(pad + line)
        except Skip as e:
            print(f"{pad}no breakdown: {e}")
