# Known lines for the Python view's labels (tests/e2e/t109-python-lines.sh): work() spends its
# time in two one-line loops of equal cost per turn, LOOP_A twice as many turns as LOOP_B, so
# samples in work fall on line 10 and line 12 as 2:1; main calls work on line 17, <module>
# calls main on line 20. argv[1]: LOOP_B's turns per call (default 200000).
import sys


def work(n):
    i, m = 0, 2 * n
    while i < m: i += 1  # noqa: E701 (line 10, LOOP_A)
    j = 0
    while j < n: j += 1  # noqa: E701 (line 12, LOOP_B)
    return i + j


def main(n, calls):
    for _ in range(calls): work(n)  # noqa: E701 (line 17)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 200000, int(sys.argv[2]) if len(sys.argv) > 2 else 100)
