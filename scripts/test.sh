#!/usr/bin/env bash
# The test command of the README (and of .ci/run): set-up, then formatting,
# vet, the generated-assembly check, and all tests (asm and noasm builds).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

scripts/setup.sh

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

echo "== go test"
# One package at a time: the GPU is lavapipe on these same 2 cores, and the
# timing tests should not compete with each other for them.
go test -p 1 -count=1 -timeout 15m ./...

echo "== go test -tags noasm (pure-Go host kernels)"
go test -count=1 -tags noasm -timeout 10m ./hostsimd/...
