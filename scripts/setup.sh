#!/usr/bin/env bash
# Set-up for wgpu-prof: makes sure wgpu-native (pinned, checksummed) and a
# Vulkan driver are present: all the main job (scripts/run.sh) needs.
# Idempotent: re-running it does nothing when all is in place. It says which
# packages it checks and which it installs. `eval "$(scripts/setup.sh --env)"`
# also sets the environment it describes.
#
#   scripts/setup.sh [--env] [--test] [--with-dawn]
#
# --test adds what only the tests need (scripts/test.sh passes it): Chromium
# (the report.html test), mingw-w64 (the Windows build, and the
# bcryptprimitives.dll Wine lacks, from scripts/wine/), qemu-user (the arm64
# tests), Wine and Xvfb (the Windows build run under Wine; winevulkan needs
# an X display), the Windows wgpu-native (the win_amd64 wheel of the same
# pinned release, checksummed) in third_party/wgpu-native-windows, and the
# pinned Dawn (scripts/setup-dawn.sh; --with-dawn alone adds only that).
#
# wgpu-prof loads libwgpu_native at run time (compute/wgpu/library.go); building
# needs none of this. The pinned build goes to two places:
#   - the user cache folder, where the binaries look for it:
#     $XDG_CACHE_HOME or ~/.cache (Linux), ~/Library/Caches (macOS),
#     %LocalAppData% (Windows), then wgpu-prof/wgpu-native/<version>/;
#   - third_party/wgpu-native (git-ignored), with webgpu.h and wgpu.h, which
#     compute/wgpu/abi_test.go checks compute/wgpu/wgpu_abi.h against.
#
# Overrides (they never change the pinned install; unset them and the
# pinned build is used again):
#   WGPU_NATIVE_LIB      path to a libwgpu_native of your own; wgpu-prof
#                        loads it instead (here it is only checked to exist)
#   WGPU_NATIVE_INCLUDE  folder with the webgpu.h and wgpu.h matching it;
#                        compute/wgpu/abi_test.go then checks against those
#   WGPU_PROF_NO_APT=1   never call apt-get (only say what to install)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lock="$root/scripts/wgpu-native.lock"
dest="$root/third_party/wgpu-native"
want_env=0 want_test=0 want_dawn=0
for arg in "$@"; do
  case $arg in
    --env) want_env=1 ;;
    --test) want_test=1 want_dawn=1 ;;
    --with-dawn) want_dawn=1 ;; # also the pinned Dawn (scripts/setup-dawn.sh)
    *) echo "setup: unknown argument '$arg' (--env, --test, --with-dawn)" >&2; exit 2 ;;
  esac
done

say() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }

py_version=$(sed -n 's/^WGPU_PY_VERSION=//p' "$lock")
native_version=$(sed -n 's/^WGPU_NATIVE_VERSION=//p' "$lock")

# The wheel's platform tag, or nothing when there is no pinned build here.
platform_tag() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo manylinux_2_28_x86_64 ;;
    Linux-aarch64|Linux-arm64) echo manylinux_2_28_aarch64 ;;
    Darwin-arm64) echo macosx_11_0_arm64 ;;
    Darwin-x86_64) echo macosx_10_9_x86_64 ;;
    MINGW*-x86_64|MSYS*-x86_64|CYGWIN*-x86_64) echo win_amd64 ;;
  esac
}

# The library's file name as compute/wgpu/library.go looks for it.
lib_file_name() {
  case "$(uname -s)" in
    Darwin) echo libwgpu_native.dylib ;;
    MINGW*|MSYS*|CYGWIN*) echo wgpu_native.dll ;;
    *) echo libwgpu_native.so ;;
  esac
}

# What Go's os.UserCacheDir returns on this system.
user_cache_dir() {
  case "$(uname -s)" in
    Darwin)
      [ -n "${HOME:-}" ] || die "\$HOME is not set"
      echo "$HOME/Library/Caches" ;;
    MINGW*|MSYS*|CYGWIN*)
      [ -n "${LOCALAPPDATA:-}" ] || die "%LocalAppData% is not set"
      if command -v cygpath >/dev/null 2>&1; then cygpath -u "$LOCALAPPDATA"; else echo "$LOCALAPPDATA"; fi ;;
    *)
      if [ -n "${XDG_CACHE_HOME:-}" ]; then
        case "$XDG_CACHE_HOME" in
          /*) echo "$XDG_CACHE_HOME" ;;
          *) die "XDG_CACHE_HOME=$XDG_CACHE_HOME is relative; Go's os.UserCacheDir, which wgpu-prof uses to find the library, rejects that" ;;
        esac
      else
        [ -n "${HOME:-}" ] || die "neither \$XDG_CACHE_HOME nor \$HOME is set"
        echo "$HOME/.cache"
      fi ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# check_overrides checks the custom files exist; it changes nothing.
check_overrides() {
  if [ -n "${WGPU_NATIVE_LIB:-}" ]; then
    [ -f "$WGPU_NATIVE_LIB" ] || die "WGPU_NATIVE_LIB=$WGPU_NATIVE_LIB is not a file"
    say "WGPU_NATIVE_LIB is set: wgpu-prof will load $WGPU_NATIVE_LIB instead of the pinned build"
  fi
  if [ -n "${WGPU_NATIVE_INCLUDE:-}" ]; then
    [ -f "$WGPU_NATIVE_INCLUDE/webgpu.h" ] && [ -f "$WGPU_NATIVE_INCLUDE/wgpu.h" ] ||
      die "WGPU_NATIVE_INCLUDE=$WGPU_NATIVE_INCLUDE must hold webgpu.h and wgpu.h"
  fi
}

# pinned_ok: third_party/wgpu-native holds exactly what the stamp says.
# Every installed file is a regular file whose sha256 is in MANIFEST, and
# the only link is lib/<stable name> to the wheel's library next to it, so
# anything replaced or linked elsewhere (as set-ups before the run-time
# loader did for WGPU_NATIVE_LIB) is noticed and reinstalled.
pinned_ok() {
  local stamp="$1" sum file f target
  [ -f "$dest/STAMP" ] && [ "$(cat "$dest/STAMP")" = "$stamp" ] || return 1
  [ -f "$dest/MANIFEST" ] || return 1
  while read -r sum file; do
    [ -f "$dest/$file" ] && [ ! -L "$dest/$file" ] || return 1
    [ "$(sha256_of "$dest/$file")" = "$sum" ] || return 1
  done < "$dest/MANIFEST"
  for f in "$dest"/lib/* "$dest"/include/*; do
    [ -L "$f" ] || continue
    target=$(readlink "$f")
    case "$target" in */*) return 1 ;; esac
    grep -q " lib/$target\$" "$dest/MANIFEST" || return 1
  done
}

# install_pinned TAG SUM [DEST LIBNAME] fills DEST (default
# third_party/wgpu-native) from the checksummed wheel for platform TAG.
install_pinned() {
  local tag="$1" sum="$2"
  local dest="${3:-$dest}" libname="${4:-$(lib_file_name)}"
  if pinned_ok "$py_version $tag $sum"; then
    return
  fi
  say "fetching wgpu-native $native_version (PyPI wheel wgpu==$py_version, $tag)"
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "${tmp:-}"; trap - RETURN' RETURN
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
  local f
  (cd "$dest.new" && for f in lib/* include/*; do echo "$(sha256_of "$f") $f"; done) > "$dest.new/MANIFEST"
  # The stable name compute/wgpu/library.go looks for, next to the wheel's file.
  (cd "$dest.new/lib" && for f in *wgpu_native-release.so *wgpu_native-release.dylib *wgpu_native-release.dll; do
     [ -e "$f" ] && [ "$f" != "$libname" ] && ln -sf "$f" "$libname"; done; true)
  echo "$native_version" > "$dest.new/VERSION"
  echo "$py_version $tag $sum" > "$dest.new/STAMP"
  rm -rf "$dest"
  mv "$dest.new" "$dest"
  say "wgpu-native $native_version ($tag) installed in ${dest#"$root"/}"
}

# install_cache copies the pinned library into the user cache folder, where
# wgpu-prof binaries look for it wherever they are run from.
install_cache() {
  local dir name src
  dir="$(user_cache_dir)/wgpu-prof/wgpu-native/$native_version"
  name=$(lib_file_name)
  src=$(cd "$dest" && awk '$2 ~ /^lib\/.*\.(so|dylib|dll)$/ {print $2}' MANIFEST)
  [ -n "$src" ] && [ "$(echo "$src" | wc -l)" -eq 1 ] || die "expected one library in $dest/lib, found: ${src:-none}"
  src="$dest/$src"
  if [ -f "$dir/$name" ] && [ ! -L "$dir/$name" ] && [ "$(sha256_of "$dir/$name")" = "$(sha256_of "$src")" ]; then
    return
  fi
  mkdir -p "$dir"
  cp "$src" "$dir/.$name.tmp.$$"
  mv -f "$dir/.$name.tmp.$$" "$dir/$name"
  say "wgpu-native $native_version installed in $dir"
}

install_wgpu_native() {
  check_overrides
  local tag sum
  tag=$(platform_tag)
  if [ -z "$tag" ]; then
    [ -n "${WGPU_NATIVE_LIB:-}" ] ||
      die "no pinned wgpu-native build for $(uname -s)-$(uname -m); set WGPU_NATIVE_LIB (and WGPU_NATIVE_INCLUDE) to your own build"
    say "no pinned wgpu-native build for $(uname -s)-$(uname -m); using WGPU_NATIVE_LIB only"
    return
  fi
  sum=$(awk -v t="$tag" '$1==t {print $2}' "$lock")
  [ -n "$sum" ] || die "no checksum for platform $tag in $lock"
  install_pinned "$tag" "$sum"
  install_cache
  say "main job: wgpu-native $native_version (wheel wgpu==$py_version, $tag, sha256 checked) in third_party/wgpu-native and the user cache"
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

can_apt() {
  [ "$(id -u)" = 0 ] && [ -z "${WGPU_PROF_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1
}

# apt_install WHAT PKG:PROBE...: PROBE is a command (or an absolute path)
# whose presence means PKG is in place. Says which packages WHAT needs,
# installs the missing ones in one apt-get call (apt-get update first when
# the package lists are empty or stale for them), and prints the version of
# each. Without apt (or as a user) it says what to install and goes on.
apt_install() {
  local what=$1 item pkg probe all="" missing=""
  shift
  for item in "$@"; do
    pkg=${item%%:*} probe=${item#*:}
    all="$all $pkg"
    case $probe in
      /*) [ -e "$probe" ] ;;
      *) command -v "$probe" >/dev/null 2>&1 ;;
    esac || missing="$missing $pkg"
  done
  if [ -z "$missing" ]; then
    say "$what: apt packages$all: present"
  elif can_apt; then
    say "$what: installing apt packages:$missing"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2 ||
      { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2; } ||
      die "apt-get install$missing failed"
  else
    say "$what: missing apt packages:$missing (install them, e.g. sudo apt-get install$missing); the checks that need them will fail and name what is missing"
    return 0
  fi
  if command -v dpkg-query >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    say "$what: versions: $(dpkg-query -W -f '${Package}=${Version} ' $all 2>/dev/null)"
  fi
}

install_vulkan() {
  [ "$(uname -s)" = Linux ] || return 0
  if vulkan_icd_present && vulkan_loader_present; then
    say "main job: a Vulkan loader and driver are present"
    return 0
  fi
  apt_install "main job (Vulkan: Mesa lavapipe)" mesa-vulkan-drivers:/usr/share/vulkan/icd.d/lvp_icd.x86_64.json libvulkan1:/usr/lib/x86_64-linux-gnu/libvulkan.so.1
}

# The test tools (--test). Debian packages, as Debian 12 ships them (the
# versions tested: qemu-user 7.2, wine 8.0, mingw-w64 gcc 12, chromium);
# the versions installed are printed.
install_test_tools() {
  [ "$(uname -s)" = Linux ] || { say "test tools: only set up on Linux (the emulated arm64 and Windows checks run there)"; return 0; }
  local chromium=chromium b
  for b in chromium chromium-browser google-chrome google-chrome-stable; do
    command -v "$b" >/dev/null 2>&1 && chromium=$b && break
  done
  apt_install "tests" \
    chromium:"$chromium" \
    gcc-mingw-w64-x86-64:x86_64-w64-mingw32-gcc \
    qemu-user:qemu-aarch64 \
    wine:wine wine64:/usr/lib/wine/wine64 \
    xvfb:Xvfb
  install_wine_stub
  install_windows_wgpu_native
}

# bcryptprimitives.dll for Wine (scripts/wine/): Go's Windows runtime needs
# its ProcessPrng, which Wine 8 lacks. Built from source here, never
# committed; rebuilt when the source changes.
install_wine_stub() {
  local src="$root/scripts/wine" out="$root/third_party/wine" stamp
  command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 ||
    { say "no x86_64-w64-mingw32-gcc: bcryptprimitives.dll for Wine not built"; return 0; }
  stamp=$(cat "$src/bcryptprimitives.c" "$src/bcryptprimitives.def" | sha256sum | cut -d' ' -f1)
  [ -f "$out/bcryptprimitives.dll" ] && [ "$(cat "$out/STAMP" 2>/dev/null)" = "$stamp" ] && return 0
  mkdir -p "$out"
  x86_64-w64-mingw32-gcc -O2 -Wall -Werror -shared -nostartfiles -Wl,--entry,DllMain -Wl,--no-insert-timestamp \
    -o "$out/bcryptprimitives.dll.tmp" "$src/bcryptprimitives.c" "$src/bcryptprimitives.def" -lbcrypt ||
    die "building bcryptprimitives.dll from scripts/wine/ failed"
  mv "$out/bcryptprimitives.dll.tmp" "$out/bcryptprimitives.dll"
  echo "$stamp" >"$out/STAMP"
  say "bcryptprimitives.dll (ProcessPrng for Go under Wine) built in third_party/wine"
}

# The Windows wgpu-native: the win_amd64 wheel of the pinned release.
install_windows_wgpu_native() {
  local sum
  sum=$(awk '$1=="win_amd64" {print $2}' "$lock")
  [ -n "$sum" ] || die "no checksum for platform win_amd64 in $lock"
  install_pinned win_amd64 "$sum" "$root/third_party/wgpu-native-windows" wgpu_native.dll
}

install_wgpu_native
install_vulkan
if [ "$want_test" = 1 ]; then install_test_tools; fi
if [ "$want_dawn" = 1 ]; then "$root/scripts/setup-dawn.sh"; fi

if [ "$want_env" = 1 ]; then
  # Nothing is needed to build; these only say what the binaries will load.
  echo "export WGPU_NATIVE_VERSION=\"$native_version\""
  if [ -n "${WGPU_NATIVE_LIB:-}" ]; then
    echo "export WGPU_NATIVE_LIB=\"$(cd "$(dirname "$WGPU_NATIVE_LIB")" && pwd)/$(basename "$WGPU_NATIVE_LIB")\""
  fi
  if [ -n "${WGPU_NATIVE_INCLUDE:-}" ]; then
    echo "export WGPU_NATIVE_INCLUDE=\"$(cd "$WGPU_NATIVE_INCLUDE" && pwd)\""
  fi
fi
