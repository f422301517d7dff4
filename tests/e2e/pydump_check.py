#!/usr/bin/env python3
"""Checks lperf dump's text and JSON of tests/workloads/py_dump.py (t107-python-dump.sh).

usage: pydump_check.py WORKLOAD PID VERSION TEXT JSON

Every Python thread of the workload is there once, named, with the kernel tid /proc gives that
name; its frames, innermost first, are the workload's functions at the lines of their "# L_"
markers, then only threading.py's for the started threads (none after <module> for the main
thread); the spinning thread is active, the blocked ones idle; the JSON says the same."""
import json
import os
import re
import sys

workload, pid, version, text_path, json_path = sys.argv[1:6]
base = os.path.basename(workload)
marks = {}
with open(workload) as f:
    for n, line in enumerate(f, 1):
        m = re.search(r"# (L_[A-Z_]+)$", line.rstrip())
        if m:
            marks[m.group(1)] = n

EXPECT = {  # name -> (active, [(function, marker)]) innermost first
    "dump-spin": (True, [("spin_loop", "L_SPIN"), ("spinner", "L_SPINNER")]),
    "dump-b": (False, [("block", "L_BLOCK"), ("worker_b", "L_WORKER_B")]),
    "dump-a": (False, [("block", "L_BLOCK"), ("leaf_a", "L_LEAF_A"), ("mid_a", "L_MID_A"),
                       ("worker_a", "L_WORKER_A")]),
    "dump-main": (False, [("block", "L_BLOCK"), ("main", "L_MAIN"), ("<module>", "L_MODULE")]),
}

tids = {}
for t in os.listdir("/proc/%s/task" % pid):
    with open("/proc/%s/task/%s/comm" % (pid, t)) as f:
        tids[f.read().strip()] = int(t)

errors = []


def check_thread(where, name, tid, active, frames):
    """frames: [(function, file, line)] innermost first."""
    if name not in EXPECT:
        errors.append("%s: unexpected thread %r" % (where, name))
        return
    want_active, want = EXPECT[name]
    if tid != tids.get(name):
        errors.append("%s: thread %s has tid %s, /proc says %s" % (where, name, tid, tids.get(name)))
    if active != want_active:
        errors.append("%s: thread %s is %s" % (where, name, "active" if active else "idle"))
    got = [(fn, os.path.basename(fl), ln) for fn, fl, ln in frames[:len(want)]]
    exp = [(fn, base, marks[m]) for fn, m in want]
    if got != exp:
        errors.append("%s: thread %s: frames %s, expected %s" % (where, name, got, exp))
    rest = frames[len(want):]
    if name == "dump-main" and rest:
        errors.append("%s: frames after <module>: %s" % (where, rest))
    for fn, fl, ln in rest:
        if os.path.basename(fl) != "threading.py" or ln is None or ln <= 0:
            errors.append("%s: thread %s: outer frame %s (%s:%s) is not threading.py's" % (where, name, fn, fl, ln))


# The text: header, then "Thread TID (idle|active) [name]" and "    func (file:LINE)" lines.
with open(text_path) as f:
    lines = f.read().split("\n")
if not re.match(r"Process %s: .*%s" % (pid, re.escape(base)), lines[0]):
    errors.append("text: header line 1: %r" % lines[0])
if not re.match(r"Python %s \(/.+\)$" % re.escape(version), lines[1]):
    errors.append("text: header line 2: %r" % lines[1])
threads = []
for line in lines[2:]:
    m = re.match(r"Thread (\d+) \((idle|active)\) \[(.*)\]$", line)
    if m:
        threads.append([m.group(3), int(m.group(1)), m.group(2) == "active", []])
        continue
    m = re.match(r"    (\S.*) \((.+):(\d+)\)$", line)
    if m and threads:
        threads[-1][3].append((m.group(1), m.group(2), int(m.group(3))))
    elif line:
        errors.append("text: unexpected line %r" % line)
names = sorted(t[0] for t in threads)
if names != sorted(EXPECT):
    errors.append("text: threads %s, expected %s" % (names, sorted(EXPECT)))
for t in threads:
    check_thread("text", *t)

with open(json_path) as f:
    doc = json.load(f)
if doc["pid"] != int(pid) or doc["python_version"] != version or not doc["paused"]:
    errors.append("json: pid %s, version %s, paused %s" % (doc["pid"], doc["python_version"], doc["paused"]))
jnames = sorted(t["name"] for t in doc["threads"])
if jnames != sorted(EXPECT):
    errors.append("json: threads %s, expected %s" % (jnames, sorted(EXPECT)))
for t in doc["threads"]:
    check_thread("json", t["name"], t["tid"], t["active"],
                 [(fr["function"], fr["file"], fr["line"]) for fr in t["frames"]])

nframes = sum(len(t[3]) for t in threads)
if errors:
    sys.exit("\n".join(errors))
print("%d threads, %d frames right (Python %s)" % (len(threads), nframes, version))
