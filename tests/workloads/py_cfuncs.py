# CPython's own C code under known Python callers (tests/e2e/t116-python-paused.sh): sorted's list
# sort (list_sort) under sort_them(), the json module's C encoder (encoder_listencode_*) under
# JSONEncoder.iterencode called through json.dumps by encode_them(). argv[1]: rounds (default 20).
import json
import random
import sys

rng = random.Random(1)
NUMS = [rng.random() for _ in range(100000)]
OBJ = [{"k": i, "s": "v%d" % i, "l": [i, i + 1]} for i in range(20000)]


def sort_them():
    return sorted(NUMS)


def encode_them():
    return json.dumps(OBJ)


def main(rounds):
    for _ in range(rounds):
        sort_them()
        encode_them()


main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
