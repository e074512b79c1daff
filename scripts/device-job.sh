#!/usr/bin/env bash
# Prepares a GPU measurement on a lent device machine (docs/GPU.md), and
# files its results afterwards.
#
#   scripts/device-job.sh [prepare]   build the bundle (scripts/bundle.sh) into
#                                     dist/, fetch the Vulkan loader debs into
#                                     .gl/, check the size of what travels,
#                                     and print the device calls to make
#   scripts/device-job.sh calls       print the device calls only
#   scripts/device-job.sh collect DIR...
#                                     unpack the results tars that came back
#                                     (DIR: the files_at folder of each device
#                                     reply, or any folder holding them) into
#                                     docs/results/<date>-<gpu>/, with a
#                                     README.md draft to complete
#
# Run it in the checkout the session was started in: the device tool sends
# that checkout (with the carried dist/ and .gl/), whichever worktree calls.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bundle=dist/wgpu-prof-linux-amd64

# The device calls. Each runs the bundle's run.sh with a deadline inside the
# tool's 600 s limit; the results come back as one .tar.gz per call.
prelude='for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; n=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1 || { [ -e $n ] && export VK_DRIVER_FILES=$n; };'
call1="$prelude $bundle/run.sh --out /tmp/part1 --tar \$OUT/part1.tar.gz --backend vulkan --adapter-name NVIDIA --phases devices,run --deadline 540"
call2="$prelude $bundle/run.sh --out /tmp/part2 --tar \$OUT/part2.tar.gz --backend vulkan --adapter-name NVIDIA --phases sweep-workgroup,sweep-tile,memory-compute,breakeven --deadline 540"

print_calls() {
  cat <<EOF
Device calls (tool 'run'; kind nvidia-h100-x1; timeout_s 600; carry as shown).
Make the second right after the first returns (the machine stays warm 30 s).

1) carry: ["$bundle", ".gl"]
   command: $call1

2) carry: ["$bundle", ".gl"]
   command: $call2

Then: scripts/device-job.sh collect <files_at of each reply>
EOF
}

prepare() {
  scripts/bundle.sh
  # .gl must not be committed; .gitignore has /.gl/, and an older checkout
  # gets it in .git/info/exclude as the device README says.
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
  # What travels: tracked and untracked-not-ignored files, plus the carry.
  local tree carry
  tree=$(git ls-files -co --exclude-standard -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
  carry=$(du -sb "$bundle" .gl | awk '{s += $1} END {print s}')
  echo "== travels: working tree $((tree >> 20)) MiB + carry $((carry >> 20)) MiB (limit 64 MiB)"
  if [ $((tree + carry)) -ge $((64 << 20)) ]; then
    echo "device-job.sh: over the device tool's 64 MiB limit" >&2
    exit 1
  fi
  echo
  print_calls
}

collect() {
  [ $# -gt 0 ] || { echo "device-job.sh: collect needs the folder(s) holding part1.tar.gz, part2.tar.gz" >&2; exit 2; }
  local tmp; tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  # Whole tars, and tars run.sh split into FILE.00, FILE.01, ... (joined).
  local f n=0
  while IFS= read -r f; do tar -C "$tmp" -xzf "$f"; n=$((n + 1)); done < <(find "$@" -maxdepth 3 -name 'part*.tar.gz' | sort)
  while IFS= read -r f; do
    cat "$f".[0-9][0-9] | tar -C "$tmp" -xzf -; n=$((n + 1))
  done < <(find "$@" -maxdepth 3 -name 'part*.tar.gz.00' | sed 's/\.00$//' | sort)
  [ $n -gt 0 ] || { echo "device-job.sh: no part*.tar.gz (or part*.tar.gz.00, .01, ...) under $*" >&2; exit 1; }
  # The GPU's name from the first devices-vulkan.txt, the date from job.log.
  local first gpu day
  first=$(ls -d "$tmp"/part* | head -1)
  gpu=$(awk '/^\[[0-9]+\] / && /NVIDIA|AMD|Radeon|Intel|Apple/ { sub(/^\[[0-9]+\] /, ""); print; exit }' "$first/devices-vulkan.txt" 2>/dev/null || true)
  gpu=${gpu:-unknown-gpu}
  day=$(sed -n '1s/.*, \([0-9-]*\)T.*/\1/p' "$first/job.log")
  local slug; slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | sed 's/nvidia //; s/[^a-z0-9]\+/-/g; s/^-//; s/-$//' | cut -c1-40)
  local dest=docs/results/${day:-$(date -u +%F)}-$slug
  [ ! -e "$dest" ] || { echo "device-job.sh: $dest exists; move it away first" >&2; exit 1; }
  mkdir -p "$dest"
  for d in "$tmp"/part*; do cp -r "$d" "$dest/"; done
  {
    echo "# $gpu, ${day:-?}: wgpu-prof on a real GPU"
    echo
    echo "DRAFT written by scripts/device-job.sh collect: complete the judgement and headline figures, then delete this line."
    echo
    echo "## What ran"
    echo
    echo "The bundle (scripts/bundle.sh) on a lent device machine, in these device calls (docs/GPU.md):"
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
    echo "(Against the goals of issue 18: read ceiling in TB/s, launch/readback overheads, cosine-single vs the read ceiling, tiled vs untiled cosine-batch at Q=64, timestamp cost, break-even intervals.)"
  } >"$dest/README.md"
  du -sh "$dest"
  echo "wrote $dest (README.md is a draft)"
}

case ${1:-prepare} in
  prepare) prepare ;;
  calls) print_calls ;;
  collect) shift; collect "$@" ;;
  -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) echo "device-job.sh: unknown command '$1' (prepare, calls, collect DIR)" >&2; exit 2 ;;
esac
