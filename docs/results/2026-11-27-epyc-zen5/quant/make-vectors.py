import random, struct, math
random.seed(7)
n, d, k = 20000, 384, 64
cent = [[random.gauss(0,1) for _ in range(d)] for _ in range(k)]
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (n, d)
hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
with open('/tmp/q_emb.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode())
    for i in range(n):
        c = cent[random.randrange(k)]
        f.write(struct.pack('<%df' % d, *[x + 0.35*random.gauss(0,1) for x in c]))
