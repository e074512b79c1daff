package experiment

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// TestConcludeJudgesNoiseByTheCI: medians whose 95% CIs are tight stay
// firm however large their CV (a few slow calls raise the CV, not the
// median); once more than a quarter of them have a CI wider than ±10% the
// run and its verdicts are tentative, and the noise line says so.
func TestConcludeJudgesNoiseByTheCI(t *testing.T) {
	tight := func(m float64) timing.Summary {
		return timing.Summary{N: 200, Median: m, Lo: 0.98 * m, Hi: 1.03 * m, Confidence: 0.95, Mean: 2 * m, Min: 0.9 * m, Max: 40 * m, CV: 1.4}
	}
	wide := func(m float64) timing.Summary {
		return timing.Summary{N: 20, Median: m, Lo: 0.95 * m, Hi: 1.4 * m, Confidence: 0.95, Mean: 1.1 * m, Min: 0.9 * m, Max: 2 * m, CV: 0.04}
	}
	build := func(sum func(float64) timing.Summary) *report.Report {
		r := &report.Report{}
		for i := range 8 {
			r.Measurements = append(r.Measurements, report.Measurement{Workload: "w", Side: "cpu", EndToEnd: sum(float64(i+1) * 1e-6)})
		}
		r.BreakEvens = []report.BreakEven{{Workload: "w", Clock: "end-to-end", Verdict: timing.VerdictNever, Batches: []int{1, 2, 4},
			CPU: []timing.Summary{sum(1e-6), sum(2e-6), sum(4e-6)}, GPU: []timing.Summary{sum(9e-6), sum(9e-6), sum(9e-6)}}}
		return r
	}
	r := build(tight)
	Conclude(r)
	if r.Noise == nil || r.Noise.Tentative || r.Noise.Noisy != 0 || r.BreakEvens[0].Tentative {
		t.Errorf("tight CIs with CV 140%%: noise %+v, break-even tentative %v; want steady and firm", r.Noise, r.BreakEvens[0].Tentative)
	}
	if line := report.NoiseLine(r.Noise); line != "" {
		t.Errorf("steady run has a noise line: %q", line)
	}
	r = build(wide)
	Conclude(r)
	if r.Noise == nil || !r.Noise.Tentative || r.Noise.Noisy != 8 || !r.BreakEvens[0].Tentative {
		t.Errorf("CIs of +40%% with CV 4%%: noise %+v, break-even tentative %v; want noisy and tentative", r.Noise, r.BreakEvens[0].Tentative)
	}
	if line := report.NoiseLine(r.Noise); !strings.Contains(line, "8 of 8 medians with a 95% CI wider than ±10%") {
		t.Errorf("noise line %q", line)
	}
}
