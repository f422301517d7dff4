# Four Python threads in two processes, for every CPython 2.7 and 3.6+: a parent with two named
# threading.Threads ("worker-a" spins in spin_a, "worker-b" in spin_b) that forks while they run
# (as multiprocessing's fork start method does); the child's MainThread spins in child_work, the
# parent's in parent_work. argv[1]: the loop count of each (default 1000000).
import os
import sys
import threading


def spin_a(n):
    x = i = 0
    while i < n:
        x += i
        i += 1


def spin_b(n):
    x = i = 0
    while i < n:
        x -= i
        i += 1


def child_work(n):
    x = 0
    while n:
        x ^= n
        n -= 1


def parent_work(n):
    while n > 0:
        n -= 1


def worker(f, n):
    f(n)


N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
threads = [threading.Thread(name="worker-a", target=worker, args=(spin_a, N)),
           threading.Thread(name="worker-b", target=worker, args=(spin_b, N))]
for t in threads:
    t.start()
pid = os.fork()
if pid == 0:
    child_work(N)
    os._exit(0)
parent_work(N)
for t in threads:
    t.join()
os.waitpid(pid, 0)
