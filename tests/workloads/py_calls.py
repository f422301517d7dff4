# C code under known Python callers, for every CPython 2.7 and 3.6+: hashlib's SHA-256 under
# digest(), zlib's deflate under squeeze(), the list sort of sorted() under do_sort(), the json
# module's C encoder under JSONEncoder.iterencode under do_json(). argv[1]: rounds (default 100).
import hashlib
import json
import sys
import zlib

# sizes for a few ms each (SHA-256 of 8 MiB takes 4 ms with OpenSSL, 25 with CPython's own)
DATA = b"0123456789abcdef" * 524288
ZDATA = b"0123456789abcdef" * 131072
NUMBERS = [(i * 7919) % 100003 for i in range(150000)]
RECORDS = [{"id": i, "name": "item%d" % i, "tags": ["x", "y", "z"], "ok": i % 2 == 0} for i in range(10000)]


def digest():
    return hashlib.sha256(DATA).digest()


def squeeze():
    return zlib.compress(ZDATA, 9)


def do_sort():
    return sorted(NUMBERS)


def do_json():
    return json.dumps(RECORDS)


def main(rounds):
    for _ in range(rounds):
        digest()
        squeeze()
        do_sort()
        do_json()


main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
