# A long-running Python service of known shares: work_a, work_b and work_c run the same loop for
# 50%, 30% and 20% of the iterations, in small interleaved slices, until killed (or for argv[1]
# seconds of wall time); with argv[2], that file is created once the first round has run (the
# interpreter is up: a profiler may attach). For lperf daemon's Python sessions (t83-pprof-dir).
import sys
import time


def spin(n):
    x = 1
    for _ in range(n):
        x = (x * 48271) % 2147483647
    return x


def work_a(n):
    return spin(n)


def work_b(n):
    return spin(n)


def work_c(n):
    return spin(n)


def serve(seconds, ready):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        work_a(5000)
        work_b(3000)
        work_c(2000)
        if ready:
            open(ready, "w").close()
            ready = None


serve(float(sys.argv[1]) if len(sys.argv) > 1 else 1e9, sys.argv[2] if len(sys.argv) > 2 else None)
