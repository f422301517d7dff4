"""lperf's Python demo workload: the CPython perf-profiling documentation's example shape
(baz calls bar calls foo), so a profile shows Python function names in the stack."""
import sys


def foo(n):
    result = 0
    for _ in range(n):
        result += 1
    return result


def bar(n):
    foo(n)


def baz(n):
    bar(n)


if __name__ == "__main__":
    baz(int(sys.argv[1]) if len(sys.argv) > 1 else 10000000)
