#!/usr/bin/env python3
"""Counts of a WindowsPerf test-suite run, per test file, from pytest's JUnit XML.

Usage: counts.py JUNIT.xml DOCS.md [--no-pmu] [--list]

Each test ends in one of three classes, as docs/wperf.md explains:
  passed      the test passed;
  n/a         the test cannot apply on Linux or without the hardware it needs: it failed or was
              skipped and matches a row of the "cannot apply" table in DOCS.md (rows marked
              `no PMU` count only with --no-pmu, i.e. where the counters cannot be opened;
              `cores<N` only on a machine with fewer than N cores online);
  failed      it failed, erred or was skipped for any other reason: lperf differs from wperf.
Prints one row per file, the totals, and with --list each failed test's id and first line.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

SECTION = "### Tests that cannot apply"


def read_rules(path, no_pmu):
    """The rows of the table under SECTION: | file | tests | where | why |. `tests` lists
    patterns of test names in backticks (`*` and `?` are wildcards, `[` is literal; `*` for
    the whole file); `where` is `all`, `no PMU` or `cores<N`."""
    ncpu = os.cpu_count() or 1
    rules, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                inside = line.strip() == SECTION
                continue
            if not inside or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 4 or cells[0] in ("file", "") or set(cells[0]) <= set("-: "):
                continue
            where = cells[2].lower()
            if where == "no pmu" and not no_pmu:
                continue
            m = re.fullmatch(r"cores<(\d+)", where.replace(" ", ""))
            if m and ncpu >= int(m.group(1)):
                continue
            files = re.findall(r"`([^`]+)`", cells[0]) or [cells[0]]
            pats = re.findall(r"`([^`]+)`", cells[1])
            for fl in files:
                rules.append((fl, pats, cells[3]))
    return rules


def wild(pattern, text):
    """Shell-style match with only * and ? special."""
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, text, re.S) is not None


def why_na(rules, fname, test):
    for fl, pats, why in rules:
        if wild(fl, fname) and any(wild(p, test) for p in pats):
            return why
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    no_pmu = "--no-pmu" in sys.argv
    if len(args) != 2:
        sys.exit(__doc__)
    rules = read_rules(args[1], no_pmu)
    per = {}
    failed = []
    for case in ET.parse(args[0]).getroot().iter("testcase"):
        cls = case.get("classname", "")
        fname = cls.split(".")[-1] + ".py" if cls else case.get("file", "?")
        test = case.get("name", "")
        row = per.setdefault(fname, [0, 0, 0, 0])  # tests, passed, failed, n/a
        row[0] += 1
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skip = case.find("skipped")
        if bad is None and skip is None:
            row[1] += 1
        elif why_na(rules, fname, test):
            row[3] += 1
        else:
            row[2] += 1
            node = bad if bad is not None else skip
            msg = (node.get("message") or "").strip().splitlines()
            kind = "skipped" if bad is None else "failed"
            failed.append(f"{fname}::{test}: {kind}: {msg[0][:160] if msg else ''}")
    print(f"{'test file':50} {'tests':>5} {'passed':>6} {'failed':>6} {'n/a':>5}")
    tot = [0, 0, 0, 0]
    for fname in sorted(per):
        r = per[fname]
        tot = [a + b for a, b in zip(tot, r)]
        print(f"{fname:50} {r[0]:5} {r[1]:6} {r[2]:6} {r[3]:5}")
    print(f"{'total':50} {tot[0]:5} {tot[1]:6} {tot[2]:6} {tot[3]:5}")
    if "--list" in sys.argv:
        print("\nfailed (lperf differs from wperf):")
        for line in failed:
            print("  " + line)
    print(f"wperf suite: {tot[1]} passed, {tot[2]} failed, {tot[3]} cannot apply")
    return 0 if tot[2] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
