package timing_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// The CV warning fires past DefaultWarnCV (5%), not at twice it: a CV of
// 7% is flagged, one of 3% is not.
func TestCVWarningThreshold(t *testing.T) {
	warned := func(cv float64) bool {
		// Two values a·(1 ± x): CV = x·√2 (sample standard deviation).
		x := cv / math.Sqrt2
		s, err := timing.SummarizeErr([]float64{1 - x, 1 + x, 1 - x, 1 + x, 1 - x, 1 + x})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range s.Warnings {
			if strings.HasPrefix(w, "CV >") {
				return true
			}
		}
		return false
	}
	if !warned(0.07) {
		t.Error("CV 7% not flagged (threshold 5%)")
	}
	if warned(0.03) {
		t.Error("CV 3% flagged (threshold 5%)")
	}
	// And a caller's own threshold is the one applied.
	s, _ := timing.SummarizeCV([]float64{0.9, 1.1, 0.9, 1.1, 0.9, 1.1}, 0.2)
	for _, w := range s.Warnings {
		if strings.HasPrefix(w, "CV >") {
			t.Errorf("CV ~11%% flagged against a 20%% threshold: %q", w)
		}
	}
}

// A prediction is valid over the batch range both models were fitted on:
// the intersection of their ranges, not the union.
func TestPredictionValidRangeIsTheIntersection(t *testing.T) {
	line := func(n []float64, t0, b float64) timing.Model {
		ts := make([]float64, len(n))
		for i, x := range n {
			ts[i] = t0 + b*x
		}
		m, err := timing.FitModel(n, ts, timing.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := line([]float64{1, 10, 30, 100}, 1e-6, 1e-6)
	b := line([]float64{10, 100, 300, 1000}, 5e-5, 1e-7)
	p := timing.PredictCrossover(a, b)
	if p.ValidFrom != 10 || p.ValidTo != 100 {
		t.Errorf("valid over %v–%v, want 10–100 (the models' ranges [1,100] and [10,1000] meet there)", p.ValidFrom, p.ValidTo)
	}
	// The crossover (about 54) lies inside it: not extrapolated.
	if p.Kind != timing.CrossAt || p.Extrapolated {
		t.Errorf("prediction %+v", p)
	}
}

// A knee is kept only where it cuts the single line's weighted residuals
// by KneeGain: a noisy straight line (R² below KneeR2, so only the gain
// rule can refuse the knee) keeps one segment.
func TestKneeNeedsItsGain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var n, ts []float64
	for i := 1; i <= 16; i++ {
		x := float64(i * 100)
		n = append(n, x)
		ts = append(ts, (1e-4+1e-6*x)*(1+0.3*r.NormFloat64()))
	}
	m, err := timing.FitModel(n, ts, timing.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if kneeR2 := (timing.Policy{}).WithDefaults().KneeR2; m.Single.R2 >= kneeR2 {
		t.Fatalf("set-up: R² %v, want below %v", m.Single.R2, kneeR2)
	}
	if m.Knee != 0 || len(m.Segments) != 1 {
		t.Errorf("noisy line given a knee at %v (%d segments)", m.Knee, len(m.Segments))
	}
}

// When the per-item costs do not differ significantly, Fieller's interval
// of the crossover is unbounded above (Hi = +Inf): the data cannot rule out
// parallel lines.
func TestFiellerUnboundedInterval(t *testing.T) {
	cpu := timing.LinearFit{Overhead: 1e-5, PerItem: 1.0e-6, SEOverhead: 1e-7, SEPerItem: 1e-6, DoF: 10}
	gpu := timing.LinearFit{Overhead: 1e-3, PerItem: 0.9e-6, SEOverhead: 1e-6, SEPerItem: 1e-6, DoF: 10}
	c := timing.CrossoverOf(cpu, gpu)
	if c.Kind != timing.CrossAt || math.Abs(c.N-9900) > 1 {
		t.Fatalf("set-up: %+v", c)
	}
	if !math.IsInf(c.Hi, 1) || !(c.Lo <= c.N) || math.IsNaN(c.Lo) {
		t.Errorf("insignificant per-item difference: interval [%v, %v], want [≤ N, +Inf)", c.Lo, c.Hi)
	}
	// A significant difference gives a bounded interval around N.
	cpu.SEPerItem, gpu.SEPerItem = 1e-9, 1e-9
	if c := timing.CrossoverOf(cpu, gpu); math.IsInf(c.Hi, 0) || !(c.Lo < c.N && c.N < c.Hi) {
		t.Errorf("significant difference: interval [%v, %v] around %v", c.Lo, c.Hi, c.N)
	}
}

// Convergence needs every trusted clock within the target: a steady host
// clock with a noisy (but trusted) kernel clock does not converge, so the
// measurement runs on to its cap.
func TestConvergenceWaitsForTheKernelClock(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	fn := func() (timing.Sample, error) {
		k := time.Duration(float64(500*time.Microsecond) * (1 + 0.3*r.Float64()))
		return timing.Sample{Host: time.Millisecond, Kernel: k, HasKernel: true}, nil
	}
	res, err := timing.Measure(timing.MeasureOpts{MaxRuns: 40, Budget: time.Hour}, fn)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kernel == nil {
		t.Fatal("set-up: kernel clock dropped")
	}
	if res.Stop == timing.StopConverged {
		t.Errorf("stopped as converged after %d runs with the kernel clock at ±%.0f%%", len(res.Samples), 100*res.Kernel.RelHalfWidth())
	}
}
