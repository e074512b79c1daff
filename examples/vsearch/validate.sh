#!/bin/sh
# The worked example of wgpu-prof plan, end to end: profile vsearch, plan
# the port of its similarity, port it (on the host SIMD kernel, every call
# on the GPU, then routed by the plan through dispatch.Route), profile each
# port and validate the plan's predictions against it: the host port on
# CPU time (the profiles), the GPU ports on wall time (each run's replay
# benchmark of the similarity, -bench).
#
#   examples/vsearch/validate.sh [OUT]     (from the repository root, after scripts/setup.sh)
#
# OUT (default vsearch-run) receives the profiles and benchmarks, the plan
# (plan/, as plan --out writes it) and validate-{simd,gpu,adaptive}.{txt,json}.
set -eu
out=${1:-vsearch-run}
bin=${WGPU_PROF:-bin/wgpu-prof}
mkdir -p "$out"
go build -o "$out/vsearch" ./examples/vsearch
"$out/vsearch" -cpuprofile "$out/before.pprof" -sizes "$out/sizes.txt" -bench "$out/before.txt"
op="main\\.similarity\$=cosine-single@$out/sizes.txt"
# The service runs on one core: the tool's CPU kernel runs on one thread.
"$bin" plan --pprof "$out/before.pprof" --op "$op" --d 256 --threads 1 --out "$out/plan" --force >"$out/plan.txt"
variant=$(sed -n 's/.*"gpu_variant": "\([^"]*\)".*/\1/p' "$out/plan/plan.json" | head -1)
"$out/vsearch" -cpuprofile "$out/after-simd.pprof" -port simd -bench "$out/after-simd.txt"
"$out/vsearch" -cpuprofile "$out/after-gpu.pprof" -port gpu -variant "${variant:-row-per-inv-wg256}" -bench "$out/after-gpu.txt"
"$out/vsearch" -cpuprofile "$out/after-adaptive.pprof" -port adaptive -plan "$out/plan/plan.json" -variant "${variant:-row-per-inv-wg256}" \
	-bench "$out/after-adaptive.txt"
for port in simd gpu adaptive; do
	how=$port
	[ "$port" = adaptive ] && how=routed
	for fmt in text json; do
		ext=txt
		[ "$fmt" = json ] && ext=json
		"$bin" plan --pprof "$out/before.pprof" --op "$op" --d 256 --threads 1 --report "$out/plan/report.json" --no-taxes \
			--validate "$out/after-$port.pprof" --ported "$how" --wall-before "$out/before.txt" --wall-after "$out/after-$port.txt" \
			--format "$fmt" >"$out/validate-$port.$ext"
	done
	awk '/^validation against/ { p = 1 } /^  \(/ { p = 0 } p' "$out/validate-$port.txt"
done
