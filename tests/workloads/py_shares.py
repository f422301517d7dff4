# A known answer for Python stacks: a() 60%, b() 30%, c() 10% of the pure-Python loop time, in
# short turns (a few ms each), and C code under known callers: hashlib's SHA-256 under
# digest(), zlib's deflate under squeeze(). argv[1]: rounds (default 300); argv[2]: a file to
# write the split each interpreter really gives to ("a 61.62", a line each, of the three's
# CPU time by time.thread_time: 3.11's is about 61.6/28.6/9.8, 3.8's 59.9/29.8/10.4).
import hashlib
import sys
import time
import zlib

UNIT = 20000
DATA = bytes(bytearray(range(256))) * 4096


def spin(n):
    x = 0
    for i in range(n):
        x += i
    return x


def a():
    return spin(6 * UNIT)


def b():
    return spin(3 * UNIT)


def c():
    return spin(1 * UNIT)


def digest():
    return hashlib.sha256(DATA).digest()


def squeeze():
    return zlib.compress(DATA, 6)


def main(rounds):
    t = {"a": 0.0, "b": 0.0, "c": 0.0}
    clock = getattr(time, "thread_time", None) or time.clock  # 2.7, 3.6: process CPU time
    for _ in range(rounds):
        s = clock()
        a()
        e = clock()
        digest()
        f = clock()
        b()
        g = clock()
        squeeze()
        h = clock()
        c()
        t["a"] += e - s
        t["b"] += g - f
        t["c"] += clock() - h
    return t


t = main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as out:
        for k, v in t.items():
            out.write("%s %.2f\n" % (k, 100 * v / sum(t.values())))
