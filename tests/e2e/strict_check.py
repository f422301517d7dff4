#!/usr/bin/env python3
"""Strict readers for lperf's picture and JSON outputs (tests/e2e/t74-bad-names.sh).

strict_check.py FILE...: each file (by its name: .svg, .html, .json, .json.gz, .pb.gz) must
  - decode as UTF-8 strictly (no surrogates, no bytes 0xC0/0xC1/0xF5..0xFF, no overlong forms),
  - hold no noncharacter U+FFFE/U+FFFF and show U+FFFD where the names were damaged,
  - parse: SVG as XML (ElementTree), JSON by a reader stricter than RFC 8259 asks (no NaN or
    Infinity, no duplicate keys, no escaped lone surrogates such as "\\ud800", no
    noncharacters), pprof as protobuf whose string table (Profile field 6) decodes strictly.
Prints one line per file; exit status 1 at the first failure."""
import gzip
import json
import re
import sys
import xml.etree.ElementTree as ET

from pprof_decode import Bad, fields  # the same directory: protobuf's wire format


def text_ok(name, t):
    for ch in ("\ufffe", "\uffff"):
        if ch in t:
            raise Bad(f"{name}: holds U+{ord(ch):04X}")
    if re.search("[\ud800-\udfff]", t):
        raise Bad(f"{name}: holds a lone surrogate")


def no_constants(c):
    raise Bad(f"non-standard constant {c}")


def unique(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Bad(f"duplicate keys in {keys}")
    return dict(pairs)


def walk(name, v):
    if isinstance(v, str):
        v.encode("utf-8")  # raises on a lone surrogate a "\ud800" escape made
        text_ok(name, v)
    elif isinstance(v, dict):
        for k, x in v.items():
            walk(name, k)
            walk(name, x)
    elif isinstance(v, list):
        for x in v:
            walk(name, x)


def pprof_strings(b):
    """The string table of a pprof Profile message (field 6, length-delimited)."""
    return [v.decode("utf-8") for f, wt, v in fields(b) if f == 6 and wt == 2]


def check(path):
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    if path.endswith(".pb.gz"):
        strings = pprof_strings(raw)
        for s in strings:
            text_ok(path, s)
        if not any("\ufffd" in s for s in strings):
            raise Bad(f"{path}: no U+FFFD in the string table: the names were not replaced")
        return f"{len(strings)} strings"
    t = raw.decode("utf-8")  # strict
    text_ok(path, t)
    if path.endswith(".svg"):
        ET.fromstring(raw)
    if path.endswith(".json") or path.endswith(".json.gz"):
        v = json.loads(t, parse_constant=no_constants, object_pairs_hook=unique)
        walk(path, v)
        t = json.dumps(v, ensure_ascii=False)
    if "\ufffd" not in t:
        raise Bad(f"{path}: no U+FFFD: the names were not replaced")
    return f"{len(raw)} bytes"


def main():
    for p in sys.argv[1:]:
        try:
            print(f"ok {p}: {check(p)}")
        except (Bad, UnicodeError, ValueError, ET.ParseError) as e:
            print(f"FAIL {p}: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
