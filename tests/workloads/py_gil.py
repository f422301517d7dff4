# The GIL's known answers (tests/e2e/t108-python-gil.sh), for CPython 2.7 and 3.6+.
#   py_gil.py run SECS: spin computes in pure Python (it holds the GIL), compress_loop compresses
#     1 MiB of random bytes with zlib, which lets the GIL go while it compresses (hashlib would
#     not on every build: without OpenSSL, as pyenv's 2.7 and 3.6 here, its own sha256 keeps
#     the GIL), the main thread sleeps; until each thread has had SECS s of CPU time (so that a
#     loaded machine gives as many samples, only later), 60 s more at most.
#   py_gil.py hold DIR: spin alone wants the GIL (nobody asks it to let go), the main thread
#     waits on a lock (without the GIL); DIR/ready once spin runs; until killed.
import os
import resource
import sys
import threading
import time
import zlib


# The calling thread's CPU time (RUSAGE_THREAD, 1 on Linux: 2.7's resource does not name it).
def thread_cpu():
    r = resource.getrusage(getattr(resource, "RUSAGE_THREAD", 1))
    return r.ru_utime + r.ru_stime


def spin(stop, ready, cpu=None):
    n = 0
    while not stop[0]:
        for i in range(10000):
            n += i * i
        if ready:
            open(ready, "w").close()
            ready = None
        if cpu is not None:
            cpu[0] = thread_cpu()
    return n


def compress_loop(stop, buf, cpu):
    while not stop[0]:
        zlib.compress(buf, 6)
        cpu[1] = thread_cpu()


def run(secs):
    stop = [False]
    cpu = [0.0, 0.0]
    buf = os.urandom(1 << 20)
    a = threading.Thread(target=spin, args=(stop, None, cpu))
    b = threading.Thread(target=compress_loop, args=(stop, buf, cpu))
    a.start()
    b.start()
    end = time.time() + secs + 60
    while min(cpu) < secs and time.time() < end:
        time.sleep(0.02)
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
