"""callpath.py: the tiny GPU call through wgpu-prof's Go API against the
same call made directly through wgpu-native's webgpu.h from C (and from
Python, where bench/.venv has the pinned "wgpu" wheel), interleaved round
after round on the same adapter.

    bench/setup.sh         # builds bench/out/tinycall; venv with wgpu
    python3 bench/callpath.py [--rounds 8] [--calls 1500] [--go-wait MODE,...] [K ...]

Process rounds are coarser than bench/_tinycall's in-process blocks (one
process per stack and round, seconds apart): use them for the Python
stack, and _tinycall for the Go / C ratio.

Every stack makes the same call (bench/tinycall.c): a 16-byte uniform
write, K dispatches of one 64-invocation workgroup, a 4-byte readback, one
submit and one wait, its value checked after every call; each prints the
median of CALLS timed calls per K. A round runs every stack once, in an
order that rotates from round to round. The end prints, per K, each
stack's median over rounds and the ratio Go / C (and Go / Python): the
median of the rounds' ratios with their range. Default K: 1 2 4 8 16 32 64.
--go-wait adds Go stacks with other wait modes (spin, helper, caller,
locked) to compare with the library's default.
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
WGSL = os.path.join(ROOT, "wgsl", "latency_tiny.wgsl")
VENV_PY = os.path.join(HERE, ".venv", "bin", "python")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        sys.exit(f"callpath.py: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout, r.stderr


def parse(out):
    res = {}
    for line in out.splitlines():
        m = re.match(r"K (\d+) median_us ([\d.]+) min_us ([\d.]+) calls (\d+)", line)
        if m:
            res[int(m.group(1))] = float(m.group(2))
    return res


def has_wgpu_py():
    if not os.path.exists(VENV_PY):
        return False
    return subprocess.run([VENV_PY, "-c", "import wgpu"], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--calls", type=int, default=1500)
    ap.add_argument("--go-wait", default="", help="extra Go stacks: wait modes, comma-separated")
    ap.add_argument("--no-python", action="store_true")
    ap.add_argument("ks", nargs="*", type=int)
    a = ap.parse_args()
    ks = a.ks or [1, 2, 4, 8, 16, 32, 64]
    if a.rounds < 1 or a.calls < 1 or any(k < 1 for k in ks):
        sys.exit("callpath.py: --rounds, --calls and every K must be positive")
    os.makedirs(OUT, exist_ok=True)
    run([os.path.join(HERE, "build.sh")])
    gobin = os.path.join(OUT, "tinycall-go")
    run(["go", "build", "-o", gobin, "./bench/_tinycall"])
    kargs = [str(k) for k in ks]
    n = str(a.calls)
    stacks = {"go": [gobin, "-only", "go", "-calls", n] + kargs, "c": [os.path.join(OUT, "tinycall"), WGSL, n] + kargs}
    for m in filter(None, a.go_wait.split(",")):
        stacks["go-" + m] = [gobin, "-only", "go", "-calls", n, "-wait", m] + kargs
    if not a.no_python and has_wgpu_py():
        stacks["python"] = [VENV_PY, os.path.join(HERE, "tinycall.py"), WGSL, n] + kargs
    elif not a.no_python:
        print("callpath.py: no wgpu in bench/.venv (bench/setup.sh): no Python stack", file=sys.stderr)
    names = list(stacks)
    res = {s: {k: [] for k in ks} for s in names}
    for r in range(a.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        line = []
        for s in order:
            out, err = run(stacks[s])
            if r == 0:
                ad = [l for l in err.splitlines() if "adapter" in l]
                print(f"{s}: {ad[-1] if ad else '?'}")
            got = parse(out)
            for k in ks:
                if k not in got:
                    sys.exit(f"callpath.py: {s} printed no K={k}:\n{out}\n{err}")
                res[s][k].append(got[k])
            line.append(f"{s} {got[ks[0]]:.1f}")
        print(f"round {r + 1}: K={ks[0]} µs/call: " + ", ".join(line), flush=True)

    def ratio(num, den, k):
        rs = [x / y for x, y in zip(res[num][k], res[den][k])]
        return f"{statistics.median(rs):.3f} [{min(rs):.3f}–{max(rs):.3f}]"

    print()
    print(f"tiny call, µs per call (median over {a.rounds} rounds of {a.calls} calls' medians)")
    hdr = "K".rjust(3) + "".join(s.rjust(10) for s in names) + "   Go / C (median [range] of rounds)"
    if "python" in names:
        hdr += "   Go / Python"
    print(hdr)
    for k in ks:
        row = str(k).rjust(3) + "".join(f"{statistics.median(res[s][k]):10.1f}" for s in names)
        row += "   " + ratio("go", "c", k)
        if "python" in names:
            row += "   " + ratio("go", "python", k)
        print(row)
    for s in names:
        if s.startswith("go-"):
            print(f"{s} / C: " + ", ".join(f"K={k} {ratio(s, 'c', k)}" for k in ks))


if __name__ == "__main__":
    main()
