#!/usr/bin/env python3
"""A gzipped pprof (profile.proto) decoded from the protobuf wire format, independently of
lperf's writer (src/output/pprof.c), one line per item:
  type NAME UNIT              per sample_type, in order
  time_nanos N / duration_nanos N
  sample V1 V2 ... | key=value,... | outer;...;leaf     (function names, outermost first)
With --folded instead: the samples as report --folded prints them, "COMM;outer;...;leaf COUNT"
(functions' system names, the first value summed over the labels other than comm), sorted.
With --lines: the same from the structured fields alone, a Python function (its file ends in .py
or is CPython's "<frozen ...>")
named py-spy's way from its name, its file's name and the location's Line, "func (file.py:LINE)",
as report --python --folded names it.
Any malformed field (truncated varint, a length past the end, an index outside the string table,
a location or function id that is not defined) is an error (exit 1).
  pprof_decode.py [--folded | --lines] FILE.pb.gz"""
import gzip, sys



class Bad(Exception):
    pass


def varint(b, i):
    v = s = 0
    while True:
        if i >= len(b) or s > 63:
            raise Bad("truncated varint at %d" % i)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """(field, wire type, value) of a message: ints for varints, bytes for length-delimited."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise Bad("field %d: length %d past the end" % (f, n))
            v, i = b[i:i + n], i + n
        elif wt in (1, 5):  # fixed64, fixed32: pprof has none, skipped
            v, i = b[i:i + (8 if wt == 1 else 4)], i + (8 if wt == 1 else 4)
            if i > len(b):
                raise Bad("field %d: truncated" % f)
        else:
            raise Bad("field %d: wire type %d" % (f, wt))
        out.append((f, wt, v))
    return out


def ints(wt, v):
    """A repeated integer field: packed (bytes) or one varint."""
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def main():
    folded = sys.argv[1] in ("--folded", "--lines")
    by_line = sys.argv[1] == "--lines"
    raw = gzip.open(sys.argv[-1]).read()
    top = fields(raw)
    strings = [v.decode("utf-8") for f, wt, v in top if f == 6]
    if not strings or strings[0] != "":
        raise Bad("string table does not start with \"\"")

    def s(i):
        if i >= len(strings):
            raise Bad("string index %d outside the table (%d)" % (i, len(strings)))
        return strings[i]

    funcs, locs, files = {}, {}, {}
    for f, wt, v in top:
        if f == 5:
            d = {k: x for k, _, x in fields(v)}
            funcs[d.get(1, 0)] = s(d.get(3 if folded and not by_line else 2, 0))
            files[d.get(1, 0)] = s(d.get(4, 0))
        elif f == 4:
            d = fields(v)
            lid = next((x for k, _, x in d if k == 1), 0)
            locs[lid] = [(next((x for k, _, x in fields(ln) if k == 1), 0),
                          next((x for k, _, x in fields(ln) if k == 2), 0)) for k, _, ln in d if k == 4]
    for f, wt, v in top:
        if folded:
            break
        if f == 1:
            d = {k: x for k, _, x in fields(v)}
            print("type", s(d.get(1, 0)), s(d.get(2, 0)))
        elif f in (9, 10):
            print("time_nanos" if f == 9 else "duration_nanos", v)
    lines = {}
    for f, wt, v in top:
        if f != 2:
            continue
        ids, vals, labels = [], [], []
        for k, kwt, x in fields(v):
            if k == 1:
                ids += ints(kwt, x)
            elif k == 2:
                vals += ints(kwt, x)
            elif k == 3:
                d = {a: y for a, _, y in fields(x)}
                labels.append("%s=%s" % (s(d.get(1, 0)), s(d[2]) if 2 in d else d.get(3, 0)))
        names = []
        for i in ids:
            if i not in locs:
                raise Bad("sample: location %d is not defined" % i)
            for fid, line in locs[i]:
                if fid not in funcs:
                    raise Bad("location %d: function %d is not defined" % (i, fid))
                if by_line and (files[fid].endswith(".py") or files[fid].startswith("<")):
                    parts = files[fid].split("/")
                    base = "/".join(parts[-2:]) if len(parts) > 1 and parts[-1] in ("__init__.py", "__main__.py") \
                        else parts[-1]
                    names.append("%s (%s:%d)" % (funcs[fid], base, line) if line else
                                 "%s (%s)" % (funcs[fid], base))
                else:
                    names.append(funcs[fid])
        if not folded:
            print("sample", " ".join(map(str, vals)), "|", ",".join(labels), "|", ";".join(reversed(names)))
            continue
        comm = next((x[5:] for x in labels if x.startswith("comm=")), "")
        key = ";".join([comm] + list(reversed(names)))
        lines[key] = lines.get(key, 0) + (vals[0] if vals else 0)
    for key in sorted(lines):
        print(key, lines[key])


if __name__ == "__main__":
    try:
        main()
    except (Bad, OSError, UnicodeDecodeError, EOFError) as e:
        sys.exit("%s: %s" % (sys.argv[-1], e))
