# The GIL's known answers (tests/e2e/t108-python-gil.sh), for CPython 2.7 and 3.6+.
#   py_gil.py run SECS: spin computes in pure Python (it holds the GIL), compress_loop compresses
#     1 MiB of random bytes with zlib, which lets the GIL go while it compresses (hashlib would
#     not on every build: without OpenSSL, as pyenv's 2.7 and 3.6 here, its own sha256 keeps
#     the GIL), the main thread sleeps; SECS s.
#   py_gil.py hold DIR: spin alone wants the GIL (nobody asks it to let go), the main thread
#     waits on a lock (without the GIL); DIR/ready once spin runs; until killed.
import os
import sys
import threading
import time
import zlib


def spin(stop, ready):
    n = 0
    while not stop[0]:
        for i in range(10000):
            n += i * i
        if ready:
            open(ready, "w").close()
            ready = None
    return n


def compress_loop(stop, buf):
    while not stop[0]:
        zlib.compress(buf, 6)


def run(secs):
    stop = [False]
    buf = os.urandom(1 << 20)
    a = threading.Thread(target=spin, args=(stop, None))
    b = threading.Thread(target=compress_loop, args=(stop, buf))
    a.start()
    b.start()
    time.sleep(secs)
    stop[0] = True
    a.join()
    b.join()


def hold(ready_dir):
    stop = [False]
    a = threading.Thread(target=spin, args=(stop, os.path.join(ready_dir, "ready")))
    a.daemon = True
    a.start()
    lock = threading.Lock()
    lock.acquire()
    lock.acquire()  # waits until killed, without the GIL


if sys.argv[1] == "run":
    run(float(sys.argv[2]))
else:
    hold(sys.argv[2])
