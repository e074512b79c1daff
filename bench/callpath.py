"""callpath.py: the tiny GPU call through wgpu-prof's Go API against the
same call made directly through wgpu-native's webgpu.h from C and from
Python (cffi, where bench/.venv has the pinned "wgpu" wheel), on the same
adapter in the same run, blocks of calls interleaved.

    bench/setup.sh         # builds bench/out/tinycall; venv with wgpu
    python3 bench/callpath.py [--sessions 6] [--rounds 10] [--block 25] [--go-wait MODE,...] [K ...]

Every stack makes the same call (bench/_tinycall/peer.c): a 16-byte uniform
write, K dispatches of one 64-invocation workgroup, a 4-byte readback, one
submit and one wait, its value checked after every call. Each stack is a
process of its own that stays open (bench/_tinycall -serve, bench/out/tinycall
serve, bench/tinycall.py serve) and times a block of calls when asked, so
the blocks of the stacks alternate as in one process: a round asks every
stack for one block at each K, in an order that rotates from round to round,
after one warm-up round. A session starts every stack afresh (a new
process, device and driver threads) and runs --rounds rounds: lavapipe's
cost per dispatch has been seen to settle at one of two levels for the
life of a device, so the rounds of one session alone can compare a fast
device with a slow one. The end prints, per K, each stack's median over the
rounds' block medians and the ratios Go / C and Go / Python: the median of
the rounds' ratios with their range. Default K: 1 2 4 8 16 32 64. --go-wait
adds Go stacks with other wait modes (auto, spin, helper, caller, locked),
--go-bin NAME=PATH a _tinycall binary built from another commit (to set a
change of the call path against its predecessor in the same run),
--c-in-go the C peer's call made from a Go process (one cgo crossing per
call, no Go API device): what the Go process costs apart from the API.
--json writes the figures as JSON too.
"""
import argparse
import json
import os
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
    return r.stdout


def has_wgpu_py():
    if not os.path.exists(VENV_PY):
        return False
    return subprocess.run([VENV_PY, "-c", "import wgpu"], capture_output=True).returncode == 0


class Server:
    """One stack's process, timing blocks of calls on request."""

    def __init__(self, name, cmd):
        self.name = name
        self.err = open(os.path.join(OUT, f"callpath-{name}.stderr"), "w+")
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True, cwd=ROOT, bufsize=1)

    def block(self, k, n):
        self.p.stdin.write(f"{k} {n}\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            self.err.seek(0)
            sys.exit(f"callpath.py: {self.name} stopped:\n{self.err.read()}")
        return float(line.split()[0])

    def adapter(self):
        self.err.flush()
        self.err.seek(0)
        lines = [l.strip() for l in self.err.read().splitlines() if "adapter" in l]
        return lines[-1] if lines else "?"

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--block", type=int, default=25)
    ap.add_argument("--go-wait", default="", help="extra Go stacks: wait modes, comma-separated")
    ap.add_argument("--go-bin", action="append", default=[], metavar="NAME=PATH",
                    help="an extra Go stack: a bench/_tinycall binary built elsewhere (an earlier commit), served as NAME")
    ap.add_argument("--c-in-go", action="store_true",
                    help="add the C peer's call made from a Go process (_tinycall -serve-peer): the Go process's own share of a gap")
    ap.add_argument("--no-python", action="store_true")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("ks", nargs="*", type=int)
    a = ap.parse_args()
    ks = a.ks or [1, 2, 4, 8, 16, 32, 64]
    if a.sessions < 1 or a.rounds < 1 or a.block < 1 or any(k < 1 for k in ks):
        sys.exit("callpath.py: --sessions, --rounds, --block and every K must be positive")
    os.makedirs(OUT, exist_ok=True)
    run([os.path.join(HERE, "build.sh")])
    gobin = os.path.join(OUT, "tinycall-go")
    run(["go", "build", "-o", gobin, "./bench/_tinycall"])
    cmds = {"go": [gobin, "-serve"], "c": [os.path.join(OUT, "tinycall"), WGSL, "serve"]}
    for m in filter(None, a.go_wait.split(",")):
        cmds["go-" + m] = [gobin, "-serve", "-wait", m]
    if a.c_in_go:
        cmds["c-in-go"] = [gobin, "-serve-peer"]
    for nb in a.go_bin:
        name, _, path = nb.partition("=")
        if not name or not os.path.isfile(path) or name in cmds:
            sys.exit(f"callpath.py: --go-bin {nb!r}: want NAME=PATH of a built bench/_tinycall, NAME new")
        cmds[name] = [os.path.abspath(path), "-serve"]
    if not a.no_python and has_wgpu_py():
        cmds["python"] = [VENV_PY, os.path.join(HERE, "tinycall.py"), WGSL, "serve"]
    elif not a.no_python:
        print("callpath.py: no wgpu in bench/.venv (bench/setup.sh): no Python stack", file=sys.stderr)
    names = list(cmds)
    med = {n: {k: [] for k in ks} for n in names}
    for session in range(a.sessions):
        servers = [Server(n, c) for n, c in cmds.items()]
        for r in range(-1, a.rounds):  # round -1 warms every stack up
            for k in ks:
                rot = (max(r, 0) + session) % len(servers)
                for s in servers[rot:] + servers[:rot]:
                    m = s.block(k, a.block)
                    if r >= 0:
                        med[s.name][k].append(m)
        for s in servers:
            if session == 0:
                print(f"{s.name}: {s.adapter()}")
            s.close()
        ends = sorted({ks[0], ks[-1]})
        print(f"session {session + 1}: " + ", ".join(
            f"K={k} go/c {statistics.median(x / y for x, y in zip(med['go'][k][-a.rounds:], med['c'][k][-a.rounds:])):.3f}" for k in ends), flush=True)

    def ratio(num, den, k):
        rs = sorted(x / y for x, y in zip(med[num][k], med[den][k]))
        return statistics.median(rs), rs[0], rs[-1]

    def fmt(t):
        return f"{t[0]:.3f} [{t[1]:.3f}–{t[2]:.3f}]"

    print()
    print(f"tiny call, µs per call: median over {a.sessions} sessions × {a.rounds} interleaved rounds of {a.block}-call blocks' medians")
    hdr = "K".rjust(3) + "".join(n.rjust(10) for n in names) + "   Go / C: median [range] of rounds"
    if "python" in names:
        hdr += "   Go / Python"
    print(hdr)
    res = {"sessions": a.sessions, "rounds": a.rounds, "block": a.block, "stacks": names, "k": {}}
    for k in ks:
        row = str(k).rjust(3) + "".join(f"{statistics.median(med[n][k]):10.1f}" for n in names)
        entry = {n: statistics.median(med[n][k]) for n in names}
        entry["go_over_c"] = ratio("go", "c", k)
        row += "   " + fmt(entry["go_over_c"])
        if "python" in names:
            entry["go_over_python"] = ratio("go", "python", k)
            row += "   " + fmt(entry["go_over_python"])
        for n in names:
            if n not in ("go", "c", "python"):
                entry[n.replace("-", "_") + "_over_c"] = ratio(n, "c", k)
        print(row)
        res["k"][k] = entry
    for n in names:
        if n not in ("go", "c", "python"):
            print(f"{n} / C: " + ", ".join(f"K={k} {fmt(ratio(n, 'c', k))}" for k in ks))
    if "c-in-go" in names:
        # The same C call from a Go process: Go API / c-in-go is the API's
        # own cost, c-in-go / C what a Go process costs apart from it.
        for k in ks:
            res["k"][k]["go_over_c_in_go"] = ratio("go", "c-in-go", k)
        print("Go API / C call in a Go process: " + ", ".join(f"K={k} {fmt(ratio('go', 'c-in-go', k))}" for k in ks))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
