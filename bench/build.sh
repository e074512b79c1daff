#!/bin/sh
# build.sh: compile the C/OpenMP peer (bench/peer.c) into bench/out/peer and
# the wgpu-native call peer (bench/tinycall.c) into bench/out/tinycall,
# against third_party/wgpu-native (scripts/setup.sh puts it there).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/out"
gcc -O3 -march=native -fopenmp -o "$here/out/peer" "$here/peer.c" -lm
echo "built $here/out/peer"
w=${WGPU_NATIVE_DIR:-$here/../third_party/wgpu-native}
if [ -f "$w/include/webgpu.h" ]; then
	w=$(cd "$w" && pwd)
	gcc -O2 -o "$here/out/tinycall" "$here/tinycall.c" -I"$w/include" -I"$here/_tinycall" -L"$w/lib" -lwgpu_native -Wl,-rpath,"$w/lib" -lm
	echo "built $here/out/tinycall"
else
	echo "no $w/include/webgpu.h (run scripts/setup.sh): tinycall not built" >&2
fi
