package timing

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// The anatomy's priors, by hand: launch and per-dispatch from the fit,
// transfers interpolated between measured sizes and extrapolated by the
// fit's slope, and the round trip of a call beyond the tiny call's own
// transfers.
func TestAnatomyPriors(t *testing.T) {
	pt := func(b uint64, sec float64) TransferPoint {
		return TransferPoint{Bytes: b, Time: Summary{N: 10, Median: sec}}
	}
	a := &Anatomy{
		Tiny:        Summary{N: 10, Median: 60e-6},
		DispatchFit: LinearFit{Overhead: 50e-6, PerItem: 5e-6, DoF: 5},
		Readback:    []TransferPoint{pt(4, 10e-6), pt(1024, 20e-6), pt(1<<20, 1e-3)},
		ReadbackFit: LinearFit{PerItem: 1e-9},
		Upload:      []TransferPoint{pt(4, 2e-6), pt(1<<20, 502e-6)},
		UploadFit:   LinearFit{PerItem: 0.5e-9},
	}
	if got := a.Launch(); !near(got, 50e-6) {
		t.Errorf("Launch = %g, want 50µs", got)
	}
	if got := a.PerDispatch(); !near(got, 5e-6) {
		t.Errorf("PerDispatch = %g, want 5µs", got)
	}
	// Halfway between 4 B and 1024 B: 15 µs; at a point: its median.
	if got := a.ReadbackTime(514); !near(got, 15e-6) {
		t.Errorf("ReadbackTime(514) = %g, want 15µs", got)
	}
	if got := a.ReadbackTime(1024); !near(got, 20e-6) {
		t.Errorf("ReadbackTime(1024) = %g, want 20µs", got)
	}
	// Past the last size: + 1 ns per byte.
	if got := a.ReadbackTime(1<<20 + 1000); !near(got, 1e-3+1000e-9) {
		t.Errorf("ReadbackTime past the curve = %g, want 1.001ms", got)
	}
	// Below the first size: never negative.
	if got := a.UploadTime(0); got < 0 || got > 2e-6 {
		t.Errorf("UploadTime(0) = %g, want in [0, 2µs]", got)
	}
	// 3 dispatches, 16 B up (the tiny call's own), 1024 B down:
	// 50 + 3·5 + 0 + (20 − 10) µs.
	if got := a.RoundTrip(3, 16, 1024); !near(got, 75e-6) {
		t.Errorf("RoundTrip(3, 16, 1024) = %g, want 75µs", got)
	}
	// Without a fit the tiny call's median is the launch cost.
	b := &Anatomy{Tiny: Summary{N: 3, Median: 60e-6}}
	if got := b.Launch(); !near(got, 60e-6) {
		t.Errorf("Launch without a fit = %g, want the tiny call's 60µs", got)
	}
	var nilA *Anatomy
	if nilA.Launch() != 0 || nilA.RoundTrip(1, 1, 1) != 0 || nilA.UploadTime(5) != 0 {
		t.Error("a nil anatomy must give zero costs")
	}
}
