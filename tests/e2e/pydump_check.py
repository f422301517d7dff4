#!/usr/bin/env python3
"""Checks lperf dump's text and JSON of tests/workloads/py_dump.py (t107-python-dump.sh).

usage: pydump_check.py WORKLOAD PID VERSION TEXT JSON LOCALS_TEXT NATIVE_JSON

Every Python thread of the workload is there once, named by its threading.Thread name (the JSON
also gives the kernel's name), with the kernel tid /proc gives its kernel name; its frames, innermost first, are the workload's functions at the lines of their "# L_"
markers, then only threading.py's for the started threads (none after <module> for the main
thread); the spinning thread is active, the blocked ones idle; the JSON (of dump --locals
--json) says the same. TEXT (of dump) has no locals; LOCALS_TEXT (of dump --locals) and the JSON
give each of the workload's frames that LOCALS lists exactly its arguments and locals, in order,
with their reprs. NATIVE_JSON (of dump --native --json) has the same Python frames in the same
order, native ones among them where the eval loop ran them (none of the eval loop itself): the
blocked threads' innermost frame is native (the read), and sorted's C code sits between
sort_key and worker_b (named, where the build has a symbol table)."""
import json
import os
import re
import sys

workload, pid, version, text_path, json_path, locals_path, native_path = sys.argv[1:8]
base = os.path.basename(workload)
marks = {}
with open(workload) as f:
    for n, line in enumerate(f, 1):
        m = re.search(r"# (L_[A-Z_]+)$", line.rstrip())
        if m:
            marks[m.group(1)] = n

EXPECT = {  # name -> (active, [(function, marker)]) innermost first
    "dump-spin": (True, [("spin_loop", "L_SPIN"), ("spinner", "L_SPINNER")]),
    "dump-b": (False, [("block", "L_BLOCK"), ("sort_key", "L_SORT_KEY"), ("worker_b", "L_WORKER_B")]),
    "dump-a": (False, [("block", "L_BLOCK"), ("leaf_a", "L_LEAF_A"), ("mid_a", "L_MID_A"),
                       ("worker_a", "L_WORKER_A")]),
    "dump-main": (False, [("block", "L_BLOCK"), ("main", "L_MAIN"), ("<module>", "L_MODULE")]),
}

# (thread, function) -> [(name, is an argument, repr regular expression)], in order
PY2 = version.startswith("2.")
HEX = "0x[0-9a-f]+"
LOCALS = {
    ("dump-a", "block"): [("tag", True, "'dump-a'")],
    ("dump-a", "leaf_a"): [
        ("count", True, "3"), ("rest", True, re.escape("<tuple of 1>")), ("kw", True, re.escape("<dict of 1>")),
        ("small", False, "-12345"), ("big", False, "1267650600228229401496703205376"),
        ("neg_big", False, "-1180591620717411303424"), ("ratio", False, re.escape("1.5")),
        ("tiny", False, re.escape("1e-07")),
        ("text", False, re.escape("'caf\\xe9'" if PY2 else "'caf\u00e9'")),
        ("wide", False, "<unicode at %s>" % HEX if PY2 else "'\u20ac\u00e9'"),
        ("astral", False, "<unicode at %s>" % HEX if PY2 else "'\U0001f600'"),
        ("raw", False, re.escape("'\\x00ab'" if PY2 else "b'\\x00ab'")),
        ("quote", False, re.escape('"it\'s"')), ("nothing", False, "None"), ("flag", False, "True"),
        ("items", False, re.escape("<list of 3>")), ("table", False, re.escape("<dict of 2>")),
        ("pair", False, re.escape("<tuple of 2>")), ("thing", False, "<object at %s>" % HEX),
        ("long_text", False, re.escape("'" + "x" * 128 + "'...")),
    ],
    ("dump-a", "mid_a"): [("inner", False, "<function at %s>" % HEX), ("captured", False, "7")],
    ("dump-a", "worker_a"): [],
    ("dump-spin", "spin_loop"): [("acts", True, re.escape("<dict of 1>")), ("n", False, "[0-9]+")],
    ("dump-b", "block"): [("tag", True, "'dump-b'")],
    ("dump-b", "sort_key"): [("x", True, "2")],
}

PYNAME = {"dump-spin": "Spinner", "dump-b": "Worker B", "dump-a": "Worker A", "dump-main": "MainThread"}
COMM = dict((v, k) for k, v in PYNAME.items())

tids = {}
for t in os.listdir("/proc/%s/task" % pid):
    with open("/proc/%s/task/%s/comm" % (pid, t)) as f:
        tids[f.read().strip()] = int(t)

errors = []


def check_locals(where, name, frames):
    """frames: [(function, file, line, [(name, arg, repr)] or None)] innermost first."""
    for fr in frames:
        want = LOCALS.get((name, fr[0]))
        if want is None or os.path.basename(fr[1]) != base:
            continue
        got = fr[3] or []
        ok = len(got) == len(want) and all(
            g[0] == w[0] and g[1] == w[1] and re.fullmatch(w[2], g[2]) for g, w in zip(got, want))
        if not ok:
            errors.append("%s: thread %s, %s: locals %s, expected %s" % (where, name, fr[0], got, want))


def check_thread(where, name, tid, active, frames):
    """frames: [(function, file, line, locals)] innermost first."""
    if name not in EXPECT:
        errors.append("%s: unexpected thread %r" % (where, name))
        return
    want_active, want = EXPECT[name]
    if tid != tids.get(name):
        errors.append("%s: thread %s has tid %s, /proc says %s" % (where, name, tid, tids.get(name)))
    if active != want_active:
        errors.append("%s: thread %s is %s" % (where, name, "active" if active else "idle"))
    got = [(fr[0], os.path.basename(fr[1]), fr[2]) for fr in frames[:len(want)]]
    exp = [(fn, base, marks[m]) for fn, m in want]
    if got != exp:
        errors.append("%s: thread %s: frames %s, expected %s" % (where, name, got, exp))
    rest = frames[len(want):]
    if name == "dump-main" and rest:
        errors.append("%s: frames after <module>: %s" % (where, rest))
    for fn, fl, ln, _ in rest:
        if os.path.basename(fl) != "threading.py" or ln is None or ln <= 0:
            errors.append("%s: thread %s: outer frame %s (%s:%s) is not threading.py's" % (where, name, fn, fl, ln))


# The text: header, then "Thread TID (idle|active[+gil]) [name]" (a thread blocked in a read never
# holds the GIL) and "    func (file:LINE)" lines, each
# frame's followed (--locals) by "        Arguments:" or "        Locals:" and "            NAME: REPR".
def parse_text(where, path):
    with open(path) as f:
        lines = f.read().split("\n")
    if not re.match(r"Process %s: .*%s" % (pid, re.escape(base)), lines[0]):
        errors.append("%s: header line 1: %r" % (where, lines[0]))
    if not re.match(r"Python %s \(/.+\)$" % re.escape(version), lines[1]):
        errors.append("%s: header line 2: %r" % (where, lines[1]))
    threads = []
    arg = None
    for line in lines[2:]:
        m = re.match(r"Thread (\d+) \((idle|active)(\+gil)?\) \[(.*)\]$", line)
        if m:
            if m.group(4) not in COMM:
                errors.append("%s: thread %s named %r, not by its Python name" % (where, m.group(1), m.group(4)))
            if m.group(3) and m.group(2) == "idle":
                errors.append("%s: thread %s blocked in a read holds the GIL" % (where, m.group(4)))
            threads.append([COMM.get(m.group(4), m.group(4)), int(m.group(1)), m.group(2) == "active", []])
            continue
        m = re.match(r"    (\S.*) \((.+):(\d+)\)$", line)
        if m and threads:
            threads[-1][3].append((m.group(1), m.group(2), int(m.group(3)), []))
            arg = None
            continue
        m = re.match(r"        (Arguments|Locals):$", line)
        if m and threads and threads[-1][3]:
            arg = m.group(1) == "Arguments"
            continue
        m = re.match(r"            (\w+): (.*)$", line)
        if m and arg is not None:
            threads[-1][3][-1][3].append((m.group(1), arg, m.group(2)))
        elif line:
            errors.append("%s: unexpected line %r" % (where, line))
    names = sorted(t[0] for t in threads)
    if names != sorted(EXPECT):
        errors.append("%s: threads %s, expected %s" % (where, names, sorted(EXPECT)))
    for t in threads:
        check_thread(where, *t)
    return threads


threads = parse_text("text", text_path)
for t in threads:
    if any(fr[3] for fr in t[3]):
        errors.append("text: locals without --locals in thread %s" % t[0])
for t in parse_text("locals text", locals_path):
    check_locals("locals text", t[0], t[3])

with open(json_path) as f:
    doc = json.load(f)
if doc["pid"] != int(pid) or doc["python_version"] != version or not doc["paused"]:
    errors.append("json: pid %s, version %s, paused %s" % (doc["pid"], doc["python_version"], doc["paused"]))
jnames = sorted(t["comm"] for t in doc["threads"])
if jnames != sorted(EXPECT):
    errors.append("json: threads %s, expected %s" % (jnames, sorted(EXPECT)))
for t in doc["threads"]:
    if t["gil"] and not t["active"]:
        errors.append("json: thread %s blocked in a read holds the GIL" % t["comm"])
    if PYNAME.get(t["comm"]) != t["name"]:
        errors.append("json: thread %s (%s) named %r" % (t["tid"], t["comm"], t["name"]))
for t in doc["threads"]:
    frames = [(fr["function"], fr["file"], fr["line"],
               [(v["name"], v["arg"], v["repr"]) for v in fr["locals"]]) for fr in t["frames"]]
    check_thread("json", t["comm"], t["tid"], t["active"], frames)
    check_locals("json", t["comm"], frames)

with open(native_path) as f:
    ndoc = json.load(f)
plain = dict((t["tid"], [(fr["function"], fr["line"]) for fr in t["frames"]]) for t in doc["threads"])
symbols = "/.pyenv/" in ndoc["python_file"]
nnative = 0
for t in ndoc["threads"]:
    frames = t["frames"]
    py = [(fr["function"], fr["line"]) for fr in frames if not fr["native"]]
    if py != plain.get(t["tid"]):
        errors.append("native json: thread %s: Python frames %s, without --native %s" % (t["comm"], py, plain.get(t["tid"])))
    nat = [fr for fr in frames if fr["native"]]
    nnative += len(nat)
    if any("EvalFrame" in fr["function"] for fr in nat):
        errors.append("native json: thread %s: an eval loop frame is left: %s" % (t["comm"], nat))
    if t["comm"] != "dump-spin" and (not frames or not frames[0]["native"]):
        errors.append("native json: thread %s: the innermost frame is not native: %s" % (t["comm"], frames[:1]))
    if t["comm"] == "dump-b":
        names = [fr["function"] for fr in frames]
        if "sort_key" in names and "worker_b" in names:
            between = frames[names.index("sort_key") + 1:names.index("worker_b")]
            if not between or not all(fr["native"] for fr in between) or \
                    (symbols and not any("sort" in fr["function"] for fr in between)):
                errors.append("native json: between sort_key and worker_b: %s" % between)

nframes = sum(len(t[3]) for t in threads)
if errors:
    sys.exit("\n".join(errors))
nlocals = sum(len(v) for v in LOCALS.values())
print("%d threads, %d frames, %d locals, %d native frames right (Python %s)" % (len(threads), nframes, nlocals, nnative, version))
