"""Checks lperf's Python stacks of three known-answer workloads (besides py_shares.py's,
pyshares_check.py) in the folded output of `lperf report`.

usage: pyknown_check.py deep PYFOLDED DEPTH
       pyknown_check.py calls FOLDED [stripped]
       pyknown_check.py threads PYFOLDED

deep: PYFOLDED is `report --python --folded` of tests/workloads/py_deep.py DEPTH. Of the samples
  whose innermost Python frame is leaf (at least 50), at least 99% are whole (DEPTH frames of
  deep, one <module>, no [truncated] after it) with every frame's line right: leaf 10 or 11 (its loop),
  the innermost deep 16 (the call of leaf), the other deep 19, <module> 26.
calls: FOLDED is `report --folded` (CPython's frames as py::func:file) of
  tests/workloads/py_cfuncs.py. The samples in each C code (sorted's list sort, json's C
  encoder; at least 20 each; those under main, not the imports') have its Python caller as
  their innermost Python frame (sort_them; JSONEncoder.iterencode under encode_them, or
  JSONEncoder.encode for the encoder's release as iterencode returns) in at least 99%. stripped: an interpreter without the symbols of its own
  functions (Debian's python3.11), where the list sort cannot be told apart: not checked.
threads: PYFOLDED is `report --python --folded` (the thread's Python name first, spaces as _)
  of tests/workloads/py_threads_fork.py: each of spin_a, spin_b, parent_work and child_work has
  at least 20 samples, at least 99% of them under its thread's name (worker-a, worker-b, and
  MainThread in each process).
"""
import re
import sys


def folded(path):
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if " " not in line:
            continue
        stack, n = line.rsplit(" ", 1)
        if n.isdigit():
            yield stack.split(";"), int(n)


def verdict(name, good, total, least, pct):
    ok = total >= least and good >= pct / 100.0 * total
    print("%s: %d of %d (%.1f%%)%s" % (name, good, total, 100.0 * good / total if total else 0,
                                        "" if ok else "  FAIL (%d%% of at least %d)" % (pct, least)))
    return ok


def deep(path, depth):
    label = re.compile(r"^(\S+) \(py_deep\.py(?::(\d+))?\)$")
    total = whole = right = 0
    wrong = {}
    for frames, n in folded(path):
        py = [(m.group(1), int(m.group(2) or 0)) for m in map(label.match, frames) if m]
        if not py or py[-1][0] != "leaf":
            continue
        total += n
        names = [f for f, _ in py]
        # a [truncated] before <module> is where the native part was cut (the stack copy's end),
        # not a Python frame missing
        first = next(i for i, f in enumerate(frames) if label.match(f))
        cut = "[truncated]" in frames[first:]
        if names.count("deep") == depth and names.count("<module>") == 1 and not cut:
            whole += n
            want = [("<module>", 26)] + [("deep", 19)] * (depth - 1) + [("deep", 16)]
            if py[:-1] == want and py[-1][1] in (10, 11):
                right += n
                continue
        key = "%d deep%s: " % (names.count("deep"), ", [truncated]" if cut else "") + \
            " ".join("%s:%d" % f for f in py if f != ("deep", 19))
        wrong[key] = wrong.get(key, 0) + n
    ok = verdict("%d-frame stacks whole" % depth, whole, total, 50, 99)
    ok = verdict("every line right", right, total, 50, 99) and ok
    for key, n in sorted(wrong.items(), key=lambda kv: -kv[1])[:3]:
        print("not right (deep:19 left out): %s %d" % (key, n))
    return ok


# C code (a native frame after the innermost Python frame) and its Python caller
CALLS = (("sort", re.compile(r"^(list_?sort|builtin_sorted|binarysort|merge_at|count_run)"), "sort_them"),
         ("json", re.compile(r"^(encoder_|c_make_encoder|py_encode_basestring)|^\[_json[.]"), "iterencode"))


def calls(path, stripped):
    seen = {k: [0, 0] for k, _, _ in CALLS}
    other = {k: {} for k, _, _ in CALLS}
    for frames, n in folded(path):
        pyidx = [i for i, f in enumerate(frames) if f.startswith("py::")]
        if not pyidx:
            continue
        names = [re.sub(r"^py::([^:]+):.*", r"\1", frames[i]).split(".")[-1] for i in pyidx]
        if "main" not in names:  # the imports' own C code
            continue
        after = frames[pyidx[-1] + 1:]
        for k, rx, caller in CALLS:
            if any(rx.search(f) for f in after):
                seen[k][0] += n
                right = names[-1] == caller
                if caller == "iterencode":
                    # the encoder freed as iterencode returns (its local) runs in encode's frame;
                    # a stripped build's _json frames cannot be told apart from it
                    freed = any(re.match(r"encoder_(dealloc|clear)", f) for f in after) or \
                        (stripped and not any(f.startswith("encoder_") for f in after))
                    right = "encode_them" in names and (right or (names[-1] == "encode" and freed))
                if right:
                    seen[k][1] += n
                else:
                    key = ">".join(names[-3:])
                    other[k][key] = other[k].get(key, 0) + n
                break
    ok = True
    for k, _, caller in CALLS:
        if k == "sort" and stripped and not seen[k][0]:
            print("sort: no symbols of the list sort in this build (stripped), not checked")
            continue
        ok = verdict("%s under %s" % (k, caller), seen[k][1], seen[k][0], 20, 99) and ok
        for key, n in sorted(other[k].items(), key=lambda kv: -kv[1])[:3]:
            print("  under %s: %d" % (key, n))
    return ok


def threads(path):
    want = {"spin_a": "worker-a", "spin_b": "worker-b", "parent_work": "MainThread", "child_work": "MainThread"}
    seen = {f: [0, 0] for f in want}
    names = {f: {} for f in want}
    for frames, n in folded(path):
        leaf = [re.sub(r" \(.*", "", f) for f in frames if re.search(r" \(py_threads_fork\.py(:\d+)?\)$", f)]
        if not leaf or leaf[-1] not in want:
            continue
        f = leaf[-1]
        seen[f][0] += n
        seen[f][1] += n if frames[0] == want[f] else 0
        names[f][frames[0]] = names[f].get(frames[0], 0) + n
    ok = True
    for f, t in want.items():
        ok = verdict("%s under %s" % (f, t), seen[f][1], seen[f][0], 20, 99) and ok
        print("  named %s" % ", ".join("%s %d" % kv for kv in sorted(names[f].items())))
    return ok


def main():
    mode = sys.argv[1]
    if mode == "deep":
        ok = deep(sys.argv[2], int(sys.argv[3]))
    elif mode == "calls":
        ok = calls(sys.argv[2], sys.argv[3:] == ["stripped"])
    elif mode == "threads":
        ok = threads(sys.argv[2])
    else:
        sys.exit("unknown mode " + mode)
    sys.exit(0 if ok else 1)


main()
