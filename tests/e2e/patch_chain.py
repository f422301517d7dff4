"""Patches call chains of a perf.data file, to reproduce chains seen in the wild.
  patch_chain.py IN OUT EVERY minus1      [PERF_CONTEXT_USER, ip, X] -> X = 0xffffffffffffffff
  patch_chain.py IN OUT EVERY kaddr ADDR  the outermost kernel entry of a kernel chain -> ADDR
Every EVERY-th matching sample is patched; prints how many were."""
import struct
import sys

src, dst, every, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
kaddr = int(sys.argv[5], 16) if mode == 'kaddr' else 0
b = bytearray(open(src, 'rb').read())
assert b[:8] == b'PERFILE2', 'not a perf.data file'
off, size = struct.unpack_from('<QQ', b, 40)
KERNEL, USER = 0xffffffffffffff80, 0xfffffffffffffe00
pos, end, n, patched = off, off + size, 0, 0
while pos + 8 <= end:
    typ, misc, sz = struct.unpack_from('<IHH', b, pos)
    if sz == 0:
        break
    if typ == 9:  # PERF_RECORD_SAMPLE: find the chain by its first context entry
        for o in range(pos + 8, pos + sz - 24, 8):
            nr, first = struct.unpack_from('<QQ', b, o)
            if mode == 'minus1' and first == USER and nr == 3:
                n += 1
                if n % every == 0:
                    struct.pack_into('<Q', b, o + 8 + 16, 0xffffffffffffffff)
                    patched += 1
                break
            if mode == 'kaddr' and first == KERNEL and 3 <= nr < 256 and o + 8 + 8 * nr <= pos + sz:
                ents = struct.unpack_from('<%dQ' % nr, b, o + 8)
                last = max(i for i in range(1, nr) if ents[i] < 0xfffffffffffff000 and
                           (i + 1 == nr or ents[i + 1] >= 0xfffffffffffff000 or i == nr - 1))
                n += 1
                if n % every == 0 and last >= 2:
                    struct.pack_into('<Q', b, o + 8 + 8 * last, kaddr)
                    patched += 1
                break
    pos += sz
open(dst, 'wb').write(b)
print(patched)
