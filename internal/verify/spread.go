// Package verify holds float64 references with rigorous error bounds for
// the kernels whose results cannot be compared with a single tolerance.
// It is shared by the conformance tests and by wgpu-prof's own checks of
// every result it times.
package verify

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// SpreadInterval is the float64 reference of spreading activation with an
// error radius per node: every value a float32 implementation may produce
// (sums in any order, with or without FMA) lies in [Lo[i], Hi[i]].
//
// One step maps the intervals: the float32 rounding of node i is bounded
// by (deg_i+4)·u·(r|a_i| + |f|·Σ|w_ji a_j|), doubled for safety, and the
// inputs' radii propagate through r and |f|·Σ|w|. clamp01 maps an interval
// to its clamped ends. Thresholding is where rounding can flip a result:
// when the interval straddles θ an implementation may return 0 or a value
// ≥ θ, so the interval becomes [0, hi] (either answer accepted, and the
// uncertainty is carried to the nodes it feeds).
type SpreadInterval struct {
	g      ops.CSR
	Lo, Hi []float64
}

// NewSpreadInterval starts from the exact activations a0.
func NewSpreadInterval(g ops.CSR, a0 []float32) *SpreadInterval {
	s := &SpreadInterval{g: g, Lo: make([]float64, len(a0)), Hi: make([]float64, len(a0))}
	for i, x := range a0 {
		s.Lo[i], s.Hi[i] = float64(x), float64(x)
	}
	return s
}

// Step applies one step with retention r, factor f = (1−r)·δ (as the
// implementation computes it in float32) and threshold th. It returns, per
// node, the range of |a'−a| an implementation may have seen.
func (s *SpreadInterval) Step(r, f, th float32) (minChange, maxChange []float64) {
	const u = 1.0 / (1 << 24)
	g := s.g
	n := len(g.Offsets) - 1
	rr, ff, tt := float64(r), float64(f), float64(th)
	lo, hi := make([]float64, n), make([]float64, n)
	minChange, maxChange = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		e0, e1 := g.Offsets[i], g.Offsets[i+1]
		var sum, abs, rad float64
		for e := e0; e < e1; e++ {
			w := float64(g.Weights[e])
			j := g.Cols[e]
			c, h := (s.Lo[j]+s.Hi[j])/2, (s.Hi[j]-s.Lo[j])/2
			sum += w * c
			abs += math.Abs(w) * (math.Abs(c) + h)
			rad += math.Abs(w) * h
		}
		ci, ei := (s.Lo[i]+s.Hi[i])/2, (s.Hi[i]-s.Lo[i])/2
		x := rr*ci + ff*sum
		round := 2 * float64(e1-e0+4) * u * (rr*(math.Abs(ci)+ei) + math.Abs(ff)*abs)
		xr := rr*ei + math.Abs(ff)*rad + round + 1e-30
		l, h := clamp01(x-xr), clamp01(x+xr)
		switch {
		case h < tt:
			l, h = 0, 0
		case l < tt:
			l = 0
		}
		lo[i], hi[i] = l, h
		maxChange[i] = math.Max(math.Abs(h-s.Lo[i]), math.Abs(s.Hi[i]-l))
		minChange[i] = math.Max(0, math.Max(l-s.Hi[i], s.Lo[i]-h))
	}
	s.Lo, s.Hi = lo, hi
	return minChange, maxChange
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// Check returns an error naming the first node outside its interval; NaN
// never passes.
func (s *SpreadInterval) Check(what string, got []float32) error {
	if len(got) != len(s.Lo) {
		return fmt.Errorf("%s: %d values, want %d", what, len(got), len(s.Lo))
	}
	for i, x := range got {
		v := float64(x)
		if math.IsNaN(v) || v < s.Lo[i] || v > s.Hi[i] {
			return fmt.Errorf("%s: a[%d] = %v, want %v (accepted range [%v, %v])", what, i, x, (s.Lo[i]+s.Hi[i])/2, s.Lo[i], s.Hi[i])
		}
	}
	return nil
}

// Counts returns how many nodes the current step leaves active (their
// accepted range reaches above 0) and saturated (their range reaches the
// clamp at 1): the activity a spreading workload reports per step, so a
// run whose state has collapsed to all-zero or all-one is visible.
func (s *SpreadInterval) Counts() (active, saturated int) {
	for i := range s.Hi {
		if s.Hi[i] > 0 {
			active++
		}
		if s.Hi[i] >= 1 {
			saturated++
		}
	}
	return active, saturated
}
