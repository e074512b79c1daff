#!/usr/bin/env bash
# Runs the measurement job on a remote GPU machine with the portable bundle
# (docs/GPU.md, "Running on a remote GPU machine") and files its results.
#
#   scripts/remote-job.sh [prepare] [RESULTS]
#                                     build the bundle (scripts/bundle.sh) into
#                                     dist/, fetch the Vulkan loader debs into
#                                     .gl/ (for a remote image that lacks the
#                                     loader), and print the remote commands
#   scripts/remote-job.sh commands [RESULTS]
#                                     print the remote commands only
#   scripts/remote-job.sh rehearse [SECONDS]
#                                     build the bundle and run the remote job
#                                     here, on this machine's adapter (a CPU:
#                                     --allow-cpu --quick) with --budget
#                                     SECONDS (default 150), and check that it
#                                     wrote every file the real run writes
#   scripts/remote-job.sh collect DIR...
#                                     unpack the results tars brought back
#                                     (DIR: any folder holding them) into
#                                     docs/results/<date>-<gpu>/, with a
#                                     README.md draft to complete
#
# The commands run on the remote machine in a folder holding copies of
# dist/wgpu-prof-linux-amd64/ and .gl/ at the same relative paths; each
# writes one results tar into the folder RESULTS (default: results).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bundle=dist/wgpu-prof-linux-amd64

# The remote commands. Each unpacks the loader debs when .gl/ holds them
# (as root), points the Vulkan loader at the NVIDIA driver's manifest when
# none is installed where the loader looks, and runs part of the job with
# run.sh's default budget (450 s), so that each part ends, its tar written,
# within 8 minutes; the tar is rewritten after every step.
set_commands() {
  local res=${1:-results}
  prelude='for f in .gl/*.deb; do [ -e $f ] && dpkg -x $f /; done; ldconfig; n=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1 || { [ -e $n ] && export VK_DRIVER_FILES=$n; };'
  # Stored vectors far past a data-centre GPU's L2 (50-60 MB): n = 524288
  # at d = 768 is 1.61 GB.
  local sizes='--args "--n 524288"'
  call1="$prelude $bundle/run.sh --out /tmp/part1 --tar $res/part1.tar.gz --backend vulkan --adapter-name NVIDIA --phases devices,cuda-peers,run $sizes"
  call2="$prelude $bundle/run.sh --out /tmp/part2 --tar $res/part2.tar.gz --backend vulkan --adapter-name NVIDIA --phases sweep-workgroup,sweep-tile,memory-compute,breakeven $sizes"
}

print_commands() {
  set_commands "${1:-}"
  cat <<END
Copy $bundle/ and .gl/ to the remote machine (same relative paths), then
run there, from that folder, one after the other:

1) devices, the CUDA peers, the full run with --trace
   command: $call1

2) both sweeps, memory-compute, break-even
   command: $call2

Bring back ${1:-results}/part1.tar.gz and part2.tar.gz (or their .00, .01, ...
pieces), then: scripts/remote-job.sh collect <folder holding them>
END
}

prepare() {
  scripts/bundle.sh
  # .gl must not be committed (.gitignore has /.gl/).
  mkdir -p .gl
  if ! git check-ignore -q .gl/x.deb 2>/dev/null; then
    echo /.gl/ >>"$(git rev-parse --git-path info/exclude)"
  fi
  if ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
    echo "== .gl already holds the debs:"
  else
    echo "== apt-get download of the Vulkan and GL loaders (amd64) into .gl"
    mkdir -p /tmp/amd64/partial
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    # shellcheck disable=SC2086
    apt-get $o update >/dev/null
    # shellcheck disable=SC2086
    (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
  fi
  ls -l .gl
  echo "== to copy: $(du -sh "$bundle" | cut -f1) bundle, $(du -sh .gl | cut -f1) loaders"
  echo
  print_commands "${1:-}"
}

# rehearse: the remote job as it runs there (the bundle's run.sh), here.
rehearse() {
  local budget=${1:-150}
  [[ $budget =~ ^[0-9]+$ && $budget -gt 0 ]] || { echo "remote-job.sh: rehearse: '$budget': want a positive number of seconds" >&2; exit 2; }
  scripts/bundle.sh >/dev/null
  local tmp; tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  local t0 rc=0 el
  t0=$(date +%s)
  echo "\$ $bundle/run.sh --out $tmp/job --tar $tmp/job.tar.gz --backend vulkan --allow-cpu --quick --budget $budget"
  "$bundle/run.sh" --out "$tmp/job" --tar "$tmp/job.tar.gz" --backend vulkan --allow-cpu --quick --budget "$budget" >"$tmp/out.txt" 2>&1 || rc=$?
  el=$(( $(date +%s) - t0 ))
  sed 's/^/  /' "$tmp/job/job.log"
  echo "rehearsal: $el s (budget $budget s), run.sh exit $rc (its number of failed or skipped steps)"
  local f missing=
  # What the real job always writes, whatever its budget lets it reach.
  for f in job.log machine.txt devices.txt devices.json devices-vulkan.txt cuda_peers.json cuda-peers.txt \
           run.txt run/report.json run/report.txt run/report.html; do
    [ -s "$tmp/job/$f" ] || missing="$missing $f"
  done
  # The trace: one file, or one per implementation when run measured
  # several side by side (run.sh's default: wgpu-native,dawn).
  [ -s "$tmp/job/run/trace.json" ] || [ -s "$tmp/job/run/wgpu-native-trace.json" ] ||
    missing="$missing run/trace.json (or run/wgpu-native-trace.json)"
  [ -s "$tmp/job.tar.gz" ] || ls "$tmp"/job.tar.gz.00 >/dev/null 2>&1 || missing="$missing job.tar.gz"
  [ -z "$missing" ] || { echo "remote-job.sh: rehearse: the job did not write:$missing" >&2; cat "$tmp/out.txt" >&2; exit 1; }
  grep -q '"status": "no CUDA here"' "$tmp/job/cuda_peers.json" || command -v nvidia-smi >/dev/null 2>&1 ||
    { echo "remote-job.sh: rehearse: cuda_peers.json without CUDA does not say \"no CUDA here\"" >&2; exit 1; }
  echo "rehearsal: cuda_peers.json: $(cat "$tmp/job/cuda_peers.json")"
  echo "rehearsal: run/report.txt begins:"; head -5 "$tmp/job/run/report.txt" | sed 's/^/  /'
  [ "$el" -le $((budget + 30)) ] || { echo "remote-job.sh: rehearse: took $el s, over the budget of $budget s (+30 s to stop and pack)" >&2; exit 1; }
}

collect() {
  set_commands
  [ $# -gt 0 ] || { echo "remote-job.sh: collect needs the folder(s) holding part1.tar.gz, part2.tar.gz" >&2; exit 2; }
  local tmp; tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  # Whole tars, and tars run.sh split into FILE.00, FILE.01, ... (joined).
  local f n=0
  while IFS= read -r f; do tar -C "$tmp" -xzf "$f"; n=$((n + 1)); done < <(find "$@" -maxdepth 3 -name 'part*.tar.gz' | sort)
  while IFS= read -r f; do
    cat "$f".[0-9][0-9] | tar -C "$tmp" -xzf -; n=$((n + 1))
  done < <(find "$@" -maxdepth 3 -name 'part*.tar.gz.00' | sed 's/\.00$//' | sort)
  [ $n -gt 0 ] || { echo "remote-job.sh: no part*.tar.gz (or part*.tar.gz.00, .01, ...) under $*" >&2; exit 1; }
  # The GPU's name from the first devices-vulkan.txt, the date from job.log.
  local first gpu day
  first=$(ls -d "$tmp"/part* | head -1)
  gpu=$(awk '/^\[[0-9]+\] / && /NVIDIA|AMD|Radeon|Intel|Apple/ { sub(/^\[[0-9]+\] /, ""); print; exit }' "$first/devices-vulkan.txt" 2>/dev/null || true)
  gpu=${gpu:-unknown-gpu}
  day=$(sed -n '1s/.*, \([0-9-]*\)T.*/\1/p' "$first/job.log")
  local slug; slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | sed 's/nvidia //; s/[^a-z0-9]\+/-/g; s/^-//; s/-$//' | cut -c1-40)
  local dest=docs/results/${day:-$(date -u +%F)}-$slug
  [ ! -e "$dest" ] || { echo "remote-job.sh: $dest exists; move it away first" >&2; exit 1; }
  mkdir -p "$dest"
  for d in "$tmp"/part*; do cp -r "$d" "$dest/"; done
  # The CUDA peers' figures, when they were brought back beside the tars.
  find "$@" -maxdepth 3 -name cuda_peers.json -exec cp {} "$dest/" \; -quit
  {
    echo "# $gpu, ${day:-?}: wgpu-prof on a real GPU"
    echo
    echo "DRAFT written by scripts/remote-job.sh collect: complete the judgement and headline figures, then delete this line."
    echo
    echo "## What ran"
    echo
    echo "The bundle (scripts/bundle.sh) on the remote machine, with these commands (docs/GPU.md):"
    echo
    echo '```sh'
    echo "$call1"
    echo "$call2"
    echo '```'
    echo
    echo "Each wgpu-prof command, its exit status and seconds (job.log of each part):"
    echo
    echo '```'
    for d in "$dest"/part*; do cat "$d/job.log"; done
    echo '```'
    echo
    echo "## Machine, driver, versions"
    echo
    echo '```'
    sed -n '1,/^== environment/p' "$first/machine.txt" | sed '$d'
    grep -A1 '^name, driver_version' "$first/machine.txt" || true
    echo '```'
    echo
    echo "Adapter (devices-vulkan.txt):"
    echo
    echo '```'
    cat "$first/devices-vulkan.txt"
    echo '```'
    echo
    echo "## Headline figures"
    echo
    echo "From part1/run/report.txt (ceilings and summary):"
    echo
    echo '```'
    if [ -f "$dest/part1/run/report.txt" ]; then
      sed -n '1,/^Measurements$/p' "$dest/part1/run/report.txt" | sed '$d'
      sed -n '/^Summary$/,$p' "$dest/part1/run/report.txt"
    else
      echo "(no part1/run/report.txt: see part1/run.txt and job.log)"
    fi
    echo '```'
    echo
    echo "## Judgement"
    echo
    echo "(Against what the card should do (docs/GPU.md, \"Reading GPU results\"): read ceiling, launch/readback overheads, cosine-single vs the read ceiling, tiled vs untiled cosine-batch at Q=64, timestamp cost, break-even intervals.)"
  } >"$dest/README.md"
  du -sh "$dest"
  echo "wrote $dest (README.md is a draft)"
}

case ${1:-prepare} in
  prepare) shift; prepare "$@" ;;
  commands) shift; print_commands "$@" ;;
  rehearse) shift; rehearse "$@" ;;
  collect) shift; collect "$@" ;;
  -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) echo "remote-job.sh: unknown command '$1' (prepare, commands, rehearse [SECONDS], collect DIR)" >&2; exit 2 ;;
esac
