#!/bin/sh
# The worked example of wgpu-prof plan, end to end: profile vsearch, plan
# the port of its similarity, port it (every call on the GPU, then routed
# by the plan through dispatch.Route), profile each port and validate the
# plan's predictions against it.
#
#   examples/vsearch/validate.sh [OUT]     (from the repository root, after scripts/setup.sh)
#
# OUT (default vsearch-run) receives the profiles, the plan (plan/, as
# plan --out writes it) and validate-{gpu,adaptive}.{txt,json}.
set -eu
out=${1:-vsearch-run}
bin=${WGPU_PROF:-bin/wgpu-prof}
mkdir -p "$out"
go build -o "$out/vsearch" ./examples/vsearch
"$out/vsearch" -cpuprofile "$out/before.pprof" -sizes "$out/sizes.txt"
op="main\\.similarity\$=cosine-single@$out/sizes.txt"
# The service runs on one core: the tool's CPU kernel runs on one thread.
"$bin" plan --pprof "$out/before.pprof" --op "$op" --d 256 --threads 1 --out "$out/plan" --force >"$out/plan.txt"
variant=$(sed -n 's/.*"gpu_variant": "\([^"]*\)".*/\1/p' "$out/plan/plan.json" | head -1)
"$out/vsearch" -cpuprofile "$out/after-gpu.pprof" -port gpu -variant "${variant:-row-per-inv-wg256}"
"$out/vsearch" -cpuprofile "$out/after-adaptive.pprof" -port adaptive -plan "$out/plan/plan.json" -variant "${variant:-row-per-inv-wg256}"
for port in gpu adaptive; do
	how=routed
	[ "$port" = gpu ] && how=gpu
	for fmt in text json; do
		ext=txt
		[ "$fmt" = json ] && ext=json
		"$bin" plan --pprof "$out/before.pprof" --op "$op" --d 256 --threads 1 --report "$out/plan/report.json" --no-taxes \
			--validate "$out/after-$port.pprof" --ported "$how" --format "$fmt" >"$out/validate-$port.$ext"
	done
	head -4 "$out/validate-$port.txt"
done
