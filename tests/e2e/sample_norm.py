#!/usr/bin/env python3
"""Normalises the output of lperf sample / wperf sample|record so that two runs compare equal:
counts, percentages, addresses and progress marks vary from run to run, the layout does not.
Keeps the hot-function table's header and the row of FUNC (other rows are the few samples that
land in the loader or the kernel), the annotate block of FUNC (line rows, with their first
instruction rows dropped: which instructions are sampled varies), the elapsed-time line with its
field width, and every fixed line but wperf record's base address line (timing decides whether
the run lasts until the first read after exec). With --json, prints the document's shape (keys and value
types; arrays as their first element). Usage: sample_norm.py [--json] FUNC FILE."""
import json
import re
import sys


def shape(v, key=None):
    """An overhead is a number that both WindowsPerf (a double through its C++ stream's default
    format) and lperf print without a fraction when it is whole ("overhead": 100 when every
    sample is in one function): its shape is float either way."""
    if isinstance(v, dict):
        return {k: shape(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(v[0])] if v else []
    if key == "overhead" and isinstance(v, (int, float)) and not isinstance(v, bool):
        return "float"
    return type(v).__name__


def text(func, lines):
    out = []
    block = None  # the annotate block being read: "keep" (FUNC's) or "skip"
    for ln in lines:
        ln = ln.rstrip("\n")
        if ln.startswith("base address of "):
            continue  # wperf record: printed at the first read after exec, if the run lasts that long
        m = re.match(r"^( *)([0-9]+\.[0-9]{3}) seconds time elapsed$", ln)
        if m:
            out.append("[%d] seconds time elapsed" % (len(m.group(1)) + len(m.group(2))))
            continue
        if re.match(r"^sampling [.e]*", ln):
            ln = re.sub(r"^sampling [.e]*", "sampling ...", ln)
        ln = re.sub(r"0x[0-9a-f]+", "0xH", ln)
        m = re.match(r"^ +[0-9.]+ +[0-9]+ +(\S+)$", ln)
        if m and block is None:
            if m.group(1).startswith(func + ":"):
                out.append("        P  N  " + m.group(1))
            continue
        m = re.match(r"^ *([0-9.]+%) +([0-9]+) +top ([0-9]+) in total$", ln)
        if m:
            out.append("P%  N  top K in total")
            continue
        if re.match(r"^[A-Za-z_][A-Za-z0-9_.@]*$", ln):
            block = "keep" if ln == func else "skip"
        elif ln == "" or ln.startswith("===") or ln.startswith("sample source code"):
            block = None if ln != "" else block
            if ln == "":
                block = None
        if block == "skip":
            continue
        if block == "keep":
            m = re.match(r"^ +([0-9?]+) +([0-9]+) +(\S+)( +[0-9a-f]+ +address +instruction)?$", ln)
            if m:
                ln = "        %s  N  %s%s" % (m.group(1), m.group(3).rsplit("/", 1)[-1],
                                              "  A  address  instruction" if m.group(4) else "")
            elif re.match(r"^ {20,}([0-9a-f]+ +\S.*)$", ln):
                continue  # one instruction of the line
            elif re.match(r"^ {20,}=+ +=+$", ln):
                continue  # the nested table's underline
            else:
                ln = re.sub(r" +", " ", ln)
        out.append(ln)
    # A line sampled at several instruction addresses gives several equal rows, and skipped blocks
    # leave runs of blank lines: keep one.
    dedup = []
    for ln in out:
        if not dedup or dedup[-1] != ln or not (ln.startswith("        ") or ln == ""):
            dedup.append(ln)
    return "\n".join(dedup) + "\n"


def main():
    args = sys.argv[1:]
    if args[0] == "--json":
        doc = json.load(open(args[2]))
        print(json.dumps(shape(doc), sort_keys=True))
        return
    sys.stdout.write(text(args[0], open(args[1])))


main()
