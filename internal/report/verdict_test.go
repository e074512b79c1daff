package report_test

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestDisplayParamsSummarisesSteps(t *testing.T) {
	ps := []report.Param{{Key: "nodes", Value: "10000"}, {Key: "active", Value: "169/2313/9491/10000/9000"}, {Key: "saturated", Value: "0/0/0/0/0"}}
	if got, want := report.DisplayParams(ps), "nodes=10000 active=9000 (peak 10000) saturated=0"; got != want {
		t.Errorf("DisplayParams = %q, want %q", got, want)
	}
}

// Warnings are aggregated one line per kind, with the count and the worst
// case; informational notes are dropped.
func TestAggregateWarnings(t *testing.T) {
	r := &report.Report{Warnings: []string{"run-level", "mc wg 64 B: CV > 5%: CV = 156.8%"}}
	for i, cv := range []string{"12.0", "89.3", "30.1"} {
		r.Measurements = append(r.Measurements, report.Measurement{
			Workload: "w", Side: "cpu", Variant: string(rune('a' + i)),
			Warnings: []string{"judged against the llc ceilings (working set 25.2 MB)"},
			EndToEnd: timing.Summary{Warnings: []string{"CV > 5%: CV = " + cv + "%"}},
		})
	}
	got := report.AggregateWarnings(r)
	if len(got) != 2 || got[0] != "run-level" || !strings.Contains(got[1], "CV > 5%: 4 times; worst: mc wg 64 B: CV > 5%: CV = 156.8%") {
		t.Errorf("AggregateWarnings = %q", got)
	}
}

// A verdict line names both sides with the data regime, the clock, the
// answer with its interval and the confidence.
func TestVerdictLine(t *testing.T) {
	s := func(v ...float64) []timing.Summary {
		var out []timing.Summary
		for _, x := range v {
			out = append(out, timing.Summary{N: 10, Median: x, Lo: 0.95 * x, Hi: 1.05 * x})
		}
		return out
	}
	to := 4096
	be := report.BreakEven{Workload: "cosine-single", Batch: "n", Clock: "end-to-end", Sides: []string{"cpu", "gpu:data=shipped"},
		Batches: []int{256, 320, 1024, 4096, 8192}, CPU: s(1, 2, 4, 8, 16), GPU: s(3, 1, 2, 9, 30),
		Verdict: timing.VerdictCrossover, Interval: []int{256, 320}, BFaster: &report.Range{From: 320, To: &to}, Tentative: true}
	got := report.VerdictLine(be)
	for _, want := range []string{"cosine-single, GPU (data shipped per call) vs CPU, end to end", "GPU faster only in [320, 4096)", "[tentative"} {
		if !strings.Contains(got, want) {
			t.Errorf("VerdictLine = %q, want %q in it", got, want)
		}
	}
	be.Verdict, be.BFaster, be.Interval, be.GPU = timing.VerdictNever, nil, []int{256, 8192}, s(3, 4, 8, 16, 32)
	if got := report.VerdictLine(be); !strings.Contains(got, "never: CPU faster at every size measured, n = 256 … 8192 rows, by 2.0× to 3.0× (at n = 8192 rows: CPU 16.0 s vs GPU 32.0 s)") {
		t.Errorf("VerdictLine = %q", got)
	}
}

// The roofline plot judges each point against the roof the tables name:
// the read ceiling of its own working set under its side's FMA peak; a
// point above it is named so in the legend.
func TestRooflineOfOwnRoof(t *testing.T) {
	r := &report.Report{Ceilings: report.Ceilings{
		GPU: map[string]float64{"read_gbs": 10, "read_gbs_llc": 15, "fma_gflops": 70},
		CPU: map[string]float64{"read_gbs": 100, "read_gbs_l2": 400, "fma_gflops": 500},
	}}
	r.Measurements = []report.Measurement{
		{Workload: "w", Side: "gpu", Bytes: 1e6, Flops: 1e6, EndToEnd: timing.Summary{N: 10, Median: 1e-4, Lo: 1e-4, Hi: 1e-4}, ReadCeiling: "read_gbs_llc", Bound: "memory", CeilingFrac: 0.66},
		{Workload: "w", Side: "cpu", Bytes: 1e6, Flops: 1e6, EndToEnd: timing.Summary{N: 10, Median: 2e-6, Lo: 2e-6, Hi: 2e-6}, ReadCeiling: "read_gbs_l2", Bound: "memory", CeilingFrac: 1.25},
	}
	roofs, points := report.RooflineOf(r)
	bw := map[string]float64{}
	for _, s := range roofs {
		bw[s.Label] = s.Roof.BandwidthGBs
	}
	if len(points) != 2 || bw[points[0].Roof] != 15 || bw[points[1].Roof] != 400 {
		t.Fatalf("roofs %v, points %+v: want the GPU point under its llc roof (15 GB/s) and the CPU point under its l2 roof (400 GB/s)", roofs, points)
	}
	if !strings.Contains(points[1].Note, "ABOVE its roof: 125% of CPU read (l2) 400 GB/s") {
		t.Errorf("point above its roof: note %q", points[1].Note)
	}
	if len(roofs) != 2 {
		t.Errorf("roofs %v: want only the two roofs the points are judged against", roofs)
	}
}
