#!/usr/bin/env bash
# The Windows stage of scripts/test.sh: the windows/amd64 build (cgo with
# mingw-w64) run under Wine with the Windows wgpu-native, its Vulkan going
# through winevulkan to the host's driver (lavapipe here):
#   - wgpu-prof.exe version (the library loads),
#   - wgpu-prof.exe devices (a Vulkan adapter is listed),
#   - wgpu-prof.exe run --quick --workloads cosine-single --format json
#     --backend vulkan: both sides' rows verified at every batch from 1
#     row, the report complete (timings not judged),
#   - the Windows test binaries of the packages that need no GPU.
# D3D12 is not executed: Wine's D3D12 (vkd3d) cannot compile compute
# shaders. Tests that Wine makes meaningless are skipped by name, with the
# reason, below.
#
#   scripts/test-windows.sh [LOGDIR]     (default LOGDIR: out/test-logs)
#   scripts/test-windows.sh --classifier [LOGDIR]
#                                        only the planted check of how a
#                                        failed test binary is judged
#
# Needs what scripts/setup.sh --test installs: x86_64-w64-mingw32-gcc, wine,
# Xvfb, third_party/wine/bcryptprimitives.dll (Go's runtime needs its
# ProcessPrng; Wine 8 has none) and third_party/wgpu-native-windows
# (--classifier: wine and the stub only).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
only_classifier=
if [ "${1:-}" = --classifier ]; then only_classifier=1; shift; fi
logdir=${1:-out/test-logs}
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)

die() { echo "test-windows: $*" >&2; exit 1; }
tools="wine python3"
[ -n "$only_classifier" ] || tools="x86_64-w64-mingw32-gcc Xvfb $tools"
for c in $tools; do
  command -v "$c" >/dev/null 2>&1 || die "$c not found (scripts/setup.sh --test installs the test tools)"
done
stub=third_party/wine/bcryptprimitives.dll
dll=third_party/wgpu-native-windows/lib/wgpu_native.dll
[ -f "$stub" ] || die "no $stub (scripts/setup.sh --test builds it from scripts/wine/)"
[ -n "$only_classifier" ] || [ -f "$dll" ] || die "no $dll (scripts/setup.sh --test fetches it)"

work=$(mktemp -d)
xpid=
cleanup() {
  WINEPREFIX=$WINEPREFIX wineserver -k >/dev/null 2>&1 || true
  [ -n "$xpid" ] && kill "$xpid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A Wine prefix of its own (kept between runs: creating one takes ~10 s),
# no Mono or Gecko, no debug output.
export WINEPREFIX=${WGPU_PROF_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/wgpu-prof/wine-prefix}
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$WINEPREFIX"
if [ -z "$only_classifier" ]; then
  # winevulkan needs a display driver: Wine's X11 driver on a virtual X server.
  exec 9>"$work/display"
  Xvfb -displayfd 9 -nolisten tcp -screen 0 640x480x24 >"$logdir/windows-xvfb.log" 2>&1 &
  xpid=$!
  for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
  [ -s "$work/display" ] || die "Xvfb did not start (see $logdir/windows-xvfb.log)"
  export DISPLAY=:$(head -1 "$work/display")
fi
wine wineboot -u >/dev/null 2>&1 || true
# Go's runtime loads bcryptprimitives.dll from System32 only.
sys32=$WINEPREFIX/drive_c/windows/system32
[ -d "$sys32" ] || die "wineboot did not create $sys32"
cp "$stub" "$sys32/bcryptprimitives.dll"
bin=$work/bin
mkdir -p "$bin"

# judge LOG DIR: the verdict on one test binary's -test.v log, run from
# the package folder DIR: "PASSED|CLEANUP|REAL", PASSED the count of
# passed tests, CLEANUP the failed tests that passed their own checks,
# REAL the others. Wine 8 lacks FileDispositionInformationEx, with which
# Go's os.RemoveAll deletes on Windows: t.TempDir's cleanup then fails
# after the test's own checks passed. A failed test counts as passed when
# that cleanup failed and every other message it printed came from a
# t.Log or t.Logf call: the message's file:line is looked up in DIR, and
# a line that is not such a call (t.Error, t.Fatal, a helper, a file of
# another package) makes the failure real. A panic is real.
judge() {
  python3 - "$1" "$2" <<'PY'
import os, re, sys
log, src = sys.argv[1], sys.argv[2]
msg = re.compile(r"^\s+([\w.-]+\.go):(\d+): (.*)")
logcall = re.compile(r"\.Logf?\(")
failcall = re.compile(r"\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)\(")
files = {}
def is_log(name, line):
    if name not in files:
        try:
            files[name] = open(os.path.join(src, name), encoding="utf-8").read().split("\n")
        except OSError:
            files[name] = []
    text = files[name][line - 1] if 0 < line <= len(files[name]) else ""
    return bool(logcall.search(text)) and not failcall.search(text)
top, cleanup, other, passed, cleanup_only, real = "", {}, {}, 0, [], []
for line in open(log, encoding="utf-8", errors="replace"):
    line = line.rstrip("\r\n")
    if m := re.match(r"^=== (?:RUN|CONT|NAME) +(\S+)", line):
        top = m.group(1).split("/")[0]
    elif m := msg.match(line):
        if m.group(1) == "testing.go" and m.group(3).startswith("TempDir RemoveAll cleanup:") and "Invalid function" in m.group(3):
            cleanup[top] = cleanup.get(top, 0) + 1
        elif not is_log(m.group(1), int(m.group(2))):
            other[top] = other.get(top, 0) + 1
    elif m := re.match(r"^--- FAIL: (\S+)", line):
        n = m.group(1)
        (cleanup_only if cleanup.get(n) and not other.get(n) else real).append(n)
    elif line.startswith("--- PASS"):
        passed += 1
    elif line.startswith("panic:"):
        real.append("(panic)")
print(f"{passed}|{''.join(' ' + n for n in cleanup_only)}|{''.join(' ' + n for n in real)}")
PY
}

# The judgement on planted tests, run under Wine as the packages' are:
# one that logs, uses t.TempDir and passes its check (its cleanup fails
# under Wine: counted as passed), one that does the same and fails an
# assertion, and one that fails through a helper (both real).
planted=$work/planted
mkdir -p "$planted"
printf 'module planted\n\ngo 1.22\n' >"$planted/go.mod"
cat >"$planted/planted_test.go" <<'GO'
package planted

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLogsAndTempDir(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", d)
}

func TestFailsAndTempDir(t *testing.T) {
	t.Logf("wrote %s", t.TempDir())
	t.Errorf("want 2, got 3")
}

func TestHelperFails(t *testing.T) {
	t.Log(t.TempDir())
	check(t, 3)
}

func check(t *testing.T, got int) {
	t.Helper()
	if got != 2 {
		t.Errorf("want 2, got %d", got)
	}
}
GO
(cd "$planted" && CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go test -c -o "$bin/planted.test.exe" .)
(cd "$planted" && wine "$bin/planted.test.exe" -test.count=1 -test.v) >"$logdir/windows-planted.log" 2>&1 || true
got=$(judge "$logdir/windows-planted.log" "$planted")
want="0| TestLogsAndTempDir| TestFailsAndTempDir TestHelperFails"
[ "$got" = "$want" ] ||
  die "the judgement of planted tests is \"$got\", want \"$want\" (see $logdir/windows-planted.log)"
echo "-- planted tests under Wine: TestLogsAndTempDir passes (t.TempDir cleanup failed), TestFailsAndTempDir and TestHelperFails fail"
[ -z "$only_classifier" ] || exit 0

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
CC=x86_64-w64-mingw32-gcc CGO_ENABLED=1 GOOS=windows GOARCH=amd64 \
  go build -ldflags "-X main.buildCommit=$commit" -o "$bin/wgpu-prof.exe" ./cmd/wgpu-prof
# The library next to the binary, where wgpu-prof looks first (as in a
# portable folder).
cp -L "$dll" "$bin/wgpu_native.dll"

echo "-- wgpu-prof.exe version"
version=$(wine "$bin/wgpu-prof.exe" version 2>&1) || die "version failed: $version"
echo "$version" | sed 's/^/  /'
echo "$version" | grep -q 'windows/amd64' || die "version does not name windows/amd64"
echo "$version" | grep -Eq 'wgpu-native +[0-9]' || die "wgpu_native.dll did not load"

echo "-- wgpu-prof.exe devices"
devices=$(wine "$bin/wgpu-prof.exe" devices 2>&1) || die "devices failed: $devices"
echo "$devices" >"$logdir/windows-devices.txt"
echo "$devices" | grep -E '^\[[0-9]+\] |^  (type|driver|timestamps) ' | sed 's/^/  /'
echo "$devices" | grep -Eq '^\[[0-9]+\] .*\(vulkan\)' || die "devices lists no Vulkan adapter (see $logdir/windows-devices.txt)"
echo "  a Vulkan adapter is listed (winevulkan). Not executed: D3D12 (Wine's vkd3d cannot compile compute shaders) and GL."

echo "-- wgpu-prof.exe run --quick --workloads cosine-single --format json --backend vulkan"
# --backend vulkan: Wine's D3D12 lists an adapter that ranks first but
# cannot run compute. Every call is timed on timing/clock, which reads
# QueryPerformanceCounter on Windows (Go's own monotonic clock there moves
# once per timer tick, under Wine in steps of 50 µs to a few ms, and a
# shorter call would read 0 s). Timings are not judged.
check_rows() {
  python3 - "$@" <<'PY'
import json, sys
path, want = sys.argv[1], sys.argv[2].split(",")
r = json.load(open(path))
rows = r.get("measurements") or r.get("rows") or []
sides = {}
for m in rows:
    if m.get("workload") != "cosine-single":
        continue
    backend = m.get("backend") or (r.get("adapter") or {}).get("backend", "-")
    print(f"  cosine-single {m['side']:3} {m['variant']:22} {backend:6} verified={str(m['verified']).lower()}")
    sides.setdefault(m["side"], []).append(m["verified"])
bad = [s for s in want if not sides.get(s) or not all(sides[s])]
if bad:
    sys.exit(f"test-windows: {path}: no verified cosine-single row on the {', '.join(bad)} side")
if r.get("incomplete"):
    sys.exit(f"test-windows: {path}: the report is marked incomplete: {r['incomplete']}")
PY
}
rc=0
wine "$bin/wgpu-prof.exe" run --quick --workloads cosine-single --format json --backend vulkan \
  >"$logdir/windows-run.json" 2>"$logdir/windows-run.err" || rc=$?
if [ $rc != 0 ]; then
  tail -5 "$logdir/windows-run.err" | sed 's/^/  /'
  die "run exited $rc (see $logdir/windows-run.err)"
fi
check_rows "$logdir/windows-run.json" gpu,cpu

# The Windows test binaries of the packages whose tests need no cgo (and
# so no GPU), run under Wine from their package folder. buildcheck and
# bundlecheck test this machine's toolchain and the Linux bundle.
# Skipped by name, with the reason:
skip_reasons="
TestCalibrationCache|hostsimd: the test isolates the cache with XDG_CACHE_HOME and HOME, which Windows ignores (os.UserCacheDir reads %LocalAppData%): under Wine the second calibration measures again
TestWriteAtomic|internal/report: a read-only folder and 0644 file modes are Unix semantics
TestWriteDirFailingWriter|internal/report: it checks that a failed write leaves no folder, which os.RemoveAll cannot remove under Wine 8 (no FileDispositionInformationEx)
"
skip_re=$(echo "$skip_reasons" | awk -F'|' 'NF > 1 {printf "%s^%s$", (n++ ? "|" : ""), $1}')
echo "$skip_reasons" | awk -F'|' 'NF > 1 {print "  SKIP " $1 " (" $2 ")"}'
pkgs=$(GOOS=windows CGO_ENABLED=0 go list -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... |
  awk '$1 ~ /\.test$/ { next }
       { p = $1; sub(/_test$/, "", p); cgo[p] += (p ~ /\/compute\/wgpu$/); for (i = 2; i <= NF; i++) if ($i ~ /\/compute\/wgpu$/) cgo[p]++ }
       END { for (p in cgo) if (!cgo[p]) print p }' | grep -v -E '/internal/(buildcheck|bundlecheck)$' | sort)
failed=0
for p in $pkgs; do
  dir=${p#github.com/wgpu-prof/wgpu-prof}; dir=.${dir:-/}
  ls "$dir"/*_test.go >/dev/null 2>&1 || continue
  name=$(echo "${dir#./}" | tr / -)
  t=$bin/$name.test.exe
  log=$logdir/windows-test-$name.log
  CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go test -c -o "$t" "$dir"
  rc=0
  (cd "$dir" && wine "$t" -test.count=1 -test.v -test.timeout 30m -test.skip "$skip_re") >"$log" 2>&1 || rc=$?
  # A failed test that passed its own checks and only t.TempDir's cleanup
  # failed counts as passed, and is named (judge, above).
  verdict=$(judge "$log" "$dir")
  pass=${verdict%%|*}; rest=${verdict#*|}; cleanup=${rest%%|*}; real=${rest#*|}
  if [ -n "$real" ] || { [ $rc != 0 ] && [ -z "$cleanup" ]; }; then
    echo "  FAIL $p (exit $rc):${real:- see log} (log: ${log#"$root"/})"
    grep -E '^(--- FAIL|\s+\S+_test\.go:[0-9]+:)' "$log" | grep -v 'TempDir RemoveAll cleanup' | head -20 | sed 's/^/    /' || true
    failed=1
  else
    echo "  ok   $p: $pass passed${cleanup:+; passed its checks, t.TempDir cleanup failed under Wine:$cleanup}"
  fi
done
[ $failed = 0 ] || die "Windows test binaries failed under Wine"
