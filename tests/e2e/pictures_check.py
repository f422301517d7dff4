"""Reads lperf's pictures back and checks that each shows the same top stacks with the same
sample counts as `lperf report --folded`.

usage: pictures_check.py FOLDED KIND FILE [KIND FILE...]
KIND: svg, html (the flame graph inside the page), speedscope, firefox (gzipped), pprof (the
"stack count" lines of pprof_stacks.js). Stacks are compared without the command frame (the
viewers' threads and labels carry it) and with Python frames by function ("py::foo"), as the
viewers name them; in the Python view (`--python`) a Python frame's label, "foo (file.py:LINE)",
is rebuilt from the speedscope frame's and the Firefox function's name, file and line. A flame graph's frames are checked by width (the samples of every stack
through the frame), other formats by the samples of the stack itself. The top stacks are those with at least 1% of the samples (at most 10). The speedscope, Firefox
and pprof files must also hold every sample."""
import collections
import gzip
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def norm(frames):
    return ";".join(re.sub(r"^(py::[^:]*):.*$", r"\1", f) for f in frames)


def short(file):
    """The file as lperf's Python labels show it: its name (with its directory for __init__.py)."""
    parts = file.split("/")
    if len(parts) > 1 and parts[-1] in ("__init__.py", "__main__.py") and parts[-2]:
        return "/".join(parts[-2:])
    return parts[-1]


def pylabel(name, file, line):
    """A viewer's frame as report --python --folded names it: a Python frame of the Python view
    (its function alone, with a .py or <frozen ...> file) gets "name (file.py:LINE)"."""
    if name.startswith("py::") or not file or not (file.endswith(".py") or file.startswith("<")):
        return name
    return "%s (%s:%d)" % (name, short(file), line) if line else "%s (%s)" % (name, short(file))


def folded(path):
    c = collections.Counter()
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        c[norm(stack.split(";")[1:])] += int(n)
    return c


def svg_counts(root):
    """Samples per stack prefix from the drawn frames: a frame's width. (Self samples cannot be
    read back exactly: children narrower than a pixel are not drawn.)"""
    c = collections.Counter()
    graph = next(root.iter(SVG + "g"))
    for g in root.iter(SVG + "g"):
        if g.get("class") == "graph":
            graph = g
            break
    frames = [(int(g.get("data-d")), int(g.get("data-x")), int(g.get("data-w")), g.get("data-n"), g.get("data-k"))
              for g in graph.iter(SVG + "g") if g.get("class") == "f"]
    by_depth = collections.defaultdict(list)
    for f in frames:
        by_depth[f[0]].append(f)
    def parent(f):
        for p in by_depth[f[0] - 1]:
            if p[1] <= f[1] and f[1] + f[2] <= p[1] + p[2]:
                return p
        raise SystemExit("frame %s at depth %d has no parent" % (f[3], f[0]))
    kids = collections.Counter()
    for f in frames:
        if f[0] > 0:
            kids[parent(f)] += f[2]
    for f in frames:
        if f[0] < 1 or f[4] == "merged":
            continue
        names, p = [], f
        while p[0] > 1:
            names.append(p[3])
            p = parent(p)
        c[norm(reversed(names))] += f[2]
    return c


def prefix_totals(want):
    c = collections.Counter()
    for s, n in want.items():
        fr = s.split(";")
        for i in range(1, len(fr) + 1):
            c[";".join(fr[:i])] += n
    return c


def speedscope_counts(path):
    d = json.load(open(path))
    frames = d["shared"]["frames"]
    c = collections.Counter()
    for p in d["profiles"]:
        assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
        # each sample weighs its period: nanoseconds for time-based events
        assert all(w > 0 for w in p["weights"]), "a sample without weight"
        assert p["endValue"] == p["startValue"] + sum(p["weights"])
        assert p["unit"] in ("nanoseconds", "none")
        for s in p["samples"]:
            c[norm(pylabel(frames[i]["name"], frames[i].get("file"), frames[i].get("line"))
                   for i in s)] += 1
    return c


def firefox_counts(path):
    d = json.load(gzip.open(path))
    assert d["meta"]["preprocessedProfileVersion"] > 0
    c = collections.Counter()
    for t in d["threads"]:
        st, ft, fn, strings = t["stackTable"], t["frameTable"], t["funcTable"], t["stringArray"]
        times = t["samples"]["time"]
        assert times == sorted(times), "sample times out of order"
        for s in t["samples"]["stack"]:
            names = []
            while s is not None:
                f = ft["func"][st["frame"][s]]
                file = fn["fileName"][f]
                names.append(pylabel(strings[fn["name"][f]], strings[file] if file is not None else None,
                                     fn["lineNumber"][f]))
                s = st["prefix"][s]
            c[norm(reversed(names))] += 1
    return c


def pprof_counts(path):
    c = collections.Counter()
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        if stack != "total":
            c[norm(stack.split(";"))] += int(n)
    return c


def main():
    want = folded(sys.argv[1])
    total = sum(want.values())
    top = [s for s, n in want.most_common(10) if n >= 0.01 * total]
    assert top, "no stack has 1% of the samples"
    bad = 0
    totals = prefix_totals(want)
    for kind, path in zip(sys.argv[2::2], sys.argv[3::2]):
        if kind == "svg":
            got = svg_counts(ET.parse(path).getroot())
        elif kind == "html":
            page = open(path, encoding="utf-8").read()
            got = svg_counts(ET.fromstring(page[page.index("<svg"):page.index("</svg>") + 6]))
        else:
            got = {"speedscope": speedscope_counts, "firefox": firefox_counts, "pprof": pprof_counts}[kind](path)
        ref = totals if kind in ("svg", "html") else want
        for s in top:
            if got.get(s) != ref[s]:
                print("%s: %s has %s samples, report --folded %d" % (kind, s, got.get(s), ref[s]))
                bad += 1
        if kind not in ("svg", "html") and sum(got.values()) != total:
            print("%s: %d samples in all, report --folded %d" % (kind, sum(got.values()), total))
            bad += 1
        print("%s: %d top stacks agree (of %d samples)" % (kind, len(top), total))
    sys.exit(1 if bad else 0)


main()
