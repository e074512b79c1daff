"""CUDA peers of wgpu-prof's GPU figures on the same card: what the vendor's
own stack reaches on the shapes wgpu-prof measures, so every WebGPU figure
can be set beside a CUDA one as a ratio.

    python3 cuda_peers.py [--runs 21] [--dim 768] [--n 4194304] [--q 64]
                          [--bytes 2147483648] [--k 10] [--json OUT.json]

Needs CuPy (and PyTorch for the top-k line) on a machine with an NVIDIA GPU.
Every figure is the median of --runs timed repeats after one warm-up, timed
with CUDA events on the default stream, with its best and worst; bytes and
flops are counted the way wgpu-prof counts them (each input read once, each
output written once; 2 flops per multiply-add):

  copy       device-to-device copy of --bytes: 2·bytes moved
  read       a sum over --bytes of float32 (cupy.sum): bytes read
  sgemv      cuBLAS sgemv, the cosine-single shape: V (n × dim) @ q
  sgemm      cuBLAS sgemm, the cosine-batch shape: V (n × dim) @ Qᵀ (dim × q)
  topk       torch.topk(k) of the n scores of one query
  topk-batch torch.topk(k) of q rows of n scores

Rows of V are pre-normalised, as cosine similarity then is a dot product:
the CUDA figures are a bound the WGSL kernels (which also normalise) are
compared against, not the same work. Results are checked against float64
references on a sample before any timing.
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--n", type=int, default=4 * 1024 * 1024)
    ap.add_argument("--q", type=int, default=64)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--bytes", type=int, default=2 << 30)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    for name in ("runs", "dim", "n", "q", "k", "bytes"):
        if getattr(a, name) < 1:
            sys.exit(f"cuda_peers.py: --{name} = {getattr(a, name)}: must be ≥ 1")
    if a.k > a.n:
        sys.exit(f"cuda_peers.py: --k = {a.k} > --n = {a.n}")
    try:
        import cupy as cp
        import numpy as np
    except ImportError as e:
        sys.exit(f"cuda_peers.py: CuPy is needed ({e})")

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    info = {
        "device": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cuda_driver": cp.cuda.runtime.driverGetVersion(),
        "cupy": cp.__version__,
    }
    rows = []

    def timeit(name, fn, nbytes, flops=0.0, shape=""):
        fn()
        cp.cuda.Device().synchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        ts = []
        for _ in range(a.runs):
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            ts.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        ts.sort()
        med = ts[len(ts) // 2]
        row = {"name": name, "shape": shape, "bytes": nbytes, "flops": flops, "runs": a.runs,
               "median_s": med, "best_s": ts[0], "worst_s": ts[-1],
               "gb_per_s": nbytes / med / 1e9}
        if flops:
            row["gflop_per_s"] = flops / med / 1e9
        rows.append(row)
        line = f"{name:<11} {shape:<28} {nbytes / med / 1e9:10.1f} GB/s (best {nbytes / ts[0] / 1e9:.1f}, worst {nbytes / ts[-1] / 1e9:.1f})"
        if flops:
            line += f"  {flops / med / 1e9:10.1f} GFLOP/s"
        print(line, flush=True)

    def check(name, got, want, tol):
        got = np.asarray(got, dtype=np.float64)
        err = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
        if not np.isfinite(err) or err > tol:
            sys.exit(f"cuda_peers.py: {name} failed its check: max relative error {err:.3g} > {tol:.3g}")

    # Bandwidth: copy and read of --bytes.
    n_el = a.bytes // 4
    src = cp.random.random(n_el, dtype=cp.float32)
    dst = cp.empty_like(src)
    cp.copyto(dst, src)
    sample = np.random.default_rng(2).integers(0, n_el, 4096)
    check("copy", cp.asnumpy(dst[sample]), cp.asnumpy(src[sample]).astype(np.float64), 0)
    timeit("copy", lambda: cp.copyto(dst, src), 2.0 * 4 * n_el, shape=f"{n_el} f32")
    want = float(cp.sum(src, dtype=cp.float64))
    check("read", [float(cp.sum(src))], want, 1e-3)
    timeit("read", lambda: cp.sum(src), 4.0 * n_el, shape=f"{n_el} f32")
    del src, dst
    cp.get_default_memory_pool().free_all_blocks()

    # cuBLAS on the cosine shapes, rows pre-normalised.
    d, n, q = a.dim, a.n, a.q
    v = cp.random.standard_normal((n, d), dtype=cp.float32)
    v /= cp.linalg.norm(v, axis=1, keepdims=True)
    qv = cp.random.standard_normal(d, dtype=cp.float32)
    qv /= cp.linalg.norm(qv)
    qs = cp.random.standard_normal((q, d), dtype=cp.float32)
    qs /= cp.linalg.norm(qs, axis=1, keepdims=True)
    pick = np.random.default_rng(3).integers(0, n, 64)
    vs = cp.asnumpy(v[pick]).astype(np.float64)
    s1 = v @ qv
    check("sgemv", cp.asnumpy(s1[pick]), vs @ cp.asnumpy(qv).astype(np.float64), 1e-4)
    timeit("sgemv", lambda: v @ qv, 4.0 * (n * d + d + n), 2.0 * n * d, shape=f"n={n} d={d}")
    sq = v @ qs.T
    check("sgemm", cp.asnumpy(sq[pick]), vs @ cp.asnumpy(qs).astype(np.float64).T, 1e-4)
    timeit("sgemm", lambda: v @ qs.T, 4.0 * (n * d + q * d + q * n), 2.0 * n * d * q, shape=f"n={n} d={d} q={q}")

    try:
        import torch
    except ImportError:
        print("topk: skipped (PyTorch not installed)", flush=True)
    else:
        info["torch"] = torch.__version__
        t1 = torch.as_tensor(s1, device="cuda")
        tq = torch.as_tensor(sq.T.copy(), device="cuda")  # q rows of n scores
        vals, _ = torch.topk(t1, a.k)
        want = np.sort(cp.asnumpy(s1).astype(np.float64))[::-1][: a.k]
        check("topk", vals.cpu().numpy(), want, 1e-6)
        timeit("topk", lambda: torch.topk(t1, a.k), 4.0 * n + 8.0 * a.k, shape=f"n={n} k={a.k}")
        timeit("topk-batch", lambda: torch.topk(tq, a.k, dim=1), 4.0 * q * n + 8.0 * q * a.k, shape=f"q={q} n={n} k={a.k}")

    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "wgpu-prof-cuda-peers/v1", "info": info, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
