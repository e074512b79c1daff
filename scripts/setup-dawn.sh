#!/usr/bin/env bash
# Installs the pinned Dawn build (scripts/dawn.lock), which `--impl dawn`
# loads beside or instead of wgpu-native. Only on request: scripts/setup.sh
# --with-dawn runs it (the test command does), and wgpu-prof --impl dawn
# names it when the library is missing. Idempotent.
#
# The wheel's sha256 and the library's are both checked. The library goes to
#   - third_party/dawn/ (git-ignored) with webgpu.py, the ctypes description
#     of Dawn's webgpu.h that compute/wgpu/dawn_abi_test.go checks
#     compute/wgpu/dawn_abi.h against, and
#   - the user cache folder, where the binaries look for it:
#     <cache>/wgpu-prof/dawn/<DAWN_VERSION>/ (libwebgpu_dawn.so,
#     libwebgpu_dawn.dylib or webgpu_dawn.dll), with a VERSION file.
# WGPU_PROF_DAWN_LIB names a Dawn library of your own instead; it is only
# checked to exist here.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lock="$root/scripts/dawn.lock"
dest="$root/third_party/dawn"

say() { echo "setup-dawn: $*" >&2; }
die() { echo "setup-dawn: error: $*" >&2; exit 1; }

py_version=$(sed -n 's/^DAWN_PYTHON_VERSION=//p' "$lock")
dawn_version=$(sed -n 's/^DAWN_VERSION=//p' "$lock")
read -r _ wheel_name wheel_sum < <(grep '^WHEEL ' "$lock")

platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo linux-x86_64 ;;
    Linux-aarch64|Linux-arm64) echo linux-aarch64 ;;
    Darwin-arm64) echo darwin-arm64 ;;
    Darwin-x86_64) echo darwin-x86_64 ;;
    MINGW*-x86_64|MSYS*-x86_64|CYGWIN*-x86_64) echo windows-x86_64 ;;
  esac
}

# The file name compute/wgpu/dawn.go looks for.
lib_file_name() {
  case "$(uname -s)" in
    Darwin) echo libwebgpu_dawn.dylib ;;
    MINGW*|MSYS*|CYGWIN*) echo webgpu_dawn.dll ;;
    *) echo libwebgpu_dawn.so ;;
  esac
}

user_cache_dir() {
  case "$(uname -s)" in
    Darwin) echo "$HOME/Library/Caches" ;;
    MINGW*|MSYS*|CYGWIN*)
      if command -v cygpath >/dev/null 2>&1; then cygpath -u "$LOCALAPPDATA"; else echo "$LOCALAPPDATA"; fi ;;
    *) echo "${XDG_CACHE_HOME:-$HOME/.cache}" ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

if [ -n "${WGPU_PROF_DAWN_LIB:-}" ]; then
  [ -f "$WGPU_PROF_DAWN_LIB" ] || die "WGPU_PROF_DAWN_LIB=$WGPU_PROF_DAWN_LIB is not a file"
  say "WGPU_PROF_DAWN_LIB is set: --impl dawn will load $WGPU_PROF_DAWN_LIB instead of the pinned build"
fi

plat=$(platform)
if [ -z "$plat" ]; then
  say "no pinned Dawn build for $(uname -s)-$(uname -m); set WGPU_PROF_DAWN_LIB to your own build for --impl dawn"
  exit 0
fi
read -r _ member lib_sum < <(awk -v p="$plat" '$1==p' "$lock")
[ -n "$lib_sum" ] || die "no entry for $plat in $lock"

name=$(lib_file_name)
cache="$(user_cache_dir)/wgpu-prof/dawn/$dawn_version"
stamp="$py_version $plat $lib_sum"
if [ -f "$dest/STAMP" ] && [ "$(cat "$dest/STAMP")" = "$stamp" ] &&
   [ -f "$dest/lib/$name" ] && [ "$(sha256_of "$dest/lib/$name")" = "$lib_sum" ] &&
   [ -f "$dest/webgpu.py" ] &&
   [ -f "$cache/$name" ] && [ "$(sha256_of "$cache/$name")" = "$lib_sum" ] &&
   [ "$(cat "$cache/VERSION" 2>/dev/null)" = "$dawn_version" ]; then
  exit 0
fi

py=$(command -v python3 || command -v python) || die "python3 with pip is needed to download the dawn-python wheel"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say "fetching Dawn $dawn_version (PyPI wheel dawn-python==$py_version)"
"$py" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  "dawn-python==$py_version" -d "$tmp" >&2 || die "pip could not download dawn-python==$py_version"
whl="$tmp/$wheel_name"
[ -f "$whl" ] || die "pip did not fetch $wheel_name"
got=$(sha256_of "$whl")
[ "$got" = "$wheel_sum" ] || die "checksum mismatch for $wheel_name: got $got, want $wheel_sum"
rm -rf "$dest.new"
mkdir -p "$dest.new/lib"
"$py" - "$whl" "$member" "$dest.new/lib/$name" "$dest.new/webgpu.py" <<'PY'
import sys, zipfile
whl, member, lib_out, py_out = sys.argv[1:5]
z = zipfile.ZipFile(whl)
with open(lib_out, "wb") as f:
    f.write(z.read(member))
with open(py_out, "wb") as f:
    f.write(z.read("pydawn/webgpu.py"))
PY
got=$(sha256_of "$dest.new/lib/$name")
[ "$got" = "$lib_sum" ] || die "checksum mismatch for $member: got $got, want $lib_sum"
echo "$dawn_version" > "$dest.new/VERSION"
echo "$stamp" > "$dest.new/STAMP"
rm -rf "$dest"
mv "$dest.new" "$dest"
mkdir -p "$cache"
cp "$dest/lib/$name" "$cache/.$name.tmp.$$"
mv -f "$cache/.$name.tmp.$$" "$cache/$name"
echo "$dawn_version" > "$cache/VERSION"
say "Dawn $dawn_version installed in third_party/dawn and $cache"
