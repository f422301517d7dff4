# A program with a SIGURG handler of its own, profiled with its threads paused
# (tests/e2e/t131-python-sigurg.sh): lperf's per-thread CPU-time alarms signal SIGURG, which it
# takes for itself, and a SIGURG sent to the program while lperf traces it must still reach it,
# once. argv[1]: a file to write to: "ready" once it spins; "sent" after it saw a tracer and sent
# itself one SIGURG (kill, as another process would); "sigurg N" (the handler's calls) once no
# thread is traced any more and it spun a while more (a signal left pending at the release would
# be handled by then). argv[2]: threads hashing besides the main one (default 2). argv[3]: how
# many times to wait for a tracer to come and go (default 1); 0: lperf runs it, it is traced
# throughout (it sends itself the SIGURG after a while and ends with "sigurg N").
import hashlib
import os
import signal
import sys
import threading
import time

calls = 0


def on_urg(sig, frame):
    global calls
    calls += 1


def spin(n):
    x = 0
    for i in range(n):
        x += i
    return x


def traced():
    for t in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/status" % t) as f:
                for line in f:
                    if line.startswith("TracerPid:") and int(line.split()[1]):
                        return True
        except (IOError, OSError):
            pass
    return False


DATA = b"x" * (1 << 20)


def worker(stop):
    # hashing lets the GIL go: the threads run at once, each with its own alarms
    while not stop:
        hashlib.sha256(DATA).digest()
        spin(2000)


def say(path, text):
    with open(path, "a") as f:
        f.write(text + "\n")


def main():
    out = sys.argv[1]
    nthreads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    times = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    signal.signal(signal.SIGURG, on_urg)
    stop = []
    threads = [threading.Thread(target=worker, args=(stop,)) for _ in range(nthreads)]
    for t in threads:
        t.start()
    say(out, "ready")
    if not times:
        spin(3000000)
        os.kill(os.getpid(), signal.SIGURG)
        say(out, "sent")
        spin(3000000)
    for k in range(times):
        deadline = time.time() + 120
        while not traced() and time.time() < deadline:
            spin(20000)
        if k == 0:
            spin(200000)
            os.kill(os.getpid(), signal.SIGURG)
            say(out, "sent")
        while traced() and time.time() < deadline:
            spin(20000)
        end = time.time() + 0.3
        while time.time() < end:
            spin(20000)
        say(out, "released %d" % (k + 1))
    stop.append(1)
    for t in threads:
        t.join()
    say(out, "sigurg %d" % calls)


main()
