# 20000 × 384 float32 around 40 cluster centres (σ 0.35), and 4 queries
# drawn the same way: vectors.npy and queries.npy in the current folder.
import numpy as np
rng = np.random.default_rng(7)
n, d, k = 20000, 384, 40
centers = rng.standard_normal((k, d)).astype(np.float32)
lab = rng.integers(0, k, n)
v = (centers[lab] + 0.35 * rng.standard_normal((n, d))).astype(np.float32)
q = (centers[rng.integers(0, k, 4)] + 0.35 * rng.standard_normal((4, d))).astype(np.float32)
np.save('vectors.npy', v)
np.save('queries.npy', q)
