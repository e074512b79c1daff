package latency

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A break-even's GPU fixed cost is checked against the anatomy's round
// trip: a fit whose CI lies wholly below it is flagged, one reaching it
// is consistent; CPU-only and kernel-clock break-evens get no check.
func TestCheckFixedCosts(t *testing.T) {
	fit := func(a, lo, hi float64) timing.LinearFit {
		return timing.LinearFit{Overhead: a, OverheadCI: [2]float64{lo, hi}, PerItem: 1e-9, DoF: 4}
	}
	rep := &report.Report{
		Latency: &timing.Anatomy{Adapter: "llvmpipe", Tiny: timing.Summary{N: 40, Median: 60e-6, Lo: 55e-6, Hi: 65e-6}},
		BreakEvens: []report.BreakEven{
			{Workload: "low", Clock: "end-to-end", Sides: []string{"cpu", "gpu:data=shipped"}, GPUFit: fit(20e-6, 10e-6, 30e-6)},
			{Workload: "ok", Clock: "end-to-end", Sides: []string{"cpu", "gpu"}, GPUFit: fit(70e-6, 50e-6, 90e-6)},
			{Workload: "gpu-a", Clock: "end-to-end", Sides: []string{"gpu", "cpu"}, CPUFit: fit(80e-6, 70e-6, 90e-6), GPUFit: fit(1e-6, 0, 2e-6)},
			{Workload: "threads", Clock: "end-to-end", Sides: []string{"cpu:threads=1", "cpu:threads=2"}, GPUFit: fit(1e-6, 0, 2e-6)},
			{Workload: "kernel", Clock: "kernel", GPUFit: fit(1e-6, 0, 2e-6)},
			{Workload: "other", Clock: "end-to-end", Adapter: "another", GPUFit: fit(1e-6, 0, 2e-6)},
			{Workload: "dawn", Clock: "end-to-end", Implementation: "dawn", GPUFit: fit(1e-6, 0, 2e-6)},
		},
		Adapter: report.AdapterInfo{Name: "llvmpipe", Implementation: "wgpu-native"},
	}
	CheckFixedCosts(rep)
	want := map[string]string{"low": "below round trip", "ok": "consistent", "gpu-a": "consistent"}
	// The prior is floored where the fit at n = 1 lies below the round
	// trip: there it uses the round trip.
	used := map[string]string{"low": "round trip", "ok": "fit", "gpu-a": "fit"}
	for _, b := range rep.BreakEvens {
		w, checked := want[b.Workload]
		switch {
		case !checked && b.FixedCost != nil:
			t.Errorf("%s: checked (%+v), want no check", b.Workload, *b.FixedCost)
		case checked && b.FixedCost == nil:
			t.Errorf("%s: no check", b.Workload)
		case checked && (b.FixedCost.Check != w || b.FixedCost.Used != used[b.Workload] || b.FixedCost.RoundTrip != 60e-6):
			t.Errorf("%s: %+v, want check %q against the 60µs round trip, used %q", b.Workload, *b.FixedCost, w, used[b.Workload])
		}
	}
	if c := rep.BreakEvens[2].FixedCost; c == nil || c.Side != "gpu" || c.Fit != 80e-6 {
		t.Errorf("side A as the GPU: %+v, want side gpu with side A's fit", c)
	}
	if n := len(rep.Summary); n != 3 || !strings.Contains(rep.Summary[0], "low break-even (end-to-end): GPU fixed cost: fit 20.0µs") {
		t.Errorf("summary lines = %q, want one per check", rep.Summary)
	}
	// No anatomy, no check.
	r2 := &report.Report{BreakEvens: []report.BreakEven{{Workload: "x", Clock: "end-to-end", GPUFit: fit(1e-6, 0, 2e-6)}}}
	CheckFixedCosts(r2)
	if r2.BreakEvens[0].FixedCost != nil {
		t.Error("a report without an anatomy got a fixed-cost check")
	}
}
