#!/usr/bin/env bash
# Set-up for wgpu-prof: makes sure wgpu-native (pinned, checksummed) and a
# Vulkan driver are present. Idempotent: re-running it does nothing when all
# is in place. Prints the environment to use on its last lines when sourced
# output is wanted: `eval "$(scripts/setup.sh --env)"`.
#
# Overrides:
#   WGPU_NATIVE_LIB      path to a libwgpu_native shared library of your own
#   WGPU_NATIVE_INCLUDE  folder holding webgpu.h and wgpu.h matching it
#   WGPU_PROF_NO_APT=1   never call apt-get (only say what to install)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lock="$root/scripts/wgpu-native.lock"
dest="$root/third_party/wgpu-native"
want_env=0
[ "${1:-}" = "--env" ] && want_env=1

say() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }

py_version=$(sed -n 's/^WGPU_PY_VERSION=//p' "$lock")
native_version=$(sed -n 's/^WGPU_NATIVE_VERSION=//p' "$lock")

platform_tag() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo manylinux_2_28_x86_64 ;;
    Linux-aarch64|Linux-arm64) echo manylinux_2_28_aarch64 ;;
    Darwin-arm64) echo macosx_11_0_arm64 ;;
    Darwin-x86_64) echo macosx_10_9_x86_64 ;;
    MINGW*-x86_64|MSYS*-x86_64|CYGWIN*-x86_64) echo win_amd64 ;;
    *) die "no pinned wgpu-native build for $(uname -s)-$(uname -m); set WGPU_NATIVE_LIB and WGPU_NATIVE_INCLUDE to your own build" ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

install_wgpu_native() {
  if [ -n "${WGPU_NATIVE_LIB:-}" ] || [ -n "${WGPU_NATIVE_INCLUDE:-}" ]; then
    [ -f "${WGPU_NATIVE_LIB:-}" ] || die "WGPU_NATIVE_LIB=${WGPU_NATIVE_LIB:-} is not a file"
    [ -f "${WGPU_NATIVE_INCLUDE:-}/webgpu.h" ] && [ -f "${WGPU_NATIVE_INCLUDE}/wgpu.h" ] ||
      die "WGPU_NATIVE_INCLUDE=${WGPU_NATIVE_INCLUDE:-} must hold webgpu.h and wgpu.h"
    mkdir -p "$dest/lib" "$dest/include"
    ln -sf "$WGPU_NATIVE_LIB" "$dest/lib/$(basename "$WGPU_NATIVE_LIB")"
    ln -sf "$WGPU_NATIVE_INCLUDE/webgpu.h" "$dest/include/webgpu.h"
    ln -sf "$WGPU_NATIVE_INCLUDE/wgpu.h" "$dest/include/wgpu.h"
    echo "custom ($WGPU_NATIVE_LIB)" > "$dest/VERSION"
    return
  fi
  local tag sum
  tag=$(platform_tag)
  sum=$(awk -v t="$tag" '$1==t {print $2}' "$lock")
  [ -n "$sum" ] || die "no checksum for platform $tag in $lock"
  if [ -f "$dest/STAMP" ] && [ "$(cat "$dest/STAMP")" = "$py_version $tag $sum" ]; then
    return
  fi
  say "fetching wgpu-native $native_version (PyPI wheel wgpu==$py_version, $tag)"
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  local py
  py=$(command -v python3 || command -v python) || die "python3 with pip is needed to download the wgpu wheel"
  "$py" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "$tag" "wgpu==$py_version" -d "$tmp" >&2 ||
    die "pip could not download wgpu==$py_version for $tag"
  local whl
  whl=$(ls "$tmp"/wgpu-"$py_version"-*.whl)
  local got
  got=$(sha256_of "$whl")
  [ "$got" = "$sum" ] || die "checksum mismatch for $(basename "$whl"): got $got, want $sum"
  rm -rf "$dest.new"
  mkdir -p "$dest.new/lib" "$dest.new/include"
  "$py" - "$whl" "$dest.new" <<'PY'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(whl)
found = set()
for info in z.infolist():
    name = os.path.basename(info.filename)
    if not info.filename.startswith("wgpu/resources/"):
        continue
    if name.startswith("libwgpu_native") or name.startswith("wgpu_native"):
        sub = "lib"
    elif name in ("webgpu.h", "wgpu.h"):
        sub = "include"
    else:
        continue
    with open(os.path.join(out, sub, name), "wb") as f:
        f.write(z.read(info))
    found.add(sub)
if found != {"lib", "include"}:
    sys.exit("wheel lacks the wgpu-native library or headers")
PY
  # A stable name for the linker.
  (cd "$dest.new/lib" && for f in libwgpu_native-release.*; do
     [ -e "$f" ] && ln -sf "$f" "libwgpu_native.${f##*.}"; done; true)
  echo "$native_version" > "$dest.new/VERSION"
  echo "$py_version $tag $sum" > "$dest.new/STAMP"
  rm -rf "$dest"
  mv "$dest.new" "$dest"
  say "wgpu-native $native_version installed in third_party/wgpu-native"
}

vulkan_icd_present() {
  local d
  for d in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
    ls "$d"/*.json >/dev/null 2>&1 && return 0
  done
  [ -n "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] && return 0
  return 1
}

vulkan_loader_present() {
  ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' && return 0
  ls /usr/lib/*/libvulkan.so.1 /usr/lib/libvulkan.so.1 >/dev/null 2>&1
}

install_vulkan() {
  [ "$(uname -s)" = Linux ] || return 0
  if vulkan_icd_present && vulkan_loader_present; then return 0; fi
  local pkgs="mesa-vulkan-drivers libvulkan1"
  if [ "$(id -u)" = 0 ] && [ -z "${WGPU_PROF_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1; then
    say "no Vulkan driver found; installing Mesa lavapipe ($pkgs)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >&2 || die "apt-get install $pkgs failed"
  else
    say "no Vulkan driver found. Install one, e.g. on Debian/Ubuntu: sudo apt-get install $pkgs"
    say "(GPU tests will fail and name what is missing until a driver is present)"
  fi
}

install_wgpu_native
install_vulkan

if [ "$want_env" = 1 ]; then
  lib="$dest/lib"
  echo "export CGO_CFLAGS=\"-I$dest/include\""
  echo "export CGO_LDFLAGS=\"-L$lib -lwgpu_native -Wl,-rpath,$lib\""
  echo "export WGPU_NATIVE_VERSION=\"$(cat "$dest/VERSION")\""
fi
