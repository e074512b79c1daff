#!/usr/bin/env bash
# The arm64 stage of scripts/test.sh: cross-compiles the tests of every
# package that needs no cgo for linux/arm64 and runs them under
# qemu-aarch64 (user-mode emulation), so the hand-written NEON kernels of
# hostsimd/kernels_arm64.s are checked against their float64 references on
# every change. hostsimd runs twice, NEON and noasm (pure Go) builds.
#
#   scripts/test-arm64.sh [LOGDIR]     (default LOGDIR: out/test-logs)
#
# The full -test.v output of each hostsimd build goes to LOGDIR; the stage
# prints, for each NEON kernel, the test that checks it and its result, and
# every skipped test with its reason. The tests see WGPU_PROF_EMULATOR=
# qemu-aarch64: those that time the kernels skip themselves under it
# (hostsimd/emulation_internal_test.go), as emulated times mean nothing.
# Needs qemu-aarch64 (Debian: qemu-user; scripts/setup.sh --test installs it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
logdir=${1:-out/test-logs}
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)

qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
[ -n "$qemu" ] || { echo "test-arm64: qemu-aarch64 not found (Debian: apt-get install qemu-user; scripts/setup.sh --test installs it)" >&2; exit 1; }
export WGPU_PROF_EMULATOR=qemu-aarch64
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# NEON kernel -> the test that calls it for every level (hence NEON here)
# and compares it with a float64 reference on misaligned inputs of every
# tail length. A kernel of kernels_arm64.s missing here fails the stage.
kernel_tests="
sumNEON TestKernelTableLevels
dotNEON TestKernelTableLevels
l2NEON TestKernelTableLevels
dotNormNEON TestKernelTableLevels
dot3NEON TestKernelTableLevels
dotNormF16NEON TestKernelTableF16
dotTile4NEON TestKernelTableTile
fillNTNEON TestCeilingKernels
copyNTNEON TestCeilingKernels
triadNTNEON TestCeilingKernels
fmaPeakNEON TestCeilingKernels
"
for k in $(sed -n 's/^TEXT ·\([A-Za-z0-9]*\)(SB).*/\1/p' hostsimd/kernels_arm64.s); do
  echo "$kernel_tests" | grep -q "^$k " ||
    { echo "test-arm64: kernel $k of hostsimd/kernels_arm64.s has no test in scripts/test-arm64.sh's table" >&2; exit 1; }
done

# run_hostsimd NAME TAGS: build hostsimd's tests for arm64 with TAGS, run
# them under qemu from the package folder; the full log goes to LOGDIR.
run_hostsimd() {
  local name=$1 tags=$2 bin log rc=0
  bin=$tmp/hostsimd-$name.test
  log=$logdir/arm64-hostsimd-$name.log
  GOARCH=arm64 CGO_ENABLED=0 go test -c ${tags:+-tags $tags} -o "$bin" ./hostsimd/
  (cd hostsimd && "$qemu" "$bin" -test.count=1 -test.v -test.timeout 45m) >"$log" 2>&1 || rc=$?
  echo "hostsimd ($name build, linux/arm64 under qemu-aarch64): $(grep -c '^--- PASS' "$log") passed, $(grep -c '^--- SKIP' "$log") skipped, $(grep -c '^--- FAIL' "$log") failed (log: ${log#"$root"/})"
  # Each skipped test with its reason (the t.Skip line above it).
  awk '/^=== RUN/ {reason=""} /^    [a-z_]+\.go:[0-9]+: / {reason=$0} /^--- SKIP/ {sub(/^ +/, "", reason); print "  SKIP " $3 ": " reason}' "$log"
  if [ $rc != 0 ]; then
    # The failed tests with their first lines of output, and any panic.
    awk '/^=== RUN/ {n = 0} {if (n < 8) buf[n++] = $0}
         /^--- FAIL/ {for (i = 0; i < n; i++) if (buf[i] !~ /^=== /) print "  " buf[i]; n = 0}
         /^panic:/ {p = 20} p > 0 {print "  " $0; p--}' "$log" | head -60 || true
    echo "test-arm64: hostsimd ($name build) failed under qemu-aarch64 (exit $rc): see $log" >&2
    return 1
  fi
}

echo "-- hostsimd, NEON build (kernels_arm64.s)"
run_hostsimd neon ""
log=$logdir/arm64-hostsimd-neon.log
grep -q '^--- PASS: TestNEONDefault ' "$log" || { echo "test-arm64: TestNEONDefault did not pass: the NEON level was not the default" >&2; exit 1; }
echo "  NEON is the default level (TestNEONDefault passed); each kernel's test:"
echo "$kernel_tests" | while read -r k t; do
  [ -n "$k" ] || continue
  if line=$(grep -m1 "^--- PASS: $t " "$log"); then
    printf '  %-16s %-22s PASS %s\n' "$k" "$t" "${line##* }"
  else
    printf '  %-16s %-22s NOT PASSED\n' "$k" "$t"
    echo "test-arm64: $t (checks $k) did not pass" >&2; exit 1
  fi
done

echo "-- hostsimd, noasm build (pure Go)"
run_hostsimd noasm noasm

# Every other package whose tests need no cgo (compute/wgpu and what
# imports it need a C toolchain and a GPU). buildcheck and bundlecheck
# drive this machine's Go toolchain and build the amd64 bundle: they test
# the host, not arm64 code.
pkgs=$(GOARCH=arm64 CGO_ENABLED=0 go list -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... |
  awk '$1 ~ /\.test$/ { next }
       { p = $1; sub(/_test$/, "", p); cgo[p] += (p ~ /\/compute\/wgpu$/); for (i = 2; i <= NF; i++) if ($i ~ /\/compute\/wgpu$/) cgo[p]++ }
       END { for (p in cgo) if (!cgo[p]) print p }' | grep -v -E '/(hostsimd|internal/buildcheck|internal/bundlecheck)$' | sort)
echo "-- the other packages without cgo (not buildcheck, bundlecheck: they test this machine's toolchain and the amd64 bundle)"
GOARCH=arm64 CGO_ENABLED=0 go test -exec "$qemu" -p 1 -count=1 -timeout 30m $pkgs
