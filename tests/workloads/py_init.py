"""A class whose __init__ is Python and does the work: on 3.13 the interpreter calls it through
its _Py_InitCleanup shim frame, which profiles must not show (tests/e2e/t109-python-lines.sh)."""
import sys


class Point:
    def __init__(self, n):
        s = 0
        for i in range(n):
            s += i
        self.s = s


def main(turns):
    t = 0
    for _ in range(turns):
        t += Point(1000).s
    return t


main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
