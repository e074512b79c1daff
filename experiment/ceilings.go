package experiment

import (
	"fmt"

	"github.com/klauspost/cpuid/v2"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/kernels"
	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// cacheLevels are the cache-resident working sets the read ceilings are
// measured at besides DRAM: half the L2 and half the last-level cache
// (from cpuid; a level the CPU does not report is skipped).
func cacheLevels(dram float64) []RoofLevel {
	var out []RoofLevel
	add := func(name string, b int) {
		if b > 0 && float64(b/2) < dram {
			out = append(out, RoofLevel{Name: name, Bytes: float64(b / 2)})
		}
	}
	add("l2", cpuid.CPU.Cache.L2)
	add("llc", cpuid.CPU.Cache.L3)
	return out
}

// cacheCeilings measures the read ceilings at each cache-resident working
// set on both sides (FMA peaks do not depend on the working set: the DRAM
// run's are kept) and records them as read_gbs_<level> keys.
func (e *Env) cacheCeilings(cfg RunConfig, dram Roofs, rep *report.Report) ([]RoofLevel, error) {
	dramBytes := float64(cfg.CeilingBytes)
	if dramBytes == 0 {
		dramBytes = float64(hostsimd.DefaultCeilingBytes())
	}
	levels := cacheLevels(dramBytes)
	for i := range levels {
		l := &levels[i]
		e.progress("ceilings at the %s working set (%.3g MB)", l.Name, l.Bytes/1e6)
		gc, err := kernels.MeasureCeilings(e.Device, kernels.CeilingOptions{Bytes: uint64(l.Bytes)})
		if err != nil {
			return nil, fmt.Errorf("gpu ceilings (%s working set): %w", l.Name, err)
		}
		cc, err := hostsimd.MeasureCeilings(hostsimd.CeilingOpts{Bytes: int64(l.Bytes), Budget: ceilingBudget(e.Measure)})
		if err != nil {
			return nil, fmt.Errorf("cpu ceilings (%s working set): %w", l.Name, err)
		}
		l.GPU = timing.Roof{PeakGFLOPs: dram.GPU.PeakGFLOPs, BandwidthGBs: gc.ReadGBs}
		l.CPU = timing.Roof{PeakGFLOPs: dram.CPU.PeakGFLOPs, BandwidthGBs: cc.ReadGBs}
		rep.Ceilings.GPU["read_gbs_"+l.Name] = gc.ReadGBs
		rep.Ceilings.CPU["read_gbs_"+l.Name] = cc.ReadGBs
		rep.Ceilings.CPU["bytes_"+l.Name] = l.Bytes
	}
	return levels, nil
}

// CeilingCheck is the invariant that no kernel runs above 105% of the
// ceiling it is judged against: a kernel faster than its ceiling means the
// ceiling is not this machine's best. It returns one warning per row above
// it, or a line saying none is.
func CeilingCheck(rep *report.Report) (warnings []string, ok string) {
	for _, m := range rep.Measurements {
		if m.CeilingFrac > 1.05 {
			warnings = append(warnings, fmt.Sprintf("%s %s %s %s: %.0f%% of its %s ceiling, above the 105%% the invariant allows: that ceiling is not this machine's best",
				m.Workload, m.Side, m.Variant, paramLabel(m.Params), 100*m.CeilingFrac, m.Bound+"-bound"))
		}
	}
	if len(warnings) == 0 {
		ok = "ceiling check: no row runs above 105% of the ceiling of its own working set"
	}
	return warnings, ok
}
