#!/bin/sh
# setup.sh: the Python peers' venv (bench/.venv, git-ignored) with numpy
# and faiss-cpu from PyPI, and the C peer (build.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/.venv/bin/python" ] || python3 -m venv "$here/.venv"
"$here/.venv/bin/pip" install -q numpy faiss-cpu
"$here/build.sh"
