# Two Python threads, each spinning in its own function (spin_a, spin_b) under worker(): a
# sampler that finds the sampled thread's Python stack must never give one thread the other's.
# argv[1]: the loop count per thread (default 3000000).
import sys
import threading


def spin_a(n):
    x = 0
    for i in range(n):
        x += i


def spin_b(n):
    x = 0
    for i in range(n):
        x -= i


def worker(f, n):
    f(n)


N = int(sys.argv[1]) if len(sys.argv) > 1 else 3000000
threads = [threading.Thread(target=worker, args=(spin_a, N)), threading.Thread(target=worker, args=(spin_b, N))]
for t in threads:
    t.start()
for t in threads:
    t.join()
