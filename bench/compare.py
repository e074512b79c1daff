"""compare.py: wgpu-prof's host measurements and their peers, run right
after each other on the same sizes, round after round.

    bench/setup.sh                       # venv with numpy + faiss-cpu, C peer
    bench/.venv/bin/python bench/compare.py [--rounds 5] [--threads T] [PAIR ...]

Each round runs, for every PAIR, the Go benchmark (the hostsimd test
binary, built once) and then its peer, and prints both rates and their
ratio; the end prints each ratio's median and range over the rounds.
PAIRs: read-dram, read-cache, single-dram, scaling, single-resident,
batch, topk, hnsw (default: all). Both sides quote medians of 10-11 short
timed runs (Go: -test.count 11 of a short -test.benchtime), the read
ceilings the best of 7 passes each (see peer.c, peers.py).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
TESTBIN = os.path.join(OUT, "hostsimd.test")
PEER = os.path.join(OUT, "peer")
PY = sys.executable


def run(cmd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, capture_output=True, text=True, env=e, cwd=ROOT)
    if r.returncode != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def gobench(pattern, benchtime, unit="GB/s", count=11):
    """Runs the hostsimd test binary's benchmarks matching pattern count
    times (short runs, like the peers' timed runs) and returns
    {name: median rate} for the metric unit."""
    out = run([TESTBIN, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime, "-test.count", str(count)])
    res = {}
    for line in out.splitlines():
        m = re.match(r"^(Benchmark\S+)\s+\d+\s+.*?([\d.]+) " + re.escape(unit) + r"(\s|$)", line)
        if m:
            res.setdefault(m.group(1), []).append(float(m.group(2)))
    if not res:
        sys.exit(f"compare.py: no {unit} in benchmark output for {pattern}:\n{out}")
    return {k: statistics.median(v) for k, v in res.items()}


def peerrate(out, key="median", unit="GB/s"):
    m = re.search(key + r"=([\d.]+) " + re.escape(unit), out)
    if not m:
        sys.exit(f"compare.py: no {key} {unit} in peer output:\n{out}")
    return float(m.group(1))


def one(res):
    (v,) = res.values()
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("pairs", nargs="*")
    a = ap.parse_args()
    if a.rounds < 1 or a.threads < 1:
        sys.exit("compare.py: --rounds and --threads must be positive")
    os.makedirs(OUT, exist_ok=True)
    run(["go", "test", "-c", "-o", TESTBIN, "./hostsimd"])
    run([os.path.join(HERE, "build.sh")])
    T = str(a.threads)
    omp = {"OMP_NUM_THREADS": T, "OPENBLAS_NUM_THREADS": T}
    dram = int(run([TESTBIN, "-test.run", "TestPrintDefaultCeilingBytes", "-test.v"], {"HOSTSIMD_PRINT": "1"}).split("DEFAULT_CEILING_BYTES=")[1].split()[0])
    pairs = a.pairs or ["read-dram", "read-cache", "single-dram", "scaling", "single-resident", "batch", "topk", "hnsw"]
    ratios = {}

    def note(name, ours, peer, what, who="wgpu-prof"):
        r = ours / peer
        ratios.setdefault(name, []).append(r)
        print(f"  {name:16s} {who} {ours:8.2f}  {what} {peer:8.2f}  ratio {r:.3f}", flush=True)

    for rnd in range(a.rounds):
        print(f"round {rnd + 1}", flush=True)
        for p in pairs:
            if p == "read-dram":
                g = one(gobench(f"ReadCeiling/bytes={dram}/threads={T}$", "1x", count=1))
                c = peerrate(run([PEER, "sum", str(dram), "7"], omp), key="best")
                note(p, g, c, "C/OpenMP sum2 best GB/s")
            elif p == "read-cache":
                g = one(gobench(f"ReadCeiling/bytes={6 << 20}/threads={T}$", "1x", count=1))
                c = peerrate(run([PEER, "sum", str(6 << 20), "7"], omp), key="best")
                note(p, g, c, "C/OpenMP sum2 best GB/s")
            elif p == "single-dram":
                g = one(gobench(f"CosineSingle$/level=auto/threads={T}$/N=200000", "1x"))
                c = peerrate(run([PEER, "cosine", "200000", "768", "10"], omp))
                note(p, g, c, "C/OpenMP cosine GB/s")
                n = peerrate(run([PY, os.path.join(HERE, "peers.py"), "--runs", "10", "--threads", T, "cosine-single-dram"]))
                note(p + "/numpy", g, n, "numpy sgemv GB/s")
            elif p == "scaling":
                r = gobench("CosineSingle$/level=auto/threads=(1|2)$/N=200000", "1x")
                one_t = [v for k, v in r.items() if "/threads=1/" in k][0]
                two_t = [v for k, v in r.items() if "/threads=2/" in k][0]
                note("scaling-1to2", two_t, one_t, "1 thread GB/s", who="wgpu-prof 2 threads GB/s")
                c1 = peerrate(run([PEER, "cosine", "200000", "768", "10"], {"OMP_NUM_THREADS": "1"}))
                c2 = peerrate(run([PEER, "cosine", "200000", "768", "10"], {"OMP_NUM_THREADS": "2"}))
                note("C-scaling-1to2", c2, c1, "C 1 thread GB/s", who="C 2 threads GB/s")
            elif p == "single-resident":
                g = one(gobench(f"CosineSingle$/level=auto/threads={T}$/N=2000$", "200x"))
                n = peerrate(run([PY, os.path.join(HERE, "peers.py"), "--runs", "11", "--threads", T, "cosine-single-resident"]))
                note(p, g, n, "numpy sgemv GB/s")
            elif p == "batch":
                g = one(gobench(f"CosineBatch$/level=auto/threads={T}$", "1x", unit="GFLOP/s"))
                n = peerrate(run([PY, os.path.join(HERE, "peers.py"), "--runs", "11", "--threads", T, "cosine-batch"]), unit="GFLOP/s")
                note(p, g, n, "numpy sgemm GFLOP/s")
            elif p == "topk":
                g = one(gobench(f"CosineTopK$/level=auto/threads={T}$", "1x"))
                n = peerrate(run([PY, os.path.join(HERE, "peers.py"), "--runs", "10", "--threads", T, "topk"]))
                note(p, g, n, "FAISS FlatIP GB/s")
            elif p == "hnsw":
                g = one(gobench(f"HNSWDistances$/level=auto/threads={T}$", "20x"))
                n = peerrate(run([PY, os.path.join(HERE, "peers.py"), "--runs", "11", "--threads", T, "hnsw"]))
                note(p, g, n, "numpy gather+L2 GB/s")
            else:
                sys.exit(f"compare.py: unknown pair {p!r}")
    print(f"\nratios over {a.rounds} rounds (median [min, max]):")
    for k, v in ratios.items():
        print(f"  {k:16s} {statistics.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]")


if __name__ == "__main__":
    main()
