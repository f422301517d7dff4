import struct, sys
# Replaces the last entry of 3-entry user call chains [PERF_CONTEXT_USER, ip, X] with -1 in every
# Nth sample of a perf.data file (as seen in the wild); prints the times of the patched samples.
src, dst, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
assert b[:8] == b'PERFILE2'
off, size = struct.unpack_from('<QQ', b, 40)
USER = 0xfffffffffffffe00
pos, end, n, patched = off, off + size, 0, 0
while pos + 8 <= end:
    typ, misc, sz = struct.unpack_from('<IHH', b, pos)
    if sz == 0:
        break
    if typ == 9:
        for o in range(pos + 8, pos + sz - 24, 8):
            nr, first = struct.unpack_from('<QQ', b, o)
            if first == USER and nr == 3:
                n += 1
                if n % every == 0:
                    struct.pack_into('<Q', b, o + 8 + 16, 0xffffffffffffffff)
                    patched += 1
                break
    pos += sz
open(dst, 'wb').write(b)
print(patched)
