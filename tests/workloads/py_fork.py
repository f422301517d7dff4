# A Python that forks (as multiprocessing's fork start method does): the child spins in
# child_work, the parent in parent_work. argv[1]: the loop count of each (default 5000000);
# argv[2]: the child's alone (a child that exits quickly).
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
NC = int(sys.argv[2]) if len(sys.argv) > 2 else N
pid = os.fork()
if pid == 0:
    child_work(NC)
    os._exit(0)
parent_work(N)
os.waitpid(pid, 0)
