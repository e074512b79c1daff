package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// HostSummary states the host results in plain language: each
// memory-bound row against the run's read bandwidth, each compute-bound
// row against its FMA peak, and each row's speed-up over the generic Go
// level at the same workload and parameters.
func HostSummary(r *report.Report) []string {
	var out []string
	readBW, fma := r.Ceilings.CPU["read_gbs"], r.Ceilings.CPU["fma_gflops"]
	generic := map[string]float64{} // workload + params → generic level's median
	for _, m := range r.Measurements {
		if strings.HasPrefix(m.Variant, "generic") {
			generic[m.Workload+" "+paramLabel(m.Params)] = m.Time().Median
		}
	}
	for _, m := range r.Measurements {
		if m.Side != report.SideCPU {
			continue
		}
		where := paramLabel(m.Params)
		var s string
		switch {
		case m.Bound == "memory" && readBW > 0:
			s = fmt.Sprintf("%s %s %s: %.1f GB/s = %.0f%% of the %.1f GB/s read bandwidth measured in this run%s",
				m.Variant, m.Workload, where, m.GBs, 100*m.GBs/readBW, readBW, aboveRoof(&m))
		case m.Bound == "compute" && fma > 0:
			s = fmt.Sprintf("%s %s %s: %.1f GFLOP/s = %.0f%% of the %.1f GFLOP/s FMA peak measured in this run",
				m.Variant, m.Workload, where, m.GFLOPs, 100*m.GFLOPs/fma, fma)
		default:
			continue
		}
		if g := generic[m.Workload+" "+where]; g > 0 && !strings.HasPrefix(m.Variant, "generic") {
			s += fmt.Sprintf(", %.1f× the generic Go level", g/m.Time().Median)
		}
		out = append(out, s)
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
		batch := be.Batch
		if batch == "" {
			batch = "batch"
		}
		s := be.Workload + ": " + Answer(be)
		if gpu != nil && gpu.Bound != "" {
			s += fmt.Sprintf("; GPU %s at %.0f%% of the %s ceiling (%s-bound%s)", timeLabel(gpu), 100*gpu.CeilingFrac, report.CeilingOf(r, gpu), gpu.Bound, aboveRoof(gpu))
		}
		if cpu != nil && cpu.Bound != "" {
			s += fmt.Sprintf("; CPU at %.0f%% of the %s ceiling (%s-bound%s)", 100*cpu.CeilingFrac, report.CeilingOf(r, cpu), cpu.Bound, aboveRoof(cpu))
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

// aboveRoof explains a fraction above 1: the roof is the bandwidth of
// arrays far larger than the caches, and data that fits in cache streams
// faster than that.
func aboveRoof(m *report.Measurement) string {
	if m.CeilingFrac > 1 && m.Bound == "memory" {
		return "; above the DRAM roof: the data is cache-resident"
	}
	return ""
}

// Answer states a break-even's outcome the way a reader asks for it: "GPU
// faster from n ≈ 12k (measured between 8192 and 16k); below that the CPU
// is up to 30× faster", "CPU faster at every measured n (16 to 8192), by
// 4.1× to 310×", "GPU faster at every measured q (1 to 64), by …".
func Answer(be report.BreakEven) string {
	batch := be.Batch
	if batch == "" {
		batch = "batch"
	}
	if len(be.Batches) == 0 || len(be.CPU) != len(be.Batches) || len(be.GPU) != len(be.Batches) {
		return "no break-even measured"
	}
	clock := "end to end"
	if be.Clock == "kernel" {
		clock = "on kernel time"
	}
	// ratio[i] is CPU time over GPU time at batch i (above 1: GPU faster).
	ratio := make([]float64, len(be.Batches))
	for i := range be.Batches {
		if be.GPU[i].Median > 0 {
			ratio[i] = be.CPU[i].Median / be.GPU[i].Median
		}
	}
	span := func(lo, hi int) (float64, float64) {
		mn, mx := math.Inf(1), 0.0
		for i := lo; i < hi; i++ {
			r := ratio[i]
			if r <= 0 {
				continue
			}
			if r < 1 {
				r = 1 / r
			}
			mn, mx = math.Min(mn, r), math.Max(mx, r)
		}
		return mn, mx
	}
	first, last := be.Batches[0], be.Batches[len(be.Batches)-1]
	count := func(v int) string { return report.FormatCount(float64(v)) }
	if be.MeasuredFound {
		i := 0
		for i < len(be.Batches) && be.Batches[i] != be.Measured {
			i++
		}
		var at string
		if be.Fitted.Kind == timing.CrossAt {
			at = fmt.Sprintf("%s ≈ %s", batch, report.FormatCount(be.Fitted.N))
		} else {
			at = fmt.Sprintf("%s = %s", batch, count(be.Measured))
		}
		where := fmt.Sprintf("measured: first at %s = %s", batch, count(be.Measured))
		if i > 0 && i < len(be.Batches) {
			where = fmt.Sprintf("measured between %s and %s", count(be.Batches[i-1]), count(be.Measured))
		}
		s := fmt.Sprintf("GPU faster %s from %s (%s)", clock, at, where)
		if i > 0 {
			if _, mx := span(0, i); mx > 1 && ratio[0] < 1 {
				s += fmt.Sprintf("; below that the CPU is up to %s faster", ratioText(mx))
			}
		}
		return s
	}
	cpuAll, gpuAll := true, true
	for _, r := range ratio {
		cpuAll = cpuAll && r > 0 && r < 1
		gpuAll = gpuAll && r >= 1
	}
	mn, mx := span(0, len(ratio))
	switch {
	case be.Fitted.Kind == timing.CrossAlways || gpuAll:
		return fmt.Sprintf("GPU faster %s at every measured %s (%s to %s), by %s to %s", clock, batch, count(first), count(last), ratioText(mn), ratioText(mx))
	case cpuAll && be.Fitted.Kind == timing.CrossAt:
		return fmt.Sprintf("CPU faster %s at every measured %s (%s to %s), by %s to %s; the fit puts a crossover %s, beyond what was measured", clock, batch, count(first), count(last), ratioText(mn), ratioText(mx), be.Fitted)
	case cpuAll:
		return fmt.Sprintf("CPU faster %s at every measured %s (%s to %s), by %s to %s; the fit finds no crossover", clock, batch, count(first), count(last), ratioText(mn), ratioText(mx))
	}
	return fmt.Sprintf("no significant crossover %s over %s = %s to %s (fitted: %s)", clock, batch, count(first), count(last), be.Fitted)
}

func ratioText(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.1f×", x)
}
