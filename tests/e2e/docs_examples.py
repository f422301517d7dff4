#!/usr/bin/env python3
"""The docs test (t42): every `$ lperf ...` example of README.md and docs/*.md that can run on
this machine is run, in document order, and its output's SHAPE is compared with what the
document shows: the first output line shown must match a line of the real output token by
token (numbers, hex and paths as classes, words literally), and the last line shown must have
the column count of some real line. Examples that cannot run here are listed with the reason.
  docs_examples.py REPO LPERF WORKDIR [FILE.md...]   prints TAP-like lines; exit 1 on a mismatch"""
import os, re, shutil, subprocess, sys

REPO, LPERF, WORK = sys.argv[1:4]
ONLY = sys.argv[4:]  # markdown files to read instead of README.md and docs/*.md (the self-test)

# Examples that cannot run on this machine, by a pattern of their command, and why.
CANNOT = [
    (r"^(?!LPERF_SYSFS_ROOT).*(-M imix -C 1|-m imix)", "needs an Arm PMU (imix is an Arm metric group)"),
    (r"^(?!LPERF_SYSFS_ROOT).*arm_spe", "needs Arm SPE hardware"),
    (r"(c2c|mem) report -i c2c\.data", "reads the SPE recording tests/unit/test_spe_c2c.c writes (t71 runs it)"),
    (r"-pe_file", "WindowsPerf's --pe_file waits for a named process started elsewhere"),
    (r"diff before\.data after\.data", "compares two recordings the page's prose makes"),
    (r"go tool pprof", "go is not installed") if not shutil.which("go") else (r"^$", ""),
    (r"python3\.13|report --python", "needs python3.13 itself on PATH (a pyenv shim is a script, which record --python refuses: issue 22)")
    if "shims" in (shutil.which("python3.13") or "shims") else (r"^$", ""),
    (r"faults 2000 100", "build/tests/helpers/faults is built by make test")
    if not os.path.exists(os.path.join(REPO, "build/tests/helpers/faults")) else (r"^$", ""),
]

NUM = re.compile(r"^[-+]?[0-9][0-9,.]*[%KMGkms]?$|^[0-9]+\.[0-9]+%?$|^\([0-9.,]+%?\)$")
HEX = re.compile(r"^(0x)?[0-9a-f]{6,}$")

def shape(line):
    out = []
    for t in line.split():
        t = t.strip("(),:;[]")
        if NUM.match(t):
            out.append("N")
        elif HEX.match(t):
            out.append("H")
        elif "/" in t:
            out.append("P")
        else:
            out.append(re.sub(r"[0-9]+", "9", t))
    return out

def examples(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    inblock, cur = False, None
    for ln in lines:
        if ln.startswith("```"):
            if cur:
                yield cur
            cur, inblock = None, not inblock
            continue
        if not inblock:
            continue
        if re.match(r"^\$ ([A-Z_]+=\S+ )*(lperf|wperf) ", ln):
            if cur:
                yield cur
            cmd = re.sub(r"\s+# .*$", "", ln[2:]).strip()
            cur = {"cmd": cmd, "out": [], "file": os.path.relpath(path, REPO)}
        elif cur is not None:
            cur["out"].append(ln)
    if cur:
        yield cur

def main():
    bindir = os.path.join(WORK, "bin")
    os.makedirs(bindir, exist_ok=True)
    for name in ("lperf", "wperf"):
        p = os.path.join(bindir, name)
        if not os.path.exists(p):
            os.symlink(LPERF, p)
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], LPERF_PAGER="cat", NO_COLOR="1")
    files = ONLY or [os.path.join(REPO, "README.md")] + sorted(
        os.path.join(REPO, "docs", f) for f in os.listdir(os.path.join(REPO, "docs")) if f.endswith(".md"))
    n = bad = 0
    for f in files:
        for ex in examples(f):
            n += 1
            title = "%s: %s" % (ex["file"] if not ONLY else os.path.basename(f), ex["cmd"])
            why = next((w for pat, w in CANNOT if w and re.search(pat, ex["cmd"])), None)
            if why:
                print("ok %d - %s # SKIP %s" % (n, title, why))
                continue
            # make demo's programs (build/examples/) are the ones this test built in WORK: a clean
            # checkout has no build/examples before make demo
            cmd = ex["cmd"].replace("build/examples/", WORK + "/")
            cwd = REPO if "build/" in cmd or "tests/" in cmd else WORK
            try:
                r = subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True,
                                   text=True, timeout=120, stdin=subprocess.DEVNULL)
                got = (r.stdout + r.stderr).split("\n")
            except subprocess.TimeoutExpired:
                got = ["(timed out)"]
            shown = [l for l in ex["out"] if l.strip() and l.strip() != "..."]
            real = [shape(l) for l in got if l.strip()]
            problems = []
            if shown:
                first = shape(shown[0])
                if not any(len(r) == len(first) and sum(a != b for a, b in zip(r, first)) <= 2 for r in real):
                    problems.append("first line shown %r has no line of that shape in the output" % shown[0])
                last = shown[-1]
                if len(shown) > 1 and len(last.split()) not in {len(s) for s in real}:
                    problems.append("last line shown %r: no output line has %d columns" % (last, len(last.split())))
            elif not real:
                problems.append("no output")
            if problems:
                bad += 1
                print("not ok %d - %s" % (n, title))
                for p in problems:
                    print("#   " + p)
                for l in got[:12]:
                    print("#   | " + l)
            else:
                print("ok %d - %s" % (n, title))
    print("# docs: %d examples, %d not matching" % (n, bad))
    return 1 if bad else 0

sys.exit(main())
