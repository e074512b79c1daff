#!/usr/bin/env bash
# run.sh of the portable bundle (scripts/bundle.sh copies this file there):
# the whole measurement job on one adapter, every step written to one
# results folder, then packed into one .tar.gz.
#
# usage: ./run.sh --out DIR [--tar FILE] [--backend B] [--adapter-name TEXT]
#                 [--impl LIST] [--phases LIST] [--workloads LIST]
#                 [--budget SECONDS] [--quick] [--allow-cpu] [--args FLAGS]
#
#   --out DIR            results folder (created; must not exist or be empty)
#   --tar FILE           the packed results (default DIR.tar.gz)
#   --backend B          vulkan (default), metal, d3d12, gl or any
#   --adapter-name TEXT  pick the adapter whose name contains TEXT (e.g. NVIDIA)
#   --impl LIST          WebGPU implementations, comma-separated (default
#                        wgpu-native,dawn): devices lists the adapters through
#                        each, run measures through all of them side by side,
#                        the later phases through the first
#   --phases LIST        comma-separated, in this order (default all):
#                        devices, cuda-peers, run, sweep-workgroup,
#                        sweep-tile, memory-compute, breakeven
#   --workloads LIST     only these workloads (default: every one, as listed
#                        by ./wgpu-prof workloads)
#   --budget SECONDS     wall time of the whole job: no step starts after it,
#                        the step running then is stopped (its report marked
#                        INCOMPLETE), and the run step may take at most 60%
#                        of it; default 450, so that the job and its tar fit
#                        8 minutes; 0: no limit (--deadline is the same)
#   --quick              pass --quick to every measuring command (a short look)
#   --args FLAGS         more flags for every measuring command (run, the
#                        sweeps, memory-compute, breakeven), one string, e.g.
#                        "--n 1048576" for stored vectors far past a GPU's L2
#   --allow-cpu          go on when the adapter is a CPU (lavapipe/llvmpipe) or
#                        its timestamps do not work (default: stop after devices)
#
# Steps: devices (all adapters, text and json; then through each further
# implementation of --impl, devices-<impl>.txt); cuda-peers (bench's
# cuda_peers.py next to this script, where python3 has CuPy and a CUDA device;
# otherwise cuda_peers.json says "no CUDA here" and why); run (full suite, --trace,
# --impl LIST: one report with the implementations side by side, and
# --dump-shaders: the code each implementation compiled);
# sweep workgroup --sizes 32,...,1024 for each workload with a workgroup knob;
# sweep tile --variant tiled --tiles 16,32,64,128 for each one with tiles; experiment
# memory-compute for each one that has it; breakeven for every workload.
# Measuring commands get --out DIR/<step> --plot; their stdout and stderr go
# to DIR/<step>.txt; DIR/job.log lists each command, its exit status and
# seconds. The tar is rewritten after every step, so a job killed at any
# point leaves the results of the steps before it. A tar over 15 MiB is split into FILE.00, FILE.01, ... (so that a
# transfer that limits the size of a file can carry it). A failed step is
# logged and the job goes on; the exit status is
# the number of failed steps (at most 100), 0 when all passed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$here/wgpu-prof
out= tarfile= backend=vulkan adapter_name= impls=wgpu-native,dawn phases=all only= deadline=450 quick= allow_cpu= extra=
usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "run.sh: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --out) need "$@"; out=$2; shift 2 ;;
    --tar) need "$@"; tarfile=$2; shift 2 ;;
    --backend) need "$@"; backend=$2; shift 2 ;;
    --adapter-name) need "$@"; adapter_name=$2; shift 2 ;;
    --impl) need "$@"; impls=$2; shift 2 ;;
    --phases) need "$@"; phases=$2; shift 2 ;;
    --workloads) need "$@"; only=$2; shift 2 ;;
    --budget|--deadline) need "$@"; deadline=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --allow-cpu) allow_cpu=1; shift ;;
    --args) need "$@"; extra=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see ./run.sh --help)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "run.sh: --out DIR is required (see ./run.sh --help)" >&2; exit 2; }
if ! [[ $deadline =~ ^[0-9]+$ ]]; then
  echo "run.sh: --budget '$deadline': want a number of seconds (0: no limit)" >&2; exit 2
fi
[ "$deadline" = 0 ] && deadline=
all_phases="devices cuda-peers run sweep-workgroup sweep-tile memory-compute breakeven"
[ "$phases" = all ] && phases=${all_phases// /,}
for p in ${phases//,/ }; do
  case " $all_phases " in *" $p "*) ;; *) echo "run.sh: --phases: unknown phase '$p' (have: ${all_phases// /, })" >&2; exit 2 ;; esac
done
want() { case ",$phases," in *",$1,"*) return 0 ;; esac; return 1; }
for i in ${impls//,/ }; do
  case $i in wgpu-native|dawn) ;; *) echo "run.sh: --impl: unknown implementation '$i' (have: wgpu-native, dawn)" >&2; exit 2 ;; esac
done
first_impl=${impls%%,*}
[ -x "$bin" ] || { echo "run.sh: no wgpu-prof next to run.sh ($bin)" >&2; exit 2; }
if [ -n "$only" ]; then
  have=$("$bin" workloads --has all) || { echo "run.sh: 'wgpu-prof workloads' failed" >&2; exit 2; }
  for w in ${only//,/ }; do
    case " $(echo $have) " in *" $w "*) ;; *) echo "run.sh: --workloads: unknown workload '$w' (have: $(echo $have))" >&2; exit 2 ;; esac
  done
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "run.sh: --out $out exists and is not empty; name a new folder" >&2; exit 2
fi
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
tarfile=${tarfile:-$out.tar.gz}
case $tarfile in /*) ;; *) tarfile=$PWD/$tarfile ;; esac
mkdir -p "$(dirname "$tarfile")" || exit 2
log=$out/job.log
start=$(date +%s)
failed=0

say() { echo "$*" | tee -a "$log"; }
# snapshot rewrites the tar with everything written so far.
snapshot() {
  tar -C "$(dirname "$out")" -czf "$tarfile.tmp" "$(basename "$out")" 2>/dev/null && mv "$tarfile.tmp" "$tarfile"
}
pack() {
  say "== packing $tarfile"
  snapshot
  ls -l "$tarfile" | tee -a "$log"
  # A larger tar is split into FILE.00, FILE.01, ... for transfers that
  # limit the size of a file (cat FILE.?? > FILE joins them).
  # (RUN_SH_SPLIT_KIB changes the piece size, for tests.)
  local piece=${RUN_SH_SPLIT_KIB:-15360}
  if [ "$(stat -c %s "$tarfile")" -gt $((piece * 1024)) ]; then
    split -b "${piece}k" -d "$tarfile" "$tarfile." && rm "$tarfile"
    say "   split into $(ls "$tarfile".?? | wc -l) pieces of at most $piece KiB: cat $(basename "$tarfile").?? > $(basename "$tarfile")"
  fi
}
trap pack EXIT

# remaining seconds before the deadline ("" without one); 0 when past it.
remaining() {
  [ -n "$deadline" ] || { echo ""; return; }
  local r=$((deadline - ($(date +%s) - start)))
  [ $r -gt 0 ] && echo $r || echo 0
}

# step NAME ARGS...: run wgpu-prof ARGS, output to NAME.txt, logged, then
# the tar rewritten. With step_cap set (seconds), the step is stopped after
# that long even before the deadline.
step_cap=
step() {
  local name=$1; shift
  local r; r=$(remaining)
  if [ -n "$step_cap" ] && [ "$r" != 0 ] && { [ -z "$r" ] || [ "$step_cap" -lt "$r" ]; }; then r=$step_cap; fi
  if [ "$r" = 0 ]; then
    say "SKIPPED (deadline ${deadline}s reached)  wgpu-prof $*"
    failed=$((failed + 1)); return
  fi
  local t0 rc; t0=$(date +%s)
  say "\$ wgpu-prof $*"
  if [ -n "$r" ]; then
    timeout --signal=INT --kill-after=15 "$r" "$bin" "$@" >"$out/$name.txt" 2>&1; rc=$?
  else
    "$bin" "$@" >"$out/$name.txt" 2>&1; rc=$?
  fi
  local line="   rc=$rc  $(( $(date +%s) - t0 ))s  -> $name.txt"
  [ $rc = 124 ] && line="$line  (stopped at the deadline)"
  say "$line"
  if [ $rc != 0 ]; then
    failed=$((failed + 1))
    tail -n 5 "$out/$name.txt" | sed 's/^/   | /' | tee -a "$log"
  fi
  snapshot
}

# cuda_peers: bench's CUDA peers (cuda_peers.py, beside this script) where
# python3 has CuPy and sees a CUDA device; otherwise cuda_peers.json says
# "no CUDA here" and why, so the results always hold the file.
cuda_peers() {
  local py why= r t0 rc
  py=$(command -v python3 || true)
  if [ -z "$py" ]; then why="no python3"
  elif [ ! -f "$here/cuda_peers.py" ]; then why="no cuda_peers.py next to run.sh"
  elif ! "$py" -c 'import cupy' >/dev/null 2>&1; then why="python3 has no CuPy"
  elif ! "$py" -c 'import cupy, sys; sys.exit(cupy.cuda.runtime.getDeviceCount() < 1)' >/dev/null 2>&1; then why="CuPy sees no CUDA device"
  fi
  if [ -n "$why" ]; then
    printf '{"status": "no CUDA here", "reason": "%s"}\n' "$why" >"$out/cuda_peers.json"
    echo "no CUDA here: $why" >"$out/cuda-peers.txt"
    say "   cuda-peers: no CUDA here ($why) -> cuda_peers.json"
    snapshot
    return
  fi
  r=$(remaining)
  [ "$r" = 0 ] && { say "SKIPPED (deadline ${deadline}s reached)  cuda_peers.py"; failed=$((failed + 1)); return; }
  # The peers at the stored rows the measuring commands get (--args "--n N").
  local pn; pn=$(echo "$extra" | sed -n 's/.*--n[ =]\([0-9][0-9]*\).*/\1/p')
  say "\$ python3 cuda_peers.py${pn:+ --n $pn} --json cuda_peers.json"
  t0=$(date +%s)
  timeout --signal=INT --kill-after=15 "${r:-3600}" "$py" "$here/cuda_peers.py" ${pn:+--n "$pn"} --json "$out/cuda_peers.json" >"$out/cuda-peers.txt" 2>&1; rc=$?
  say "   rc=$rc  $(( $(date +%s) - t0 ))s  -> cuda-peers.txt, cuda_peers.json"
  [ $rc = 0 ] || failed=$((failed + 1))
  snapshot
}

say "== wgpu-prof job, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -nrm)"
say "   $("$bin" version 2>&1)"

# The machine, for the results' README: OS, glibc, GPU driver, Vulkan loader
# and drivers, the Vulkan environment.
{
  echo "date        $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname       $(uname -a)"
  [ -r /etc/os-release ] && echo "os          $(. /etc/os-release; echo "${PRETTY_NAME:-?}")"
  echo "glibc       $(ldd --version 2>&1 | head -1)"
  echo "cpu         $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2-) ($(nproc 2>/dev/null) threads)"
  echo "memory      $(grep -m1 MemTotal /proc/meminfo 2>/dev/null)"
  echo "tool        $("$bin" version 2>&1)"
  echo "job         run.sh --backend $backend${adapter_name:+ --adapter-name $adapter_name} --impl $impls --phases $phases${only:+ --workloads $only}${deadline:+ --budget $deadline}${quick:+ --quick}${extra:+ --args \"$extra\"}"
  echo; echo "== environment (VK_*, WGPU_*, __EGL*)"; env | grep -E '^(VK_|WGPU_|__EGL)' | sort
  echo; echo "== Vulkan loader"; ldconfig -p 2>/dev/null | grep -i vulkan || echo "(ldconfig lists no libvulkan)"
  echo; echo "== Vulkan driver manifests"
  for d in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d; do
    [ -d "$d" ] && ls -l "$d"
  done
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo; echo "== nvidia-smi"; nvidia-smi 2>&1
    echo; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,pcie.link.gen.max --format=csv 2>&1
  fi
  if command -v vulkaninfo >/dev/null 2>&1; then
    echo; echo "== vulkaninfo --summary"; vulkaninfo --summary 2>&1
  fi
  echo; echo "== BUILD.txt of the bundle"; cat "$here/BUILD.txt" 2>/dev/null
} >"$out/machine.txt" 2>&1

# Workload names come from the binary, never from a list here.
list() {
  local names; names=$("$bin" workloads --has "$1") || { say "run.sh: 'wgpu-prof workloads --has $1' failed" >&2; return 1; }
  if [ -n "$only" ]; then
    local w keep=
    for w in $names; do case ",$only," in *",$w,"*) keep="$keep $w" ;; esac; done
    names=$keep
  fi
  echo $names
}

dev=(--backend "$backend")
[ -n "$adapter_name" ] && dev+=(--adapter-name "$adapter_name")
dev1=("${dev[@]}" --impl "$first_impl") # the phases after run
plot=(--plot)

# devices always runs: it shows what the timings below will come from, and
# the job stops here rather than spend its time on the wrong adapter.
step devices devices --impl "$first_impl"
"$bin" devices --impl "$first_impl" --format json >"$out/devices.json" 2>>"$log"
"$bin" devices --impl "$first_impl" --backend "$backend" >"$out/devices-$backend.txt" 2>&1
for i in ${impls//,/ }; do
  [ "$i" = "$first_impl" ] || step "devices-$i" devices --impl "$i"
done
# The adapter the measuring commands will pick, as wgpu-prof picks it:
# among those of --backend whose name contains --adapter-name (any case), a
# discrete GPU before an integrated one before the rest, the first of a
# rank. (With several backends, wgpu-prof also prefers vulkan/metal/d3d12
# to gl; each report.json records the adapter used.) Fine for timing when
# it is a GPU and its timestamps work.
verdict=$(awk -v want="$adapter_name" '
  function rank(t) { return t == "discrete-gpu" ? 0 : t == "integrated-gpu" ? 1 : t == "unknown" ? 2 : 3 }
  /^\[[0-9]+\] / { name = substr($0, index($0, "] ") + 2); ok = (want == "" || index(tolower(name), tolower(want)) > 0); next }
  ok && $1 == "type" { type = $2 }
  ok && $1 == "timestamps" {
    ts = $2; sub(/:$/, "", ts)
    if (best == "" || rank(type) < bestrank) { best = name " | " type " | timestamps " ts; bestrank = rank(type) }
  }
  END { print best }
' "$out/devices-$backend.txt")
say "   adapter: ${verdict:-none of backend $backend${adapter_name:+ named *$adapter_name*}}"
case $verdict in
  *"| discrete-gpu | timestamps working"|*"| integrated-gpu | timestamps working") ;;
  *)
    if [ -z "$allow_cpu" ]; then
      say "run.sh: stopping: the adapter is not a GPU with working timestamps (see devices.txt; --allow-cpu to go on anyway)"
      exit 3
    fi
    say "   (--allow-cpu: going on; these timings are not a GPU's)" ;;
esac

if want cuda-peers; then
  cuda_peers
fi
if want run; then
  ws=(); [ -n "$only" ] && ws=(--workloads "$only")
  # The run step takes at most 60% of the budget, leaving the rest to the
  # phases after it.
  [ -n "$deadline" ] && step_cap=$((deadline * 6 / 10))
  step run run "${dev[@]}" --impl "$impls" $quick $extra "${ws[@]}" --out "$out/run" "${plot[@]}" --trace --dump-shaders
  step_cap=
fi
if want sweep-workgroup; then
  for w in $(list sweep-workgroup); do
    step "sweep-workgroup-$w" sweep workgroup --kernel "$w" --sizes 32,64,128,256,512,1024 "${dev1[@]}" $quick $extra --out "$out/sweep-workgroup-$w" "${plot[@]}"
  done
fi
if want sweep-tile; then
  for w in $(list sweep-tile); do
    step "sweep-tile-$w" sweep tile --kernel "$w" --variant tiled --tiles 16,32,64,128 "${dev1[@]}" $quick $extra --out "$out/sweep-tile-$w" "${plot[@]}"
  done
fi
if want memory-compute; then
  for w in $(list memory-compute); do
    step "memory-compute-$w" experiment memory-compute --kernel "$w" "${dev1[@]}" $quick $extra --out "$out/memory-compute-$w" "${plot[@]}"
  done
fi
if want breakeven; then
  for w in $(list all); do
    step "breakeven-$w" breakeven --kernel "$w" "${dev1[@]}" $quick $extra --out "$out/breakeven-$w" "${plot[@]}"
  done
fi

say "== done in $(( $(date +%s) - start ))s, $failed step(s) failed or skipped"
[ $failed -gt 100 ] && failed=100
exit $failed
