# A Python that forks (as multiprocessing's fork start method does): the child spins in
# child_work, the parent in parent_work. argv[1]: the loop count of each (default 5000000).
import os
import sys


def child_work(n):
    x = 0
    for i in range(n):
        x += i


def parent_work(n):
    x = 0
    for i in range(n):
        x -= i


N = int(sys.argv[1]) if len(sys.argv) > 1 else 5000000
pid = os.fork()
if pid == 0:
    child_work(N)
    os._exit(0)
parent_work(N)
os.waitpid(pid, 0)
