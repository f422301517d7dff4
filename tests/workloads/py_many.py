# Many Python threads for the paused sampler (tests/e2e/t120-python-paused-threads.sh): argv[1]
# threads alive at once, each spinning in work() for argv[2] iterations once all have started,
# while the main thread starts and joins argv[3] short-lived threads one after the other, each
# spinning in churn(); argv[4]: a file written once all are done ("done THREADS CHURNED"), and,
# with argv[5] (a path), the work and the churn go on in rounds until that path exists (argv[4]
# is then written once every thread has started: "started THREADS").
import os
import sys
import threading
import time


def spin(n):
    x = 0
    for i in range(n):
        x += i
    return x


def work(n):
    return spin(n)


def churn(n):
    return spin(n)


def until(path):
    return path is not None and os.path.exists(path)


def run(start, n, finish, stop):
    start.wait()
    work(n)
    while stop is not None and not until(stop):
        time.sleep(0.01)  # (the GIL left to the main thread now and then: it starts the others)
        work(n)
    finish.wait()


def main():
    nthreads, n, nchurn, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    stop = sys.argv[5] if len(sys.argv) > 5 else None
    start = threading.Barrier(nthreads + 1)
    finish = threading.Barrier(nthreads + 1)
    threads = [threading.Thread(target=run, args=(start, n, finish, stop)) for _ in range(nthreads)]
    for t in threads:
        t.start()
    start.wait()
    if stop is not None:
        with open(out + ".tmp", "w") as f:
            f.write("started %d\n" % nthreads)
        os.rename(out + ".tmp", out)
    churned = 0
    while churned < nchurn or (stop is not None and not until(stop)):
        t = threading.Thread(target=churn, args=(n // 4,))
        t.start()
        t.join()
        churned += 1
    finish.wait()
    for t in threads:
        t.join()
    with open(out, "w") as f:
        f.write("done %d %d\n" % (nthreads, churned))


main()
