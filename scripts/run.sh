#!/usr/bin/env bash
# The main job of the README: set-up, build, then `wgpu-prof run` on the
# default adapter. Extra arguments go to wgpu-prof run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/setup.sh
mkdir -p bin
go build -o bin/wgpu-prof ./cmd/wgpu-prof
exec bin/wgpu-prof run "$@"
