package hybrid

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A planted profile whose GPU fit puts the fixed cost (1 µs) below the
// anatomy's round trip (60 µs): the dispatcher's GPU prior is floored at
// the round trip, so before any call is observed the small sizes go to
// the CPU (without the floor they go to the GPU), and the report says
// the prior uses the round trip and where it came from. The profile's
// anatomy is taken only for the same adapter and implementation.
func TestPriorsFloorFromAnatomy(t *testing.T) {
	const rt = 60e-6
	line := func(a, b float64) *timing.Model {
		f := timing.LinearFit{Overhead: a, PerItem: b, DoF: 4}
		return &timing.Model{Segments: []timing.Segment{{From: 1, To: 1 << 20, Fit: f}}, Single: f}
	}
	be := &report.BreakEven{Workload: "w", Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		ModelA: line(2e-6, 10e-9), ModelB: line(1e-6, 0.5e-9),
		CPUFit: timing.LinearFit{Overhead: 2e-6, OverheadCI: [2]float64{1.5e-6, 2.5e-6}, PerItem: 10e-9, DoF: 4},
		GPUFit: timing.LinearFit{Overhead: 1e-6, OverheadCI: [2]float64{0.5e-6, 1.5e-6}, PerItem: 0.5e-9, DoF: 4}}
	hc := Config{Sides: [2]experiment.SideSpec{{Label: "cpu", Kind: "cpu"}, {Label: "gpu", Kind: "gpu"}}}
	prof := &report.Report{Adapter: report.AdapterInfo{Name: "llvmpipe", Implementation: "wgpu-native"},
		Latency: &timing.Anatomy{Adapter: "llvmpipe", Calls: 390, Tiny: timing.Summary{N: 40, Median: rt, Lo: 55e-6, Hi: 65e-6}}}

	a, source := profileAnatomy(prof, "llvmpipe", "wgpu-native")
	if a != prof.Latency || !strings.Contains(source, "profile report") {
		t.Fatalf("same adapter and implementation: anatomy %v from %q, want the profile's", a, source)
	}
	old := *prof
	old.Adapter.Implementation = ""
	for name, c := range map[string]struct {
		rep           *report.Report
		adapter, impl string
	}{"another implementation": {prof, "llvmpipe", "dawn"}, "another adapter": {prof, "other", "wgpu-native"},
		"no implementation recorded": {&old, "llvmpipe", "wgpu-native"}, "no anatomy": {&report.Report{}, "llvmpipe", "wgpu-native"}, "no profile": {nil, "llvmpipe", "wgpu-native"}} {
		if a, _ := profileAnatomy(c.rep, c.adapter, c.impl); a != nil {
			t.Errorf("%s: took the profile's anatomy, want it measured", name)
		}
	}

	p := priorsOf(hc, be, a, source)
	if p.floor != [2]float64{0, rt} {
		t.Errorf("floors %v, want none for the CPU and the 60 µs round trip for the GPU", p.floor)
	}
	if len(p.costs) != 1 || p.costs[0].Side != "gpu" || p.costs[0].Used != "round trip" || p.costs[0].Check != "below round trip" || p.costs[0].RoundTrip != rt {
		t.Errorf("fixed costs %+v, want the GPU's prior on the round trip", p.costs)
	}
	for _, c := range []struct {
		floor [2]float64
		want  int
	}{{p.floor, 0}, {[2]float64{}, 1}} {
		r := &replay{hc: hc}
		ad, err := r.addStrategies(be, c.floor)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 16, 256} {
			if s := ad.d.Choose(n); s != c.want {
				t.Errorf("floors %v: n=%d goes to side %d before any call, want %d", c.floor, n, s, c.want)
			}
		}
		if s := ad.d.Choose(1 << 20); s != 1 {
			t.Errorf("floors %v: n=2^20 goes to side %d, want the GPU (its fit, above the floor)", c.floor, s)
		}
	}

	h := &report.Hybrid{Workload: "w", FixedCosts: p.costs}
	if l := priorLines(h); len(l) != 1 || !strings.Contains(l[0], "prior uses the round trip") || !strings.Contains(l[0], "from the profile report's latency anatomy") {
		t.Errorf("prior lines %q, want the round trip and its source", l)
	}
	// A pair of CPU sides has no GPU prior to floor.
	cc := Config{Sides: [2]experiment.SideSpec{{Label: "cpu:threads=1", Kind: "cpu"}, {Label: "cpu:threads=2", Kind: "cpu"}}}
	if q := priorsOf(cc, be, a, source); q.floor != [2]float64{} || len(q.costs) != 0 {
		t.Errorf("CPU pair: %+v, want no floor", q)
	}
}
