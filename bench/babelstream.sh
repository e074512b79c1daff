#!/bin/sh
# babelstream.sh: BabelStream's OpenMP port and `wgpu-prof stream --side cpu`
# side by side on the same machine, the same array size and the same thread
# count, interleaved round after round (the order alternating), and the
# ratio wgpu-prof / OpenMP of each kernel's MB/s: median and range over the
# rounds.
#
# BabelStream is built from its public source, never committed here:
#   BABELSTREAM_SRC=path  an unpacked BabelStream source tree, else
#   the public repository is cloned at $BABELSTREAM_COMMIT into bench/out/.
# It is compiled with g++ -O3 -march=native -fopenmp (the OpenMP model:
# src/main.cpp + src/omp/OMPStream.cpp) into bench/out/babelstream-omp and
# run as BabelStream documents: --float --csv -s $ARRAYSIZE.
#
# Environment: ARRAYSIZE (33554432), NUMTIMES (100), ROUNDS (5),
# THREADS (nproc; OMP_NUM_THREADS and wgpu-prof --threads), OMP_PROC_BIND
# and OMP_PLACES are passed through unchanged.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
mkdir -p "$out"
ARRAYSIZE=${ARRAYSIZE:-33554432}
NUMTIMES=${NUMTIMES:-100}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-$(nproc)}
BABELSTREAM_REPO=${BABELSTREAM_REPO:-https://github.com/UoB-HPC/BabelStream.git}
BABELSTREAM_COMMIT=${BABELSTREAM_COMMIT:-57637d572532fc028b6c0964944f1afc27ff5436}

src=${BABELSTREAM_SRC:-}
if [ -z "$src" ]; then
	src="$out/BabelStream"
	if [ ! -d "$src/.git" ]; then
		git clone --quiet "$BABELSTREAM_REPO" "$src"
	fi
	git -C "$src" checkout --quiet "$BABELSTREAM_COMMIT"
fi
for f in src/main.cpp src/omp/OMPStream.cpp; do
	[ -f "$src/$f" ] || { echo "babelstream.sh: $src/$f missing (BABELSTREAM_SRC must be a BabelStream source tree)" >&2; exit 2; }
done
omp="$out/babelstream-omp"
g++ -O3 -march=native -fopenmp -std=c++20 -DOMP -I"$src/src" -I"$src/src/omp" \
	"$src/src/main.cpp" "$src/src/omp/OMPStream.cpp" -o "$omp"
(cd "$root" && go build -o bin/wgpu-prof ./cmd/wgpu-prof)
wp="$root/bin/wgpu-prof"

echo "babelstream.sh: $ARRAYSIZE floats per array, $NUMTIMES times, $THREADS threads, $ROUNDS rounds; $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
runs="$out/babelstream-runs.csv"
: >"$runs"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# Alternate which goes first, so a drift in the machine's state
	# does not always favour the same one.
	if [ $((r % 2)) -eq 1 ]; then order="omp wgpu"; else order="wgpu omp"; fi
	for who in $order; do
		if [ "$who" = omp ]; then
			OMP_NUM_THREADS=$THREADS "$omp" --float --csv -s "$ARRAYSIZE" -n "$NUMTIMES" | sed "s/^/$r,omp,/" >>"$runs"
		else
			"$wp" stream --side cpu --csv --arraysize "$ARRAYSIZE" --numtimes "$NUMTIMES" --threads "$THREADS" | sed "s/^/$r,wgpu-prof,/" >>"$runs"
		fi
	done
	r=$((r + 1))
done

python3 - "$runs" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
mbs = {}  # (round, who, kernel) -> MB/s
for row in rows:
    rnd, who, fn = row[0], row[1], row[2]
    if fn == "function":
        continue
    mbs[(rnd, who, fn)] = float(row[6])
rounds = sorted({k[0] for k in mbs}, key=int)
kernels = ["Copy", "Mul", "Add", "Triad", "Dot"]
print(f"{'kernel':<8}{'OpenMP MB/s':>14}{'wgpu-prof MB/s':>16}{'ratio median':>14}{'ratio range':>18}")
worst = None
for k in kernels:
    o = [mbs[(r, "omp", k)] for r in rounds]
    w = [mbs[(r, "wgpu-prof", k)] for r in rounds]
    ratios = [b / a for a, b in zip(o, w)]
    med = statistics.median(ratios)
    worst = med if worst is None else min(worst, med)
    print(f"{k:<8}{statistics.median(o):>14.1f}{statistics.median(w):>16.1f}{med:>14.3f}{min(ratios):>9.3f}-{max(ratios):<8.3f}")
print(f"lowest median ratio {worst:.3f} (wgpu-prof / OpenMP, per round, both runs of a round back to back)")
PY
echo "per-run CSV (round,who,BabelStream's columns): $runs"
