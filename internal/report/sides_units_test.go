package report_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// sideTime matches a side named with a time and its unit: "GPU 2.02 ms",
// "CPU 585 µs".
var sideTime = regexp.MustCompile(`\b(CPU|GPU|cpu:[a-z0-9=]+) [0-9][0-9.]* (ns|µs|ms|s)\b`)

// Every verdict line, whatever the verdict, names both sides with a time
// and its unit, and every batch size with what it counts: a reader never
// has to guess which number belongs to which side (the pairs of an
// inconclusive verdict once read CPU first with no names).
func TestEveryVerdictLineNamesBothSidesWithUnits(t *testing.T) {
	s := func(v ...float64) []timing.Summary {
		var out []timing.Summary
		for _, x := range v {
			out = append(out, timing.Summary{N: 10, Median: x, Lo: 0.95 * x, Hi: 1.05 * x})
		}
		return out
	}
	to := 4096
	// The reason of an inconclusive verdict comes from JudgeCrossover, as
	// in a run: two measurements of one size with opposite winners.
	pt := func(n int, a, b float64) timing.SearchPoint {
		p := timing.SearchPoint{N: n, A: s(a)[0], B: s(b)[0]}
		p.Faster = timing.Faster(p.A, p.B)
		return p
	}
	v := timing.JudgeCrossover([]timing.SearchPoint{pt(256, 1e-3, 2e-3), pt(1024, 2.02e-3, 585e-6), pt(4096, 9e-3, 3e-3)},
		map[int]timing.SearchPoint{1024: pt(1024, 11.3e-6, 439e-6)}, "CPU", "GPU", 0.99, 0.99, timing.Policy{})
	if v.Kind != timing.VerdictInconclusive {
		t.Fatalf("JudgeCrossover: %+v, want inconclusive", v)
	}
	base := report.BreakEven{Workload: "cosine-single", Batch: "n", Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		Batches: []int{256, 1024, 4096}, CPU: s(1e-3, 2.02e-3, 9e-3), GPU: s(2e-3, 585e-6, 3e-3)}
	cases := map[string]report.BreakEven{}
	be := base
	be.Verdict, be.Reason = v.Kind, v.Reason
	cases["inconclusive, measured twice"] = be
	be = base
	be.Verdict, be.Reason = timing.VerdictInconclusive, "cpu and gpu are statistically indistinguishable at every size measured, 256 to 4096"
	cases["inconclusive, indistinguishable"] = be
	be = base
	be.Verdict, be.Interval, be.BFaster = timing.VerdictCrossover, []int{256, 1024}, &report.Range{From: 1024}
	cases["crossover from"] = be
	be = base
	be.Verdict, be.Interval, be.BFaster = timing.VerdictCrossover, []int{256, 1024}, &report.Range{From: 1024, To: &to}
	cases["crossover bounded"] = be
	be = base
	be.Verdict, be.Interval, be.GPU = timing.VerdictNever, []int{256, 4096}, s(3e-3, 4e-3, 20e-3)
	cases["never"] = be
	be = base
	be.Verdict, be.Interval, be.CPU = timing.VerdictAlways, []int{256, 4096}, s(3e-3, 4e-3, 20e-3)
	cases["always"] = be
	be = base
	be.Batch, be.Sides = "q", []string{"cpu:threads=1", "cpu:threads=2"}
	be.Verdict, be.Interval = timing.VerdictNever, []int{256, 4096}
	cases["two CPU sides, queries"] = be
	for name, be := range cases {
		line := report.VerdictLine(be)
		got := sideTime.FindAllStringSubmatch(line, -1)
		sides := map[string]bool{}
		for _, m := range got {
			sides[m[1]] = true
		}
		if len(sides) < 2 {
			t.Errorf("%s: %q names %d side(s) with a time and unit (%v), want both", name, line, len(sides), got)
		}
		unit := "rows"
		if be.Batch == "q" {
			unit = "queries"
		}
		if !strings.Contains(line, unit) {
			t.Errorf("%s: %q does not say what the batch counts (%s)", name, line, unit)
		}
	}
	// The pairs of a disputed size lead with the faster side, named.
	line := report.VerdictLine(cases["inconclusive, measured twice"])
	for _, want := range []string{"first GPU faster (GPU 585 µs", "vs CPU 2.02 ms", "then CPU faster (CPU 11.3 µs", "vs GPU 439 µs"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q: want %q", line, want)
		}
	}
}

// The --batch-mix answer routes nothing when the verdict is inconclusive
// and says so; a routed mix names the crossover with what it counts and
// the saving with its CI.
func TestMixAnswer(t *testing.T) {
	be := report.BreakEven{Workload: "cosine-batch", Batch: "q", Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		Verdict: timing.VerdictInconclusive,
		Mix:     &report.MixResult{File: "q.txt", Calls: 1000, Distinct: 3, PerThousandA: 2e-3, PerThousandB: 9e-3, PerThousandRouted: 2e-3}}
	got := report.MixAnswer(be)
	for _, want := range []string{"routes no call to the GPU: the break-even is inconclusive", "CPU-only 2.00 ms", "GPU-only 9.00 ms", "no saving"} {
		if !strings.Contains(got, want) {
			t.Errorf("MixAnswer = %q, want %q", got, want)
		}
	}
	be.Verdict = timing.VerdictCrossover
	be.Mix = &report.MixResult{File: "q.txt", Calls: 1000, Distinct: 3, Crossover: 64, ShareAbove: 0.2,
		PerThousandA: 2e-3, PerThousandB: 9e-3, PerThousandRouted: 1.5e-3, Saving: 0.25, SavingLo: 0.2, SavingHi: 0.3}
	got = report.MixAnswer(be)
	for _, want := range []string{"routes calls of q ≥ 64 queries to the GPU (20% of calls)", "saves 25.0% (95% CI 20.0% … 30.0%) against CPU-only"} {
		if !strings.Contains(got, want) {
			t.Errorf("MixAnswer = %q, want %q", got, want)
		}
	}
	if s, err := report.AmdahlAnswer(report.BreakEven{Workload: "w", Batch: "n", Batches: []int{1, 8192},
		CPU: []timing.Summary{{N: 5, Median: 1, Lo: 1, Hi: 1}, {N: 5, Median: 4e-3, Lo: 3.8e-3, Hi: 4.2e-3}},
		GPU: []timing.Summary{{N: 5, Median: 1, Lo: 1, Hi: 1}, {N: 5, Median: 1e-3, Lo: 0.9e-3, Hi: 1.1e-3}}}, 0.5); err != nil ||
		!strings.Contains(s, "at n = 8192 rows (GPU 1.00 ms vs CPU 4.00 ms)") || !strings.Contains(s, "1.60× as fast (95% CI 1.55× … 1.65×)") {
		t.Errorf("AmdahlAnswer = %q, %v", s, err)
	}
}
