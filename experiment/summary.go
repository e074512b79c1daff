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
