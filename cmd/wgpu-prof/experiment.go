package main

import (
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/sweeps"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

const quantizationExamples = `  wgpu-prof experiment quantization --quick
  wgpu-prof experiment quantization --quick --format json > q.json
  wgpu-prof experiment quantization --vectors emb.npy --k 10 --min-recall 0.9   # recall on your data`

// runQuantization is `wgpu-prof experiment quantization`.
func runQuantization(stdout, stderr io.Writer, args []string) error {
	usage := "usage: wgpu-prof experiment quantization [flags]\n" +
		"Stored vectors in f32, f16 and int8 (symmetric per-vector codes, int32 sums) on both\n" +
		"sides, over the same rows: time, bytes, GB/s and % of the ceiling of each working set;\n" +
		"the decode overhead against f32 on the same rows and on the same bytes ((B − A)/A);\n" +
		"recall@k of each precision's top-k against the exact f32 top-k and the largest score\n" +
		"error. The answer per workload: the fastest precision at the accepted recall.\n" +
		"Generated data has at least enough rows for the f32 set to lie past the host's caches.\n" +
		"--workloads all (the default) is the single-query workloads with a stored precision: " +
		strings.Join(sweeps.QuantizationWorkloads(), ", ") + "."
	return measureCommand(stdout, stderr, args, "experiment quantization", usage, quantizationExamples, func(f *cmdFlags) measurer {
		return quantMeasurer{f}
	})
}

// quantMeasurer runs the quantization experiment; its "all" is the
// workloads that have precisions.
type quantMeasurer struct{ f *cmdFlags }

func (quantMeasurer) workloads(given string) string {
	if given == "all" {
		return strings.Join(sweeps.QuantizationWorkloads(), ",")
	}
	return given
}

func (m quantMeasurer) measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Variant, cfg.Retune = m.f.str("variant"), m.f.on("retune")
	return sweeps.Quantization(e, cfg, m.f.float("min-recall"), rep)
}
