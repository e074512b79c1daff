package report_test

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A significant slowdown smaller than the threshold is neither a
// regression nor an improvement: a regression gate must never call a
// slower build improved. Only a significant speed-up past the threshold
// is an improvement.
func TestCompareSmallSlowdownIsNotAnImprovement(t *testing.T) {
	old := &report.Report{Measurements: []report.Measurement{ciRow(1)}}
	for _, c := range []struct {
		new               float64
		regression, impro bool
	}{
		{1.03, false, false}, // slower, within the 5% threshold
		{1.08, true, false},  // slower, past it
		{0.97, false, false}, // faster, within it
		{0.90, false, true},  // faster, past it
	} {
		cur := &report.Report{Measurements: []report.Measurement{ciRow(c.new)}}
		res := report.Compare(old, cur, 0.05)
		r := res.Rows[0]
		if !r.Significant {
			t.Fatalf("set-up: new/old %v not significant", c.new)
		}
		if r.Regression != c.regression || r.Improvement != c.impro || res.Regressed != c.regression {
			t.Errorf("new/old %v at a 5%% threshold: regression %v improvement %v, want %v and %v", c.new, r.Regression, r.Improvement, c.regression, c.impro)
		}
	}
}

// verdictBE is a break-even of cpu (A) against gpu (B) at the given sizes
// and medians, with ±5% intervals.
func verdictBE(batches []int, cpu, gpu []float64) report.BreakEven {
	s := func(v []float64) []timing.Summary {
		var out []timing.Summary
		for _, x := range v {
			out = append(out, timing.Summary{N: 10, Median: x, Lo: 0.95 * x, Hi: 1.05 * x})
		}
		return out
	}
	return report.BreakEven{Workload: "cosine-single", Batch: "n", Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		Batches: batches, CPU: s(cpu), GPU: s(gpu)}
}

// An inconclusive verdict is never marked firm (nor is it stated as a
// winner): it decides nothing, however steady its medians.
func TestInconclusiveVerdictIsNotFirm(t *testing.T) {
	be := verdictBE([]int{1, 4, 16}, []float64{1, 6, 8}, []float64{3, 3, 40})
	be.Verdict, be.Interval = timing.VerdictInconclusive, []int{1, 16}
	be.Reason = "the faster side changes 2 times"
	for _, tentative := range []bool{false, true} {
		be.Tentative = tentative
		got := report.VerdictLine(be)
		if strings.Contains(got, "[firm]") || !strings.Contains(got, "inconclusive") || !strings.Contains(got, be.Reason) {
			t.Errorf("tentative %v: %q, want inconclusive with its reason and no [firm]", tentative, got)
		}
	}
	// A decided, steady verdict is marked firm.
	be.Verdict, be.Tentative = timing.VerdictNever, false
	be.CPU, be.GPU = be.CPU[:1], be.GPU[:1]
	be.Batches = be.Batches[:1]
	if got := report.VerdictLine(be); !strings.Contains(got, "[firm]") {
		t.Errorf("a steady never: %q, want [firm]", got)
	}
}

// The answer of a crossover unbounded above says where B becomes faster
// (the verdict's BFaster.From), not the low end of the measured bracket.
func TestUnboundedCrossoverSaysWhereBIsFaster(t *testing.T) {
	be := verdictBE([]int{256, 1024, 4096, 16384}, []float64{1, 2, 8, 32}, []float64{3, 4, 4, 5})
	be.Verdict, be.Interval = timing.VerdictCrossover, []int{1024, 4096}
	be.BFaster = &report.Range{From: 4096}
	got := report.Answer(be)
	if !strings.Contains(got, "4096") || !strings.Contains(got, "GPU") {
		t.Fatalf("answer %q: does not name 4096, where the GPU is faster from", got)
	}
	// The sentence states the start of B's range once as where B is
	// faster: the bracket's low end (1024) is never given as that start.
	for _, bad := range []string{"from n = 1024", "from 1024", "from n ≈ 1024", "above 1024"} {
		if strings.Contains(got, bad) {
			t.Errorf("answer %q gives the bracket's low end as where the GPU is faster (%q)", got, bad)
		}
	}
	if strings.Count(got, "4096") < 2 {
		t.Errorf("answer %q: 4096 should appear as where the GPU is faster and as the bracket's high end", got)
	}
}
