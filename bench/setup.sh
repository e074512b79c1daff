#!/bin/sh
# setup.sh: the Python peers' venv (bench/.venv, git-ignored) with numpy,
# faiss-cpu and the pinned "wgpu" wheel (the wgpu-native wgpu-prof uses,
# scripts/wgpu-native.lock) from PyPI, and the C peers (build.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
wgpu_py=$(sed -n 's/^WGPU_PY_VERSION=//p' "$here/../scripts/wgpu-native.lock")
[ -x "$here/.venv/bin/python" ] || python3 -m venv "$here/.venv"
"$here/.venv/bin/pip" install -q numpy faiss-cpu "wgpu==$wgpu_py"
"$here/build.sh"
