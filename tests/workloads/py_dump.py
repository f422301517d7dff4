# Threads that sit in known functions at known lines, for lperf dump (tests/e2e/t107-python-dump.sh).
# Runs on CPython 2.7 and 3.6+. argv[1]: a directory where each thread, once in place, leaves a
# file named after it (and "pipe", the number of the pipe's write end: writing 3 bytes to it
# ends the run, exit 0); the line that writes it is the line the thread then stays on (blocked
# reading a pipe nobody writes, or spinning), so a dump taken after the file exists is exact.
# Lines are found by the test from the "# L_" markers: keep each marker on its statement.
# leaf_a, mid_a and block hold locals of known types and values (the --locals check in
# tests/e2e/pydump_check.py, which lists them): keep the two in step.
import functools
import os
import sys
import threading

READY = sys.argv[1]
r, w = os.pipe()


def name_self(name):
    tid = os.readlink('/proc/thread-self').split('/')[-1]
    with open('/proc/self/task/%s/comm' % tid, 'w') as f:
        f.write(name)


def block(tag):
    open(os.path.join(READY, tag), 'w').close(); os.read(r, 1)  # L_BLOCK


def leaf_a(count, *rest, **kw):
    small = -12345
    big = 2 ** 100
    neg_big = -(2 ** 70)
    ratio = 1.5
    tiny = 1e-07
    text = 'caf\xe9'
    wide = u'\u20ac\xe9'
    astral = u'\U0001f600'
    raw = b'\x00ab'
    quote = "it's"
    nothing = None
    flag = True
    items = [1, 2, 3]
    table = {'a': 1, 'b': 2}
    pair = (1, 2)
    thing = object()
    long_text = 'x' * 500
    block('dump-a')  # L_LEAF_A


def mid_a():
    captured = 7

    def inner():
        return captured
    leaf_a(3, 'r', k=1)  # L_MID_A


def worker_a():
    name_self('dump-a')
    mid_a()  # L_WORKER_A


def sort_key(x):
    # called for 2, then (once the pipe is written) for 1: only the first call blocks
    if x == 2:
        block('dump-b')  # L_SORT_KEY
    return x


def worker_b():
    # sorted (C) calls sort_key: dump --native shows sorted's C frames between the two
    name_self('dump-b')
    sorted([2, 1], key=sort_key)  # L_WORKER_B


def spin_loop(acts):
    # acts[1000] creates the ready file (a C call, from this line); every other step calls int.
    # No branch: each instruction of the loop is on this line in every version's line table.
    n = 0
    while True: n += 1; acts.get(n, int)()  # L_SPIN


def spinner():
    name_self('dump-spin')
    spin_loop({1000: functools.partial(open, os.path.join(READY, 'dump-spin'), 'w')})  # L_SPINNER


def main():
    # Python names unlike the kernel's (name_self): lperf dump shows these. Worker B's attributes
    # are made a dict of their own (3.11+ keep them without one until __dict__ is asked for).
    for fn, name in ((worker_a, 'Worker A'), (worker_b, 'Worker B'), (spinner, 'Spinner')):
        t = threading.Thread(target=fn, name=name)
        if fn is worker_b:
            t.__dict__['extra'] = 1
        t.daemon = True
        t.start()
    name_self('dump-main')
    with open(os.path.join(READY, 'pipe'), 'w') as f:
        f.write('%d\n' % w)
    block('dump-main')  # L_MAIN


main()  # L_MODULE
