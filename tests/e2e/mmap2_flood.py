#!/usr/bin/env python3
"""A flood of MMAP2 records (tests/e2e/t81-mmap-flood.sh; issue 28).

mmap2_flood.py LPERF PIPE N: PIPE is a pipe-mode recording (lperf record -o -) holding an MMAP2
record. Writes two streams: PIPE followed by N copies of that record for its process at N
distinct addresses (a hostile recording's million mappings: each an insert into the address
space), and the same followed by N copies all at one address (each replaces the last: the same
bytes to read and parse, the same per-record work, but an address space of one map). Runs
`LPERF report -i STREAM --stdio --sort dso` on each and prints the CPU seconds (user + system) of
each as "distinct=S same=S". Both run on the same machine under the same load, so their ratio
does not depend on the machine, its load or ASan; a sorted array that shifts on every insert
(296 s for 1,000,000) makes it hundreds."""
import os
import resource
import struct
import subprocess
import sys
import tempfile


def first_mmap2(b):
    i = 16
    while i + 8 <= len(b):
        t, _misc, size = struct.unpack_from("<IHH", b, i)
        if size < 8:
            break
        if t == 10:  # PERF_RECORD_MMAP2
            return bytearray(b[i:i + size])
        i += size
    sys.exit("no MMAP2 record in the stream")


def flood(base, rec, n, distinct, path):
    with open(path, "wb") as f:
        f.write(base)
        out = bytearray()
        for k in range(n):
            addr = 0x100000000 + (k * 0x2000 if distinct else 0)
            struct.pack_into("<QQQ", rec, 16, addr, 0x1000, 0)
            out += rec
            if len(out) > 1 << 22:
                f.write(out)
                out = bytearray()
        f.write(out)


def cpu_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    lperf, pipe, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    base = open(pipe, "rb").read()
    rec = first_mmap2(base)
    d = tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(pipe)))
    times = {}
    for kind in ("distinct", "same"):
        path = os.path.join(d, kind + ".data")
        flood(base, rec, n, kind == "distinct", path)
        times[kind] = cpu_of([lperf, "report", "-i", path, "--stdio", "--sort", "dso"])
        os.unlink(path)
    os.rmdir(d)
    print("distinct=%.2f same=%.2f" % (times["distinct"], times["same"]))


if __name__ == "__main__":
    main()
