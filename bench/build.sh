#!/bin/sh
# build.sh: compile the C/OpenMP peer (bench/peer.c) into bench/out/peer.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/out"
gcc -O3 -march=native -fopenmp -o "$here/out/peer" "$here/peer.c" -lm
echo "built $here/out/peer"
