# A known answer for Python stacks: a() 60%, b() 30%, c() 10% of the pure-Python loop time, in
# short turns (a few ms each), and C code under known callers: hashlib's SHA-256 under
# digest(), zlib's deflate under squeeze(). argv[1]: rounds (default 300).
import hashlib
import sys
import zlib

UNIT = 20000
DATA = bytes(range(256)) * 4096


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
    for _ in range(rounds):
        a()
        digest()
        b()
        squeeze()
        c()


main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
