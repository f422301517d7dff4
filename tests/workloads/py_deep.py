# A deep Python stack: deep(DEPTH) recurses to DEPTH frames of deep, then spins in leaf.
# argv[1]: DEPTH (default 124); argv[2]: the loop count in leaf (default 20000000); argv[3]:
# seconds to stay at that depth after leaf (sleeping: no CPU samples), default 0.
import sys
import time


def leaf(n):
    x = 0
    for i in range(n):
        x += i


def deep(d, n):
    if d <= 1:
        leaf(n)
        time.sleep(STAY)
    else:
        deep(d - 1, n)


D = int(sys.argv[1]) if len(sys.argv) > 1 else 124
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000000
STAY = float(sys.argv[3]) if len(sys.argv) > 3 else 0
sys.setrecursionlimit(D + 100); range = getattr(__builtins__, "xrange", range)  # 2.7: no list of N
deep(D, N)
