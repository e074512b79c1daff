#!/usr/bin/env bash
# The test command of the README (and of .ci/run): set-up with the test
# tools, then formatting, vet, the generated-assembly check, all tests (asm
# and noasm builds), the concurrency tests under -race, the arm64 tests
# under qemu-aarch64, the Windows build (build and vet with mingw-w64's gcc
# for cgo, then run under Wine), the GPU bundle's job rehearsed on
# lavapipe, and the macOS vet where zig is found.
# Full logs of the emulated stages go to out/test-logs/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

scripts/setup.sh --test

echo "== gofmt -l"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './third_party/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

if [ -x hostsimd/gen_check.sh ]; then
  echo "== generated assembly is reproducible"
  hostsimd/gen_check.sh
fi

# The -timeout of each go test below only catches a hang (it then prints
# every goroutine): no test's outcome may depend on the host's load, and a
# loaded 2-core host (load 5-10) runs compute and cmd/wgpu-prof for over 15
# minutes each.
echo "== go test"
# One package at a time: the GPU is lavapipe on these same 2 cores, and the
# timing tests should not compete with each other for them.
go test -p 1 -count=1 -timeout 60m ./...

echo "== go test -tags noasm (pure-Go host kernels)"
go test -count=1 -tags noasm -timeout 30m ./hostsimd/...

echo "== go test -race: the concurrency tests (dispatch, the runners, hostsimd's worker pool)"
# The race detector on what goroutines share: all of dispatch (a Route
# serves many callers; -short leaves out the ten-million-call memory
# test, a minute under -race), the compute runners' concurrent callers,
# and hostsimd's worker pool with the tests that split calls over it (the
# kernels are assembly: the detector sees the Go around them). Under a
# minute of CPU.
t0=$(date +%s)
go test -race -short -count=1 -timeout 30m ./dispatch/
go test -race -count=1 -timeout 30m -run 'Concurrent' ./compute/
go test -race -count=1 -timeout 30m -run 'Pool|Receive|SplitWait|SplitRows|Threads|Concurrent' ./hostsimd/
echo "(race stage: $(( $(date +%s) - t0 )) s)"

echo "== linux/arm64: go vet (assembles kernels_arm64.s) of the NEON and noasm builds"
GOARCH=arm64 CGO_ENABLED=0 go vet ./hostsimd/
GOARCH=arm64 CGO_ENABLED=0 go vet -tags noasm ./hostsimd/

echo "== linux/arm64 under qemu-aarch64: hostsimd (NEON and noasm) and every package without cgo"
t0=$(date +%s)
scripts/test-arm64.sh out/test-logs
echo "(arm64 stage: $(( $(date +%s) - t0 )) s)"

echo "== windows/amd64 cross-check: go build and go vet (cgo with mingw-w64)"
# Compiles the Windows build, its LoadLibrary path (compute/wgpu/loader.c)
# and the tests. scripts/setup.sh --test installs the compiler.
CC=x86_64-w64-mingw32-gcc CGO_ENABLED=1 GOOS=windows GOARCH=amd64 go build ./...
CC=x86_64-w64-mingw32-gcc CGO_ENABLED=1 GOOS=windows GOARCH=amd64 go vet ./...

echo "== windows/amd64 under Wine: version, devices, a verified cosine-single run, the test binaries without cgo"
t0=$(date +%s)
scripts/test-windows.sh out/test-logs
echo "(Windows stage: $(( $(date +%s) - t0 )) s)"

echo "== the GPU bundle's job rehearsed on this machine's adapter (budget 150 s)"
t0=$(date +%s)
scripts/remote-job.sh rehearse 150
echo "(rehearsal stage: $(( $(date +%s) - t0 )) s)"

echo "== darwin/arm64 cross-check: go vet with cgo (zig cc's bundled macOS headers)"
# Type-checks every package for macOS and compiles the cgo C files
# (loader.c's dlopen path, shim.c) against macOS's libc headers as zig
# ships them. Linking needs Apple's SDK (CoreFoundation), so no macOS
# binary is made and nothing runs: see docs/GPU.md. zig: a zig on PATH or
# the ziglang Python package (pip install ziglang).
zig=""
if command -v zig >/dev/null 2>&1; then
  zig="$(command -v zig)"
elif python3 -c 'import ziglang' >/dev/null 2>&1; then
  zig="$(python3 -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')"
fi
if [ -n "$zig" ]; then
  wrapdir=$(mktemp -d)
  trap 'rm -rf "$wrapdir"' EXIT
  # go probes the compiler with source on stdin ("-"); zig cc then leaves
  # a "-.o" in the working folder, so such probes run in the scratch folder.
  printf '#!/bin/sh\nfor a in "$@"; do [ "$a" = - ] && cd "%s" && break; done\nexec "%s" cc -target aarch64-macos "$@"\n' "$wrapdir" "$zig" > "$wrapdir/cc"
  chmod +x "$wrapdir/cc"
  CC="$wrapdir/cc" CGO_ENABLED=1 GOOS=darwin GOARCH=arm64 go vet ./...
else
  echo "SKIPPED: no zig found (pip install ziglang); the macOS build was not checked"
fi
