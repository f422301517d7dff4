# A program of a tenth of a second or so, computing from its first line: the exec record of its
# process reaches lperf's Python reader after the interpreter is torn down (t64).
def short_work(n):
    s = 0
    for i in range(n):
        s += i
    return s

short_work(3000000)
