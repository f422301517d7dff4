# A known answer for Python profiles: work_a, work_b and work_c take 60%, 30% and 10% of the
# CPU time (the same loop, 6, 3 and 1 times as long), in ROUNDS rounds of a, b, c, so that a
# sampler that joins samples with the wrong instant's stack mixes them up. Each loop is on one
# line (14, 20, 26), so every sample in a work function names that line; <module> calls them
# from lines 35, 37 and 39. argv[1]: ROUNDS (default 400); argv[2]: the loop count of work_c
# per round (default 20000); argv[3]: a file to write each function's measured share of the
# thread's CPU time to ("work_a 60.12", a line each), the answer an interpreter really gives.
import sys
import time


def work_a(n):
    x = 0
    for i in range(6 * n): x += 1  # noqa: E701
    return x


def work_b(n):
    x = 0
    for i in range(3 * n): x += 1  # noqa: E701
    return x


def work_c(n):
    x = 0
    for i in range(n): x += 1  # noqa: E701
    return x


R = int(sys.argv[1]) if len(sys.argv) > 1 else 400
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
t = {"work_a": 0.0, "work_b": 0.0, "work_c": 0.0}
for _ in range(R):
    s = time.thread_time()
    work_a(N)
    e = time.thread_time()
    work_b(N)
    f = time.thread_time()
    work_c(N)
    t["work_a"] += e - s
    t["work_b"] += f - e
    t["work_c"] += time.thread_time() - f
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as out:
        for k, v in t.items():
            out.write("%s %.2f\n" % (k, 100 * v / sum(t.values())))
