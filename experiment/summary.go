package experiment

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/report"
)

// HostSummary states the host results in plain language: the out-of-cache
// cosine against the read bandwidth, the cache-resident speed-up over the
// generic level, and the batch cosine against the FMA peak.
func HostSummary(r *report.Report) []string {
	var out []string
	readBW, fma := r.Ceilings.CPU["read_gbs"], r.Ceilings.CPU["fma_gflops"]
	var genericResident float64
	for _, m := range r.Measurements {
		if m.Workload == "cosine-single" && paramValue(m.Params, "cache") == "resident" && len(m.Variant) >= 7 && m.Variant[:7] == "generic" {
			genericResident = m.GBs
		}
	}
	for _, m := range r.Measurements {
		switch {
		case m.Workload == "cosine-single" && paramValue(m.Params, "cache") == "dram" && readBW > 0:
			out = append(out, fmt.Sprintf("%s cosine-single d=%s n=%s (from DRAM): %.1f GB/s = %.0f%% of the %.1f GB/s read bandwidth measured in this run",
				m.Variant, paramValue(m.Params, "d"), paramValue(m.Params, "n"), m.GBs, 100*m.GBs/readBW, readBW))
		case m.Workload == "cosine-single" && paramValue(m.Params, "cache") == "resident" && genericResident > 0:
			out = append(out, fmt.Sprintf("%s cosine-single n=%s (cache-resident): %.1f GB/s, %.1f× the generic Go level",
				m.Variant, paramValue(m.Params, "n"), m.GBs, m.GBs/genericResident))
		case m.Workload == "cosine-batch" && fma > 0:
			out = append(out, fmt.Sprintf("%s cosine-batch q=%s: %.1f GFLOP/s = %.0f%% of the %.1f GFLOP/s FMA peak measured in this run",
				m.Variant, paramValue(m.Params, "q"), m.GFLOPs, 100*m.GFLOPs/fma, fma))
		}
	}
	return out
}

func paramValue(ps []report.Param, key string) string {
	for _, x := range ps {
		if x.Key == key {
			return x.Value
		}
	}
	return ""
}

// Summarize states each workload's outcome in one plain sentence: where
// the GPU wins end to end, how close each side runs to its measured
// ceiling, and what bounds it. Every figure comes from the report.
func Summarize(r *report.Report) []string {
	var out []string
	for _, be := range r.BreakEvens {
		if be.Clock != "end-to-end" {
			continue
		}
		var gpu, cpu *report.Measurement
		for i := range r.Measurements {
			m := &r.Measurements[i]
			if m.Workload != be.Workload {
				continue
			}
			if m.Side == report.SideGPU && gpu == nil {
				gpu = m
			}
			if m.Side == report.SideCPU && cpu == nil {
				cpu = m
			}
		}
		batch := "n"
		if len(be.Batches) > 0 {
			batch = batchName(be.Workload)
		}
		var s string
		switch {
		case be.MeasuredFound:
			s = fmt.Sprintf("%s: the GPU wins end to end from %s ≥ %d (fitted crossover %s)", be.Workload, batch, be.Measured, be.Fitted)
		case be.Fitted.Kind == "always":
			s = fmt.Sprintf("%s: the GPU is faster end to end at every batch size measured", be.Workload)
		case be.Fitted.Kind == "at":
			s = fmt.Sprintf("%s: no measured batch up to %s = %d shows the GPU significantly faster end to end; the fit puts the crossover %s", be.Workload, batch, be.Batches[len(be.Batches)-1], be.Fitted)
		case be.Fitted.Kind == "below":
			s = fmt.Sprintf("%s: the GPU is faster end to end only for small batches (fitted %s)", be.Workload, be.Fitted)
		default:
			s = fmt.Sprintf("%s: the CPU wins end to end at every batch size up to %s = %d (the fit finds no crossover)", be.Workload, batch, be.Batches[len(be.Batches)-1])
		}
		if gpu != nil && gpu.Bound != "" {
			s += fmt.Sprintf("; GPU %s at %.0f%% of its measured ceiling (%s-bound%s)", timeLabel(gpu), 100*gpu.CeilingFrac, gpu.Bound, aboveRoof(gpu))
		}
		if cpu != nil && cpu.Bound != "" {
			s += fmt.Sprintf("; CPU at %.0f%% of its measured ceiling (%s-bound%s)", 100*cpu.CeilingFrac, cpu.Bound, aboveRoof(cpu))
		}
		out = append(out, s)
	}
	if r.Adapter.DeviceType == "cpu" {
		out = append(out, fmt.Sprintf("the adapter %q runs on this CPU: these results say where the WebGPU path stands here, not what a GPU would do", r.Adapter.Name))
	}
	return out
}

func timeLabel(m *report.Measurement) string {
	if m.Kernel != nil {
		return "kernel"
	}
	return "end to end"
}

func batchName(workload string) string {
	switch workload {
	case "cosine-batch", "hnsw":
		return "q"
	case "spread-uniform", "spread-rmat":
		return "nodes"
	}
	return "n"
}

// aboveRoof explains a fraction above 1: the roof is the bandwidth of
// arrays far larger than the caches, and data that fits in cache streams
// faster than that.
func aboveRoof(m *report.Measurement) string {
	if m.CeilingFrac > 1 && m.Bound == "memory" {
		return "; above the DRAM roof: the data is cache-resident"
	}
	return ""
}
