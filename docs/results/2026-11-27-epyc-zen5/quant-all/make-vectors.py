# 20000 × 384 float32 rows and 64 queries around the same 64 clusters
# (σ 0.35), as ../quant/make-vectors.py, written as NumPy .npy files.
import random, struct, sys
random.seed(7)
n, d, k, nq = 20000, 384, 64, 64
cent = [[random.gauss(0, 1) for _ in range(d)] for _ in range(k)]

def write(path, rows):
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, d)
    hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode())
        for _ in range(rows):
            c = cent[random.randrange(k)]
            f.write(struct.pack('<%df' % d, *[x + 0.35 * random.gauss(0, 1) for x in c]))

out = sys.argv[1] if len(sys.argv) > 1 else '/tmp'
write(out + '/emb.npy', n)
write(out + '/queries.npy', nq)
