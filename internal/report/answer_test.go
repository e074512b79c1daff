package report_test

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestAnswerLeadsWithTheOutcome(t *testing.T) {
	sum := func(v ...float64) []timing.Summary {
		var out []timing.Summary
		for _, x := range v {
			out = append(out, timing.Summary{N: 10, Median: x, Lo: x * 0.99, Hi: x * 1.01})
		}
		return out
	}
	hi := 20000.0
	be := report.BreakEven{Workload: "w", Batch: "n", Clock: "end-to-end", Batches: []int{1000, 4000, 16000, 64000},
		CPU: sum(1e-4, 4e-4, 1.6e-3, 6.4e-3), GPU: sum(3e-3, 3.1e-3, 1.5e-3, 2e-3),
		Fitted:   report.Crossover{Kind: timing.CrossAt, N: 12000, Lo: 10000, Hi: &hi},
		Measured: 16000, MeasuredFound: true}
	got := report.Answer(be)
	for _, want := range []string{"GPU faster end to end from n ≈ 12.0k", "measured between 4000 and 16.0k", "CPU is up to 30× faster"} {
		if !strings.Contains(got, want) {
			t.Errorf("Answer = %q, want it to contain %q", got, want)
		}
	}
	be.MeasuredFound = false
	be.Fitted = report.Crossover{Kind: timing.CrossNever}
	be.GPU = sum(3e-3, 3.1e-3, 3.2e-3, 6.5e-3)
	got = report.Answer(be)
	if !strings.HasPrefix(got, "CPU faster end to end over the whole measured range n = 1000 … 64.0k rows, by 1.0× to 30×") {
		t.Errorf("Answer = %q", got)
	}
}
