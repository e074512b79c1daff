package timing_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestFitLinearExact(t *testing.T) {
	n := []float64{1, 2, 4, 8, 16}
	ts := make([]float64, len(n))
	for i, x := range n {
		ts[i] = 2 + 3*x
	}
	f, err := timing.FitLinear(n, ts)
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.Overhead, 2, 1e-12) || !near(f.PerItem, 3, 1e-12) || !near(f.R2, 1, 1e-12) || f.DoF != 3 {
		t.Errorf("fit = %+v, want 2 + 3n", f)
	}
	if w := f.PerItemCI[1] - f.PerItemCI[0]; w > 1e-9 {
		t.Errorf("exact data gave CI width %v", w)
	}
}

func TestFitLinearWeightedOLSHandChecked(t *testing.T) {
	// Hand-computed ordinary least squares: x̄ = 1.5, ȳ = 2.75, Sxx = 5,
	// Sxy = 5.5 → b = 1.1, a = 1.1; residuals −0.1, 0.8, −1.3, 0.6 →
	// SSR = 2.7, s² = 1.35, SE(b) = √(1.35/5), SE(a) = √(1.35·(¼ + 2.25/5)),
	// t(0.975, 2) = 4.302653, Syy = 8.75, R² = 1 − 2.7/8.75.
	f, err := timing.FitLinearWeighted([]float64{0, 1, 2, 3}, []float64{1, 3, 2, 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seB, seA := math.Sqrt(1.35/5), math.Sqrt(1.35*0.7)
	const q = 4.302652729749464
	checks := []struct {
		name      string
		got, want float64
	}{
		{"a", f.Overhead, 1.1}, {"b", f.PerItem, 1.1},
		{"SE(a)", f.SEOverhead, seA}, {"SE(b)", f.SEPerItem, seB},
		{"Cov", f.Cov, -1.35 * 1.5 / 5},
		{"a lo", f.OverheadCI[0], 1.1 - q*seA}, {"a hi", f.OverheadCI[1], 1.1 + q*seA},
		{"b lo", f.PerItemCI[0], 1.1 - q*seB}, {"b hi", f.PerItemCI[1], 1.1 + q*seB},
		{"R2", f.R2, 1 - 2.7/8.75},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestFitLinearErrors(t *testing.T) {
	tests := []struct {
		name string
		n, t []float64
		want error
	}{
		{"too few", []float64{1, 2}, []float64{1, 2}, timing.ErrTooFewPoints},
		{"same n", []float64{4, 4, 4}, []float64{1, 2, 3}, timing.ErrTooFewPoints},
		{"zero time", []float64{1, 2, 3}, []float64{1, 0, 3}, timing.ErrBadPoint},
		{"NaN", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}, timing.ErrBadPoint},
		{"lengths", []float64{1, 2, 3}, []float64{1, 2}, timing.ErrBadPoint},
	}
	for _, tc := range tests {
		if _, err := timing.FitLinear(tc.n, tc.t); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestCrossoverHandChecked(t *testing.T) {
	point := func(ovh, per float64) timing.LinearFit {
		return timing.LinearFit{Overhead: ovh, PerItem: per,
			OverheadCI: [2]float64{ovh, ovh}, PerItemCI: [2]float64{per, per}}
	}
	tests := []struct {
		name      string
		cpu, gpu  timing.LinearFit
		kind      string
		n, lo, hi float64
	}{
		{"at", point(0, 10), point(100, 0.5), timing.CrossAt, 100 / 9.5, 100 / 9.5, 100 / 9.5},
		{"always", point(5, 10), point(1, 0.5), timing.CrossAlways, 0, 0, 0},
		{"never", point(5, 1), point(100, 2), timing.CrossNever, 0, 0, 0},
		{"equal lines", point(5, 1), point(5, 1), timing.CrossNever, 0, 0, 0},
		{"below", point(10, 1), point(0, 2), timing.CrossBelow, 10, 10, 10},
		{
			// Corners: a ∈ [90, 110], b ∈ [9, 11] → N ∈ [90/11, 110/9].
			"corners",
			timing.LinearFit{Overhead: 0, PerItem: 10, PerItemCI: [2]float64{9, 11}},
			timing.LinearFit{Overhead: 100, PerItem: 0, OverheadCI: [2]float64{90, 110}},
			timing.CrossAt, 10, 90.0 / 11, 110.0 / 9,
		},
	}
	for _, tc := range tests {
		c := timing.CrossoverOf(tc.cpu, tc.gpu)
		if c.Kind != tc.kind || !near(c.N, tc.n, 1e-12) || !near(c.Lo, tc.lo, 1e-12) || !near(c.Hi, tc.hi, 1e-12) {
			t.Errorf("%s: got %+v, want %s %v [%v, %v]", tc.name, c, tc.kind, tc.n, tc.lo, tc.hi)
		}
	}
	// Per-item CIs that overlap: the interval is unbounded above.
	c := timing.CrossoverOf(
		timing.LinearFit{Overhead: 0, PerItem: 10, PerItemCI: [2]float64{5, 15}},
		timing.LinearFit{Overhead: 100, PerItem: 9, PerItemCI: [2]float64{6, 12}})
	if c.Kind != timing.CrossAt || !math.IsInf(c.Hi, 1) || c.Lo != 0 {
		t.Errorf("insignificant slopes: %+v, want at with [0, +Inf]", c)
	}
}

// sweep returns times t = ovh + per·n with multiplicative Gaussian noise of
// relative size rel.
func sweep(r *rand.Rand, batches []float64, ovh, per, rel float64) []float64 {
	out := make([]float64, len(batches))
	for i, n := range batches {
		out[i] = (ovh + per*n) * (1 + rel*r.NormFloat64())
	}
	return out
}

func TestCrossoverRecoversSyntheticSweep(t *testing.T) {
	// CPU: 2 µs + 10 ns/item; GPU: 200 µs + 0.5 ns/item.
	// True crossover: 198 µs / 9.5 ns = 20842.1 items.
	const cpuOvh, cpuPer, gpuOvh, gpuPer = 2e-6, 10e-9, 200e-6, 0.5e-9
	truth := (gpuOvh - cpuOvh) / (cpuPer - gpuPer)
	var batches []float64
	for n := 1.0; n <= 1<<22; n *= 2 {
		batches = append(batches, n)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 42))
		cpu, err := timing.FitLinear(batches, sweep(r, batches, cpuOvh, cpuPer, 0.03))
		if err != nil {
			t.Fatal(err)
		}
		gpu, err := timing.FitLinear(batches, sweep(r, batches, gpuOvh, gpuPer, 0.03))
		if err != nil {
			t.Fatal(err)
		}
		c := timing.CrossoverOf(cpu, gpu)
		if c.Kind != timing.CrossAt {
			t.Fatalf("seed %d: kind %q", seed, c.Kind)
		}
		if e := math.Abs(timing.RelError(c.N, truth)); e > 0.05 {
			t.Errorf("seed %d: crossover %.0f, truth %.0f, error %.1f%% > 5%%", seed, c.N, truth, 100*e)
		}
		if !(c.Lo < c.N && c.N < c.Hi) || c.Lo > truth*1.2 || c.Hi < truth*0.8 || math.IsInf(c.Hi, 0) {
			t.Errorf("seed %d: interval [%.0f, %.0f] around %.0f implausible (truth %.0f)", seed, c.Lo, c.Hi, c.N, truth)
		}
	}
}

func sum(median, rel float64) timing.Summary {
	return timing.Summary{N: 10, Median: median, Lo: median * (1 - rel), Hi: median * (1 + rel)}
}

func TestMeasuredCrossover(t *testing.T) {
	batches := []int{1, 10, 100, 1000}
	cpu := []timing.Summary{sum(1, 0.05), sum(10, 0.05), sum(100, 0.05), sum(1000, 0.05)}
	tests := []struct {
		name    string
		batches []int
		cpu     []timing.Summary
		gpu     []timing.Summary
		n       int
		found   bool
	}{
		{"clean", batches, cpu, []timing.Summary{sum(50, .05), sum(50, .05), sum(60, .05), sum(80, .05)}, 100, true},
		{"overlapping CIs do not count", batches, cpu, []timing.Summary{sum(50, .05), sum(50, .05), sum(98, .05), sum(80, .05)}, 1000, true},
		{"lucky point then loss", batches, cpu, []timing.Summary{sum(50, .05), sum(5, .05), sum(200, .05), sum(80, .05)}, 1000, true},
		{"never", batches, cpu, []timing.Summary{sum(50, .05), sum(50, .05), sum(200, .05), sum(2000, .05)}, 0, false},
		{"always", batches, cpu, []timing.Summary{sum(0.5, .05), sum(5, .05), sum(50, .05), sum(500, .05)}, 1, true},
		{"unsorted input", []int{1000, 1, 100, 10}, []timing.Summary{cpu[3], cpu[0], cpu[2], cpu[1]},
			[]timing.Summary{sum(80, .05), sum(50, .05), sum(60, .05), sum(50, .05)}, 100, true},
		{"length mismatch", batches, cpu[:3], cpu, 0, false},
		{"invalid summary", batches, cpu, []timing.Summary{sum(50, .05), sum(50, .05), sum(60, .05), {}}, 0, false},
	}
	for _, tc := range tests {
		n, found := timing.MeasuredCrossover(tc.batches, tc.cpu, tc.gpu)
		if n != tc.n || found != tc.found {
			t.Errorf("%s: got %d, %v; want %d, %v", tc.name, n, found, tc.n, tc.found)
		}
	}
}

func TestRelError(t *testing.T) {
	tests := []struct{ f, m, want float64 }{{110, 100, 0.1}, {90, 100, -0.1}, {0, 0, 0}, {1, 0, math.Inf(1)}}
	for _, tc := range tests {
		if got := timing.RelError(tc.f, tc.m); !near(got, tc.want, 1e-12) {
			t.Errorf("RelError(%v, %v) = %v, want %v", tc.f, tc.m, got, tc.want)
		}
	}
}
