# The example of CPython's "Python support for the Linux perf profiler" page: <module> -> baz ->
# bar -> foo, nearly all the time in foo's loop (2.7: xrange, not a list). argv[1]: loop count.
import sys
if sys.version_info[0] < 3: range = xrange  # noqa: F821 (2.7: lazy, as 3's; not a list of n ints)

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
