#!/usr/bin/env bash
# Builds the portable bundle: dist/wgpu-prof-linux-amd64/ (and a .tar.gz of
# it) holding the wgpu-prof binary, libwgpu_native.so next to it (the binary
# looks there at run time: compute/wgpu/library.go), Dawn's
# lib/libwebgpu_dawn.so with lib/VERSION (for --impl dawn: compute/wgpu/impl.go),
# run.sh (the whole measurement job), BUILD.txt and README.txt. The bundle
# needs a Vulkan driver and glibc ≥ 2.34 on the target, no Go and no Python.
#
#   scripts/bundle.sh [--dist DIR]      (default DIR: dist/ in this checkout)
#
# Needs Go with cgo here; runs scripts/setup.sh and scripts/setup-dawn.sh
# (idempotent) for the pinned libraries unless WGPU_NATIVE_LIB and
# WGPU_PROF_DAWN_LIB name ones to ship instead (a Dawn of one's own is
# reported as version unknown).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

dist=$root/dist
while [ $# -gt 0 ]; do
  case $1 in
    --dist) [ $# -ge 2 ] || { echo "bundle.sh: --dist needs a folder" >&2; exit 2; }; dist=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bundle.sh: unknown argument '$1' (only --dist DIR)" >&2; exit 2 ;;
  esac
done

goos=$(go env GOOS); goarch=$(go env GOARCH)
if [ "$goos/$goarch" != linux/amd64 ]; then
  echo "bundle.sh: builds the linux-amd64 bundle only (this Go targets $goos/$goarch)" >&2
  exit 2
fi
name=wgpu-prof-linux-amd64
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)

# The library to ship: $WGPU_NATIVE_LIB, else the pinned one setup.sh puts
# in third_party/ (and the user cache).
if [ -n "${WGPU_NATIVE_LIB:-}" ]; then
  lib=$WGPU_NATIVE_LIB
else
  scripts/setup.sh >&2
  lib=
  for c in third_party/wgpu-native/lib/libwgpu_native.so \
           "${XDG_CACHE_HOME:-$HOME/.cache}/wgpu-prof/wgpu-native/$(sed -n 's/^WGPU_NATIVE_VERSION=//p' scripts/wgpu-native.lock)/libwgpu_native.so"; do
    if [ -f "$c" ]; then lib=$c; break; fi
  done
  [ -n "$lib" ] || { echo "bundle.sh: no libwgpu_native.so after scripts/setup.sh (looked in third_party/wgpu-native/lib and the user cache)" >&2; exit 1; }
fi
[ -f "$lib" ] || { echo "bundle.sh: WGPU_NATIVE_LIB=$lib: no such file" >&2; exit 1; }

# Dawn, for --impl dawn and run --impl wgpu-native,dawn: $WGPU_PROF_DAWN_LIB,
# else the pinned one setup-dawn.sh checks and puts in third_party/dawn/.
if [ -n "${WGPU_PROF_DAWN_LIB:-}" ]; then
  dawn_lib=$WGPU_PROF_DAWN_LIB dawn_version=
else
  scripts/setup-dawn.sh >&2
  dawn_lib=third_party/dawn/lib/libwebgpu_dawn.so
  dawn_version=$(cat third_party/dawn/VERSION 2>/dev/null || true)
fi
[ -f "$dawn_lib" ] || { echo "bundle.sh: no Dawn library at $dawn_lib (scripts/setup-dawn.sh installs it; WGPU_PROF_DAWN_LIB names another)" >&2; exit 1; }

# Build into a fresh staging folder, then swap it in, so a failed build
# leaves the previous bundle alone and never a half-written one.
stage=$(mktemp -d "$dist/.$name.XXXXXX")
trap 'rm -rf "$stage"' EXIT
out=$stage/$name
mkdir "$out"

echo "== go build (cgo) -> $name/wgpu-prof" >&2
CGO_ENABLED=1 go build -ldflags='-s -w' -o "$out/wgpu-prof" ./cmd/wgpu-prof
cp "$lib" "$out/libwgpu_native.so"
mkdir "$out/lib"
cp "$dawn_lib" "$out/lib/libwebgpu_dawn.so"
[ -n "$dawn_version" ] && echo "$dawn_version" >"$out/lib/VERSION"
cp scripts/bundle-run.sh "$out/run.sh"
# The CUDA peers (bench/cuda_peers.py): run beside the job on an NVIDIA
# machine that has CuPy, so each GPU figure has a CUDA figure beside it.
cp bench/cuda_peers.py "$out/cuda_peers.py"
chmod 755 "$out/run.sh" "$out/wgpu-prof"
chmod 644 "$out/libwgpu_native.so" "$out/lib/libwebgpu_dawn.so"

# The binary must find the library next to itself, not through a path
# baked in at build time.
if readelf -d "$out/wgpu-prof" 2>/dev/null | grep -Eq 'RPATH|RUNPATH|wgpu_native'; then
  echo "bundle.sh: the binary has an RPATH/RUNPATH or links wgpu_native directly:" >&2
  readelf -d "$out/wgpu-prof" >&2
  exit 1
fi
version=$(cd "$out" && env -u WGPU_NATIVE_LIB -u WGPU_PROF_DAWN_LIB HOME=/nonexistent XDG_CACHE_HOME=/nonexistent ./wgpu-prof version)
case $version in
  *unavailable*|*"not installed"*) echo "bundle.sh: the bundled binary does not load the libraries beside it: $version" >&2; exit 1 ;;
esac
case $version in
  *"dawn "*"/lib/libwebgpu_dawn.so)"*) ;;
  *) echo "bundle.sh: the bundled binary does not load the Dawn beside it: $version" >&2; exit 1 ;;
esac
version=$(echo "$version" | sed 's|(/[^()]*/lib/libwebgpu_dawn.so)|(lib/libwebgpu_dawn.so, beside wgpu-prof)|')
glibc=$(objdump -T "$out/wgpu-prof" "$out/libwgpu_native.so" "$out/lib/libwebgpu_dawn.so" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 || true)

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | head -1)
{
  echo "$version"
  echo "commit      $commit${dirty:+ (with uncommitted changes)}"
  echo "built       $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm)"
  echo "go          $(go env GOVERSION) $goos/$goarch, cgo, -ldflags='-s -w'"
  echo "library     $(basename "$lib") from $lib"
  echo "dawn        lib/libwebgpu_dawn.so ${dawn_version:-(version unknown)} from $dawn_lib"
  echo "needs       ${glibc:-GLIBC_?} or newer (highest symbol version the binary and the libraries use), a Vulkan driver"
  echo
  echo "sha256"
  (cd "$out" && sha256sum wgpu-prof libwgpu_native.so lib/libwebgpu_dawn.so run.sh)
} >"$out/BUILD.txt"

cat >"$out/README.txt" <<EOF
wgpu-prof portable bundle (linux-amd64)
=======================================

$version, commit $commit.

Contents
  wgpu-prof            the CLI (cgo; links only libc; loads libwgpu_native.so
                       from its own folder at run time, no RPATH)
  libwgpu_native.so    wgpu-native, the pinned official build
  lib/libwebgpu_dawn.so
                       Dawn (Chrome's WebGPU), the pinned build, for --impl dawn
                       (lib/VERSION: its version)
  run.sh               the whole measurement job (below)
  BUILD.txt            how this bundle was built, checksums

Needs: Linux x86-64 with ${glibc:-glibc 2.34} or newer, a Vulkan loader
(libvulkan.so.1) and a Vulkan driver (ICD) for the GPU. No Go, no Python.

First look at the adapters:
  ./wgpu-prof devices
  ./wgpu-prof devices --impl dawn      # the same through Dawn
Trust timings only from an adapter whose type is discrete-gpu (or
integrated-gpu), backend vulkan, and whose timestamps line says "working" -
not llvmpipe/lavapipe (type cpu) and not a gl backend.

The job (every command with --out and --plot, the run with --trace):
  ./run.sh --out RESULTS [--adapter-name NVIDIA] [--impl LIST] [--phases LIST] [--budget SECONDS]
It runs: devices (through each implementation of --impl, default
wgpu-native,dawn); the CUDA peers (cuda_peers.py, where python3 has CuPy and a
CUDA device; otherwise cuda_peers.json says "no CUDA here"); run (the full
suite, through both implementations side by side); sweep workgroup (32..1024) for every
workload that has a workgroup knob; sweep tile (16..128) for every one with
tiles; experiment memory-compute for every one that has it; breakeven for
every workload (these through the first implementation of --impl).
Workload names come from './wgpu-prof workloads'. Each step
writes RESULTS/<step>/ and its output to RESULTS/<step>.txt; RESULTS/job.log
has every command with its exit status and time; RESULTS.tar.gz packs it all,
rewritten after every step. --budget (default 450 s) bounds the whole job, so
that it and its tar fit 8 minutes.
./run.sh --help says more. docs/GPU.md in the repository has the recipes.
EOF

rm -rf "$dist/$name" "$dist/$name.tar.gz"
mv "$out" "$dist/$name"
tar -C "$dist" -czf "$stage/$name.tar.gz" "$name"
mv "$stage/$name.tar.gz" "$dist/$name.tar.gz"

size=$(du -sb "$dist/$name" | cut -f1)
limit=$((64 << 20))
if [ "$size" -ge "$limit" ]; then
  echo "bundle.sh: the bundle is $size bytes, over the 64 MiB limit" >&2
  exit 1
fi
echo "$dist/$name ($((size >> 20)) MiB), $dist/$name.tar.gz ($(($(stat -c %s "$dist/$name.tar.gz") >> 20)) MiB)"
