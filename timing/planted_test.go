package timing_test

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// The Fieller interval uses Student's t at the smaller of the two fits'
// degrees of freedom: with DoF 3 and 30, t(3) = 3.1824 (t(30) = 2.0423,
// t(33) = 2.0345 give visibly narrower intervals).
func TestFiellerDegreesOfFreedom(t *testing.T) {
	cpu := timing.LinearFit{Overhead: 1e-6, PerItem: 2e-6, SEOverhead: 0.2e-6, SEPerItem: 0.05e-6, Cov: -1e-15, DoF: 30}
	gpu := timing.LinearFit{Overhead: 50e-6, PerItem: 0.5e-6, SEOverhead: 3e-6, SEPerItem: 0.02e-6, Cov: -2e-14, DoF: 3}
	c := timing.CrossoverOf(cpu, gpu)
	a := gpu.Overhead - cpu.Overhead
	b := cpu.PerItem - gpu.PerItem
	va := cpu.SEOverhead*cpu.SEOverhead + gpu.SEOverhead*gpu.SEOverhead
	vb := cpu.SEPerItem*cpu.SEPerItem + gpu.SEPerItem*gpu.SEPerItem
	cab := -gpu.Cov - cpu.Cov
	const q = 3.182446305284263 // t(0.975, 3)
	qa, qb, qc := b*b-q*q*vb, a*b-q*q*cab, a*a-q*q*va
	sq := math.Sqrt(qb*qb - qa*qc)
	lo, hi := (qb-sq)/qa, (qb+sq)/qa
	if c.Kind != timing.CrossAt || math.Abs(c.N-a/b) > 1e-9*c.N {
		t.Fatalf("crossover %+v, want at %g", c, a/b)
	}
	if math.Abs(c.Lo-lo) > 1e-6*lo || math.Abs(c.Hi-hi) > 1e-6*hi {
		t.Errorf("interval [%g, %g], want [%g, %g] (t at DoF 3)", c.Lo, c.Hi, lo, hi)
	}
}

// The outlier warning fires past max = 2× median, not at it.
func TestOutlierWarningBoundary(t *testing.T) {
	warned := func(last float64) bool {
		s := timing.Summarize(append(repeat(1, 300), last))
		for _, w := range s.Warnings {
			if strings.HasPrefix(w, "max > 2× median") {
				return true
			}
		}
		return false
	}
	if warned(2.0) {
		t.Error("max exactly 2× the median warned")
	}
	if !warned(2.01) {
		t.Error("max 2.01× the median did not warn")
	}
	if warned(1.9) {
		t.Error("max 1.9× the median warned")
	}
}

// Times far outside the ns..s range print in scientific notation rather
// than as 0 or a 20-digit number.
func TestFormatSecondsExtremes(t *testing.T) {
	for v, want := range map[float64]string{
		3e19: "3e+19s", 1e-25: "1e-25s", 0: "0s", 1.5e-9: "1.50ns", 2.5: "2.50s", 12345: "12345s",
		math.Inf(1): "+Inf", math.NaN(): "NaN",
	} {
		if got := timing.FormatSeconds(v); got != want {
			t.Errorf("FormatSeconds(%g) = %q, want %q", v, got, want)
		}
	}
}
