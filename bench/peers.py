"""numpy (OpenBLAS) and FAISS peers of wgpu-prof's host kernels, on the
shapes of `wgpu-prof host`. Run with the venv bench/setup.sh
makes:

    bench/.venv/bin/python bench/peers.py [--runs 11] [--threads T] [SHAPE ...]

SHAPE is one of cosine-single-dram, cosine-single-resident, cosine-batch,
topk, hnsw (default: all). Threads are set with OMP_NUM_THREADS /
OPENBLAS_NUM_THREADS before numpy is imported (--threads). Every shape
prints the median, best and worst of the timed runs after one warm-up,
with the bytes counted the way wgpu-prof counts them (input rows read once).
"""
import argparse
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--ncached", type=int, default=2_000)
    ap.add_argument("--q", type=int, default=64)
    ap.add_argument("shapes", nargs="*")
    a = ap.parse_args()
    if a.runs < 1 or a.dim < 1 or a.n < 1 or a.ncached < 1 or a.q < 1:
        sys.exit("peers.py: --runs, --dim, --n, --ncached and --q must be positive")
    if a.threads > 0:
        for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[k] = str(a.threads)
    import numpy as np
    import faiss

    if a.threads > 0:
        faiss.omp_set_num_threads(a.threads)
    rng = np.random.default_rng(1)
    d = a.dim

    def timeit(name, fn, nbytes, flops=0.0, passes=1):
        fn()
        ts = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            for _ in range(passes):
                fn()
            ts.append((time.perf_counter() - t0) / passes)
        ts.sort()
        med = ts[len(ts) // 2] if len(ts) % 2 else (ts[len(ts) // 2 - 1] + ts[len(ts) // 2]) / 2
        line = f"{name} threads={a.threads or 'all'} bytes={nbytes:.0f} median={nbytes / med / 1e9:.2f} GB/s best={nbytes / ts[0] / 1e9:.2f} GB/s worst={nbytes / ts[-1] / 1e9:.2f} GB/s"
        if flops:
            line += f" median={flops / med / 1e9:.1f} GFLOP/s"
        print(line + f" runs={a.runs}", flush=True)

    shapes = a.shapes or ["cosine-single-dram", "cosine-single-resident", "cosine-batch", "topk", "hnsw"]
    big = None
    for s in shapes:
        if s in ("cosine-single-dram", "topk") and big is None:
            big = rng.standard_normal((a.n, d), dtype=np.float32)
            big /= np.linalg.norm(big, axis=1, keepdims=True)  # pre-normalised V
        q = rng.standard_normal(d, dtype=np.float32)
        q /= np.linalg.norm(q)
        if s == "cosine-single-dram":
            timeit("numpy-sgemv-dram", lambda: big @ q, big.nbytes)
        elif s == "cosine-single-resident":
            v = rng.standard_normal((a.ncached, d), dtype=np.float32)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            passes = max(1, (32 << 20) // v.nbytes)
            timeit("numpy-sgemv-resident", lambda: v @ q, v.nbytes, passes=passes)
        elif s == "cosine-batch":
            v = rng.standard_normal((20_000, d), dtype=np.float32)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            qs = rng.standard_normal((a.q, d), dtype=np.float32)
            timeit(f"numpy-sgemm-q{a.q}", lambda: qs @ v.T, v.nbytes, flops=2.0 * a.q * v.shape[0] * d)
        elif s == "topk":
            index = faiss.IndexFlatIP(d)
            index.add(big)
            qq = q.reshape(1, d)
            timeit("faiss-flatip-top10", lambda: index.search(qq, 10), big.nbytes)
        elif s == "hnsw":
            n, c = 65_536, 32
            base = rng.standard_normal((n, d), dtype=np.float32)
            qs = rng.standard_normal((a.q, d), dtype=np.float32)
            ids = rng.integers(0, n, size=(a.q, c))

            def hnsw():
                g = base[ids]  # (q, c, d) gathered candidates
                diff = g - qs[:, None, :]
                return np.einsum("qcd,qcd->qc", diff, diff)

            timeit(f"numpy-gather-l2-q{a.q}-c{c}", hnsw, 4.0 * a.q * c * d)
        else:
            sys.exit(f"peers.py: unknown shape {s!r}")


if __name__ == "__main__":
    main()
