package report_test

import (
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// sum builds a summary with a symmetric ±rel interval.
func sum(median, rel float64) timing.Summary {
	return timing.Summary{N: 20, Median: median, Lo: median * (1 - rel), Hi: median * (1 + rel),
		Confidence: 0.9586, Mean: median, Min: median * (1 - 2*rel), Max: median * (1 + 3*rel), CV: rel}
}

func ptr(s timing.Summary) *timing.Summary { return &s }

// fixture is a fixed synthetic report used by the golden and round-trip
// tests. Edit it and run `go test ./report -update` to refresh the golden
// files.
func fixture() *report.Report {
	r := report.New("wgpu-prof test", time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	r.WgpuNativeVersion = "v24.0.3.1"
	r.Adapter = report.AdapterInfo{Name: "Synthetic GPU 9000", Vendor: "acme", Backend: "vulkan",
		DeviceType: "discrete", Driver: "1.2.3", TimestampsOK: true}
	r.Host = report.HostInfo{CPU: "Synthetic CPU @ 3.0GHz", Cores: 8, SIMDLevel: "avx2"}
	r.Ceilings = report.Ceilings{
		GPU: map[string]float64{"read_gbs": 400, "write_gbs": 380, "copy_gbs": 350, "fma_gflops": 12000},
		CPU: map[string]float64{"read_gbs": 40, "write_gbs": 30, "copy_gbs": 28, "fma_gflops": 600},
	}
	params := []report.Param{{Key: "d", Value: "768"}, {Key: "n", Value: "100000"}}
	bytes, flops := 768*4*100000.0, 2*768*2*100000.0
	r.Measurements = []report.Measurement{
		{
			Workload: "cosine-single", Side: report.SideGPU, Variant: "wg256", Params: params,
			Kernel: ptr(sum(1.0e-3, 0.01)), EndToEnd: sum(2.5e-3, 0.02),
			Bytes: bytes, Flops: flops, GBs: bytes / 1.0e-3 / 1e9, GFLOPs: flops / 1.0e-3 / 1e9,
			CeilingFrac: bytes / 1.0e-3 / 1e9 / 400, Bound: "memory", Verified: true,
		},
		{
			Workload: "cosine-single", Side: report.SideCPU, Variant: "avx2", Params: params,
			EndToEnd: sum(10e-3, 0.015),
			Bytes:    bytes, Flops: flops, GBs: bytes / 10e-3 / 1e9, GFLOPs: flops / 10e-3 / 1e9,
			CeilingFrac: bytes / 10e-3 / 1e9 / 40, Bound: "memory", Verified: true,
		},
		{
			Workload: "cosine-single", Side: report.SideCPU, Variant: "generic", Params: params,
			EndToEnd: timing.Summary{N: 20, Median: 40e-3, Lo: 38e-3, Hi: 45e-3, Confidence: 0.9586,
				Mean: 43e-3, Min: 37e-3, Max: 90e-3, CV: 0.18,
				Warnings: []string{"CV > 10%: CV = 18.0%", "max > 2× median: max = 2.25× median"}},
			Bytes: bytes, Flops: flops, GBs: bytes / 40e-3 / 1e9, GFLOPs: flops / 40e-3 / 1e9,
			CeilingFrac: bytes / 40e-3 / 1e9 / 40, Bound: "memory", Verified: true,
		},
	}
	batches := []int{1, 16, 256, 4096, 65536}
	cpuFit := timing.LinearFit{Overhead: 2e-6, PerItem: 100e-9, OverheadCI: [2]float64{1.8e-6, 2.2e-6},
		PerItemCI: [2]float64{98e-9, 102e-9}, R2: 0.999, SEOverhead: 0.06e-6, SEPerItem: 0.6e-9, Cov: -1e-18, DoF: 3}
	gpuFit := timing.LinearFit{Overhead: 300e-6, PerItem: 5e-9, OverheadCI: [2]float64{280e-6, 320e-6},
		PerItemCI: [2]float64{4.8e-9, 5.2e-9}, R2: 0.998, SEOverhead: 6e-6, SEPerItem: 0.06e-9, Cov: -1e-17, DoF: 3}
	var cpu, gpu []timing.Summary
	for _, b := range batches {
		cpu = append(cpu, sum(cpuFit.At(float64(b)), 0.02))
		gpu = append(gpu, sum(gpuFit.At(float64(b)), 0.02))
	}
	cross := report.NewCrossover(timing.CrossoverOf(cpuFit, gpuFit))
	measured, found := timing.MeasuredCrossover(batches, cpu, gpu)
	r.BreakEvens = []report.BreakEven{{
		Workload: "cosine-single", Params: []report.Param{{Key: "d", Value: "768"}}, Clock: "end-to-end",
		Batches: batches, CPU: cpu, GPU: gpu, CPUFit: cpuFit, GPUFit: gpuFit, Fitted: cross,
		Measured: measured, MeasuredFound: found, RelError: timing.RelError(cross.N, float64(measured)),
	}}
	r.Sweeps = []report.Sweep{{
		Name: "workgroup size", Workload: "cosine-single", Side: report.SideGPU,
		Points: []report.SweepPoint{
			{Label: "wg=64", Time: sum(1.3e-3, 0.02), GBs: 236},
			{Label: "wg=128", Time: sum(1.1e-3, 0.02), GBs: 279},
			{Label: "wg=256", Time: sum(1.0e-3, 0.01), GBs: 307},
		},
	}}
	a, b, c := sum(0.95e-3, 0.01), sum(0.2e-3, 0.01), sum(1.0e-3, 0.01)
	r.Experiments = []report.Experiment{{Workload: "cosine-single", Side: report.SideGPU, Params: params,
		A: a, B: b, C: c, Classification: timing.ClassifyMemCompute(a, b, c, timing.Policy{})}}
	r.Summary = []string{
		"cosine-single (d=768, n=100000): the GPU is 4.0× faster end to end than the best CPU variant (avx2).",
		"Break-even: the GPU wins above about 3.2k items per batch.",
	}
	r.Warnings = []string{"CPU frequency scaling is enabled; CPU times may vary"}
	return r
}
