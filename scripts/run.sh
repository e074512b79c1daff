#!/usr/bin/env bash
# The main job of the README: set-up, build, then `wgpu-prof run` on the
# default adapter. Extra arguments go to wgpu-prof run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/setup.sh
mkdir -p bin
# The commit goes into `wgpu-prof version` and every report header (set
# explicitly: some environments build with GOFLAGS=-buildvcs=false).
commit=$(git rev-parse HEAD 2>/dev/null || true)
if [ -n "$commit" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit+dirty"
fi
go build -ldflags "-X main.buildCommit=$commit" -o bin/wgpu-prof ./cmd/wgpu-prof
exec bin/wgpu-prof run "$@"
