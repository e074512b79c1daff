package experiment

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// HostSummary states the host results in plain language: each
// memory-bound row against the run's read bandwidth, each compute-bound
// row against its FMA peak, and each row's speed-up over the generic Go
// level at the same workload and parameters.
func HostSummary(r *report.Report) []string {
	var out []string
	for _, l := range r.Summary {
		if strings.HasPrefix(l, LevelChoicePrefix) || strings.HasPrefix(l, RecheckPrefix) || strings.HasPrefix(l, StatePrefix) {
			out = append(out, l)
		}
	}
	readBW, fma := r.Ceilings.CPU["read_gbs"], r.Ceilings.CPU["fma_gflops"]
	generic := map[string]float64{} // workload + params → generic level's median
	for _, m := range r.Measurements {
		if strings.HasPrefix(m.Variant, "generic") {
			generic[m.Workload+" "+env.ParamLabel(m.Params)] = m.Time().Median
		}
	}
	for _, m := range r.Measurements {
		if m.Side != report.SideCPU {
			continue
		}
		where := env.ParamLabel(m.Params)
		var s string
		switch {
		case m.Bound == "memory" && readBW > 0:
			// The ceiling the row was placed against: its working set's.
			key := m.ReadCeilingKey()
			if !(r.Ceilings.CPU[key] > 0) {
				key = "read_gbs"
			}
			bw, what := r.Ceilings.CPU[key], report.ReadCeilingName(key)+" bandwidth"
			inState := ""
			if st := rowState(&m); key == "read_gbs" && st != "" {
				// Judged against its own host state's ceiling only.
				gbs, ok := bestPass(r.CeilingPasses, key, st)
				if !ok {
					out = append(out, fmt.Sprintf("%s %s %s: %.1f GB/s, not judged (host state %s: no ceiling from the same state)", m.Variant, m.Workload, where, m.GBs, st))
					continue
				}
				bw, inState = gbs, " in the same host state ("+st+")"
			}
			s = fmt.Sprintf("%s %s %s: %.1f GB/s = %.0f%% of the %.1f GB/s %s measured in this run%s%s",
				m.Variant, m.Workload, where, m.GBs, 100*m.GBs/bw, bw, what, inState, aboveRoof(&m))
			if i8 := r.Ceilings.CPU[report.Int8PeakKey]; i8 > 0 && m.PeakKey() == report.Int8PeakKey {
				s += fmt.Sprintf(", %.0f%% of the int8 dot-product peak", 100*m.GFLOPs/i8)
			} else if fma > 0 {
				s += fmt.Sprintf(", %.0f%% of the FMA peak", 100*m.GFLOPs/fma)
			}
		case m.Bound == "compute" && m.PeakKey() == report.Int8PeakKey && r.Ceilings.CPU[report.Int8PeakKey] > 0:
			i8 := r.Ceilings.CPU[report.Int8PeakKey]
			s = fmt.Sprintf("%s %s %s: %.1f G int8 ops/s = %.0f%% of the %.1f G ops/s int8 dot-product peak measured in this run",
				m.Variant, m.Workload, where, m.GFLOPs, 100*m.GFLOPs/i8, i8)
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

func ParamValue(ps []report.Param, key string) string {
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
		if be.Clock != "end-to-end" || (len(be.Sides) == 2 && !(be.Sides[0] == "cpu" && strings.HasPrefix(be.Sides[1], "gpu"))) {
			continue
		}
		fitted := be.Fitted.String()
		if be.Predicted != nil && be.Predicted.Extrapolated {
			fitted += fmt.Sprintf(", extrapolated beyond the measured %.0f–%.0f", be.Predicted.ValidFrom, be.Predicted.ValidTo)
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
		s := be.Workload + ": " + report.Answer(be)
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

// aboveRoof flags a fraction above 1. Each row is judged against the
// ceiling of its own working set, so a row above it means that ceiling is
// not the machine's best (CeilingCheck warns above 105%), not that the
// data was in cache.
func aboveRoof(m *report.Measurement) string {
	if m.CeilingFrac > 1 {
		return "; above that ceiling, see warnings"
	}
	return ""
}

// noisyShare is the share of noisy time summaries (noisyCI) past which
// the host counts as noisy and the conclusions resting on them as
// tentative: one in four leaves most comparisons on steady data, more
// than that and a verdict may rest on the noisy ones.
const noisyShare = 0.25

// noisyCI: a time summary is noisy when the 95% CI of its median reaches
// further than this fraction of the median on either side (or it has too
// few samples for a CI). The CI of the median is what every comparison
// and verdict rests on; the CV is not, as it grows with a few slow calls
// that leave the median where it was (TestConcludeJudgesNoiseByTheCI).
const noisyCI = 0.10

// noisySummary reports whether s is too uncertain to rest a verdict on.
func noisySummary(s timing.Summary) bool {
	if s.N == 0 {
		return false
	}
	if !s.Valid() || !(s.Median > 0) {
		return true
	}
	return s.Hi > (1+noisyCI)*s.Median || s.Lo < (1-noisyCI)*s.Median
}

// Conclude writes the report's verdict block: each end-to-end break-even's
// verdict line (report.VerdictLine), marked tentative when more than
// noisyShare of its summaries are noisy (noisySummary), the run's noise
// (report.Noise: the share of noisy summaries and the host's load), and a
// note when the adapter is a CPU implementation. Kernel-clock verdicts go
// to the details (Summary); a hybrid report keeps its own lines. Call it
// once, after the measurements.
func Conclude(r *report.Report) {
	if r == nil {
		return
	}
	noisy := noisySummary
	n := &report.Noise{CILimit: noisyCI, Cores: runtime.NumCPU(), Load: loadAverage()}
	count := func(s timing.Summary) {
		if s.N > 0 {
			n.Measurements++
			if noisy(s) {
				n.Noisy++
			}
		}
	}
	for i := range r.Measurements {
		m := &r.Measurements[i]
		count(m.EndToEnd)
		if m.Kernel != nil {
			count(*m.Kernel)
		}
	}
	n.Tentative = n.Measurements > 0 && float64(n.Noisy) > noisyShare*float64(n.Measurements)
	r.Noise = n
	var verdicts, details []string
	for i := range r.BreakEvens {
		be := &r.BreakEvens[i]
		all, bad := 0, 0
		for _, ss := range [][]timing.Summary{be.CPU, be.GPU} {
			for _, s := range ss {
				all++
				if noisy(s) {
					bad++
				}
			}
		}
		be.Tentative = be.Tentative || all > 0 && float64(bad) > noisyShare*float64(all)
		// A hybrid report leads with its own verdict lines (Summary); its
		// profile's break-even stays in the details.
		if be.Verdict == "" || r.Hybrid != nil {
			continue
		}
		if be.Clock == "end-to-end" {
			verdicts = append(verdicts, report.VerdictLine(*be))
		} else {
			details = append(details, report.VerdictLine(*be))
		}
	}
	if r.Hybrid != nil {
		return
	}
	if r.Adapter.DeviceType == "cpu" && len(verdicts) > 0 {
		verdicts = append(verdicts, fmt.Sprintf("the adapter %q runs on this CPU: these results say where the WebGPU path stands here, not what a GPU would do", r.Adapter.Name))
	}
	r.Verdicts = append(verdicts, r.Verdicts...)
	r.Summary = append(details, r.Summary...)
}

// loadAverage is the host's one-minute load average (Linux
// /proc/loadavg), 0 where unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return v
}

// RecheckPrefix starts the summary lines of recheckCPUReadCeilings;
// HostSummary keeps them.
const RecheckPrefix = "ceiling recheck: "

// LevelChoicePrefix starts the summary lines RunHost writes about which
// level ran and why; HostSummary keeps them.
const LevelChoicePrefix = "level choice: "
