# The example of CPython's "Python support for the Linux perf profiler" page: <module> -> baz ->
# bar -> foo, with nearly all the time in foo's loop. argv[1]: the loop count (default 10000000).
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


baz(int(sys.argv[1]) if len(sys.argv) > 1 else 10000000)
