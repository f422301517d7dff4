"""Checks a --folded report of tests/workloads/py_shares.py against its known answer.

usage: pyshares_check.py FOLDED exact|approx [SPLIT [SPREAD]]
       pyshares_check.py FOLDED lines

Prints the shares of a, b and c among the samples in spin under them (known: 60/30/10), the
share of full chains (<module> -> main -> a|b|c -> spin, <module> -> main -> digest|squeeze)
among the samples whose innermost Python frame is the workload's, and how many samples in
libcrypto (SHA-256) and libz (deflate) have digest and squeeze as their innermost Python frame.
exact: each share within 3 standard deviations of the known one (from the sample count, at
least 300; SPLIT: the file py_shares.py wrote its measured split to, the known answer then;
SPREAD: how many times the binomial standard deviation a share's is, 1 by default: samples
taken by pausing the thread fall on a loop of a few ms less independently than a kernel
timer's on a loaded machine, t116-python-paused.sh takes 2; 0: the shares are printed, not
checked), full chains >= 99%, each C library under its caller >= 95% (20 samples at least).
approx: full chains >= 95% only (the shares are printed, not checked).
lines: FOLDED is `report --python --folded` (frames labelled "func (py_shares.py:LINE)"): every
frame of the workload's file has its right line (a frame without one, "func (py_shares.py)", is
not right) (main's is the line of the call it is in) in
>= 99% of the samples whose innermost Python frame is the workload's.
"""
import math
import re
import sys

KNOWN = {"a": 60.0, "b": 30.0, "c": 10.0}
LEAVES = {"spin", "digest", "squeeze", "a", "b", "c"}
# each C library (as its samples' native frames name it) and its caller: SHA-256 is OpenSSL's
# (libcrypto) where CPython was built with it, else CPython's own _sha256 module (pyenv's 2.7, 3.6)
CLIBS = (("libcrypto", re.compile(r"libcrypto|sha_transform|sha256_transform"), "digest"),
         ("libz.so", re.compile(r"libz\.so"), "squeeze"))


def name(frame):
    return re.sub(r"^py::([^:]+):.*", r"\1", frame)


# each function's possible lines, and main's line for the function it calls
LINES = {"<module>": {62}, "main": set(range(45, 59)), "a": {23}, "b": {27}, "c": {31},
         "digest": {35}, "squeeze": {39}, "spin": {16, 17, 18, 19}}
MAIN_CALLS = {"a": 47, "digest": 49, "b": 51, "squeeze": 53, "c": 55}


def lines(path):
    # a frame without its line ("func (py_shares.py)") counts, as a wrong one
    label = re.compile(r"^(\S+) \(py_shares\.py(?::(\d+))?\)$")
    ours = right = 0
    wrong = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if " " not in line:
            continue
        stack, n = line.rsplit(" ", 1)
        frames = [label.match(f) for f in stack.split(";")]
        py = [(m.group(1), int(m.group(2)) if m.group(2) else None) for m in frames if m]
        if not py or py[-1][0] not in LEAVES:
            continue
        ours += int(n)
        ok = all(ln in LINES.get(fn, ()) for fn, ln in py)
        for k, (fn, ln) in enumerate(py):
            if fn == "main" and k + 1 < len(py) and py[k + 1][0] in MAIN_CALLS:
                ok = ok and ln == MAIN_CALLS[py[k + 1][0]]
        if ok:
            right += int(n)
        else:
            wrong[stack] = int(n)
    print("lines right: %d of %d (%.1f%%)" % (right, ours, 100.0 * right / ours if ours else 0))
    for stack, n in sorted(wrong.items(), key=lambda kv: -kv[1])[:5]:
        print("wrong: %s %d" % (stack, n))
    sys.exit(0 if ours and right >= 0.99 * ours else 1)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "lines":
        lines(path)
    spread = 1.0
    if len(sys.argv) > 3:
        for line in open(sys.argv[3]):
            k, v = line.split()
            KNOWN[k] = float(v)
    if len(sys.argv) > 4:
        spread = float(sys.argv[4])
    loop = {k: 0 for k in KNOWN}
    ours = full = 0
    clib = {lib: [0, 0] for lib, _, _ in CLIBS}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if " " not in line:
            continue
        stack, n = line.rsplit(" ", 1)
        n = int(n)
        frames = stack.split(";")
        pyidx = [i for i, f in enumerate(frames) if f.startswith("py::")]
        if not pyidx:
            continue
        names = [name(frames[i]) for i in pyidx]
        if names[-1] not in LEAVES:
            continue
        ours += n
        if names[-1] == "spin":
            if len(names) == 4 and names[:2] == ["<module>", "main"] and names[2] in KNOWN:
                full += n
                loop[names[2]] += n
        elif len(names) == 3 and names[:2] == ["<module>", "main"] and names[2] in ("digest", "squeeze"):
            full += n
        after = ";".join(frames[pyidx[-1] + 1:])
        for lib, rx, caller in CLIBS:
            if rx.search(after):
                clib[lib][0] += n
                clib[lib][1] += n if names[-1] == caller else 0
    nloop = sum(loop.values())
    ok = True
    shares = {k: 100.0 * v / nloop if nloop else 0.0 for k, v in loop.items()}
    print("shares a/b/c: %.1f/%.1f/%.1f of %d samples in spin (known %.1f/%.1f/%.1f)"
          % (shares["a"], shares["b"], shares["c"], nloop, KNOWN["a"], KNOWN["b"], KNOWN["c"]))
    pfull = 100.0 * full / ours if ours else 0.0
    print("full chains: %d of %d (%.1f%%)" % (full, ours, pfull))
    for lib, _, caller in CLIBS:
        print("%s under %s: %d of %d" % (lib, caller, clib[lib][1], clib[lib][0]))
    if mode == "exact":
        if nloop < 300:
            print("too few samples in spin: %d" % nloop)
            ok = False
        for k, want in KNOWN.items():
            if spread <= 0:
                break
            p = want / 100.0
            tol = 300.0 * spread * math.sqrt(p * (1 - p) / max(nloop, 1))
            if abs(shares[k] - want) > tol:
                print("%s: %.1f%%, known %.1f%% (+-%.1f)" % (k, shares[k], want, tol))
                ok = False
        for lib, _, caller in CLIBS:
            seen, right = clib[lib]
            if seen < 20 or right < 0.95 * seen:
                print("%s: %d of %d samples under %s" % (lib, right, seen, caller))
                ok = False
        ok = ok and ours > 0 and full >= 0.99 * ours
    else:
        ok = ours > 0 and full >= 0.95 * ours
    sys.exit(0 if ok else 1)


main()
