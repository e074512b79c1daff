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
		"sides, over the same vectors: time, bytes, GB/s and % of the ceiling of each working set;\n" +
		"the decode overhead against f32 on the same vectors and on the same stored bytes\n" +
		"((B − A)/A); recall@k of each precision's results against the exact f32 ones (mean and\n" +
		"worst over the queries: cosine-batch per query over all rows, hnsw per batch of c\n" +
		"candidates) and the largest score error. The answer per workload: the fastest precision\n" +
		"whose mean recall reaches --min-recall. Generated data of the workloads that read every\n" +
		"row has at least enough rows for the f32 set to lie past the host's caches.\n" +
		"--workloads all (the default) is every workload with a stored precision: " +
		strings.Join(sweeps.QuantizationWorkloads(), ", ") + ";\n" +
		"with --vectors or --queries, the same (hnsw gathers its candidates from the file's rows,\n" +
		"its index, with --candidates hnsw, built over them and planned first)."
	return measureCommand(stdout, stderr, args, "experiment quantization", usage, quantizationExamples, func(f *cmdFlags) measurer {
		return quantMeasurer{f}
	})
}

// quantMeasurer runs the quantization experiment; its "all" is the
// workloads that have precisions and read the data files given.
type quantMeasurer struct{ f *cmdFlags }

func (m quantMeasurer) workloads(given string) string {
	if given != "all" {
		return given
	}
	var files []string
	for _, name := range []string{"vectors", "queries"} {
		if m.f.str(name) != "" {
			files = append(files, name)
		}
	}
	return strings.Join(sweeps.QuantizationDefault(files), ",")
}

func (m quantMeasurer) measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Variant, cfg.Retune = m.f.str("variant"), m.f.on("retune")
	return sweeps.Quantization(e, cfg, m.f.float("min-recall"), rep)
}
